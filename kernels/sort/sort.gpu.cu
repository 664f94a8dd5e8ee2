// The sort family on the GPU: the same runs as sort.sim.cpp, one registration line each.
#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "sort/sort_runs.hpp"

namespace agpu::kernels::sort {
namespace {

using validate::cuda_executor;

AGPU_REGISTER_GPU_ALGORITHM("sort/multiway", run_multiway<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("sort/pairwise", run_pairwise<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("sort/bitonic", run_bitonic<cuda_executor>);

}  // namespace
}  // namespace agpu::kernels::sort
