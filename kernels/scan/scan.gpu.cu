// The scan family on the GPU: the same runs as scan.sim.cpp, one registration line each.
#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "scan/scan_runs.hpp"

namespace agpu::kernels::scan {
namespace {

using validate::cuda_executor;

AGPU_REGISTER_GPU_ALGORITHM("scan/hillis-steele", run_hillis_steele<cuda_executor>);
AGPU_REGISTER_GPU_ALGORITHM("scan/work-efficient", run_work_efficient<cuda_executor>);

}  // namespace
}  // namespace agpu::kernels::scan
