// The rank family in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "rank/rank_runs.hpp"

namespace agpu::kernels::rank {
namespace {

AGPU_REGISTER_SIM_ALGORITHM(jacobson_spec(), run_jacobson<sim::executor>);
AGPU_REGISTER_SIM_ALGORITHM(interleaved_spec(), run_interleaved<sim::executor>);

}  // namespace
}  // namespace agpu::kernels::rank
