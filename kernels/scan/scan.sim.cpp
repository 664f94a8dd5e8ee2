// The scan family in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "scan/scan_runs.hpp"

namespace agpu::kernels::scan {
namespace {

// Device memory: the input and the output, n elements each.
std::uint64_t scan_bytes(std::uint64_t n, const param_values& p) { return 2 * n * (p.text("type") == "u64" ? 8 : 4); }

AGPU_REGISTER_SIM_ALGORITHM(hillis_steele_spec(), run_hillis_steele<sim::executor>, scan_bytes);
AGPU_REGISTER_SIM_ALGORITHM(work_efficient_spec(), run_work_efficient<sim::executor>, scan_bytes);

}  // namespace
}  // namespace agpu::kernels::scan
