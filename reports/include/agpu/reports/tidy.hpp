// Tidy (long-format) CSV: one row per (run, launch, counter), with the
// schema version and provenance columns, so that any plotting or statistics
// tool reads agpu's output without parsing. Rendered from the same records as
// the JSON output.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "agpu/model/counters.hpp"

namespace agpu::reports {

inline constexpr const char* counts_csv_schema = "agpu.counts-csv/1";

struct counts_row_context {
    std::string source;  // "simulator" or "gpu"
    std::string device;  // device id
    std::string algo;
    std::string params;  // "name=value;name=value"
    std::uint64_t n = 0;
};

struct launch_counts {
    std::string launch;  // launch index, or "total"
    std::string kernel;
    model::counts c;
};

// Writes the header line.
void write_counts_csv_header(std::ostream& os);
// Writes one row per counter of each launch.
void write_counts_csv(std::ostream& os, const counts_row_context& ctx, const std::vector<launch_counts>& launches);

// CSV field quoting (RFC 4180): quotes a field that holds a comma, quote or newline.
std::string csv_field(const std::string& s);

}  // namespace agpu::reports
