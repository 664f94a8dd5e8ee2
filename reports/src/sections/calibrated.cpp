// The calibrated time model's section: how it prices a launch, its test
// (docs/time-model-test.md) scored per device and family beside the roofline
// and the fit, each test run against its prediction and its floor, and the
// model on every preset for a few runs, with the physical floors it never
// goes below.
#include <map>

#include "agpu/model/catalog.hpp"
#include "agpu/reports/sections.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sweep/prediction.hpp"
#include "agpu/validate/score.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {
namespace {

using validate::time_model_kind;

void add_scores(section& s, const validate::score_report& r, const report_context& ctx) {
    for (const auto& [dev, fams] : r.errors) {
        auto t = make_table(
            "calibrated-score-" + slug(dev), "Test errors on " + dev,
            {"family", "runs", "calibrated MAPE", "95% interval", "median", "p90", "roofline MAPE", "fit MAPE"});
        for (const auto& [fam, models] : fams) {
            const auto& c = models.at(time_model_kind::calibrated);
            t.rows.push_back({fam, std::to_string(c.runs), pct(c.mape), pct(c.mape_low) + " - " + pct(c.mape_high),
                              pct(c.median_ape), pct(c.p90_ape), pct(models.at(time_model_kind::roofline).mape),
                              pct(models.at(time_model_kind::fit).mape)});
        }
        s.add(std::move(t));
        s.add("The runs' own noise on " + dev + ": a median of " + pct(r.median_noise.at(dev)) +
              " ((max - min) / median of each run's repetitions).");
    }
    if (!r.skipped.empty())
        s.add(std::to_string(r.skipped.size()) +
              " test runs are not scored (GPU-only baselines, which agpu does not model, or runs whose counts need "
              "a longer simulation than the report allows); `agpu score --runs` lists every run.");
    chart ch;
    ch.id = "calibrated-test-runs";
    ch.title = "Predicted over measured seconds on the test data";
    ch.caption =
        "Each test run's calibrated prediction over its measured time, against n, by family; the floor is "
        "the device's physical floor for the run's counts over the measured time (never above the "
        "prediction). 1 is exact; the dashed lines are x2 either way.";
    for (const auto& x : r.runs)
        ch.rows.push_back({{"device", x.device_id},
                           {"family", x.family},
                           {"algo", x.algo},
                           {"run", x.run_id},
                           {"n", x.n},
                           {"measured_s", x.measured_s},
                           {"predicted_s", x.predicted_s.at(time_model_kind::calibrated)},
                           {"ratio", x.predicted_s.at(time_model_kind::calibrated) / x.measured_s},
                           {"floor_ratio", x.floor_s / x.measured_s},
                           {"bound", x.winner}});
    ch.spec = {{"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
               {"facet", {{"column", {{"field", "device"}, {"type", "nominal"}}}}},
               {"spec",
                {{"width", 360},
                 {"height", 260},
                 {"mark", {{"type", "point"}, {"filled", true}}},
                 {"encoding",
                  {{"x", {{"field", "n"}, {"type", "quantitative"}, {"scale", {{"type", "log"}}}}},
                   {"y",
                    {{"field", "ratio"},
                     {"type", "quantitative"},
                     {"scale", {{"type", "log"}}},
                     {"title", "predicted / measured"}}},
                   {"color", {{"field", "family"}, {"type", "nominal"}}},
                   {"shape", {{"field", "bound"}, {"type", "nominal"}}},
                   {"tooltip", json::array({{{"field", "run"}},
                                            {{"field", "n"}},
                                            {{"field", "measured_s"}},
                                            {{"field", "predicted_s"}},
                                            {{"field", "floor_ratio"}},
                                            {{"field", "bound"}}})}}}}}};
    (void)ctx;
    s.add(std::move(ch));
}

// A few runs on every preset: the calibrated seconds, the floor and the bound.
void add_presets(section& s) {
    struct probe {
        const char* algo;
        std::uint64_t n;
        std::vector<std::string> params;
    };
    const std::vector<probe> runs = {{"stats/fused", std::uint64_t(1) << 28, {}},
                                     {"scan/work-efficient", std::uint64_t(1) << 28, {}},
                                     {"micro/shared-stride", std::uint64_t(1) << 24, {"stride=2"}},
                                     {"apsp/blocked", 8192, {"t=32"}}};
    auto t = make_table("calibrated-presets", "The calibrated model on every preset",
                        {"device", "run", "seconds", "floor", "bound", "margin", "constants"});
    for (const auto& dev : model::presets())
        for (const auto& r : runs) {
            const auto& algo = sim::find_algorithm(r.algo);
            std::string label = std::string(r.algo) + " n=" + pow2(r.n);
            for (const auto& p : r.params) label += " " + p;
            try {
                const auto pr = sweep::predict_closed_form(algo, dev, r.n, model::parse_params(algo.spec, r.params),
                                                           sweep::counts_mode::automatic, model::default_fit());
                if (!pr || !pr->priced) continue;
                t.rows.push_back({dev.id, label, fmt(pr->seconds, 3), fmt(pr->floor_s, 3), pr->bound,
                                  fmt(pr->summary.margin, 3), model::timing_source_kinds(dev)});
            } catch (const input_error&) {
                // A shape this device cannot run (a tile beyond its shared memory): left out.
            }
        }
    s.add(std::move(t));
}

std::vector<section> calibrated_sections(const report_context& ctx) {
    section s{"calibrated", "The calibrated time model and its test", {}};
    s.add(
        "Every prediction of `agpu predict` and `agpu sweep` comes from the calibrated model "
        "(`model/include/agpu/model/launch_time.hpp`, docs/model.md): per launch, the launch overhead plus the "
        "largest of its bounds (issue by pipe, DRAM, L2, shared wavefronts, block dispatch, same-address atomics, "
        "and the latency the resident warps cannot hide), each a quantity from the counts over one of the "
        "device's time constants. The constants are measured by `agpu calibrate` on the H100 and the H200 and "
        "cited for every other preset (docs/device-constants.md); none comes from an algorithm's run. No "
        "prediction is below the device's physical floor: DRAM bytes at peak bandwidth, AGPU steps at b / "
        "cores_per_sm clocks a step, launches at the launch overhead (a test checks every preset, every "
        "algorithm with a closed form and a grid of sizes).");
    s.add(
        "The test (docs/time-model-test.md, fixed before the test data was measured): the H100 timing datasets "
        "chose the model's design and are not test data; the test datasets (validate/data/<gpu>/test) were "
        "measured after the model was frozen and chose nothing. The goal: a MAPE of at most 10% over all runs "
        "and 15% in every family, on each GPU; the numbers below are what it gives, met or not.");
    if (ctx.opt.test.empty()) {
        s.add(
            "No test datasets are in this report's inputs (`agpu report --test DIR...`; by default every "
            "validate/data/<gpu>/test/<family>).");
    } else {
        ctx.say("scoring the time models on " + std::to_string(ctx.opt.test.size()) + " test datasets");
        const auto r = validate::score_datasets(ctx.opt.test, ctx.fit, ctx.opt.max_simulation_s, 2000);
        std::string names;
        for (const auto& d : ctx.opt.test) names += (names.empty() ? "" : ", ") + ctx.name_of(d);
        s.add("Scored on " + std::to_string(r.runs.size()) + " runs of " + names + " (the fit: " + r.fit_source +
              "). Intervals: 95%, a bootstrap resampling whole configurations.");
        add_scores(s, r, ctx);
    }
    add_presets(s);
    return {s};
}

AGPU_REGISTER_REPORT_SECTION({"calibrated", 25, "the calibrated time model", calibrated_sections});

}  // namespace
}  // namespace agpu::reports
