// Reading a sweep's results (points.jsonl, one agpu.sweep-point/2 object a
// line) back: for `agpu report --sweep` and any other reader. Line by line,
// tolerating nothing torn: a line that is not whole JSON, lacks its line end
// or has another schema is an input_error naming the file and line.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace agpu::sweep {

struct results {
    std::string source;                 // the file, as given
    std::vector<nlohmann::json> lines;  // each an agpu.sweep-point/2 object
    nlohmann::json summary;             // summary.json beside it, where there is one (else null)
};

// Reads `path`: a points.jsonl file, or a sweep's output directory holding one.
results read_results(const std::filesystem::path& path);

}  // namespace agpu::sweep
