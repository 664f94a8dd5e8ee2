#include "agpu/model/json_text.hpp"

#include <fstream>
#include <sstream>

#include "agpu/errors.hpp"

namespace agpu::model {
namespace {

// The 1-based line of the 1-based byte offset `byte` of `text`.
std::size_t line_of(const std::string& text, std::size_t byte) {
    std::size_t line = 1;
    for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) line += text[i] == '\n';
    return line;
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& where) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is the 1-based offset of the failure; turn it into a line.
        throw input_error(where + ":" + std::to_string(line_of(text, e.byte)),
                          std::string("not valid JSON (") + e.what() + ")");
    } catch (const nlohmann::json::exception& e) {
        // A number that does not fit a double ("number overflow parsing
        // '1e999'", found by the fuzzer): the line of the quoted number.
        const std::string what = e.what();
        const auto open = what.find('\''), close = what.rfind('\'');
        std::size_t byte = 0;
        if (open != std::string::npos && close > open)
            if (const auto at = text.find(what.substr(open + 1, close - open - 1)); at != std::string::npos)
                byte = at + 1;
        throw input_error(where + (byte ? ":" + std::to_string(line_of(text, byte)) : ""),
                          "not valid JSON (" + what + ")");
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
