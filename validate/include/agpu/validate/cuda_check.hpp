// The one check for CUDA runtime calls (STYLE.md 6): AGPU_CUDA_CHECK(call)
// throws cuda_error naming the call, where it was made, and the error's
// code, name and text. Light on purpose: the CUPTI collector uses it too.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "agpu/errors.hpp"

namespace agpu::validate {

// A CUDA call failed: the message has the call, its error code and name.
class cuda_error : public device_error {
public:
    using device_error::device_error;
};

// "call failed at file:line: " (the file without its directories).
std::string cuda_call_site(const char* call, const char* file, int line);
void cuda_check(cudaError_t e, const char* call, const char* file, int line);

}  // namespace agpu::validate

#define AGPU_CUDA_CHECK(call) ::agpu::validate::cuda_check((call), #call, __FILE__, __LINE__)
