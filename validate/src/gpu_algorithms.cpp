#include "agpu/validate/gpu_algorithms.hpp"

#include "agpu/errors.hpp"
#include "agpu/registry.hpp"
#include "agpu/sim/algorithms.hpp"

namespace agpu::validate {

const std::map<std::string, gpu_algorithm>& gpu_algorithms() { return keyed_registry<gpu_algorithm>::all(); }

gpu_algorithm_registrar::gpu_algorithm_registrar(gpu_algorithm a) {
    const std::string key = a.key;  // read before the move below
    keyed_registry<gpu_algorithm>::add(key, std::move(a));
}

const model::algo_spec& find_spec(const std::string& key) {
    const auto it = gpu_algorithms().find(key);
    if (it != gpu_algorithms().end() && it->second.gpu_only_spec) return *it->second.gpu_only_spec;
    return sim::find_algorithm(key).spec;
}

}  // namespace agpu::validate
