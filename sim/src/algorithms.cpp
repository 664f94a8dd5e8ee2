// The registry of runnable algorithms, simulate() and its versioned JSON.
#include "agpu/sim/algorithms.hpp"

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "agpu/build_info.hpp"
#include "agpu/registry.hpp"

namespace agpu::sim {

using registry = keyed_registry<algorithm>;

algorithm_registrar::algorithm_registrar(algorithm a) {
    const std::string key = a.spec.key;  // read before the move below
    registry::add(key, std::move(a));
}

std::vector<const algorithm*> algorithms() {
    std::vector<const algorithm*> out;
    for (const auto& [k, a] : registry::all()) out.push_back(&a);
    return out;
}

const algorithm& find_algorithm(const std::string& key) { return registry::get(key, "option --algo", "algorithm"); }

simulation simulate(const algorithm& algo, const model::device& dev, std::uint64_t n, const model::param_values& params,
                    std::uint64_t seed, const engine_options& opt) {
    simulation s{algo.spec.key, dev, n, params, seed, {}, {}, opt.mode};
    if (algo.device_bytes) {
        const std::uint64_t need = algo.device_bytes(n, params), limit = device_memory_limit(opt);
        if (need > limit)
            throw host_memory_error("host memory", algo.spec.key + " n=" + std::to_string(n) + " needs about " +
                                                       gib(need) +
                                                       " of simulated device memory, and the simulator about twice "
                                                       "that on the host (the inputs and CPU reference beside it), " +
                                                       gib(2 * need) + ": more than this host's " + gib(2 * limit) +
                                                       " available; use a smaller n, or agpu predict (closed forms "
                                                       "need no memory)");
    }
    executor ex(dev, opt);
    s.check = algo.run(ex, n, params, seed);
    s.record = ex.record();
    if (const auto skipped = s.record.blocks_skipped(); skipped && s.check.detail.rfind("not checked", 0) != 0)
        s.check = {true, "not checked: sampled mode skipped " + std::to_string(skipped) +
                             " unrecorded thread blocks whose outputs no count needs, so the outputs are incomplete"};
    return s;
}

nlohmann::json errors_to_json(const std::array<double, counter_count>& e) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& info : counter_table) j[std::string(info.name)] = e[std::size_t(info.id)];
    return j;
}

nlohmann::json counts_to_json(const counts& c) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& info : counter_table) j[std::string(info.name)] = c[info.id];
    return j;
}

nlohmann::json to_json(const simulation& s) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : s.params.all()) params[k] = v;
    nlohmann::json launches = nlohmann::json::array();
    for (std::size_t i = 0; i < s.record.launches.size(); ++i) {
        const auto& l = s.record.launches[i];
        launches.push_back({{"index", i},
                            {"kernel", l.kernel},
                            {"grid", {l.grid.x, l.grid.y, l.grid.z}},
                            {"block", {l.block.x, l.block.y, l.block.z}},
                            {"dynamic_shared_bytes", l.dynamic_shared_bytes},
                            {"mps_used", l.mps_used},
                            {"estimate", to_string(l.estimate)},
                            {"blocks_recorded", l.blocks_recorded},
                            {"blocks_skipped", l.blocks_skipped},
                            {"blocks_shortened", l.blocks_shortened},
                            {"counters", counts_to_json(l.c)}});
        if (l.sampled()) {
            std::array<double, counter_count> e{};
            for (std::size_t c = 0; c < counter_count; ++c)
                e[c] = l.variance[c] > 0 && l.c.v[c] > 0 ? 1.96 * std::sqrt(l.variance[c]) / double(l.c.v[c]) : 0.0;
            launches.back()["relative_error_95"] = errors_to_json(e);
        }
    }
    return {{"schema", simulate_schema},
            {"commit", build_info::commit},
            {"device", model::device_summary_json(s.device)},
            {"algo", s.algo},
            {"n", s.n},
            {"params", params},
            {"seed", s.seed},
            {"mode", to_string(s.mode)},
            {"check", {{"passed", s.check.passed}, {"detail", s.check.detail}}},
            {"launches", launches},
            {"totals", counts_to_json(s.record.totals())},
            {"relative_error_95", errors_to_json(s.record.relative_error_95())}};
}

}  // namespace agpu::sim
