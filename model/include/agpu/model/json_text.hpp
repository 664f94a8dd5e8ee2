// JSON text and files for every reader of JSON input (device files, fit
// files, datasets' provenance): errors name the file and line.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace agpu::model {

// Parses `text`; on failure (bad syntax, or a number beyond a double such as
// 1e999) an input_error "where:LINE: not valid JSON (...)".
nlohmann::json parse_json_text(const std::string& text, const std::string& where);
// Reads and parses the file at `path`; `what` names it in the error when the
// file cannot be opened ("device file", "fit file").
nlohmann::json read_json_file(const std::string& path, const std::string& what);

}  // namespace agpu::model
