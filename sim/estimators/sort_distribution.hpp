// The sort estimator's host side (sort_sampled.hpp): the synthesized scope of
// its launches, the order blocks run in, the prefix of a block's ranges a
// probe merges, and what select_pivots and split_search write for a pass over
// the synthesized runs, made on the host by the kernels' rules and checked
// against what the recorded blocks wrote.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/sim/executor.hpp"
#include "estimators/sort_known_part.hpp"
#include "estimators/sort_synth.hpp"
#include "sort/sort_runs.hpp"

namespace agpu::sim::sort_estimator {

// The sort's kernels, plan and runs (kernels/sort/), which this estimator drives.
using namespace ::agpu::kernels;
using namespace ::agpu::kernels::sort;

namespace detail {

template <class K>
std::uint32_t order_value(K k) {
    if constexpr (std::is_same_v<K, float>) return key_order<float>::ordered(k);
    else return static_cast<std::uint32_t>(k);
}

// The launches that follow run on synthesized inputs and skip their unrecorded blocks.
class synthesized_scope {
public:
    explicit synthesized_scope(sim::executor& ex) : m_ex(ex) {
        ex.set_synthesized(true);
        ex.set_skip_unrecorded(true);
    }
    ~synthesized_scope() {
        m_ex.set_synthesized(false);
        m_ex.set_skip_unrecorded(false);
        m_ex.set_sample_strata(0);
    }
    synthesized_scope(const synthesized_scope&) = delete;
    synthesized_scope& operator=(const synthesized_scope&) = delete;

private:
    sim::executor& m_ex;
};

// Orders blocks for run_blocks, which runs the first alone and then claims
// the rest in order on its threads: the least work first, then the most
// (the longest first spreads the rest evenly).
template <class T, class Work>
void balance(std::vector<T>& items, Work work) {
    std::sort(items.begin(), items.end(), [&](const T& a, const T& b) { return work(a) > work(b); });
    if (!items.empty()) std::rotate(items.begin(), items.end() - 1, items.end());
}

// The ends of the first x elements of a block's ranges in the merge's order
// (key, then run: a stable merge takes equal keys from the lower run first).
// keys: the block's input, filled on demand (the synthesized memory the kernel reads).
template <class K>
std::vector<std::uint64_t> prefix_ends(sim::executor& ex, kl::gspan<K> keys, const block_ranges& b, std::uint64_t x) {
    const std::size_t d = b.lo.size();
    // Each run's window [lo, lo + w): enough for the prefix unless one run gives far more than its share.
    std::vector<std::uint64_t> w(d);
    const double share = double(x) / double(d);
    for (std::size_t r = 0; r < d; ++r)
        w[r] = std::min(b.hi[r] - b.lo[r], std::uint64_t(share + 8 * std::sqrt(share) + 64));
    auto order = [&](std::size_t r, std::uint64_t i) { return order_value(keys.data()[b.lo[r] + i]); };
    while (true) {
        for (std::size_t r = 0; r < d; ++r) ex.materialize(keys.subspan(b.lo[r], w[r]));
        // count(v) = elements below v over the windows; the x-th element's key is the least v with count(v + 1) > x.
        auto below = [&](std::uint64_t v, std::size_t r) {
            std::uint64_t lo = 0, hi = w[r];
            while (lo < hi) {
                const std::uint64_t mid = (lo + hi) / 2;
                if (std::uint64_t(order(r, mid)) < v) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        };
        auto count = [&](std::uint64_t v) {
            std::uint64_t c = 0;
            for (std::size_t r = 0; r < d; ++r) c += below(v, r);
            return c;
        };
        std::uint64_t lo = 0, hi = std::uint64_t(1) << 32;  // the x-th key's order value lies in [lo, hi)
        while (hi - lo > 1) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            if (count(mid) <= x) lo = mid;
            else hi = mid;
        }
        // A window exhausted below the cut may hide smaller keys further on: widen it and select again.
        bool widen = false;
        for (std::size_t r = 0; r < d; ++r)
            if (below(lo + 1, r) == w[r] && w[r] < b.hi[r] - b.lo[r]) {
                w[r] = std::min(b.hi[r] - b.lo[r], 2 * w[r]);
                widen = true;
            }
        if (widen) continue;
        std::vector<std::uint64_t> ends(d);
        std::uint64_t left = x - count(lo);  // keys equal to lo, taken from the lowest runs first
        for (std::size_t r = 0; r < d; ++r) {
            const std::uint64_t before = below(lo, r), equal = below(lo + 1, r) - before, take = std::min(left, equal);
            ends[r] = b.lo[r] + before + take;
            left -= take;
        }
        return ends;
    }
}

// What select_pivots and split_search write for a pass over the synthesized
// runs, made on the host by the kernels' rules (multiway.cuh): each present
// sample's rank among its group's samples in (key, run, sample) order, its
// sample index plus, for every other run with elements, how many of that
// run's samples precede it (a binary search over them), and the pivots at
// the ranks pivots_of_rank names; each split the count of a run's elements
// before its pivot (at most it in earlier runs, below it in later ones)
// found by one descent of the run's tree (sorted_runs_synth::rank) instead
// of a binary search through memory: no page of the input is touched.
template <class K>
struct distribution {
    std::vector<K> pivot_keys;
    std::vector<std::uint32_t> pivot_tags;
    std::vector<std::uint64_t> splits;
    std::vector<bool> searched;  // per split: found by a search, strictly inside its run
};

template <class K>
distribution<K> synthesized_distribution(const sorted_runs_synth<K>& state, const plan_ns::merge_pass& ps,
                                         const merge_shape& s) {
    const std::uint64_t d = s.d, P = s.parts, per_run = ps.per_run;
    const unsigned shift = unsigned(std::bit_width(per_run) - 1);  // per_run is a power of two (sort_plan)
    distribution<K> out;
    out.pivot_keys.resize(ps.groups * (P - 1));
    out.pivot_tags.resize(ps.groups * (P - 1));
    out.splits.resize(ps.groups * (P + 1) * d);
    out.searched.resize(out.splits.size());
    std::vector<typename sorted_runs_synth<K>::split_cache> caches(d);
    std::vector<std::vector<std::uint32_t>> samples(d, std::vector<std::uint32_t>(per_run));  // order values, by run
    for (std::uint64_t g = 0; g < ps.groups; ++g) {
        for (auto& c : caches) c.clear();
        const std::uint64_t nonempty = nonempty_runs(s, g);
        for (std::uint64_t r = 0; r < nonempty; ++r) {
            const std::uint64_t lo = run_start(s, g, r), len = run_start(s, g, r + 1) - lo;
            for (std::uint64_t j = 0; j < per_run; ++j)
                samples[r][j] = state.order_at(sample_at(lo, len, j, shift), &caches[r]);
        }
        for (std::uint64_t r = 0; r < nonempty; ++r)
            for (std::uint64_t j = 0; j < per_run; ++j) {
                const std::uint32_t v = samples[r][j];
                std::uint64_t rank = j;
                for (std::uint64_t o = 0; o < nonempty; ++o) {
                    const auto& other = samples[o];
                    if (o < r) rank += std::uint64_t(std::upper_bound(other.begin(), other.end(), v) - other.begin());
                    if (o > r) rank += std::uint64_t(std::lower_bound(other.begin(), other.end(), v) - other.begin());
                }
                const pivot_span at = pivots_of_rank(rank, nonempty * per_run, P);
                for (std::uint64_t q = at.first; q < at.end; ++q) {
                    out.pivot_keys[g * (P - 1) + q - 1] = key_from_order<K>(v);
                    out.pivot_tags[g * (P - 1) + q - 1] = std::uint32_t(r * per_run + j);
                }
            }
        for (std::uint64_t q = 0; q <= P; ++q)
            for (std::uint64_t r = 0; r < d; ++r) {
                const std::uint64_t lo = run_start(s, g, r), hi = run_start(s, g, r + 1);
                std::uint64_t split = q == 0 ? lo : hi;
                if (q > 0 && q < P && hi > lo) {
                    const std::uint64_t at = g * (P - 1) + q - 1, pr = out.pivot_tags[at] / per_run;
                    const std::uint32_t v = order_value(out.pivot_keys[at]);
                    split = r == pr ? sample_at(lo, hi - lo, out.pivot_tags[at] % per_run, shift)
                                    : lo + state.rank(lo / s.run_len, v, r < pr, &caches[r]);
                    out.searched[(g * (P + 1) + q) * d + r] = r != pr && lo < split && split < hi;
                }
                out.splits[(g * (P + 1) + q) * d + r] = split;
            }
    }
    return out;
}

// Marks a launch's output unwritten (all bits set), so that take_host can tell what its recorded blocks wrote.
template <class T>
void unset(sim::executor& ex, kl::gspan<T> dev) {
    const std::vector<T> none(dev.size(), static_cast<T>(~T(0)));
    ex.upload(dev, std::span<const T>(none));
}

// The host's values into `dev`, after checking those the launch's recorded
// blocks wrote (the others skipped) against them: the host's rules are the kernel's.
template <class T>
void take_host(sim::executor& ex, kl::gspan<T> dev, const std::vector<T>& host, const char* what) {
    std::vector<T> got(dev.size());
    ex.download(std::span<T>(got), kl::gspan<const T>(dev));
    for (std::size_t i = 0; i < got.size(); ++i)
        AGPU_CHECK(got[i] == static_cast<T>(~T(0)) || got[i] == host[i],
                   std::string("synthesized sort: ") + what + " differ from the host's at " + std::to_string(i));
    ex.upload(dev, std::span<const T>(host));
}

template <class K>
void take_host(sim::executor& ex, pivot_spans<K> dev, const distribution<K>& host) {
    std::vector<std::uint32_t> tags(dev.tags.size());
    std::vector<K> keys(dev.keys.size());
    ex.download(std::span<std::uint32_t>(tags), kl::gspan<const std::uint32_t>(dev.tags));
    ex.download(std::span<K>(keys), kl::gspan<const K>(dev.keys));
    for (std::size_t i = 0; i < tags.size(); ++i)
        if (tags[i] != ~0u)
            AGPU_CHECK(tags[i] == host.pivot_tags[i] && order_value(keys[i]) == order_value(host.pivot_keys[i]),
                       "synthesized sort: select_pivots' pivots differ from the host's at " + std::to_string(i));
    ex.upload(dev.keys, std::span<const K>(host.pivot_keys));
    ex.upload(dev.tags, std::span<const std::uint32_t>(host.pivot_tags));
}

}  // namespace detail
}  // namespace agpu::sim::sort_estimator
