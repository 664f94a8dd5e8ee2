// The scan family in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "scan/scan_runs.hpp"

namespace agpu::kernels::scan {
namespace {

AGPU_REGISTER_SIM_ALGORITHM(hillis_steele_spec(), run_hillis_steele<sim::executor>);
AGPU_REGISTER_SIM_ALGORITHM(work_efficient_spec(), run_work_efficient<sim::executor>);

}  // namespace
}  // namespace agpu::kernels::scan
