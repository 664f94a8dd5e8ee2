// Built with the CUDA toolkit: asks the runtime what is there.
#include <cuda_runtime_api.h>

#include "agpu/validate/gpu.hpp"

namespace agpu::validate {

gpu_status query_gpus() {
    gpu_status s;
    s.built_with_cuda = true;
    cudaRuntimeGetVersion(&s.runtime_version);
    if (cudaDriverGetVersion(&s.driver_version) != cudaSuccess || s.driver_version == 0) {
        s.reason = "no NVIDIA driver on this machine (cudaDriverGetVersion found none)";
        return s;
    }
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        s.reason = e != cudaSuccess ? std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(e) + ": " +
                                          cudaGetErrorString(e)
                                    : "the driver sees no GPU";
        return s;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
        gpu_device_info d;
        d.ordinal = i;
        d.name = p.name;
        d.cc_major = p.major;
        d.cc_minor = p.minor;
        d.sm_count = p.multiProcessorCount;
        int clk = 0, mclk = 0;
        cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, i);
        cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, i);
        d.sm_clock_mhz = clk / 1000.0;
        d.mem_clock_mhz = mclk / 1000.0;
        d.memory_bytes = static_cast<long long>(p.totalGlobalMem);
        s.devices.push_back(d);
    }
    s.available = !s.devices.empty();
    if (!s.available) s.reason = "no GPU answered cudaGetDeviceProperties";
    return s;
}

}  // namespace agpu::validate
