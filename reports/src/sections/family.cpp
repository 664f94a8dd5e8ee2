// The families' sections: every simulated algorithm, grouped by its key's
// family: time and I/O against n across devices (closed-form lines, simulator
// dots at small n), measured against predicted seconds, simulated against
// measured counters. A family's chart sizes and note: families/.
#include <algorithm>
#include <map>
#include <set>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/reports/sections.hpp"
#include "agpu/sim/algorithms.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

using model::counter;

section family_section(const family_records& r) {
    const std::string id = slug(r.family);
    section s{"family-" + id, r.family + ": time, I/O and seconds", {}};
    {
        auto t = make_table(id + "-formulas", r.family + ": closed forms", {"algorithm", "closed form"});
        for (const auto& [a, f] : r.formulas) t.rows.push_back({a, f.empty() ? "(none: simulator only)" : f});
        s.add(std::move(t));
    }
    if (!r.scaling.empty()) {
        chart c;
        c.id = id + "-scaling";
        c.title = r.family + ": AGPU time and I/O against n";
        c.caption =
            "Solid lines and circles: the closed form on each device; dashed lines and squares: the simulator "
            "running the algorithm's own kernels at small n (where the closed form is exact the two coincide). "
            "time_steps is the busiest MP's steps summed over launches; io_blocks the b-word blocks moved.";
        std::set<std::string> algos;
        for (const auto& p : r.scaling) {
            if (!(p.value > 0)) continue;  // log axes
            algos.insert(p.algo);
            c.rows.push_back({{"algo", p.algo},
                              {"device", p.device},
                              {"source", p.source},
                              {"n", p.n},
                              {"metric", p.metric},
                              {"value", p.value}});
        }
        // Unfiltered layers (a filtered one is empty in some facet cells, and Vega warns of an infinite extent):
        // lines dashed by source, dots shaped by source.
        const json x = log_axis("n", "n"), y = log_axis("value", ""), color = nominal("device", "device");
        const json tips = tooltip({"algo", "device", "source", "n", "metric", "value"});
        json lines = {{"mark", {{"type", "line"}, {"strokeWidth", 1.5}}},
                      {"encoding",
                       {{"x", x},
                        {"y", y},
                        {"color", color},
                        {"strokeDash", nominal("source", "source")},
                        {"detail", nominal("source", "source")}}}};
        json dots = {
            {"mark", {{"type", "point"}, {"filled", true}, {"size", 40}}},
            {"encoding",
             {{"x", x}, {"y", y}, {"color", color}, {"shape", nominal("source", "source")}, {"tooltip", tips}}}};
        c.spec = {{"facet", {{"row", nominal("metric", "")}, {"column", nominal("algo", "")}}},
                  {"resolve", {{"scale", {{"y", "independent"}}}}},
                  {"spec",
                   {{"width", algos.size() > 3 ? 170 : 240}, {"height", 150}, {"layer", json::array({lines, dots})}}}};
        s.add(std::move(c));
    }
    if (!r.seconds.empty()) {
        chart c;
        c.id = id + "-seconds";
        c.title = r.family + ": measured against predicted seconds";
        c.caption =
            "Each measured run (CUDA events, median) against the time model's prediction from its model "
            "counts and its device's preset; the dashed line is equality.";
        auto t = make_table(id + "-seconds-table", r.family + ": prediction errors per algorithm and device",
                            {"algorithm", "device", "runs", "MAPE", "median", "worst", "worst run"});
        std::map<std::pair<std::string, std::string>, std::vector<const seconds_point*>> groups;
        for (const auto& p : r.seconds) {
            c.rows.push_back({{"algo", p.algo},
                              {"device", p.device},
                              {"n", p.n},
                              {"run", p.run_id},
                              {"measured_s", p.measured_s},
                              {"predicted_s", p.predicted_s},
                              {"error", (p.predicted_s - p.measured_s) / p.measured_s}});
            groups[{p.algo, p.device}].push_back(&p);
        }
        add_error_rows(t, groups);
        c.spec = parity_spec("measured_s", "measured seconds", "predicted_s", "predicted seconds", "algo", "algorithm",
                             c.rows, "log", {"run", "device", "measured_s", "predicted_s", "error"}, "device");
        s.add(std::move(c));
        s.add(std::move(t));
    }
    if (!r.counters.empty()) {
        chart c;
        c.id = id + "-counters";
        c.title = r.family + ": simulated against measured counters";
        c.caption =
            "Each run's counters summed over its launches: the simulator (same kernels, inputs and seed) "
            "against CUPTI on the GPU (symmetric log axes, so zeros show); on the dashed line they are equal.";
        auto t = make_table(id + "-counters-table", r.family + ": simulated against measured, per counter",
                            {"counter", "runs", "equal", "max |difference|", "simulated total", "measured total"});
        struct sum {
            std::size_t runs = 0, equal = 0;
            double worst = 0, sim = 0, meas = 0;
        };
        std::map<std::string, sum> per;
        for (const auto& p : r.counters) {
            c.rows.push_back({{"algo", p.algo},
                              {"counter", p.counter},
                              {"n", p.n},
                              {"run", p.run_id},
                              {"simulated", p.simulated},
                              {"measured", p.measured}});
            auto& x = per[p.counter];
            ++x.runs;
            x.equal += p.simulated == p.measured;
            x.worst = std::max(x.worst, std::fabs(p.measured - p.simulated) / std::max(p.simulated, 1.0));
            x.sim += p.simulated;
            x.meas += p.measured;
        }
        for (const auto& [name, x] : per)
            t.rows.push_back(
                {name, std::to_string(x.runs), std::to_string(x.equal), pct(x.worst), fmt(x.sim, 6), fmt(x.meas, 6)});
        c.spec = parity_spec("simulated", "simulated", "measured", "measured (CUPTI)", "counter", "counter", c.rows,
                             "symlog", {"run", "counter", "simulated", "measured"}, "algo");
        s.add(std::move(c));
        s.add(std::move(t));
    }
    if (!r.notes.empty()) {
        std::string all;
        for (const auto& n : r.notes) all += (all.empty() ? "" : " ") + n;
        s.add(all);
    }
    return s;
}

