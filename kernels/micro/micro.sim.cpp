// The micro-kernels in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "micro/micro_runs.hpp"

namespace agpu::kernels::micro {
namespace {

template <check_result (*Run)(sim::executor&, std::uint64_t, const param_values&, std::uint64_t)>
check_result on_sim(sim::executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return Run(ex, n, p, seed);
}

AGPU_REGISTER_SIM_ALGORITHM(global_stride_spec(), on_sim<run_global_stride<sim::executor>>);
AGPU_REGISTER_SIM_ALGORITHM(shared_stride_spec(), on_sim<run_shared_stride<sim::executor>>);
AGPU_REGISTER_SIM_ALGORITHM(broadcast_spec(), on_sim<run_broadcast<sim::executor>>);
AGPU_REGISTER_SIM_ALGORITHM(barriers_spec(), on_sim<run_barriers<sim::executor>>);
AGPU_REGISTER_SIM_ALGORITHM(divergent_spec(), on_sim<run_divergent<sim::executor>>);
AGPU_REGISTER_SIM_ALGORITHM(atomics_spec(), on_sim<run_atomics<sim::executor>>);

}  // namespace
}  // namespace agpu::kernels::micro
