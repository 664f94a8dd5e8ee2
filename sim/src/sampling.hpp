// The statistics the estimators share: a seeded hash for draws, Student's t,
// a variance from successive differences, the chains of sampled blocks, and
// the makespan of blocks whose steps are random.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "agpu/model/costing.hpp"
#include "agpu/model/machine.hpp"
#include "agpu/sim/record.hpp"

namespace agpu::sim::detail {

// A 64-bit mix of x (splitmix64's finalizer): the seeded draws of samples.
std::uint64_t splitmix(std::uint64_t x);

// Student's t 97.5% quantile for df degrees of freedom over 1.96: how much a
// normal 95% interval widens when its variance is estimated from few samples.
double t_factor(std::uint64_t df);

// A launch's chain_waits: its heaviest block's waits per warp.
std::uint64_t heaviest_chain(const std::vector<std::uint64_t>& block_waits, std::uint64_t block_threads,
                             const model::machine& m);
// Where the chain comes from sampled blocks only, the heaviest of the others
// is unseen: its variance is taken as the sampled blocks' spread (per warp).
double chain_variance(const std::vector<std::uint64_t>& sampled_waits, std::uint64_t block_threads,
                      const model::machine& m);

// The counters a launch knows exactly, whatever it sampled.
inline bool exact_counter(counter c) {
    return c == counter::launches || c == counter::thread_blocks || c == counter::threads;
}

// s² of values in a sequence from their successive differences,
// Σ(y_{i+1} - y_i)² / (2(n - 1)): robust to a smooth trend along the sequence.
template <class Value>
double successive_variance(std::size_t n, Value value) {
    if (n < 2) return 0;
    double sq = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) sq += (value(i + 1) - value(i)) * (value(i + 1) - value(i));
    return sq / (2.0 * double(n - 1));
}

// The makespan of a launch whose blocks' steps are random: its mean and
// variance over replications of them (replicate(rng, steps) draws one; fixed
// seed). The busiest MP's load is a maximum, so noise in the blocks raises
// it: the makespan of the blocks' expected steps alone is low.
struct makespan_spread {
    double mean = 0, var = 0;
};
template <class Replicate>
makespan_spread replicated_makespan(std::size_t nblocks, std::uint64_t k, Replicate replicate) {
    const std::uint64_t reps =
        std::clamp<std::uint64_t>((std::uint64_t(1) << 20) / std::max<std::size_t>(1, nblocks), 8, 64);
    std::mt19937_64 rng(0x5eed);
    std::vector<std::uint64_t> v(nblocks);
    double sum = 0, sq = 0;
    for (std::uint64_t r = 0; r < reps; ++r) {
        replicate(rng, v);
        const double m = double(model::greedy_makespan(v, k));
        sum += m;
        sq += m * m;
    }
    const double mean = sum / double(reps);
    return {mean, std::max(0.0, (sq - double(reps) * mean * mean) / double(reps - 1))};
}

inline std::uint64_t nonnegative(double x) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, x))); }

}  // namespace agpu::sim::detail
