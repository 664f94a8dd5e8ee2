// The algorithms the GPU can run, registered by key from each algorithm's
// folder in kernels/ (AGPU_REGISTER_GPU_ALGORITHM in a .gpu.cu file), beside
// the simulator's registration of the same key. Built only with CUDA.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "agpu/model/algorithm.hpp"

namespace agpu::validate {

class cuda_executor;

struct gpu_algorithm {
    std::string key;
    std::function<model::check_result(cuda_executor& ex, std::uint64_t n, const model::param_values& p,
                                      std::uint64_t seed)>
        run;
    // Only for what runs on the GPU alone (baselines: CUB, Thrust, copies),
    // which the simulator does not know: their spec. Algorithms take theirs
    // from the simulator's registration of the same key.
    std::optional<model::algo_spec> gpu_only_spec = {};
};

// Every registered GPU algorithm, by key (empty without CUDA).
const std::map<std::string, gpu_algorithm>& gpu_algorithms();

// The spec of `key`: the simulator's, or a GPU-only baseline's. Throws
// input_error naming the key when neither knows it.
const model::algo_spec& find_spec(const std::string& key);

struct gpu_algorithm_registrar {
    explicit gpu_algorithm_registrar(gpu_algorithm a);
};

}  // namespace agpu::validate

#define AGPU_GPU_CAT2(a, b) a##b
#define AGPU_GPU_CAT(a, b) AGPU_GPU_CAT2(a, b)
// AGPU_REGISTER_GPU_ALGORITHM(key, run): one line beside an algorithm's kernels.
#define AGPU_REGISTER_GPU_ALGORITHM(key, run)                                                            \
    static const ::agpu::validate::gpu_algorithm_registrar AGPU_GPU_CAT(agpu_gpu_algorithm_, __LINE__) { \
        { key, run }                                                                                     \
    }
// AGPU_REGISTER_GPU_BASELINE(spec, run): a GPU-only baseline (CUB, Thrust, a copy).
#define AGPU_REGISTER_GPU_BASELINE(spec, run)                                                           \
    static const ::agpu::validate::gpu_algorithm_registrar AGPU_GPU_CAT(agpu_gpu_baseline_, __LINE__) { \
        { (spec).key, run, (spec) }                                                                     \
    }
