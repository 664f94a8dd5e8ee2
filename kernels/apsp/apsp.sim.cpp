// The apsp family in the simulator: one registration line per algorithm.
#include "agpu/sim/algorithms.hpp"
#include "apsp/apsp_runs.hpp"

namespace agpu::kernels::apsp {
namespace {

// Device memory: the n x n distances (4 bytes each, padded) and at most as much again.
std::uint64_t apsp_bytes(std::uint64_t n, const param_values&) { return 2 * 4 * n * n; }

AGPU_REGISTER_SIM_ALGORITHM(naive_spec(), run_naive<sim::executor>, apsp_bytes);
AGPU_REGISTER_SIM_ALGORITHM(blocked_spec(), run_blocked<sim::executor>, apsp_bytes);
AGPU_REGISTER_SIM_ALGORITHM(recursive_spec(), run_recursive<sim::executor>, apsp_bytes);
AGPU_REGISTER_SIM_ALGORITHM(dpx_spec(), run_dpx<sim::executor>, apsp_bytes);

}  // namespace
}  // namespace agpu::kernels::apsp
