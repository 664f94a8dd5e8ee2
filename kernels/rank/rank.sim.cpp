// The rank family in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "rank/rank_runs.hpp"

namespace agpu::kernels::rank {
namespace {

// Device memory: the n bits, a directory of at most as many bytes again, and
// 16 bytes per query (its position and its answer).
std::uint64_t rank_bytes(std::uint64_t n, const param_values& p) {
    std::uint64_t q = static_cast<std::uint64_t>(p.integer("queries"));
    if (q == 0) q = std::min<std::uint64_t>(n, std::uint64_t(1) << 20);
    if (p.text("op") == "build") q = 0;
    return 2 * ((n + 7) / 8) + 16 * q;
}

AGPU_REGISTER_SIM_ALGORITHM(jacobson_spec(), run_jacobson<sim::executor>, rank_bytes);
AGPU_REGISTER_SIM_ALGORITHM(interleaved_spec(), run_interleaved<sim::executor>, rank_bytes);

}  // namespace
}  // namespace agpu::kernels::rank
