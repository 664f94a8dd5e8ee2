// The micro-kernels on the GPU: the same runs as micro.sim.cpp, one registration line each.
#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "micro/micro_runs.hpp"

namespace agpu::kernels::micro {
namespace {

using validate::cuda_executor;

AGPU_REGISTER_GPU_ALGORITHM("micro/global-stride", run_global_stride<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("micro/shared-stride", run_shared_stride<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("micro/broadcast", run_broadcast<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("micro/barriers", run_barriers<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("micro/divergent", run_divergent<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("micro/chase", run_chase<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("micro/atomics", run_atomics<cuda_executor>);

}  // namespace
}  // namespace agpu::kernels::micro
