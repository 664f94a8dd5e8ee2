// The stratified estimator of a sampled launch (estimator.hpp), and the
// variance of an exact launch on synthesized data.
#include <cmath>
#include <random>

#include "agpu/sim/estimator.hpp"
#include "sampling.hpp"

namespace agpu::sim {

using namespace detail;

void estimate_stratified(const model::machine& m, const stratified_sample& plan, recorded_blocks& blocks,
                         std::uint64_t block_threads, bool synthesized, launch_record& rec) {
    const std::uint64_t nblocks = blocks.steps.size();
    const std::uint64_t k = std::min<std::uint64_t>(m.k(), nblocks);
    const std::uint64_t S = plan.strata, N = plan.interior;
    const double fpc = synthesized ? 1.0 + double(S) / double(N) : 1.0 - double(S) / double(N);
    const double widen = t_factor(S - 1) * t_factor(S - 1);
    auto stratum_size = [&](std::uint64_t h) { return plan.stratum_begin(h + 1) - plan.stratum_begin(h); };
    auto extrapolate = [&](auto value, double& variance) {  // value(recorded index) -> double
        double total = value(0) + value(S + 1);
        for (std::uint64_t h = 0; h < S; ++h) total += double(stratum_size(h)) * value(h + 1);
        const double s2 = successive_variance(S, [&](std::size_t h) { return value(h + 1); });
        variance = double(N) * double(N) * fpc * s2 / double(S) * widen;
        return total;
    };
    for (std::size_t i = 0; i < counter_count; ++i) {
        const auto c = static_cast<counter>(i);
        if (exact_counter(c) || c == counter::time_steps || c == counter::chain_waits ||
            c == counter::chain_collectives)
            continue;
        if (counter_table[i].agg != aggregation::sum) {
            for (const auto& rc : blocks.c) rec.c.v[i] = std::max(rec.c.v[i], rc.v[i]);
            continue;
        }
        double var = 0;
        const double total = extrapolate([&](std::size_t j) { return double(blocks.c[j].v[i]); }, var);
        rec.c.v[i] = static_cast<std::uint64_t>(std::llround(total));
        rec.variance[i] = var;
    }
    // Time: every unrecorded block takes its stratum's recorded steps; the
    // blocks go on the MPs as in an exact run. The makespan's variance is
    // taken as the steps sum's, scaled by (makespan / sum)².
    auto& block_steps = blocks.steps;
    std::vector<std::uint64_t> steps_of(S);
    for (std::uint64_t h = 0; h < S; ++h) steps_of[h] = block_steps[plan.recorded[h + 1]];
    for (std::uint64_t bid = 1; bid + 1 < nblocks; ++bid)
        if (!plan.is_recorded(bid)) block_steps[bid] = steps_of[plan.stratum_of(bid)];
    double steps_var = 0;
    const double steps_sum =
        extrapolate([&](std::size_t j) { return double(block_steps[plan.recorded[j]]); }, steps_var);
    const std::uint64_t makespan = model::greedy_makespan(block_steps, k);
    rec.c[counter::time_steps] = makespan;
    std::vector<std::uint64_t> recorded_waits, recorded_collectives;
    for (auto bid : plan.recorded) recorded_waits.push_back(blocks.waits[bid]);
    for (auto bid : plan.recorded) recorded_collectives.push_back(blocks.collectives[bid]);
    rec.c[counter::chain_collectives] = heaviest_chain(recorded_collectives, block_threads, m);
    rec.variance[std::size_t(counter::chain_collectives)] = chain_variance(recorded_collectives, block_threads, m);
    rec.c[counter::chain_waits] = heaviest_chain(recorded_waits, block_threads, m);
    rec.variance[std::size_t(counter::chain_waits)] = chain_variance(recorded_waits, block_threads, m);
    if (steps_sum > 0)
        rec.variance[std::size_t(counter::time_steps)] =
            steps_var * (double(makespan) / steps_sum) * (double(makespan) / steps_sum);
    rec.blocks_recorded = plan.recorded.size();
    rec.estimate = launch_estimate::stratified;
}

void add_synthesized_variance(const model::machine& m, const recorded_blocks& blocks, launch_record& rec) {
    const std::uint64_t nblocks = blocks.steps.size();
    if (nblocks <= 1) return;
    const std::uint64_t k = std::min<std::uint64_t>(m.k(), nblocks);
    const double widen = t_factor(nblocks - 1) * t_factor(nblocks - 1);
    for (std::size_t i = 0; i < counter_count; ++i) {
        if (exact_counter(static_cast<counter>(i)) || counter_table[i].agg != aggregation::sum) continue;
        const double s2 = successive_variance(nblocks, [&](std::size_t b) { return double(blocks.c[b].v[i]); });
        rec.variance[i] = 2.0 * double(nblocks) * s2 * widen;
    }
    const auto& block_steps = blocks.steps;
    const double sd = std::sqrt(successive_variance(nblocks, [&](std::size_t b) { return double(block_steps[b]); }));
    const auto spread = replicated_makespan(nblocks, k, [&](std::mt19937_64& rng, std::vector<std::uint64_t>& v) {
        std::normal_distribution<double> noise(0.0, sd);
        for (std::size_t b = 0; b < nblocks; ++b) v[b] = nonnegative(double(block_steps[b]) + noise(rng));
    });
    rec.variance[std::size_t(counter::time_steps)] = 2.0 * spread.var * widen;
}

}  // namespace agpu::sim
