// The report's formatting and Vega-Lite building blocks (charts.hpp).
#include "charts.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include "agpu/validate/fit.hpp"

namespace agpu::reports {

std::string fmt(double v, int digits) {
    if (!std::isfinite(v)) return v > 0 ? "inf" : (v < 0 ? "-inf" : "-");
    char buf[64];
    const double a = std::fabs(v);
    if (v != 0 && (a >= 1e7 || a < 1e-3)) std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    else if (a >= std::pow(10.0, digits - 1) || v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
    else std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string pct(double fraction) {
    const double p = 100 * fraction;
    return fmt(std::fabs(p) < 1e-6 ? 0.0 : p, 3) + "%";  // rounding noise of an exact fit reads 0%
}

json log_axis(const std::string& field, const std::string& title, const char* type) {
    return {{"field", field}, {"type", "quantitative"}, {"title", title}, {"scale", {{"type", type}}}};
}

json nominal(const std::string& field, const std::string& title) {
    return {{"field", field}, {"type", "nominal"}, {"title", title}};
}

json tooltip(std::initializer_list<const char*> fields) {
    json t = json::array();
    for (const char* f : fields) t.push_back({{"field", f}});
    return t;
}

// The y = x line across [lo, hi] of fields x and y (a layer with its own data).
json diagonal(const std::string& x, const std::string& y, double lo, double hi) {
    return {{"data", {{"values", json::array({{{x, lo}, {y, lo}}, {{x, hi}, {y, hi}}})}}},
            {"mark", {{"type", "line"}, {"color", "#999"}, {"strokeDash", {4, 4}}}},
            {"encoding",
             {{"x", {{"field", x}, {"type", "quantitative"}}}, {"y", {{"field", y}, {"type", "quantitative"}}}}}};
}

// Measured against predicted (or simulated) on log axes, with y = x.
json parity_spec(const std::string& x, const std::string& x_title, const std::string& y, const std::string& y_title,
                 const std::string& color, const std::string& color_title, const json& rows, const char* scale,
                 std::initializer_list<const char*> tips, const std::string& shape) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& r : rows)
        for (const auto& f : {x, y}) {
            const double v = r[f].get<double>();
            if (v > 0) lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (!(lo <= hi)) lo = hi = 1;
    json points = {{"mark", {{"type", "point"}, {"filled", true}, {"size", 50}, {"opacity", 0.75}}},
                   {"encoding",
                    {{"x", log_axis(x, x_title, scale)},
                     {"y", log_axis(y, y_title, scale)},
                     {"color", nominal(color, color_title)},
                     {"tooltip", tooltip(tips)}}}};
    if (!shape.empty()) points["encoding"]["shape"] = nominal(shape, shape);
    return {{"width", 520}, {"height", 380}, {"layer", json::array({diagonal(x, y, lo, hi), points})}};
}

// One row per (algorithm, device) group of predicted-against-measured runs:
// runs, MAPE, median and worst error, the worst run.
void add_error_rows(table& t,
                    const std::map<std::pair<std::string, std::string>, std::vector<const seconds_point*>>& groups) {
    for (const auto& [key, ps] : groups) {
        std::vector<double> pred, meas;
        std::vector<std::string> ids;
        for (const auto* p : ps) {
            pred.push_back(p->predicted_s);
            meas.push_back(p->measured_s);
            ids.push_back(p->run_id);
        }
        const auto st = validate::summarise(pred, meas, ids);
        t.rows.push_back({key.first, key.second, std::to_string(st.count), pct(st.mape), pct(st.median_ape),
                          pct(st.worst_ape), st.worst_run});
    }
}

table make_table(std::string id, std::string title, std::vector<std::string> columns) {
    table t;
    t.id = std::move(id);
    t.title = std::move(title);
    t.columns = std::move(columns);
    return t;
}

std::string slug(const std::string& s) {
    std::string out;
    for (char c : s) {
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out += c;
        else if (c >= 'A' && c <= 'Z') out += char(c - 'A' + 'a');
        else if (!out.empty() && out.back() != '-') out += '-';
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out;
}

std::string pow2(std::uint64_t n) {
    if (n > 1 && (n & (n - 1)) == 0) return "2^" + std::to_string(std::countr_zero(n));
    return std::to_string(n);
}

}  // namespace agpu::reports
