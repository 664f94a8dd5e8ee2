// The fit section: the constants every prediction uses (the committed fit)
// and the errors of fitting them again on the datasets, in sample and held
// out.
#include <set>

#include "agpu/reports/sections.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

namespace fs = std::filesystem;

section fit_section(const model::time_fit& used, const validate::fit_report& refit) {
    section s{"fit", "The time model's fit and its errors", {}};
    s.add(
        "Seconds = c_launch x launches x launch overhead + max(memory: c_dram x DRAM sectors x 32 B / bandwidth + "
        "c_l2 x blocks the L2 serves beyond DRAM's / (SMs x clock), issue: c_step x (time_steps - bank-conflict "
        "wavefronts / SMs) / clock + "
        "c_shared x bank-conflict wavefronts / (SMs x clock), c_shared = 1: the shared pipeline's rate, not fitted, "
        "dispatch: c_blocks x thread blocks / (SMs x clock)) + "
        "(c_latency x steps + c_dram_latency x DRAM atoms + c_l2_latency x sectors first read from the "
        "L2) / clock for launches of less than a warp + c_atomic x atomic sectors / "
        "clock + (c_chain x chain waits + c_collective x chain collectives) / clock (each launch's heaviest block's "
        "waits per warp, barriers, loads and atomics, and its warp collectives per warp), where a run whose footprint "
        "fits in the L2 moves at most its footprint from DRAM "
        "(`model/include/agpu/model/time_model.hpp`). Every prediction in this report uses the "
        "constants of " +
        (used.source.empty() ? std::string("the committed fit (model/fits/h100.json)") : used.source) + ", fitted on " +
        used.device + " on " + used.date + ".");
    auto c = make_table("fit-constants", "Constants", {"term", "used", "refitted here", "meaning"});
    for (const auto& t : model::time_term_table)
        c.rows.push_back({std::string(t.name), fmt(used.constants[std::size_t(t.id)], 4),
                          refit.data.samples.empty() ? "-" : fmt(refit.fit.constants[std::size_t(t.id)], 4),
                          std::string(t.constant)});
    s.add(std::move(c));
    if (refit.data.samples.empty()) {
        s.add("No measured runs could be counted, so nothing was refitted.");
        return s;
    }
    s.add("Refitted here on " + std::to_string(refit.data.samples.size()) + " runs of " +
          std::to_string(refit.fit.datasets.size()) + " datasets (" + std::to_string(refit.data.skipped.size()) +
          " skipped: GPU-only baselines, incomplete runs, or runs whose counts need too long a simulation). "
          "Errors are |predicted - measured| / measured; held out means predicted by constants fitted without that "
          "algorithm, or without that decade of n.");
    auto e = make_table("fit-errors", "Errors of the refitted constants",
                        {"evaluation", "runs", "MAPE", "median", "worst", "R2 (log)", "worst run"});
    auto row = [&](const std::string& name, const validate::error_stats& st) {
        e.rows.push_back({name, std::to_string(st.count), pct(st.mape), pct(st.median_ape), pct(st.worst_ape),
                          fmt(st.r2, 3), st.worst_run});
    };
    row("in sample", refit.in_sample.overall);
    for (const auto& cv : refit.held_out) row(cv.name, cv.overall);
    for (const auto& [a, st] : refit.in_sample.per_algo) row("in sample: " + a, st);
    s.add(std::move(e));

    chart ch;
    ch.id = "fit-ratio";
    ch.title = "Predicted over measured seconds, in sample and held out";
    ch.caption =
        "Each run's predicted / measured time against n: in sample, with its algorithm held out of the fit, "
        "and with its decade of n held out. 1 is exact; the dashed lines are x2 either way.";
    const auto& samples = refit.data.samples;
    auto add = [&](const std::string& evaluation, const std::vector<double>& predicted) {
        for (std::size_t i = 0; i < samples.size() && i < predicted.size(); ++i) {
            if (!(predicted[i] > 0) || !std::isfinite(predicted[i])) continue;
            ch.rows.push_back({{"evaluation", evaluation},
                               {"algo", samples[i].algo},
                               {"n", samples[i].n},
                               {"run", samples[i].run_id},
                               {"measured_s", samples[i].measured_s},
                               {"predicted_s", predicted[i]},
                               {"ratio", predicted[i] / samples[i].measured_s}});
        }
    };
    add("in sample", refit.in_sample.predicted);
    for (const auto& cv : refit.held_out) add(cv.name, cv.predicted);
    json rules = {{"data", {{"values", json::array({{{"ratio", 0.5}}, {{"ratio", 1.0}}, {{"ratio", 2.0}}})}}},
                  {"mark", {{"type", "rule"}, {"color", "#999"}, {"strokeDash", {4, 4}}}},
                  {"encoding", {{"y", {{"field", "ratio"}, {"type", "quantitative"}}}}}};
    json points = {{"mark", {{"type", "point"}, {"filled", true}, {"size", 40}, {"opacity", 0.8}}},
                   {"encoding",
                    {{"x", log_axis("n", "n")},
                     {"y", log_axis("ratio", "predicted / measured")},
                     {"color", nominal("algo", "algorithm")},
                     {"tooltip", tooltip({"run", "evaluation", "measured_s", "predicted_s", "ratio"})}}}};
    ch.spec = {{"facet", {{"column", nominal("evaluation", "")}}},
               {"spec", {{"width", 300}, {"height", 260}, {"layer", json::array({rules, points})}}}};
    s.add(std::move(ch));
    return s;
}

namespace {

// The refit: on the fit's own datasets where they are all here, else on every dataset given.
std::vector<section> fit_sections(const report_context& ctx) {
    const auto& opt = ctx.opt;
    const auto& fit = ctx.fit;
    const auto& g = ctx.records;
    validate::fit_report refit;
    std::set<std::string> fit_sets;
    bool all_here = !fit.datasets.empty();
    for (const auto& name : fit.datasets) {
        const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : opt.repository_root / name;
        bool found = false;
        for (const auto& d : opt.data)
            if (fs::weakly_canonical(d) == fs::weakly_canonical(p)) {
                fit_sets.insert(d.string());
                found = true;
            }
        all_here = all_here && found;
    }
    validate::sample_set subset;
    std::vector<std::string> names;
    for (const auto& d : opt.data)
        if (!all_here || fit_sets.count(d.string())) names.push_back(d.generic_string());
    for (const auto& s : g.data.samples)
        if (!all_here || fit_sets.count(s.dataset)) subset.samples.push_back(s);
    for (const auto& s : g.data.skipped)
        if (!all_here || fit_sets.count(s.dataset)) subset.skipped.push_back(s);
    if (!subset.samples.empty()) refit = validate::fit_datasets(subset, names, "agpu report");
    return {fit_section(fit, refit)};
}

AGPU_REGISTER_REPORT_SECTION({"fit", 30, "refit and cross-validation", fit_sections});

}  // namespace
}  // namespace agpu::reports
