// The hypothetical devices' section: closed forms at paper scale on the fit's
// device with one parameter changed at a time, and on its hypothetical presets.
#include <cmath>
#include <optional>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/sweep.hpp"
#include "agpu/reports/sections.hpp"
#include "agpu/sim/algorithms.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

section sweeps_section(const std::string& base_device, const std::vector<sweep_point>& points,
                       const std::vector<std::string>& notes) {
    section s{"sweeps", "Hypothetical devices", {}};
    s.add("Predicted seconds on " + base_device +
          " with one parameter changed at a time (`agpu predict --sweep`): "
          "b (banks and p = k b follow), M (shared words), p (the SM count follows), the SM clock and the DRAM "
          "bandwidth; counts from the closed forms, seconds from the time model. A speed-up above 1 is faster than " +
          base_device + ".");
    chart c;
    c.id = "sweeps-speedup";
    c.title = "Speed-up over " + base_device + " as one parameter changes";
    c.caption =
        "x: the parameter over its " + base_device + " value; y: " + base_device +
        " seconds over the hypothetical device's. Memory-bound runs follow bandwidth, step-bound runs the clock "
        "and p; b and M change the counts themselves.";
    auto t = make_table("sweeps-presets", "Hypothetical presets against " + base_device,
                        {"algorithm", "n", "device", base_device + " seconds", "seconds", "speed-up", "bound"});
    for (const auto& p : points) {
        const double speedup = p.seconds > 0 ? p.base_seconds / p.seconds : 0;
        if (p.param == "preset") {
            t.rows.push_back(
                {p.algo, pow2(p.n), p.device, fmt(p.base_seconds, 4), fmt(p.seconds, 4), fmt(speedup, 3), p.bound});
            continue;
        }
        c.rows.push_back({{"algo", p.algo + " n=" + pow2(p.n)},
                          {"param", p.param},
                          {"device", p.device},
                          {"value", p.value},
                          {"relative", p.base_value > 0 ? p.value / p.base_value : 0},
                          {"seconds", p.seconds},
                          {"speedup", speedup},
                          {"bound", p.bound}});
    }
    c.spec = {{"facet", {{"column", nominal("param", "")}}},
              {"spec",
               {{"width", 180},
                {"height", 220},
                {"mark", {{"type", "line"}, {"point", true}}},
                {"encoding",
                 {{"x",
                   {{"field", "relative"},
                    {"type", "quantitative"},
                    {"title", "value / base"},
                    {"scale", {{"type", "log"}, {"base", 2}}}}},
                  {"y",
                   {{"field", "speedup"},
                    {"type", "quantitative"},
                    {"title", "speed-up"},
                    {"scale", {{"type", "log"}, {"base", 2}}}}},
                  {"color", nominal("algo", "run")},
                  {"tooltip", tooltip({"device", "value", "seconds", "speedup", "bound"})}}}}}};
    if (!c.rows.empty()) s.add(std::move(c));
    if (!t.rows.empty()) s.add(std::move(t));
    for (const auto& n : notes) s.add(n);
    return s;
}

