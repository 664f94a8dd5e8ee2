// The stats algorithms in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "stats/stats_runs.hpp"

namespace agpu::kernels::stats {
namespace {

AGPU_REGISTER_SIM_ALGORITHM(pairwise_spec(), (run<algo::pairwise, sim::executor>));
AGPU_REGISTER_SIM_ALGORITHM(serial_spec(), (run<algo::serial, sim::executor>));
AGPU_REGISTER_SIM_ALGORITHM(fused_spec(), (run<algo::fused, sim::executor>));

}  // namespace
}  // namespace agpu::kernels::stats
