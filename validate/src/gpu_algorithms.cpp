#include "agpu/validate/gpu_algorithms.hpp"

#include "agpu/errors.hpp"

namespace agpu::validate {
namespace {

std::map<std::string, gpu_algorithm>& registry() {
    static std::map<std::string, gpu_algorithm> r;
    return r;
}

}  // namespace

const std::map<std::string, gpu_algorithm>& gpu_algorithms() { return registry(); }

gpu_algorithm_registrar::gpu_algorithm_registrar(gpu_algorithm a) {
    AGPU_CHECK(!registry().count(a.key), "GPU algorithm registered twice: " + a.key);
    registry().emplace(a.key, std::move(a));
}

}  // namespace agpu::validate
