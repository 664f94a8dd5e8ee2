#include "agpu/validate/cuda_check.hpp"

namespace agpu::validate {

std::string cuda_call_site(const char* call, const char* file, int line) {
    const char* f = file;
    for (const char* p = file; *p; ++p)
        if (*p == '/') f = p + 1;
    return std::string(call) + " failed at " + f + ":" + std::to_string(line) + ": ";
}

void cuda_check(cudaError_t e, const char* call, const char* file, int line) {
    if (e == cudaSuccess) return;
    throw cuda_error(int(e), cuda_call_site(call, file, line) + cudaGetErrorName(e) + " (" + std::to_string(int(e)) +
                                 "): " + cudaGetErrorString(e));
}

}  // namespace agpu::validate