namespace {

std::vector<section> sweeps_sections(const report_context& ctx) {
    const auto& fit = ctx.fit;
    const auto& fit_dev = ctx.fit_dev;
    struct run_at {
        const char* algo;
        std::uint64_t n;
        std::vector<std::string> params;
    };
    // Closed forms only (instant at paper scale); a device whose counts would need the simulator is noted.
    const std::vector<run_at> runs = {{"stats/pairwise", 1ull << 28, {}},
                                      {"stats/fused", 1ull << 28, {}},
                                      {"scan/work-efficient", 1ull << 28, {}},
                                      {"apsp/blocked", 4096, {}},
                                      {"rank/interleaved", 1ull << 32, {"op=build"}}};
    const std::vector<std::pair<std::string, std::vector<double>>> factors = {{"bandwidth", {0.5, 1, 2, 4}},
                                                                              {"clock", {0.5, 1, 2}},
                                                                              {"p", {0.5, 1, 2}},
                                                                              {"b", {0.5, 1, 2}},
                                                                              {"M", {0.25, 0.5, 1, 2}}};
    std::vector<sweep_point> points;
    std::vector<std::string> notes;
    auto seconds_on = [&](const sim::algorithm& a, const model::device& d, std::uint64_t n,
                          const model::param_values& p,
                          std::vector<std::string>& out_notes) -> std::optional<std::pair<double, std::string>> {
        try {
            const auto mc = sim::count_run(a, d, n, p, 1, closed_form_only());
            const auto features = model::time_features(mc.totals, d, mc.footprint_bytes);
            return std::pair{model::predict_seconds(features, fit.constants),
                             std::string(model::info(model::dominant_bound(features, fit.constants)).name)};
        } catch (const sim::simulation_too_long&) {
            out_notes.push_back(a.spec.key + " n=" + std::to_string(n) + " on " + d.id +
                                ": left out (its closed form does not give every counter the time model reads there).");
        } catch (const input_error& e) {
            out_notes.push_back(a.spec.key + " on " + d.id + ": " + e.what() + ".");
        } catch (const kernel_error& e) {
            out_notes.push_back(a.spec.key + " on " + d.id + ": " + e.what() + ".");
        }
        return std::nullopt;
    };
    auto base_value = [&](const std::string& param) -> double {
        if (param == "bandwidth") return fit_dev.hw.mem_bandwidth_gbs;
        if (param == "clock") return fit_dev.hw.sm_clock_mhz;
        if (param == "p") return double(fit_dev.agpu.p);
        if (param == "b") return fit_dev.agpu.b;
        return double(fit_dev.agpu.M);
    };
    std::vector<std::vector<sweep_point>> run_points(runs.size());
    std::vector<std::vector<std::string>> run_notes(runs.size());
    parallel_for(runs.size(), ctx.threads, [&](std::size_t i) {
        const auto& r = runs[i];
        auto& my_points = run_points[i];
        auto& my_notes = run_notes[i];
        const auto& a = sim::find_algorithm(r.algo);
        const auto params = model::parse_params(a.spec, r.params);
        const auto base = seconds_on(a, fit_dev, r.n, params, my_notes);
        if (!base) return;
        for (const auto& [param, fs_] : factors)
            for (double f : fs_) {
                double v = base_value(param) * f;
                if (param != "bandwidth" && param != "clock") v = std::round(v);
                if (param == "p") v = std::round(v / fit_dev.agpu.b) * fit_dev.agpu.b;
                model::device d;
                try {
                    d = f == 1 ? fit_dev : model::with_parameter(fit_dev, param, v);
                } catch (const input_error& e) {
                    my_notes.push_back(std::string("--sweep ") + param + ": " + e.what() + ".");
                    continue;
                }
                if (const auto x = seconds_on(a, d, r.n, params, my_notes))
                    my_points.push_back(
                        {r.algo, r.n, param, d.id, v, base_value(param), x->first, base->first, x->second});
            }
        for (const auto& d : model::presets()) {
            if (d.kind != "hypothetical" || d.base != fit_dev.id) continue;
            if (const auto x = seconds_on(a, d, r.n, params, my_notes))
                my_points.push_back({r.algo, r.n, "preset", d.id, 0, 0, x->first, base->first, x->second});
        }
    });
    for (std::size_t i = 0; i < runs.size(); ++i) {
        points.insert(points.end(), run_points[i].begin(), run_points[i].end());
        notes.insert(notes.end(), run_notes[i].begin(), run_notes[i].end());
    }
    return {sweeps_section(fit_dev.id, points, notes)};
}

AGPU_REGISTER_REPORT_SECTION({"sweeps", 50, "hypothetical devices", sweeps_sections});

}  // namespace
}  // namespace agpu::reports
