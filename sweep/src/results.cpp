#include "agpu/sweep/results.hpp"

#include <fstream>
#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/sweep/point.hpp"
#include "agpu/sweep/runner.hpp"

namespace agpu::sweep {

namespace fs = std::filesystem;
using json = nlohmann::json;

results read_results(const fs::path& path_in) {
    fs::path path = path_in;
    std::error_code ec;
    if (fs::is_directory(path, ec)) path /= results_file;
    results r;
    r.source = path.string();
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(r.source, "cannot open sweep results (agpu sweep writes them: points.jsonl)");
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::size_t line_no = 0;
    for (std::size_t at = 0; at < text.size();) {
        ++line_no;
        const std::string where = r.source + ":" + std::to_string(line_no);
        const auto end = text.find('\n', at);
        if (end == std::string::npos) throw input_error(where, "the last line has no line end (a torn line)");
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        json j;
        try {
            j = json::parse(line);
        } catch (const json::exception& e) {
            throw input_error(where, std::string("not a whole JSON object (") + e.what() + ")");
        }
        if (!j.is_object() || j.value("schema", "") != point_schema)
            throw input_error(where + ": field schema", std::string("must be \"") + point_schema + "\"");
        for (const char* k : {"key", "point", "status", "result"})
            if (!j.contains(k)) throw input_error(where + ": field " + k, "is required");
        r.lines.push_back(std::move(j));
    }
    const fs::path summary = path.parent_path() / summary_file;
    std::ifstream sin(summary, std::ios::binary);
    if (sin) {
        try {
            r.summary = json::parse(sin);
        } catch (const json::exception& e) {
            throw input_error(summary.string(), std::string("not valid JSON (") + e.what() + ")");
        }
    }
    return r;
}

}  // namespace agpu::sweep
