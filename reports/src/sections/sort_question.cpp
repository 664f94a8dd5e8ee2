// The source papers' third question: the multiway sort's I/O against the
// pairwise sort's and the lower bound (model::sort_io_lower_bound).
#include <optional>
#include <utility>

#include "agpu/model/costing.hpp"
#include "agpu/reports/sections.hpp"
#include "agpu/sim/algorithms.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

using model::counter;

section sort_question(const model::device& d, const std::vector<sort_io_row>& rows) {
    section s{"q-sort", "The multiway sort's I/O against the pairwise sort's and the lower bound", {}};
    AGPU_CHECK(!rows.empty(), "sort_question: no rows");
    const auto& hi = rows.back();
    auto range = [](double lo, double high) { return lo == high ? fmt(lo) : fmt(lo) + " to " + fmt(high); };
    s.add("I/O in b-word blocks on " + d.id + " (b = " + std::to_string(d.agpu.b) +
          ", M = " + std::to_string(d.agpu.M) +
          " words) from the closed forms of sort/multiway (d-way merges by a heap in shared memory) and sort/pairwise "
          "(the same kernels with d = 2), default parameters (u32 keys), against the Aggarwal-Vitter bound "
          "(n/b) log_{M/b}(n/b) with n the words sorted (no constant factor: the ratios' growth, not their size, is "
          "the point). Where a merge pass splits its groups into ranges the closed form bounds the blocks it moves, "
          "so both ends are given. At n = " +
          pow2(hi.n) + " the multiway sort moves " + range(hi.multiway_low, hi.multiway_high) + " blocks, " +
          fmt(hi.multiway_low / hi.lower_bound) + " to " + fmt(hi.multiway_high / hi.lower_bound) +
          " times the bound; the pairwise sort moves " + range(hi.pairwise_low, hi.pairwise_high) + ", " +
          fmt(hi.pairwise_low / hi.multiway_high) + " to " + fmt(hi.pairwise_high / hi.multiway_low) +
          " times the multiway sort's.");
    auto t = make_table("q-sort-table", "Sort I/O (blocks) on " + d.id,
                        {"n", "multiway", "pairwise", "lower bound", "multiway / bound", "pairwise / bound"});
    chart c;
    c.id = "q-sort-io";
    c.title = "Sort I/O against n";
    c.caption =
        "Blocks moved by the multiway and the pairwise merge sort (closed forms; low and high ends where a "
        "pass's split ranges make the count data-dependent) and the lower bound (n/b) log_{M/b}(n/b): the "
        "multiway sort stays a constant factor above the bound, the pairwise sort pulls away as log(n/b) / "
        "log_{M/b}(n/b) grows.";
    for (const auto& r : rows) {
        t.rows.push_back({pow2(r.n), range(r.multiway_low, r.multiway_high), range(r.pairwise_low, r.pairwise_high),
                          fmt(r.lower_bound), range(r.multiway_low / r.lower_bound, r.multiway_high / r.lower_bound),
                          range(r.pairwise_low / r.lower_bound, r.pairwise_high / r.lower_bound)});
        for (const auto& [series, v] : {std::pair<const char*, double>{"sort/multiway (low)", r.multiway_low},
                                        {"sort/multiway (high)", r.multiway_high},
                                        {"sort/pairwise (low)", r.pairwise_low},
                                        {"sort/pairwise (high)", r.pairwise_high},
                                        {"lower bound (n/b) log_{M/b}(n/b)", r.lower_bound}})
            c.rows.push_back({{"n", r.n}, {"series", series}, {"blocks", v}});
    }
    c.spec = {{"width", 560},
              {"height", 340},
              {"mark", {{"type", "line"}, {"point", true}}},
              {"encoding",
               {{"x", log_axis("n", "n (elements)")},
                {"y", log_axis("blocks", "I/O (blocks)")},
                {"color", nominal("series", "")},
                {"tooltip", tooltip({"series", "n", "blocks"})}}}};
    s.add(std::move(t));
    s.add(std::move(c));
    return s;
}

namespace {

std::vector<section> sort_sections(const report_context& ctx) {
    const auto& fit_dev = ctx.fit_dev;
    const auto& multiway = sim::find_algorithm("sort/multiway");
    const auto& pairwise_sort = sim::find_algorithm("sort/pairwise");
    const auto mp = model::parse_params(multiway.spec, {}), pp = model::parse_params(pairwise_sort.spec, {});
    std::vector<sort_io_row> sort_rows;
    // Blocks: the closed form's exact count, else its [low, high] (closed_form::bounds).
    auto blocks = [&](const sim::algorithm& a, const model::param_values& p,
                      std::uint64_t n) -> std::optional<std::pair<double, double>> {
        const auto exact = closed_form_counts(a.spec.key, fit_dev, n, p);
        if (exact && exact->count(counter::io_blocks))
            return std::pair{double(exact->at(counter::io_blocks)), double(exact->at(counter::io_blocks))};
        const auto* cf = model::find_closed_form(a.spec.key);
        if (!cf || !cf->bounds) return std::nullopt;
        const auto b = cf->bounds(fit_dev.agpu, n, p);
        if (!b.low.count(counter::io_blocks) || !b.high.count(counter::io_blocks)) return std::nullopt;
        return std::pair{double(b.low.at(counter::io_blocks)), double(b.high.at(counter::io_blocks))};
    };
    for (int e = 12; e <= 28; e += 2) {
        const std::uint64_t n = std::uint64_t(1) << e;
        const auto m = blocks(multiway, mp, n), p = blocks(pairwise_sort, pp, n);
        if (!m || !p) continue;
        const double words = 1;  // the default sorts u32 keys only: one word per element
        sort_rows.push_back({n, m->first, m->second, p->first, p->second,
                             model::sort_io_lower_bound(double(n) * words, fit_dev.agpu.b, double(fit_dev.agpu.M))});
    }
    if (sort_rows.empty()) return {};
    return {sort_question(fit_dev, sort_rows)};
}

AGPU_REGISTER_REPORT_SECTION({"q-sort", 80, "the source papers' questions: sort I/O", sort_sections});

}  // namespace
}  // namespace agpu::reports
