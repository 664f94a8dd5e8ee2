// What the report's sections share: Vega-Lite building blocks (axes,
// encodings, the y = x parity chart), tables, and names (slugs, powers of
// two). fmt and pct are sections.hpp's.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "agpu/reports/document.hpp"
#include "agpu/reports/sections.hpp"

namespace agpu::reports {

using json = nlohmann::json;

// A quantitative axis on a log (or `type`) scale.
json log_axis(const std::string& field, const std::string& title, const char* type = "log");
json nominal(const std::string& field, const std::string& title);
json tooltip(std::initializer_list<const char*> fields);
// The y = x line across [lo, hi] of fields x and y (a layer with its own data).
json diagonal(const std::string& x, const std::string& y, double lo, double hi);
// Measured against predicted (or simulated) on log axes, with y = x.
json parity_spec(const std::string& x, const std::string& x_title, const std::string& y, const std::string& y_title,
                 const std::string& color, const std::string& color_title, const json& rows, const char* scale,
                 std::initializer_list<const char*> tips, const std::string& shape = "");
// One row per (algorithm, device) group of predicted-against-measured runs:
// runs, MAPE, median and worst error, the worst run.
void add_error_rows(table& t,
                    const std::map<std::pair<std::string, std::string>, std::vector<const seconds_point*>>& groups);
table make_table(std::string id, std::string title, std::vector<std::string> columns);
// Lower-case letters and digits, runs of anything else one '-'.
std::string slug(const std::string& s);
// "2^k" for a power of two above 1, else the number.
std::string pow2(std::uint64_t n);

}  // namespace agpu::reports
