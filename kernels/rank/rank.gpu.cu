// The rank family on the GPU: the same runs as rank.sim.cpp, one registration line each.
#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "rank/rank_runs.hpp"

namespace agpu::kernels::rank {
namespace {

using validate::cuda_executor;

AGPU_REGISTER_GPU_ALGORITHM("rank/jacobson", run_jacobson<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("rank/interleaved", run_interleaved<cuda_executor>);

}  // namespace
}  // namespace agpu::kernels::rank
