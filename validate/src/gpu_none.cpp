// Built when nvcc was not found: GPU features say what is missing.
#include "agpu/validate/gpu.hpp"

namespace agpu::validate {

gpu_status query_gpus() {
    gpu_status s;
    s.reason =
        "this agpu was built without CUDA (no nvcc at build time; install the CUDA toolkit "
        "and rebuild: scripts/setup.sh && cmake --workflow --preset release)";
    return s;
}

gpu_clocks read_clocks(int) { return {0, 0, false, "built without CUDA"}; }

}  // namespace agpu::validate
