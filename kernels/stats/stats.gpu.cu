// The stats algorithms on the GPU: the same runs as stats.sim.cpp, one registration line each.
#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "stats/stats_runs.hpp"

namespace agpu::kernels::stats {
namespace {

using validate::cuda_executor;

AGPU_REGISTER_GPU_ALGORITHM("stats/pairwise", (run<algo::pairwise, cuda_executor>));
AGPU_REGISTER_GPU_ALGORITHM("stats/serial", (run<algo::serial, cuda_executor>));
AGPU_REGISTER_GPU_ALGORITHM("stats/fused", (run<algo::fused, cuda_executor>));

}  // namespace
}  // namespace agpu::kernels::stats
