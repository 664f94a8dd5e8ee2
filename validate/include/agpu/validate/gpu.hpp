// Whether this build and this machine can run GPU work, and why not.
// The CUDA implementation (gpu_cuda.cpp) or the stub (gpu_none.cpp) is chosen
// by validate/CMakeLists.txt; no #ifdef anywhere else (STYLE.md 8).
#pragma once

#include <string>
#include <vector>

namespace agpu::validate {

struct gpu_device_info {
    int ordinal = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    double sm_clock_mhz = 0, mem_clock_mhz = 0;
    long long memory_bytes = 0;
};

struct gpu_status {
    bool built_with_cuda = false;
    bool available = false;   // at least one GPU usable now
    std::string reason;       // why not, when !available
    int driver_version = 0;   // CUDA driver API version, e.g. 13000
    int runtime_version = 0;  // CUDA runtime the build links
    std::vector<gpu_device_info> devices;
};

// Never throws: a missing driver or GPU is reported in `reason`.
gpu_status query_gpus();

// The clocks the GPU runs at now (NVML, loaded at run time from the driver);
// empty with a note where NVML is not there.
struct gpu_clocks {
    double sm_mhz = 0, mem_mhz = 0;
    bool known = false;
    std::string note;
};
gpu_clocks read_clocks(int ordinal);

// Throws agpu::unavailable_error naming what is missing (no CUDA in this build,
// no driver, no GPU), for commands that need a GPU.
void require_gpu(const std::string& what_for);

}  // namespace agpu::validate
