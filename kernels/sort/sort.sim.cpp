// The sort family in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "sort/sort_runs.hpp"

namespace agpu::kernels::sort {
namespace {

AGPU_REGISTER_SIM_ALGORITHM(multiway_spec(), run_multiway<sim::executor>);
AGPU_REGISTER_SIM_ALGORITHM(pairwise_spec(), run_pairwise<sim::executor>);
AGPU_REGISTER_SIM_ALGORITHM(bitonic_spec(), run_bitonic<sim::executor>);

}  // namespace
}  // namespace agpu::kernels::sort
