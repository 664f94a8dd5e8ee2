// One run measured on the GPU: timing (CUDA events) and counters (CUPTI).
// measure_cuda.cpp with CUDA, measure_none.cpp without.
#pragma once

#include <vector>

#include "agpu/model/algorithm.hpp"
#include "agpu/model/device.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/suite.hpp"

namespace agpu::validate {

// What the counter collection reported about itself (for the provenance).
struct collection_info {
    std::string chip, mode;
    std::vector<std::string> missing;
    std::size_t passes = 0;
    std::uint32_t cupti_api_version = 0;
};

// The rows of one run (ending with its "run/complete" row). A run whose check
// fails gets a check row of 0 and no timing.
std::vector<measurement> measure_run(const model::device& preset, const std::string& algo, std::uint64_t n,
                                     const model::param_values& params, const measure_options& opt,
                                     collection_info& info);

}  // namespace agpu::validate