namespace {

// Per-run limits of the simulator's dots on the scaling charts: a few small n per algorithm and device.
constexpr double scaling_point_max_s = 0.1;
constexpr int scaling_points_per_series = 3;

// The n of a family's scaling charts: powers of two from 2^lo to 2^hi
// (family_settings), within the algorithm's range.
std::vector<std::uint64_t> scaling_sizes(const model::algo_spec& spec) {
    const report_family f = family_settings(family_of(spec.key));
    std::vector<std::uint64_t> out;
    for (int e = f.lo; e <= f.hi; e += f.step) {
        const std::uint64_t n = std::uint64_t(1) << e;
        if (n >= spec.min_n && n <= spec.max_n) out.push_back(n);
    }
    return out;
}

std::vector<section> family_sections(const report_context& ctx) {
    const auto& fit = ctx.fit;
    const auto& fit_dev = ctx.fit_dev;
    const auto& g = ctx.records;
    std::vector<section> out;
    std::map<std::string, family_records> families;
    const std::vector<std::string> scaling_devices = {fit_dev.id, "a100", "v100", "geforce-gtx280"};
    const std::vector<std::string> simulated_devices = {fit_dev.id, "geforce-gtx280"};
    struct series {
        const sim::algorithm* algo;
        std::string device;
        std::vector<scaling_point> points;
    };
    std::vector<series> all;
    for (const auto* a : sim::algorithms()) {
        const auto& key = a->spec.key;
        auto& f = families[family_of(key)];
        f.family = family_of(key);
        const auto* cf = model::find_closed_form(key);
        f.formulas[key] = cf ? cf->formula : "";
        for (const auto& dev_id : scaling_devices) all.push_back({a, dev_id, {}});
    }
    parallel_for(all.size(), ctx.threads, [&](std::size_t i) {
        auto& se = all[i];
        const auto& key = se.algo->spec.key;
        const auto params = model::parse_params(se.algo->spec, {});
        const auto dev = model::resolve_device(se.device);
        const bool simulate =
            std::find(simulated_devices.begin(), simulated_devices.end(), se.device) != simulated_devices.end();
        int simulated = 0;
        for (auto n : scaling_sizes(se.algo->spec)) {
            const auto cf_counts = closed_form_counts(key, dev, n, params);
            if (!cf_counts) continue;
            for (auto c : {counter::time_steps, counter::io_blocks})
                if (cf_counts->count(c))
                    se.points.push_back(
                        {key, se.device, "closed form", n, std::string(model::info(c).name), double(cf_counts->at(c))});
            if (!simulate || simulated >= scaling_points_per_series) continue;
            model::counts partial;
            for (const auto& [c, v] : *cf_counts) partial[c] = v;
            if (sim::simulation_seconds_estimate(partial, n) > scaling_point_max_s) continue;
            try {
                const timer one;
                const auto s = sim::simulate(*se.algo, dev, n, params, 1);
                // The estimate is blind where a closed form counts no instructions (the sorts'): the
                // series stops at the first simulation that took longer than the limit.
                if (one.seconds() > scaling_point_max_s) simulated = scaling_points_per_series;
                if (!s.check.passed)
                    throw internal_error("simulating " + key + " n=" + std::to_string(n) + " on " + se.device +
                                         " failed its check: " + s.check.detail);
                const auto tot = s.record.totals();
                for (auto c : {counter::time_steps, counter::io_blocks})
                    se.points.push_back(
                        {key, se.device, "simulator", n, std::string(model::info(c).name), double(tot[c])});
                ++simulated;
            } catch (const kernel_error&) {
                // the device cannot run the default parameters (a block or tile above its limits)
            } catch (const input_error&) {}
        }
    });
    for (auto& se : all) {
        auto& f = families[family_of(se.algo->spec.key)];
        f.scaling.insert(f.scaling.end(), se.points.begin(), se.points.end());
    }
    for (const auto& s : g.data.samples) families[family_of(s.algo)].seconds.push_back(to_point(s, fit.constants));
    for (const auto& s : g.check.samples) families[family_of(s.algo)].seconds.push_back(to_point(s, fit.constants));
    for (const auto& c : g.counters) families[family_of(c.algo)].counters.push_back(c);
    std::map<std::string, std::vector<std::string>> left_out;
    for (const auto& [run, why] : g.not_compared) left_out[family_of(run)].push_back(run + " (" + why + ")");
    for (const auto& [family, runs] : left_out) {
        std::string list;
        for (const auto& r : runs) list += (list.empty() ? "" : "; ") + r;
        families[family].notes.push_back(
            "Counters not compared here, for want of time (`agpu compare --data DIR` "
            "compares every launch of a dataset): " +
            list + ".");
    }
    for (auto& [name, f] : families) {
        if (f.formulas.empty()) continue;  // a GPU-only family (baselines)
        if (f.seconds.empty())
            f.notes.push_back("No measured run of " + name +
                              " is among the datasets reported on (`agpu report "
                              "--data DIR...` chooses them; by default the fit's datasets and the device's sort "
                              "counters dataset).");
        const std::string note = family_settings(name).measured_note;
        if (!note.empty() && !f.seconds.empty()) f.notes.push_back(note);
        out.push_back(family_section(f));
    }
    return out;
}

AGPU_REGISTER_REPORT_SECTION({"families", 20, "algorithm families", family_sections});

}  // namespace
}  // namespace agpu::reports
