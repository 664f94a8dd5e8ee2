// The algorithms the simulator can run, registered by key from each
// algorithm's folder in kernels/ (AGPU_REGISTER_SIM_ALGORITHM), and one call
// that runs one of them on a device and returns its record as versioned JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agpu/model/algorithm.hpp"
#include "agpu/model/device.hpp"
#include "agpu/sim/executor.hpp"

namespace agpu::sim {

using model::check_result;

struct algorithm {
    model::algo_spec spec;
    // Makes inputs from `seed`, runs the algorithm's driver on `ex`, compares
    // the outputs with the CPU reference.
    std::function<check_result(executor& ex, std::uint64_t n, const model::param_values& p, std::uint64_t seed)> run;
    // Optional: about the simulated device memory a run allocates (bytes), so
    // that simulate() can refuse one the host cannot hold before it starts.
    std::function<std::uint64_t(std::uint64_t n, const model::param_values& p)> device_bytes = {};
    // Optional: the lane accesses a sampled run records, estimated, where the
    // algorithm's sampled run is not a share of its exact one (the sorts'
    // synthesized inputs: sim/estimators/sort_sampled.hpp); 0 where it is.
    std::function<double(const model::machine&, std::uint64_t n, const model::param_values& p)> sampled_lanes = {};
};

// Every registered algorithm, sorted by key.
std::vector<const algorithm*> algorithms();
// Throws input_error naming the key and listing the known ones.
const algorithm& find_algorithm(const std::string& key);

struct algorithm_registrar {
    explicit algorithm_registrar(algorithm a);
};

struct simulation {
    std::string algo;
    model::device device;
    std::uint64_t n = 0;
    model::param_values params;
    std::uint64_t seed = 0;
    run_record record;
    check_result check;
    sim_mode mode = sim_mode::exact;
};

// Runs `algo` on `dev` with n and params (already checked), in opt.mode on
// opt.threads host threads (engine_options). Throws host_memory_error before
// anything runs when the algorithm's device_bytes exceed the executor's limit
// (half the host's available memory: the simulator needs about twice the
// device footprint).
simulation simulate(const algorithm& algo, const model::device& dev, std::uint64_t n, const model::param_values& params,
                    std::uint64_t seed = 1, const engine_options& opt = {});

inline constexpr const char* simulate_schema = "agpu.simulate/2";
// {schema, commit, device, algo, n, params, seed, mode, check, launches[], totals{}, relative_error_95{}}: each
// launch has blocks_recorded and, where sampled, relative_error_95 (the 95% interval's half-width over the value,
// per counter; 0 where exact).
nlohmann::json to_json(const simulation& s);
nlohmann::json counts_to_json(const counts& c);
// {counter name: relative error} for every counter.
nlohmann::json errors_to_json(const std::array<double, counter_count>& e);

}  // namespace agpu::sim

#define AGPU_SIM_CAT2(a, b) a##b
#define AGPU_SIM_CAT(a, b) AGPU_SIM_CAT2(a, b)
// AGPU_REGISTER_SIM_ALGORITHM(spec, run[, device_bytes[, sampled_lanes]]): one line beside an algorithm's kernels.
#define AGPU_REGISTER_SIM_ALGORITHM(spec, run, ...)                                             \
    static const ::agpu::sim::algorithm_registrar AGPU_SIM_CAT(agpu_sim_algorithm_, __LINE__) { \
        { spec, run, __VA_ARGS__ }                                                              \
    }
