#include "json_text.hpp"

#include <fstream>
#include <sstream>

#include "agpu/errors.hpp"

namespace agpu::model {

nlohmann::json parse_json_text(const std::string& text, const std::string& where) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is the 1-based offset of the failure; turn it into a line.
        std::size_t line = 1;
        for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) line += text[i] == '\n';
        throw input_error(where + ":" + std::to_string(line), std::string("not valid JSON (") + e.what() + ")");
    }
}

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path, "cannot open " + what);
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_json_text(ss.str(), path);
}

}  // namespace agpu::model
