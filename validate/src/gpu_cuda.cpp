// Built with the CUDA toolkit: asks the runtime what is there.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

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
        s.reason = e != cudaSuccess
                       ? std::string("cudaGetDeviceCount failed: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e)
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

gpu_clocks read_clocks(int ordinal) {
    // NVML ships with the driver, not the toolkit: load it when asked, so the
    // program needs nothing beyond CUDA to start.
    void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml) return {0, 0, false, "libnvidia-ml.so.1 not found"};
    using init_fn = int (*)();
    using handle_fn = int (*)(unsigned, void**);
    using clock_fn = int (*)(void*, int, unsigned*);
    auto init = reinterpret_cast<init_fn>(dlsym(nvml, "nvmlInit_v2"));
    auto handle = reinterpret_cast<handle_fn>(dlsym(nvml, "nvmlDeviceGetHandleByIndex_v2"));
    auto clock = reinterpret_cast<clock_fn>(dlsym(nvml, "nvmlDeviceGetClockInfo"));
    gpu_clocks c;
    void* h = nullptr;
    unsigned sm = 0, mem = 0;
    constexpr int nvml_clock_sm = 1, nvml_clock_mem = 2;  // nvmlClockType_t
    if (init && handle && clock && init() == 0 && handle(unsigned(ordinal), &h) == 0 &&
        clock(h, nvml_clock_sm, &sm) == 0 && clock(h, nvml_clock_mem, &mem) == 0) {
        c = {double(sm), double(mem), true, ""};
    } else {
        c.note = "NVML did not answer";
    }
    dlclose(nvml);
    return c;
}

}  // namespace agpu::validate
