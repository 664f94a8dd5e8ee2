#include "agpu/sim/algorithms.hpp"

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
                    std::uint64_t seed) {
    simulation s{algo.spec.key, dev, n, params, seed, {}, {}};
    executor ex(dev);
    s.check = algo.run(ex, n, params, seed);
    s.record = ex.record();
    return s;
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
                            {"counters", counts_to_json(l.c)}});
    }
    return {{"schema", simulate_schema},
            {"commit", build_info::commit},
            {"device", model::device_summary_json(s.device)},
            {"algo", s.algo},
            {"n", s.n},
            {"params", params},
            {"seed", s.seed},
            {"mode", "exact"},
            {"check", {{"passed", s.check.passed}, {"detail", s.check.detail}}},
            {"launches", launches},
            {"totals", counts_to_json(s.record.totals())}};
}

}  // namespace agpu::sim
