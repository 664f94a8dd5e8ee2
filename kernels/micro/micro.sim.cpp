// The micro-kernels in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "micro/micro_runs.hpp"

namespace agpu::kernels::micro {
namespace {

template <check_result (*Run)(sim::executor&, std::uint64_t, const param_values&, std::uint64_t)>
check_result on_sim(sim::executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return Run(ex, n, p, seed);
}

// Device memory (micro_runs.hpp): the 4-byte words each kernel allocates.
std::uint64_t global_stride_bytes(std::uint64_t n, const param_values& p) {
    const std::uint64_t strided = 4 * n * static_cast<std::uint64_t>(p.integer("stride"));
    return p.text("op") == "store" ? strided : strided + 4 * n;
}
std::uint64_t out_bytes(std::uint64_t n, const param_values&) { return 4 * n; }
std::uint64_t broadcast_bytes(std::uint64_t n, const param_values&) { return 4 * n + 8; }
std::uint64_t chase_bytes(std::uint64_t n, const param_values& p) {
    return 4 * n * static_cast<std::uint64_t>(p.integer("stride")) + 4;
}
std::uint64_t atomics_bytes(std::uint64_t n, const param_values& p) {
    const std::uint64_t distinct = static_cast<std::uint64_t>(p.integer("distinct"));
    return p.text("space") == "global" ? 4 * distinct : 4 * distinct * blocks_for(n, micro_policy::block_threads);
}

AGPU_REGISTER_SIM_ALGORITHM(global_stride_spec(), on_sim<run_global_stride<sim::executor>>, global_stride_bytes);
AGPU_REGISTER_SIM_ALGORITHM(shared_stride_spec(), on_sim<run_shared_stride<sim::executor>>, out_bytes);
AGPU_REGISTER_SIM_ALGORITHM(broadcast_spec(), on_sim<run_broadcast<sim::executor>>, broadcast_bytes);
AGPU_REGISTER_SIM_ALGORITHM(barriers_spec(), on_sim<run_barriers<sim::executor>>, out_bytes);
AGPU_REGISTER_SIM_ALGORITHM(divergent_spec(), on_sim<run_divergent<sim::executor>>, out_bytes);
AGPU_REGISTER_SIM_ALGORITHM(chase_spec(), on_sim<run_chase<sim::executor>>, chase_bytes);
AGPU_REGISTER_SIM_ALGORITHM(atomics_spec(), on_sim<run_atomics<sim::executor>>, atomics_bytes);

}  // namespace
}  // namespace agpu::kernels::micro
