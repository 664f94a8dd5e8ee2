// The apsp family on the GPU: the same runs as apsp.sim.cpp, one registration
// line each. Every apsp kernel is instantiated in this one nvcc translation unit.
#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "apsp/apsp_runs.hpp"

namespace agpu::kernels::apsp {
namespace {

using validate::cuda_executor;

AGPU_REGISTER_GPU_ALGORITHM("apsp/naive", run_naive<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("apsp/blocked", run_blocked<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("apsp/recursive", run_recursive<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("apsp/dpx", run_dpx<cuda_executor>);

}  // namespace
}  // namespace agpu::kernels::apsp
