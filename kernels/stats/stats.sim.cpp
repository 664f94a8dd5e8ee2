// The stats algorithms in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "stats/stats_runs.hpp"

namespace agpu::kernels::stats {
namespace {

std::uint64_t value_bytes(const param_values& p) { return p.text("type") == "double" ? 8 : 4; }
// Device memory: the n values, and for pairwise the two arrays of P = 2^ceil(log2 n) it rounds through.
std::uint64_t pairwise_bytes(std::uint64_t n, const param_values& p) {
    return (n + 2 * std::bit_ceil(std::max<std::uint64_t>(n, 2))) * value_bytes(p);
}
std::uint64_t values_bytes(std::uint64_t n, const param_values& p) { return n * value_bytes(p); }

AGPU_REGISTER_SIM_ALGORITHM(pairwise_spec(), (run<algo::pairwise, sim::executor>), pairwise_bytes);
AGPU_REGISTER_SIM_ALGORITHM(serial_spec(), (run<algo::serial, sim::executor>), values_bytes);
AGPU_REGISTER_SIM_ALGORITHM(fused_spec(), (run<algo::fused, sim::executor>), values_bytes);

}  // namespace
}  // namespace agpu::kernels::stats
