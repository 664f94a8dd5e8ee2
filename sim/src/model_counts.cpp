// A run's counts for prediction and fitting: closed form or simulator.
#include "agpu/sim/model_counts.hpp"

#include <chrono>
#include <cstdio>
#include <mutex>

#include "agpu/model/closed_form.hpp"

namespace agpu::sim {

using model::counter;

std::string to_string(count_source s) { return s == count_source::closed_form ? "closed form" : "simulator"; }

const std::vector<counter>& time_model_counters() {
    static const std::vector<counter> c = {counter::launches,       counter::threads,
                                           counter::thread_blocks,  counter::time_steps,
                                           counter::global_sectors, counter::global_atomic_sectors,
                                           counter::chain_waits,    counter::chain_collectives};
    return c;
}

bool serves_time_model(const model::partial_counts& p) {
    for (auto c : time_model_counters()) {
        if (p.count(c)) continue;
        // No atomic counter at all: a closed form of an algorithm without atomics.
        if (c == counter::global_atomic_sectors && !p.count(counter::global_atomic_instructions)) continue;
        return false;
    }
    return true;
}

// A sampled run's share of the exact run's time: blocks that run unrecorded
// still start their threads, switch at every barrier and check their accesses
// (measured, sim/README.md: 0.35 on sort/pairwise to 0.85 on
// scan/work-efficient and the rank builds; skipped blocks cost nothing, but
// the estimate does not know which launches skip).
constexpr double sampled_fraction = 0.7;

double simulation_seconds_estimate(const model::counts& c, std::uint64_t n) {
    // A closed form that leaves lane accesses out: every warp-instruction's lanes, at most 32 (b on these machines).
    const double lanes =
        c[counter::lane_accesses] ? double(c[counter::lane_accesses]) : 32.0 * double(c[counter::warp_instructions]);
    return 3e-8 * (lanes + double(c[counter::threads])) + 2e-8 * double(n);
}

mode_request parse_mode(const std::string& text, const std::string& option) {
    if (text == "exact") return mode_request::exact;
    if (text == "sampled") return mode_request::sampled;
    if (text == "auto") return mode_request::automatic;
    throw input_error(option, "must be exact, sampled or auto, got '" + text + "'");
}

namespace {

// The closed form's counts, with its estimate of the simulator's lane
// accesses where the counts give none.
model::counts estimate_basis(const model::closed_form& cf, const model::partial_counts& p, const model::device& dev,
                             std::uint64_t n, const model::param_values& params) {
    model::counts partial;
    for (const auto& [c, v] : p) partial[c] = v;
    if (!p.count(counter::lane_accesses) && !p.count(counter::warp_instructions) && cf.simulation_lanes)
        partial[counter::lane_accesses] = static_cast<std::uint64_t>(cf.simulation_lanes(dev.agpu, n, params));
    return partial;
}

}  // namespace

double exact_simulation_estimate(const algorithm& algo, const model::device& dev, std::uint64_t n,
                                 const model::param_values& params) {
    const auto* cf = model::find_closed_form(algo.spec.key);
    if (!cf) return 0;
    return simulation_seconds_estimate(estimate_basis(*cf, cf->costs(dev.agpu, n, params), dev, n, params), n);
}

double sampled_simulation_estimate(const algorithm& algo, const model::device& dev, std::uint64_t n,
                                   const model::param_values& params) {
    if (algo.sampled_lanes)
        if (const double lanes = algo.sampled_lanes(dev.agpu, n, params); lanes > 0) return 3e-8 * lanes;
    return sampled_fraction * exact_simulation_estimate(algo, dev, n, params);
}

sim_mode resolve_mode(mode_request r, const algorithm& algo, const model::device& dev, std::uint64_t n,
                      const model::param_values& params) {
    if (r == mode_request::exact) return sim_mode::exact;
    if (r == mode_request::sampled) return sim_mode::sampled;
    return exact_simulation_estimate(algo, dev, n, params) <= auto_exact_seconds ? sim_mode::exact : sim_mode::sampled;
}

namespace {

simulation_too_long too_long(const std::string& where, const std::string& missing, sim_mode mode, double est,
                             double limit, const std::string& how) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", est);
    return simulation_too_long(where,
                               "the closed form does not give " + missing + " (data-dependent), and the " +
                                   to_string(mode) + " simulator would take about " + buf + " s here" + how +
                                   " (limit " + std::to_string(int(limit)) + " s)",
                               est);
}

}  // namespace

