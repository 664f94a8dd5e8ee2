// The source papers' first question: why stats/pairwise is not O(log N)
// (each round moves the whole array).
#include <cmath>
#include <map>
#include <set>

#include "agpu/reports/sections.hpp"
#include "agpu/sim/algorithms.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

using model::counter;

section pairwise_question(const std::string& device, const std::vector<pairwise_row>& rows) {
    section s{"q-pairwise", "Why the pairwise statistics are not O(log N) at scale", {}};
    AGPU_CHECK(!rows.empty(), "pairwise_question: no rows");
    const auto& lo = rows.front();
    const auto& hi = rows.back();
    const double passes_hi = hi.array_blocks > 0 ? hi.io_blocks / hi.array_blocks : 0;
    s.add(
        "The source's reduction runs log2 N rounds, each a kernel that copies the array and a kernel that compares "
        "pairs, and calls the result O(log N). On the AGPU model every round moves the whole array (N/b blocks "
        "read and written, more than once), so the I/O is Theta((N/b) log N) blocks, and each of the 2 log2 N "
        "launches costs a fixed overhead: log N describes the time only while the launch overheads hide the "
        "array's traffic, a few hundred thousand values on an H100. On " +
        device + " from n = " + pow2(lo.n) + " to n = " + pow2(hi.n) + " log2 N grows " +
        fmt(std::log2(double(hi.n)) / std::log2(double(lo.n))) + "x, but the predicted time grows " +
        fmt(hi.predicted_s / lo.predicted_s) + "x: at n = " + pow2(hi.n) + " the run moves " + fmt(hi.io_blocks) +
        " blocks, " + fmt(passes_hi) + " times the array, in " + fmt(hi.launches) + " launches.");
    auto t = make_table("q-pairwise-table", "stats/pairwise against n on " + device,
                        {"n", "log2 n", "launches", "io_blocks", "io_blocks / array blocks", "predicted s",
                         "measured s", "stats/fused measured s"});
    chart c;
    c.id = "q-pairwise-seconds";
    c.title = "stats/pairwise seconds against n, and what O(log N) would be";
    c.caption = "Measured (" + device +
                ") and predicted seconds of the source's pairwise reduction, the one-pass "
                "stats/fused for comparison, and c log2 N through the smallest n's prediction: the measured time "
                "leaves the log N curve once the array no longer fits in a few launches' worth of time.";
    for (const auto& r : rows) {
        const double lg = std::log2(double(r.n));
        t.rows.push_back({pow2(r.n), fmt(lg), fmt(r.launches), fmt(r.io_blocks),
                          r.array_blocks > 0 ? fmt(r.io_blocks / r.array_blocks) : "-", fmt(r.predicted_s, 4),
                          r.measured_pairwise_s ? fmt(*r.measured_pairwise_s, 4) : "-",
                          r.measured_fused_s ? fmt(*r.measured_fused_s, 4) : "-"});
        c.rows.push_back({{"n", r.n}, {"series", "stats/pairwise predicted"}, {"seconds", r.predicted_s}});
        c.rows.push_back(
            {{"n", r.n}, {"series", "c log2 N"}, {"seconds", lo.predicted_s * lg / std::log2(double(lo.n))}});
        if (r.measured_pairwise_s)
            c.rows.push_back({{"n", r.n}, {"series", "stats/pairwise measured"}, {"seconds", *r.measured_pairwise_s}});
        if (r.measured_fused_s)
            c.rows.push_back({{"n", r.n}, {"series", "stats/fused measured"}, {"seconds", *r.measured_fused_s}});
    }
    c.spec = {{"width", 560},
              {"height", 340},
              {"mark", {{"type", "line"}, {"point", true}}},
              {"encoding",
               {{"x", log_axis("n", "n")},
                {"y", log_axis("seconds", "seconds")},
                {"color", nominal("series", "")},
                {"tooltip", tooltip({"series", "n", "seconds"})}}}};
    s.add(std::move(t));
    s.add(std::move(c));
    return s;
}

namespace {

std::vector<section> pairwise_sections(const report_context& ctx) {
    const auto& opt = ctx.opt;
    const auto& fit = ctx.fit;
    const auto& fit_dev = ctx.fit_dev;
    const auto& g = ctx.records;
    const auto& pairwise = sim::find_algorithm("stats/pairwise");
    std::map<std::uint64_t, pairwise_row> rows;
    const std::string float_params = "type=float";
    std::map<std::uint64_t, double> measured_pairwise, measured_fused;
    for (const auto& s : g.data.samples) {
        if (s.params != float_params) continue;
        if (s.algo == "stats/pairwise") measured_pairwise.emplace(s.n, s.measured_s);
        if (s.algo == "stats/fused") measured_fused.emplace(s.n, s.measured_s);
    }
    std::set<std::uint64_t> sizes;
    for (const auto& [n, v] : measured_pairwise) sizes.insert(n);
    if (sizes.size() < 3)
        for (int e = 10; e <= 30; e += 4) sizes.insert(std::uint64_t(1) << e);
    const auto params = model::parse_params(pairwise.spec, {float_params});
    for (auto n : sizes) {
        const auto mc = sim::count_run(pairwise, fit_dev, n, params, 1, limited_to(opt.max_simulation_s));
        pairwise_row r;
        r.n = n;
        r.launches = double(mc.totals[counter::launches]);
        r.io_blocks = double(mc.totals[counter::io_blocks]);
        r.array_blocks = std::ceil(double(n) / fit_dev.agpu.b);
        r.predicted_s =
            model::predict_seconds(model::time_features(mc.totals, fit_dev, mc.footprint_bytes), fit.constants);
        if (measured_pairwise.count(n)) r.measured_pairwise_s = measured_pairwise.at(n);
        if (measured_fused.count(n)) r.measured_fused_s = measured_fused.at(n);
        rows[n] = r;
    }
    std::vector<pairwise_row> list;
    for (const auto& [n, r] : rows) list.push_back(r);
    return {pairwise_question(fit_dev.id, list)};
}

AGPU_REGISTER_REPORT_SECTION({"q-pairwise", 60, "the source papers' questions: pairwise statistics",
                              pairwise_sections});

}  // namespace
}  // namespace agpu::reports
