// The estimators' shared statistics (sampling.hpp) and the draws of a
// stratified sample and of probed blocks (estimator.hpp).
#include "sampling.hpp"

#include "agpu/sim/estimator.hpp"

namespace agpu::sim {
namespace detail {

std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

double t_factor(std::uint64_t df) {
    static constexpr double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                   2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    const double q = df == 0 ? t[0] : df <= 30 ? t[df - 1] : 1.96 + 2.4 / double(df);
    return q / 1.96;
}

std::uint64_t heaviest_chain(const std::vector<std::uint64_t>& block_waits, std::uint64_t block_threads,
                             const model::machine& m) {
    std::uint64_t most = 0;
    for (auto s : block_waits) most = std::max(most, s);
    return model::launch_chain(most, block_threads, m.b);
}
// Where the chain comes from sampled blocks only, the heaviest of the others
// is unseen: its variance is taken as the sampled blocks' spread (per warp).
double chain_variance(const std::vector<std::uint64_t>& sampled_waits, std::uint64_t block_threads,
                      const model::machine& m) {
    if (sampled_waits.size() < 2) return 0;
    double mean = 0, ss = 0;
    for (auto w : sampled_waits) mean += double(w);
    mean /= double(sampled_waits.size());
    for (auto w : sampled_waits) ss += (double(w) - mean) * (double(w) - mean);
    const double warps = double(std::max<std::uint64_t>(1, (block_threads + m.b - 1) / m.b));
    return ss / double(sampled_waits.size() - 1) / (warps * warps);
}

}  // namespace detail

std::uint64_t stratified_sample::stratum_of(std::uint64_t bid) const {
    // Stratum h covers [1 + floor(h·N/S), 1 + floor((h+1)·N/S)).
    std::uint64_t h = ((bid - 1) * strata + strata - 1) / interior;
    while (h > 0 && 1 + h * interior / strata > bid) --h;
    while (h + 1 < strata && 1 + (h + 1) * interior / strata <= bid) ++h;
    return h;
}

bool stratified_sample::is_recorded(std::uint64_t bid) const {
    return strata == 0 || std::binary_search(recorded.begin(), recorded.end(), bid);
}

stratified_sample plan_stratified(std::uint64_t nblocks, std::uint64_t strata, std::uint64_t seed,
                                  std::uint64_t launch_index) {
    stratified_sample p;
    if (strata == 0 || nblocks <= 2 * strata + 2) return p;
    p.strata = strata;
    p.interior = nblocks - 2;
    p.recorded.push_back(0);
    for (std::uint64_t h = 0; h < p.strata; ++h) {
        const std::uint64_t lo = p.stratum_begin(h), hi = p.stratum_begin(h + 1);
        p.recorded.push_back(lo +
                             detail::splitmix(seed ^ detail::splitmix(launch_index * 0x100000001ull + h)) % (hi - lo));
    }
    p.recorded.push_back(nblocks - 1);
    return p;
}

std::vector<std::uint64_t> plan_probes(std::uint64_t nblocks, std::uint64_t count, std::uint64_t seed,
                                       std::uint64_t launch_index) {
    std::vector<std::uint64_t> out;
    if (count >= nblocks) {
        out.resize(nblocks);
        for (std::uint64_t i = 0; i < nblocks; ++i) out[i] = i;
        return out;
    }
    // Stratum h covers [h·N/count, (h+1)·N/count).
    for (std::uint64_t h = 0; h < count; ++h) {
        const std::uint64_t lo = h * nblocks / count, hi = (h + 1) * nblocks / count;
        out.push_back(lo + detail::splitmix(seed ^ detail::splitmix(launch_index * 0x100000001ull + h)) % (hi - lo));
    }
    return out;
}

}  // namespace agpu::sim
