#include "agpu/reports/sections.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "agpu/errors.hpp"
#include "agpu/model/costing.hpp"

namespace agpu::reports {

using json = nlohmann::json;

std::string fmt(double v, int digits) {
    if (!std::isfinite(v)) return v > 0 ? "inf" : (v < 0 ? "-inf" : "-");
    char buf[64];
    const double a = std::fabs(v);
    if (v != 0 && (a >= 1e7 || a < 1e-3))
        std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    else if (a >= std::pow(10.0, digits - 1) || v == std::floor(v))
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string pct(double fraction) {
    const double p = 100 * fraction;
    return fmt(std::fabs(p) < 1e-6 ? 0.0 : p, 3) + "%";  // rounding noise of an exact fit reads 0%
}

namespace {

// ---------------------------------------------------------------- Vega-Lite building blocks

json log_axis(const std::string& field, const std::string& title, const char* type = "log") {
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
            {"encoding", {{"x", {{"field", x}, {"type", "quantitative"}}}, {"y", {{"field", y}, {"type", "quantitative"}}}}}};
}

// Measured against predicted (or simulated) on log axes, with y = x.
json parity_spec(const std::string& x, const std::string& x_title, const std::string& y, const std::string& y_title,
                 const std::string& color, const std::string& color_title, const json& rows, const char* scale,
                 std::initializer_list<const char*> tips, const std::string& shape = "") {
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

}  // namespace

// ---------------------------------------------------------------- devices

double bytes_per_op(const model::device& d) {
    const double ops = double(d.hw.sm_count) * d.hw.cores_per_sm * d.hw.sm_clock_mhz * 1e6;
    return ops > 0 ? d.hw.mem_bandwidth_gbs * 1e9 / ops : 0;
}

section devices_section(const std::vector<model::device>& devices) {
    section s{"devices", "The devices", {}};
    s.add("Every device preset (`agpu devices`): the AGPU parameters p, b, M (words) and w (bits), k = p/b "
          "multiprocessors, and the hardware figures the time model turns counts into seconds with. Hypothetical "
          "devices change one H100 parameter. Bytes per operation is peak bandwidth over cores x clock: below a "
          "kernel's bytes per operation the device is memory-bound.");
    auto t = make_table("devices-table", "Device presets",
                        {"id", "name", "kind", "k", "b", "p", "M (words)", "w", "SM clock MHz", "bandwidth GB/s",
                         "launch us", "bytes per op"});
    chart c;
    c.id = "devices-bytes-per-op";
    c.title = "Peak bandwidth per core operation";
    c.caption = "Bytes of DRAM bandwidth per core operation (peak bandwidth / (cores x clock)): older GPUs have more "
                "bandwidth per operation, so a smaller tile already makes Floyd-Warshall compute-bound on them.";
    for (const auto& d : devices) {
        t.rows.push_back({d.id, d.name, d.kind, std::to_string(d.agpu.k()), std::to_string(d.agpu.b),
                          std::to_string(d.agpu.p), std::to_string(d.agpu.M), std::to_string(d.agpu.w),
                          fmt(d.hw.sm_clock_mhz, 4), fmt(d.hw.mem_bandwidth_gbs, 4), fmt(d.hw.launch_overhead_us),
                          fmt(bytes_per_op(d))});
        c.rows.push_back({{"device", d.id}, {"kind", d.kind}, {"bytes_per_op", bytes_per_op(d)}});
    }
    c.spec = {{"width", 520},
              {"mark", "bar"},
              {"encoding",
               {{"y", {{"field", "device"}, {"type", "nominal"}, {"sort", "-x"}, {"title", nullptr}}},
                {"x", {{"field", "bytes_per_op"}, {"type", "quantitative"}, {"title", "bytes per core operation"}}},
                {"color", nominal("kind", "kind")},
                {"tooltip", tooltip({"device", "bytes_per_op"})}}}};
    s.add(std::move(t));
    s.add(std::move(c));
    return s;
}

// ---------------------------------------------------------------- one family

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
        c.caption = "Solid lines and circles: the closed form on each device; dashed lines and squares: the simulator "
                    "running the algorithm's own kernels at small n (where the closed form is exact the two coincide). "
                    "time_steps is the busiest MP's steps summed over launches; io_blocks the b-word blocks moved.";
        std::set<std::string> algos;
        for (const auto& p : r.scaling) {
            if (!(p.value > 0)) continue;  // log axes
            algos.insert(p.algo);
            c.rows.push_back({{"algo", p.algo}, {"device", p.device}, {"source", p.source}, {"n", p.n},
                              {"metric", p.metric}, {"value", p.value}});
        }
        // Unfiltered layers (a filtered one is empty in some facet cells, and Vega warns of an infinite extent):
        // lines dashed by source, dots shaped by source.
        const json x = log_axis("n", "n"), y = log_axis("value", ""), color = nominal("device", "device");
        const json tips = tooltip({"algo", "device", "source", "n", "metric", "value"});
        json lines = {{"mark", {{"type", "line"}, {"strokeWidth", 1.5}}},
                      {"encoding", {{"x", x}, {"y", y}, {"color", color}, {"strokeDash", nominal("source", "source")},
                                    {"detail", nominal("source", "source")}}}};
        json dots = {{"mark", {{"type", "point"}, {"filled", true}, {"size", 40}}},
                     {"encoding", {{"x", x}, {"y", y}, {"color", color}, {"shape", nominal("source", "source")},
                                   {"tooltip", tips}}}};
        c.spec = {{"facet", {{"row", nominal("metric", "")}, {"column", nominal("algo", "")}}},
                  {"resolve", {{"scale", {{"y", "independent"}}}}},
                  {"spec", {{"width", algos.size() > 3 ? 170 : 240}, {"height", 150}, {"layer", json::array({lines, dots})}}}};
        s.add(std::move(c));
    }
    if (!r.seconds.empty()) {
        chart c;
        c.id = id + "-seconds";
        c.title = r.family + ": measured against predicted seconds";
        c.caption = "Each measured run (CUDA events, median) against the time model's prediction from its model "
                    "counts and its device's preset; the dashed line is equality.";
        auto t = make_table(id + "-seconds-table", r.family + ": prediction errors per algorithm and device",
                            {"algorithm", "device", "runs", "MAPE", "median", "worst", "worst run"});
        std::map<std::pair<std::string, std::string>, std::vector<const seconds_point*>> groups;
        for (const auto& p : r.seconds) {
            c.rows.push_back({{"algo", p.algo}, {"device", p.device}, {"n", p.n}, {"run", p.run_id},
                              {"measured_s", p.measured_s}, {"predicted_s", p.predicted_s},
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
        c.caption = "Each run's counters summed over its launches: the simulator (same kernels, inputs and seed) "
                    "against CUPTI on the GPU (symmetric log axes, so zeros show); on the dashed line they are equal.";
        auto t = make_table(id + "-counters-table", r.family + ": simulated against measured, per counter",
                            {"counter", "runs", "equal", "max |difference|", "simulated total", "measured total"});
        struct sum {
            std::size_t runs = 0, equal = 0;
            double worst = 0, sim = 0, meas = 0;
        };
        std::map<std::string, sum> per;
        for (const auto& p : r.counters) {
            c.rows.push_back({{"algo", p.algo}, {"counter", p.counter}, {"n", p.n}, {"run", p.run_id},
                              {"simulated", p.simulated}, {"measured", p.measured}});
            auto& x = per[p.counter];
            ++x.runs;
            x.equal += p.simulated == p.measured;
            x.worst = std::max(x.worst, std::fabs(p.measured - p.simulated) / std::max(p.simulated, 1.0));
            x.sim += p.simulated;
            x.meas += p.measured;
        }
        for (const auto& [name, x] : per)
            t.rows.push_back({name, std::to_string(x.runs), std::to_string(x.equal), pct(x.worst), fmt(x.sim, 6),
                              fmt(x.meas, 6)});
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

// ---------------------------------------------------------------- fit

section fit_section(const model::time_fit& used, const validate::fit_report& refit) {
    section s{"fit", "The time model's fit and its errors", {}};
    s.add("Seconds = c_launch x launches x launch overhead + max(memory: c_dram x DRAM sectors x 32 B / bandwidth + "
          "c_l2 x blocks the L2 serves beyond DRAM's / (SMs x clock), issue: c_step x (time_steps - bank-conflict wavefronts / SMs) / clock + "
          "c_shared x bank-conflict wavefronts / (SMs x clock), c_shared = 1: the shared pipeline's rate, not fitted, "
          "dispatch: c_blocks x thread blocks / (SMs x clock)) + "
          "(c_latency x steps + c_dram_latency x DRAM atoms + c_l2_latency x sectors first read from the "
          "L2) / clock for launches of less than a warp + c_atomic x atomic sectors / "
          "clock + (c_chain x chain waits + c_collective x chain collectives) / clock (each launch's heaviest block's "
          "waits per warp, barriers, loads and atomics, and its warp collectives per warp), where a run whose footprint fits in the L2 moves at most its footprint from DRAM "
          "(`model/include/agpu/model/time_model.hpp`). Every prediction in this report uses the "
          "constants of " + (used.source.empty() ? std::string("the committed fit (model/fits/h100.json)") : used.source) +
          ", fitted on " + used.device + " on " + used.date + ".");
    auto c = make_table("fit-constants", "Constants",
                        {"term", "used", "refitted here", "meaning"});
    for (const auto& t : model::time_term_table)
        c.rows.push_back({std::string(t.name), fmt(used.constants[std::size_t(t.id)], 4),
                          refit.data.samples.empty() ? "-" : fmt(refit.fit.constants[std::size_t(t.id)], 4),
                          std::string(t.constant)});
    s.add(std::move(c));
    if (refit.data.samples.empty()) {
        s.add("No measured runs could be counted, so nothing was refitted.");
        return s;
    }
    s.add("Refitted here on " + std::to_string(refit.data.samples.size()) + " runs of " + std::to_string(refit.fit.datasets.size()) +
          " datasets (" + std::to_string(refit.data.skipped.size()) +
          " skipped: GPU-only baselines, incomplete runs, or runs whose counts need too long a simulation). "
          "Errors are |predicted - measured| / measured; held out means predicted by constants fitted without that "
          "algorithm, or without that decade of n.");
    auto e = make_table("fit-errors", "Errors of the refitted constants", {"evaluation", "runs", "MAPE", "median", "worst", "R2 (log)", "worst run"});
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
    ch.caption = "Each run's predicted / measured time against n: in sample, with its algorithm held out of the fit, "
                 "and with its decade of n held out. 1 is exact; the dashed lines are x2 either way.";
    const auto& samples = refit.data.samples;
    auto add = [&](const std::string& evaluation, const std::vector<double>& predicted) {
        for (std::size_t i = 0; i < samples.size() && i < predicted.size(); ++i) {
            if (!(predicted[i] > 0) || !std::isfinite(predicted[i])) continue;
            ch.rows.push_back({{"evaluation", evaluation}, {"algo", samples[i].algo}, {"n", samples[i].n},
                               {"run", samples[i].run_id}, {"measured_s", samples[i].measured_s},
                               {"predicted_s", predicted[i]}, {"ratio", predicted[i] / samples[i].measured_s}});
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

// ---------------------------------------------------------------- cross-device

section cross_device_section(const std::string& fit_device, const std::vector<seconds_point>& fit_device_runs,
                             const std::vector<seconds_point>& other_runs) {
    section s{"cross-device", "Another device predicted from the " + fit_device + " fit", {}};
    if (other_runs.empty()) {
        s.add("No dataset of another device was given, so nothing was predicted across devices.");
        return s;
    }
    std::set<std::string> others;
    for (const auto& p : other_runs) others.insert(p.device);
    std::string names;
    for (const auto& d : others) names += (names.empty() ? "" : ", ") + d;
    s.add("The runs measured on " + names + " predicted from the constants fitted on " + fit_device +
          " and the device's preset alone (its clock, bandwidth, SM count and launch overhead): nothing measured on " +
          names + " enters the prediction.");
    auto t = make_table("cross-device-errors", names + " predicted from the " + fit_device + " constants",
                        {"algorithm", "device", "runs", "MAPE", "median", "worst", "worst run"});
    std::map<std::pair<std::string, std::string>, std::vector<const seconds_point*>> groups;
    std::vector<double> all_p, all_m;
    std::vector<std::string> all_ids;
    for (const auto& p : other_runs) {
        groups[{p.algo, p.device}].push_back(&p);
        all_p.push_back(p.predicted_s);
        all_m.push_back(p.measured_s);
        all_ids.push_back(p.run_id);
    }
    add_error_rows(t, groups);
    const auto all = validate::summarise(all_p, all_m, all_ids);
    t.rows.push_back({"all", names, std::to_string(all.count), pct(all.mape), pct(all.median_ape), pct(all.worst_ape),
                      all.worst_run});
    s.add(std::move(t));

    chart c;
    c.id = "cross-device-seconds";
    c.title = "Measured and predicted seconds against n, per device";
    c.caption = "Filled circles measured, open squares predicted: the " + fit_device +
                " runs in sample, the others from the " + fit_device + " constants and their own preset. Runs of the "
                "algorithms measured on both devices only.";
    std::set<std::string> other_algos;
    for (const auto& p : other_runs) other_algos.insert(p.algo);
    auto add = [&](const seconds_point& p) {
        for (const auto& [kind, v] : {std::pair<const char*, double>{"measured", p.measured_s}, {"predicted", p.predicted_s}})
            c.rows.push_back({{"algo", p.algo}, {"device", p.device}, {"n", p.n}, {"run", p.run_id}, {"kind", kind},
                              {"seconds", v}});
    };
    for (const auto& p : fit_device_runs)
        if (other_algos.count(p.algo)) add(p);
    for (const auto& p : other_runs) add(p);
    c.spec = {{"facet", {{"column", nominal("device", "")}}},
              {"spec",
               {{"width", 340},
                {"height", 280},
                {"mark", {{"type", "point"}, {"size", 55}}},
                {"encoding",
                 {{"x", log_axis("n", "n")},
                  {"y", log_axis("seconds", "seconds")},
                  {"color", nominal("algo", "algorithm")},
                  {"shape", nominal("kind", "")},
                  {"fill", {{"condition", {{"test", "datum.kind == 'measured'"}, {"field", "algo"}, {"type", "nominal"}}},
                            {"value", "transparent"}}},
                  {"tooltip", tooltip({"run", "device", "kind", "seconds"})}}}}}};
    s.add(std::move(c));
    return s;
}

// ---------------------------------------------------------------- hypothetical devices

section sweeps_section(const std::string& base_device, const std::vector<sweep_point>& points,
                       const std::vector<std::string>& notes) {
    section s{"sweeps", "Hypothetical devices", {}};
    s.add("Predicted seconds on " + base_device + " with one parameter changed at a time (`agpu predict --sweep`): "
          "b (banks and p = k b follow), M (shared words), p (the SM count follows), the SM clock and the DRAM "
          "bandwidth; counts from the closed forms, seconds from the time model. A speed-up above 1 is faster than " +
          base_device + ".");
    chart c;
    c.id = "sweeps-speedup";
    c.title = "Speed-up over " + base_device + " as one parameter changes";
    c.caption = "x: the parameter over its " + base_device + " value; y: " + base_device +
                " seconds over the hypothetical device's. Memory-bound runs follow bandwidth, step-bound runs the clock "
                "and p; b and M change the counts themselves.";
    auto t = make_table("sweeps-presets", "Hypothetical presets against " + base_device,
                        {"algorithm", "n", "device", base_device + " seconds", "seconds", "speed-up", "bound"});
    for (const auto& p : points) {
        const double speedup = p.seconds > 0 ? p.base_seconds / p.seconds : 0;
        if (p.param == "preset") {
            t.rows.push_back({p.algo, pow2(p.n), p.device, fmt(p.base_seconds, 4), fmt(p.seconds, 4), fmt(speedup, 3), p.bound});
            continue;
        }
        c.rows.push_back({{"algo", p.algo + " n=" + pow2(p.n)}, {"param", p.param}, {"device", p.device},
                          {"value", p.value}, {"relative", p.base_value > 0 ? p.value / p.base_value : 0},
                          {"seconds", p.seconds}, {"speedup", speedup}, {"bound", p.bound}});
    }
    c.spec = {{"facet", {{"column", nominal("param", "")}}},
              {"spec",
               {{"width", 180},
                {"height", 220},
                {"mark", {{"type", "line"}, {"point", true}}},
                {"encoding",
                 {{"x", {{"field", "relative"}, {"type", "quantitative"}, {"title", "value / base"},
                         {"scale", {{"type", "log"}, {"base", 2}}}}},
                  {"y", {{"field", "speedup"}, {"type", "quantitative"}, {"title", "speed-up"},
                         {"scale", {{"type", "log"}, {"base", 2}}}}},
                  {"color", nominal("algo", "run")},
                  {"tooltip", tooltip({"device", "value", "seconds", "speedup", "bound"})}}}}}};
    if (!c.rows.empty()) s.add(std::move(c));
    if (!t.rows.empty()) s.add(std::move(t));
    for (const auto& n : notes) s.add(n);
    return s;
}

// ---------------------------------------------------------------- the questions

section pairwise_question(const std::string& device, const std::vector<pairwise_row>& rows) {
    section s{"q-pairwise", "Why the pairwise statistics are not O(log N) at scale", {}};
    AGPU_CHECK(!rows.empty(), "pairwise_question: no rows");
    const auto& lo = rows.front();
    const auto& hi = rows.back();
    const double passes_hi = hi.array_blocks > 0 ? hi.io_blocks / hi.array_blocks : 0;
    s.add("The source's reduction runs log2 N rounds, each a kernel that copies the array and a kernel that compares "
          "pairs, and calls the result O(log N). On the AGPU model every round moves the whole array (N/b blocks "
          "read and written, more than once), so the I/O is Theta((N/b) log N) blocks, and each of the 2 log2 N "
          "launches costs a fixed overhead: log N describes the time only while the launch overheads hide the "
          "array's traffic, a few hundred thousand values on an H100. On " + device + " from n = " + pow2(lo.n) + " to n = " + pow2(hi.n) + " log2 N grows " +
          fmt(std::log2(double(hi.n)) / std::log2(double(lo.n))) + "x, but the predicted time grows " +
          fmt(hi.predicted_s / lo.predicted_s) + "x: at n = " + pow2(hi.n) + " the run moves " + fmt(hi.io_blocks) +
          " blocks, " + fmt(passes_hi) + " times the array, in " + fmt(hi.launches) + " launches.");
    auto t = make_table("q-pairwise-table", "stats/pairwise against n on " + device,
                        {"n", "log2 n", "launches", "io_blocks", "io_blocks / array blocks", "predicted s",
                         "measured s", "stats/fused measured s"});
    chart c;
    c.id = "q-pairwise-seconds";
    c.title = "stats/pairwise seconds against n, and what O(log N) would be";
    c.caption = "Measured (" + device + ") and predicted seconds of the source's pairwise reduction, the one-pass "
                "stats/fused for comparison, and c log2 N through the smallest n's prediction: the measured time "
                "leaves the log N curve once the array no longer fits in a few launches' worth of time.";
    for (const auto& r : rows) {
        const double lg = std::log2(double(r.n));
        t.rows.push_back({pow2(r.n), fmt(lg), fmt(r.launches), fmt(r.io_blocks),
                          r.array_blocks > 0 ? fmt(r.io_blocks / r.array_blocks) : "-", fmt(r.predicted_s, 4),
                          r.measured_pairwise_s ? fmt(*r.measured_pairwise_s, 4) : "-",
                          r.measured_fused_s ? fmt(*r.measured_fused_s, 4) : "-"});
        c.rows.push_back({{"n", r.n}, {"series", "stats/pairwise predicted"}, {"seconds", r.predicted_s}});
        c.rows.push_back({{"n", r.n}, {"series", "c log2 N"},
                          {"seconds", lo.predicted_s * lg / std::log2(double(lo.n))}});
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

// Floyd-Warshall's bytes per operation N_b/N_c at tile side t (model/costing.hpp: n padded to t).
double fw_bytes_per_op(std::uint64_t n, int t, int d) {
    return model::floyd_warshall_bytes(n, std::uint64_t(t), d) / model::floyd_warshall_operations(n, std::uint64_t(t));
}

}  // namespace

section tile_question(const std::vector<model::device>& devices, std::uint64_t n, const std::vector<int>& tiles,
                      int element_bytes) {
    section s{"q-tile", "Which tile size each device needs for Floyd-Warshall", {}};
    AGPU_CHECK(!tiles.empty(), "tile_question: no tiles");
    const double d = element_bytes;
    s.add("Blocked Floyd-Warshall with t x t tiles held on chip moves N_b = d (4n^3/t - 2n^2) bytes and does N_c = "
          "2n(n^2 - 2t + 1) operations (one add and one min per update), so N_b/N_c is about 2d/t bytes per "
          "operation. The run is bound by arithmetic rather than memory when N_b/N_c is below the device's bytes of "
          "bandwidth per operation (peak bandwidth / (cores x clock)); the tile each device needs is the smallest t "
          "that gets there, here at n = " + std::to_string(n) + " with d = " + std::to_string(element_bytes) +
          "-byte distances. A tile must also fit: the non-pivot update holds three t x t tiles in one block's shared "
          "memory.");
    std::vector<std::string> cols = {"device", "bytes per op"};
    for (int t : tiles) cols.push_back("N_b/N_c t=" + std::to_string(t));
    cols.insert(cols.end(), {"smallest t", "largest t that fits (3 t^2 d bytes)"});
    auto tab = make_table("q-tile-table", "N_b/N_c at each tile size against each device's bytes per operation", cols);
    chart c;
    c.id = "q-tile";
    c.title = "N_b/N_c against the tile size, and each device's bytes per operation";
    c.caption = "The line is Floyd-Warshall's bytes per operation at tile side t (the same on every device); each "
                "horizontal rule is a device's bandwidth per operation. A device needs the smallest t whose point "
                "lies below its rule.";
    for (int t : tiles)
        c.rows.push_back({{"kind", "tile"}, {"t", t}, {"bytes_per_op", fw_bytes_per_op(n, t, element_bytes)}});
    std::vector<std::string> answers;
    for (const auto& dev : devices) {
        const double ratio = bytes_per_op(dev);
        std::vector<std::string> row{dev.id, fmt(ratio)};
        std::optional<int> smallest;
        int fits = 0;
        for (int t : tiles) {
            const double x = fw_bytes_per_op(n, t, element_bytes);
            row.push_back(fmt(x) + (x < ratio ? " (compute)" : " (memory)"));
            if (!smallest && x < ratio) smallest = t;
            if (3.0 * t * t * d <= double(dev.hw.smem_per_block_bytes)) fits = t;
        }
        row.push_back(smallest ? std::to_string(*smallest) : "none listed");
        row.push_back(fits ? std::to_string(fits) : "none");
        tab.rows.push_back(std::move(row));
        c.rows.push_back({{"kind", "device"}, {"device", dev.id}, {"bytes_per_op", ratio}});
        std::string a = dev.id + ": t = " + (smallest ? std::to_string(*smallest) : "none listed");
        if (smallest && *smallest > fits) a += " (more than fits; memory-bound at every t that fits)";
        answers.push_back(a);
    }
    std::string joined;
    for (const auto& a : answers) joined += (joined.empty() ? "" : "; ") + a;
    s.add("Answer: " + joined + ".");
    s.add(std::move(tab));
    json line = {{"transform", json::array({{{"filter", "datum.kind == 'tile'"}}})},
                 {"mark", {{"type", "line"}, {"point", true}, {"color", "#333"}}},
                 {"encoding",
                  {{"x", {{"field", "t"}, {"type", "quantitative"}, {"title", "tile side t"}, {"scale", {{"type", "log"}, {"base", 2}}}}},
                   {"y", log_axis("bytes_per_op", "bytes per operation")},
                   {"tooltip", tooltip({"t", "bytes_per_op"})}}}};
    json rules = {{"transform", json::array({{{"filter", "datum.kind == 'device'"}}})},
                  {"mark", {{"type", "rule"}, {"strokeWidth", 1.5}}},
                  {"encoding",
                   {{"y", {{"field", "bytes_per_op"}, {"type", "quantitative"}}},
                    {"color", nominal("device", "device")},
                    {"tooltip", tooltip({"device", "bytes_per_op"})}}}};
    c.spec = {{"width", 560}, {"height", 360}, {"layer", json::array({line, rules})}};
    s.add(std::move(c));
    return s;
}

section sort_question(const model::device& d, const std::vector<sort_io_row>& rows) {
    section s{"q-sort", "The multiway sort's I/O against the pairwise sort's and the lower bound", {}};
    AGPU_CHECK(!rows.empty(), "sort_question: no rows");
    const auto& hi = rows.back();
    auto range = [](double lo, double high) { return lo == high ? fmt(lo) : fmt(lo) + " to " + fmt(high); };
    s.add("I/O in b-word blocks on " + d.id + " (b = " + std::to_string(d.agpu.b) + ", M = " + std::to_string(d.agpu.M) +
          " words) from the closed forms of sort/multiway (d-way merges by a heap in shared memory) and sort/pairwise "
          "(the same kernels with d = 2), default parameters (u32 keys), against the Aggarwal-Vitter bound "
          "(n/b) log_{M/b}(n/b) with n the words sorted (no constant factor: the ratios' growth, not their size, is "
          "the point). Where a merge pass splits its groups into ranges the closed form bounds the blocks it moves, "
          "so both ends are given. At n = " + pow2(hi.n) + " the multiway sort moves " +
          range(hi.multiway_low, hi.multiway_high) + " blocks, " + fmt(hi.multiway_low / hi.lower_bound) + " to " +
          fmt(hi.multiway_high / hi.lower_bound) + " times the bound; the pairwise sort moves " +
          range(hi.pairwise_low, hi.pairwise_high) + ", " + fmt(hi.pairwise_low / hi.multiway_high) + " to " +
          fmt(hi.pairwise_high / hi.multiway_low) + " times the multiway sort's.");
    auto t = make_table("q-sort-table", "Sort I/O (blocks) on " + d.id,
                        {"n", "multiway", "pairwise", "lower bound", "multiway / bound", "pairwise / bound"});
    chart c;
    c.id = "q-sort-io";
    c.title = "Sort I/O against n";
    c.caption = "Blocks moved by the multiway and the pairwise merge sort (closed forms; low and high ends where a "
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

// ---------------------------------------------------------------- sampled simulation against exact

namespace {

// A fraction as a percentage with fixed decimals, as sim/README.md's table gives it.
std::string pct_fixed(double fraction, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f%%", decimals, 100 * fraction);
    return buf;
}

}  // namespace

section sampled_section(const sampled_records& r) {
    section s{"sampled", "Sampled simulation against exact", {}};
    s.add("Sampled mode (`agpu simulate|predict --mode sampled`) records the first and last blocks of a launch and one "
          "block drawn from each of 48 strata of the rest, extrapolates every summed counter from them (the stratified "
          "estimator) and reports each one's 95% error; the sorts' large runs synthesize their inputs, and some "
          "launches skip the blocks they do not record (sim/README.md, \"Sampled mode\"). Here each row ran "
          "`agpu simulate --mode exact` and `--mode sampled` at a mid size and compared every counter of the totals.");
    if (r.counters.empty()) {
        s.add("No sampled-against-exact table to show: " + (r.missing.empty() ? std::string("no rows") : r.missing) + ".");
        return s;
    }
    struct row {
        const sampled_counter* first = nullptr;
        const sampled_counter* time = nullptr;
        const sampled_counter* worst = nullptr;
        double largest_reported = 0;
        std::size_t counters = 0, within = 0;
        std::vector<const sampled_counter*> above;
    };
    std::vector<row> rows;
    std::map<std::string, std::size_t> index;  // algo, params, n -> rows[]
    struct per_counter {
        std::size_t rows = 0, within = 0;
        const sampled_counter* worst = nullptr;
    };
    std::map<std::string, per_counter> counters;
    std::size_t values = 0, values_within = 0;
    for (const auto& c : r.counters) {
        const std::string key = c.algo + "\n" + c.params + "\n" + std::to_string(c.n);
        const auto [it, added] = index.emplace(key, rows.size());
        if (added) rows.emplace_back().first = &c;
        auto& x = rows[it->second];
        const double err = std::fabs(c.relative_error);
        const bool within = err <= sampled_tolerance;
        ++x.counters;
        x.within += within;
        if (!within) x.above.push_back(&c);
        if (c.counter == "time_steps") x.time = &c;
        if (err > 0 && (!x.worst || err > std::fabs(x.worst->relative_error))) x.worst = &c;
        if (c.reported_95) x.largest_reported = std::max(x.largest_reported, *c.reported_95);
        auto& pc = counters[c.counter];
        ++pc.rows;
        pc.within += within;
        if (!pc.worst || err > std::fabs(pc.worst->relative_error)) pc.worst = &c;
        ++values;
        values_within += within;
    }
    auto name = [](const sampled_counter& c) {
        std::string out = c.algo;
        if (!c.params.empty()) out += " " + c.params;
        if (!c.note.empty()) out += " (" + c.note + ")";
        return out;
    };
    std::size_t rows_within = 0;
    std::string above;
    for (const auto& x : rows) {
        rows_within += x.above.empty();
        for (const auto* c : x.above)
            above += (above.empty() ? "" : "; ") + name(*c) + " n=" + std::to_string(c->n) + ": " + c->counter + " " +
                     pct_fixed(c->relative_error, 3);
    }
    s.add(std::to_string(rows_within) + " of " + std::to_string(rows.size()) + " rows have every counter within " +
          pct(sampled_tolerance) + " of exact; " + std::to_string(values_within) + " of " + std::to_string(values) +
          " counter values (rows times counters) are within it, and " +
          std::to_string(std::count_if(counters.begin(), counters.end(),
                                       [](const auto& kv) { return kv.second.within == kv.second.rows; })) +
          " of " + std::to_string(counters.size()) + " counters are within it on every row." +
          (above.empty() ? std::string() : " Above " + pct(sampled_tolerance) + ": " + above + "."));
    s.add("Data: `" + r.source + "` (one row per algorithm row and counter). " + r.provenance +
          " Wall times are of one run each on a host shared with other work: indicative only.");

    auto t = make_table("sampled-table", "Sampled against exact, every counter of the totals",
                        {"algorithm, params", "n", "exact s", "sampled s", "speed-up", "blocks recorded",
                         "time_steps error", "its reported 95%", "worst counter error", "largest reported 95%",
                         "within " + pct(sampled_tolerance)});
    for (const auto& x : rows) {
        const auto& c = *x.first;
        const double speedup = c.sampled_s > 0 ? c.exact_s / c.sampled_s : 0;
        char speed[32];
        std::snprintf(speed, sizeof speed, "%.1fx", speedup);
        char secs[2][32];
        std::snprintf(secs[0], sizeof secs[0], "%.1f", c.exact_s);
        std::snprintf(secs[1], sizeof secs[1], "%.1f", c.sampled_s);
        const std::string worst = x.worst ? pct_fixed(std::fabs(x.worst->relative_error), 3) + " (" + x.worst->counter + ")"
                                          : pct_fixed(0, 3) + " (-)";
        const std::string within = x.above.empty() ? "yes (" + std::to_string(x.within) + "/" + std::to_string(x.counters) + ")"
                                                   : "NO: " + std::to_string(x.above.size()) + " of " +
                                                         std::to_string(x.counters) + " above";
        t.rows.push_back({name(c), std::to_string(c.n), secs[0], secs[1], speed,
                          std::to_string(c.blocks_recorded) + "/" + std::to_string(c.blocks_total),
                          x.time ? pct_fixed(std::fabs(x.time->relative_error), 3) : "-",
                          x.time && x.time->reported_95 ? pct_fixed(*x.time->reported_95, 2) : "-", worst,
                          pct_fixed(x.largest_reported, 2), within});
    }
    s.add(std::move(t));

    auto pc = make_table("sampled-counters", "Each counter's worst error over the rows",
                         {"counter", "rows", "within " + pct(sampled_tolerance), "worst error", "its row"});
    for (const auto& [counter, x] : counters)
        pc.rows.push_back({counter, std::to_string(x.rows), std::to_string(x.within),
                           pct_fixed(std::fabs(x.worst->relative_error), 3),
                           std::fabs(x.worst->relative_error) > 0 ? name(*x.worst) + " n=" + std::to_string(x.worst->n) : "-"});
    s.add(std::move(pc));
    return s;
}

}  // namespace agpu::reports