model_counts count_run(const algorithm& algo, const model::device& dev, std::uint64_t n,
                       const model::param_values& params, std::uint64_t seed, const count_options& opt) {
    model_counts out;
    if (algo.device_bytes) out.footprint_bytes = algo.device_bytes(n, params);
    std::string missing;
    std::uint64_t total_threads = 0;
    sim_mode mode = opt.mode == mode_request::sampled ? sim_mode::sampled : sim_mode::exact;
    if (const auto* cf = model::find_closed_form(algo.spec.key)) {
        const auto p = cf->costs(dev.agpu, n, params);
        if (serves_time_model(p) && !opt.force_simulator) {
            for (const auto& [c, v] : p) out.totals[c] = v;
            out.source = count_source::closed_form;
            out.check = {true, "not run (closed form)"};
            return out;
        }
        const double exact_est = simulation_seconds_estimate(estimate_basis(*cf, p, dev, n, params), n);
        if (opt.mode == mode_request::automatic && exact_est > auto_exact_seconds) mode = sim_mode::sampled;
        const double est = mode == sim_mode::sampled ? sampled_simulation_estimate(algo, dev, n, params) : exact_est;
        missing.clear();
        for (auto c : time_model_counters())
            if (!p.count(c)) missing += (missing.empty() ? "" : ", ") + std::string(model::info(c).name);
        if (missing.empty()) missing = "every counter";
        if (p.count(counter::threads)) total_threads = p.at(counter::threads);
        if (opt.max_simulation_s > 0 && est > opt.max_simulation_s)
            throw too_long(algo.spec.key + " n=" + std::to_string(n), missing, mode, est, opt.max_simulation_s, "");
    }
    engine_options eo;
    eo.mode = mode;
    eo.threads = opt.threads;
    // The estimate above can be far off (a closed form without lane accesses
    // knows only the threads): 3 s after the first block ends, the run's own
    // pace (threads done since, against the closed form's total) estimates it
    // again, and a run beyond the limit stops then.
    struct pace_state {
        std::mutex m;
        bool started = false;
        std::chrono::steady_clock::time_point start;
        std::uint64_t done = 0, at_start = 0;
    } pace;
    eo.progress = [&](std::uint64_t threads) {
        if (opt.progress) opt.progress(threads);
        if (opt.max_simulation_s <= 0 || !opt.stop_on_measured_pace || total_threads == 0) return;
        const auto now = std::chrono::steady_clock::now();
        std::unique_lock<std::mutex> lock(pace.m);
        pace.done += threads;
        if (!pace.started) {
            pace.started = true;
            pace.start = now;
            pace.at_start = pace.done;
            return;
        }
        const double elapsed = std::chrono::duration<double>(now - pace.start).count();
        if (elapsed < 3.0 || pace.done == pace.at_start || total_threads <= pace.at_start) return;
        const double est_s = elapsed * double(total_threads - pace.at_start) / double(pace.done - pace.at_start);
        if (est_s > opt.max_simulation_s)
            throw too_long(algo.spec.key + " n=" + std::to_string(n), missing, mode, est_s, opt.max_simulation_s,
                           " (measured: " + std::to_string(int(elapsed)) + " s for " +
                               std::to_string(int(100.0 * double(pace.done) / double(total_threads))) +
                               "% of its threads)");
    };
    auto s = simulate(algo, dev, n, params, seed, eo);
    out.totals = s.record.totals();
    out.relative_error_95 = s.record.relative_error_95();
    out.mode = mode;
    out.launches = std::move(s.record.launches);
    out.source = count_source::simulator;
    out.check = s.check;
    return out;
}

}  // namespace agpu::sim
