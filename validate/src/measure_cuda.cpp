// One run on the GPU: warm-up, timed repetitions (CUDA events, each checked
// against the CPU reference; a failed check is recorded and not timed), then
// one run under the CUPTI range profiler (one range per launch) for the
// counters of the one counter table and the hardware-only metrics.
#include <algorithm>
#include <map>

#include "agpu/errors.hpp"
#include "agpu/model/counters.hpp"
#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/cupti.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "measure.hpp"

namespace agpu::validate {
namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

std::vector<measurement> measure_run(const model::device& preset, const std::string& algo, std::uint64_t n,
                                     const model::param_values& params, const measure_options& opt,
                                     collection_info& info) {
    const auto it = gpu_algorithms().find(algo);
    if (it == gpu_algorithms().end())
        throw input_error("algorithm " + algo, "has no GPU run (no .gpu.cu registration)");
    const gpu_algorithm& g = it->second;
    const std::string ps = params_string(params.all());
    const measurement base{make_run_id(algo, n, ps, opt.seed), algo, n, ps, opt.seed, "run", "", "", {}, "", ""};
    std::vector<measurement> rows;
    auto row = [&](std::string launch, std::string kernel, std::string counter, std::optional<double> v,
                   std::string unit, std::string note = "") {
        measurement m = base;
        m.launch = std::move(launch);
        m.kernel = std::move(kernel);
        m.counter = std::move(counter);
        m.value = v;
        m.unit = std::move(unit);
        m.note = std::move(note);
        rows.push_back(std::move(m));
    };
    auto fail = [&](const model::check_result& c) {
        row("run", "", "check", 0.0, "passed", c.detail);
        row("run", "", "complete", 1.0, "flag");
        return rows;
    };

    for (unsigned w = 0; w < opt.warmup; ++w) {
        cuda_executor ex(preset);
        const auto c = g.run(ex, n, params, opt.seed);
        ex.synchronize();
        if (!c.passed) return fail(c);
    }

    std::vector<std::string> kernels;
    std::vector<std::vector<double>> ms;  // [launch][rep]
    std::vector<double> total;
    std::map<std::string, std::pair<std::string, std::vector<double>>> values;  // name: unit, one per rep
    model::check_result last;
    for (unsigned r = 0; r < opt.reps; ++r) {
        cuda_executor ex(preset);
        ex.start_timing();
        last = g.run(ex, n, params, opt.seed);
        const auto t = ex.stop_timing();
        if (!last.passed) return fail(last);
        if (r == 0) {
            for (const auto& l : t) kernels.push_back(l.kernel);
            ms.assign(t.size(), {});
        }
        AGPU_CHECK(t.size() == kernels.size(), "a run launched a different number of kernels than the one before");
        double sum = 0;
        for (std::size_t i = 0; i < t.size(); ++i) {
            ms[i].push_back(t[i].ms);
            sum += t[i].ms;
        }
        total.push_back(sum);
        for (const auto& v : last.values) {
            auto& [unit, reps] = values[v.name];
            unit = v.unit;
            reps.push_back(v.value);
        }
    }
    row("run", "", "check", 1.0, "passed", last.detail);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const auto [lo, hi] = std::minmax_element(ms[i].begin(), ms[i].end());
        row(std::to_string(i), kernels[i], "time_ms", median(ms[i]), "ms", "median of " + std::to_string(opt.reps));
        row(std::to_string(i), kernels[i], "time_ms_min", *lo, "ms");
        row(std::to_string(i), kernels[i], "time_ms_max", *hi, "ms");
    }
    if (!total.empty()) {
        const auto [lo, hi] = std::minmax_element(total.begin(), total.end());
        row("run", "", "time_ms", median(total), "ms", "sum of the launches, median of " + std::to_string(opt.reps));
        row("run", "", "time_ms_min", *lo, "ms");
        row("run", "", "time_ms_max", *hi, "ms");
    }
    for (const auto& [name, v] : values) {
        const auto& [unit, reps] = v;
        row("run", "", name, median(reps), unit,
            "measured by the run itself, median of " + std::to_string(reps.size()) + " repetitions");
    }

    if (opt.counters) {
        // Metric names from the one counter table, then the hardware-only
        // ones; a table entry combines metrics: "a+b", "a-b", "a/N".
        struct wanted {
            std::string name, unit, expression;
            std::vector<std::pair<std::size_t, double>> parts;  // (index into `metrics`, factor)
        };
        std::vector<wanted> want;
        std::vector<std::string> metrics;
        auto add = [&](std::string_view name, std::string_view unit, std::string_view expr) {
            wanted w{std::string(name), std::string(unit), std::string(expr), {}};
            for (const auto& [part, scale] : metric_terms(expr)) {
                auto found = std::find(metrics.begin(), metrics.end(), part);
                if (found == metrics.end()) found = metrics.insert(metrics.end(), part);
                w.parts.emplace_back(std::size_t(found - metrics.begin()), scale);
            }
            want.push_back(std::move(w));
        };
        for (const auto& c : model::counter_table)
            if (!c.cupti_metric.empty()) add(c.name, c.unit, c.cupti_metric);
        for (const auto& h : model::hardware_metrics) add(h.name, h.unit, h.cupti_metric);

        std::vector<std::string> launched;
        model::check_result profiled;
        const auto res = cupti_collect(
            metrics,
            [&] {
                cuda_executor ex(preset);
                ex.set_poison(false);
                profiled = g.run(ex, n, params, opt.seed);
                ex.synchronize();
                launched = ex.launches();
            },
            std::max<std::size_t>(64, kernels.size() + 8));
        info.chip = res.chip;
        info.mode = res.mode;
        info.missing = res.missing;
        info.passes = res.passes;
        if (!profiled.passed) return fail(profiled);
        if (res.ranges.size() != launched.size())
            row("run", "", "ranges", double(res.ranges.size()), "ranges",
                "the profiler reported " + std::to_string(res.ranges.size()) + " ranges for " +
                    std::to_string(launched.size()) + " launches: counters matched by order");
        for (std::size_t i = 0; i < res.ranges.size(); ++i) {
            const std::string kernel = i < launched.size() ? launched[i] : res.ranges[i].name;
            for (const auto& w : want) {
                std::optional<double> v = 0.0;
                std::string missing;
                for (const auto& [part, sign] : w.parts) {
                    const auto& pv = res.ranges[i].values[part];
                    if (pv && v) *v += sign * *pv;
                    else {
                        v.reset();
                        missing = metrics[part];
                    }
                }
                row(std::to_string(i), kernel, w.name, v, w.unit,
                    v ? w.expression : missing + ": not offered by this GPU");
            }
        }
    }
    row("run", "", "complete", 1.0, "flag");
    return rows;
}

}  // namespace agpu::validate
