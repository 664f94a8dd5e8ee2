#include "agpu/validate/gpu_algorithms.hpp"

#include "agpu/registry.hpp"

namespace agpu::validate {

const std::map<std::string, gpu_algorithm>& gpu_algorithms() { return keyed_registry<gpu_algorithm>::all(); }

gpu_algorithm_registrar::gpu_algorithm_registrar(gpu_algorithm a) {
    const std::string key = a.key;  // read before the move below
    keyed_registry<gpu_algorithm>::add(key, std::move(a));
}

}  // namespace agpu::validate
