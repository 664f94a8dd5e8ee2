// The sort family in the simulator: one registration line each.
#include "agpu/sim/algorithms.hpp"
#include "estimators/sort_sampled.hpp"
#include "sort/sort_runs.hpp"

namespace agpu::kernels::sort {
namespace {

std::uint64_t key_bytes(const param_values& p) { return p.text("type") == "u64" ? 8 : 4; }
// Device memory: the input and two buffers of n keys (and, with values=1, n u32 values each).
std::uint64_t merge_bytes(std::uint64_t n, const param_values& p) {
    return 3 * n * (key_bytes(p) + (p.text("values") == "1" ? 4 : 0));
}
// The input and the n keys sorted in place.
std::uint64_t bitonic_bytes(std::uint64_t n, const param_values& p) { return 2 * n * key_bytes(p); }

check_result run_multiway_sim(sim::executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return sim::sort_estimator::run_merge_sort_sim(ex, "sort/multiway", n, p, seed);
}
check_result run_pairwise_sim(sim::executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return sim::sort_estimator::run_merge_sort_sim(ex, "sort/pairwise", n, p, seed);
}

double multiway_sampled_lanes(const model::machine& m, std::uint64_t n, const param_values& p) {
    return sim::sort_estimator::synthesized_lanes(m, "sort/multiway", n, p);
}
double pairwise_sampled_lanes(const model::machine& m, std::uint64_t n, const param_values& p) {
    return sim::sort_estimator::synthesized_lanes(m, "sort/pairwise", n, p);
}

AGPU_REGISTER_SIM_ALGORITHM(multiway_spec(), run_multiway_sim, merge_bytes, multiway_sampled_lanes);
AGPU_REGISTER_SIM_ALGORITHM(pairwise_spec(), run_pairwise_sim, merge_bytes, pairwise_sampled_lanes);
AGPU_REGISTER_SIM_ALGORITHM(bitonic_spec(), run_bitonic<sim::executor>, bitonic_bytes);

}  // namespace
}  // namespace agpu::kernels::sort
