// The rank family in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "rank/rank_runs.hpp"

namespace agpu::kernels::rank {
namespace {

// Device memory, as the runs allocate it: the bit vector, the directory
// (jacobson: ST's 2-byte and LT's 8-byte entries; interleaved: 64-byte lines
// of 448 bits and their counts, about n/7 bytes), the build's status words,
// and 16 bytes per query (its position and its answer).
std::uint64_t query_bytes(std::uint64_t n, const param_values& p) {
    std::uint64_t q = static_cast<std::uint64_t>(p.integer("queries"));
    if (q == 0) q = std::min<std::uint64_t>(n, std::uint64_t(1) << 20);
    return p.text("op") == "build" ? 0 : 16 * q;
}

std::uint64_t jacobson_bytes(std::uint64_t n, const param_values& p) {
    const jacobson_layout l = jacobson_layout_for(n);
    return 8 * bit_words(n) + 2 * l.small_blocks + 8 * l.superblocks + 8 * (l.tiles + 1) + query_bytes(n, p);
}

std::uint64_t interleaved_bytes(std::uint64_t n, const param_values& p) {
    const interleaved_layout l = interleaved_layout_for(n);
    return 8 * bit_words(n) + 64 * l.lines + 8 * (l.tiles + 1) + query_bytes(n, p);
}

AGPU_REGISTER_SIM_ALGORITHM(jacobson_spec(), run_jacobson<sim::executor>, jacobson_bytes);
AGPU_REGISTER_SIM_ALGORITHM(interleaved_spec(), run_interleaved<sim::executor>, interleaved_bytes);

}  // namespace
}  // namespace agpu::kernels::rank
