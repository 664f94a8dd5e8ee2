// The apsp family in the simulator: one registration line per algorithm.
#include "agpu/sim/algorithms.hpp"
#include "apsp/apsp_runs.hpp"

namespace agpu::kernels::apsp {
namespace {

AGPU_REGISTER_SIM_ALGORITHM(naive_spec(), run_naive<sim::executor>);
AGPU_REGISTER_SIM_ALGORITHM(blocked_spec(), run_blocked<sim::executor>);
AGPU_REGISTER_SIM_ALGORITHM(recursive_spec(), run_recursive<sim::executor>);
AGPU_REGISTER_SIM_ALGORITHM(dpx_spec(), run_dpx<sim::executor>);

}  // namespace
}  // namespace agpu::kernels::apsp
