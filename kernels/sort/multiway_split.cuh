// sort/multiway's distribution (multiway.cuh): where a group's output is cut
// into P ranges. select_pivots ranks evenly spaced samples of a group's runs
// and takes P - 1 of them as pivots; split_search finds, in every run, where
// each pivot falls. The sampled mode's host copy of them
// (sim/estimators/sort_distribution.hpp) takes the same samples and rules.
#pragma once

#include <cstdint>

#include "sort/multiway_heap.cuh"
#include "sort/sort_common.cuh"

namespace agpu::kernels::sort {

// Where sample j of a run's per_run = 2^per_run_log2 evenly spaced samples
// lies: the run's element j·len/per_run, the run at [lo, lo + len); per_run is
// a power of two (sort_plan's merge_pass::per_run), so the division is a
// shift. select_pivots, split_search and the sampled mode's host copy of them
// (sim/estimators/sort_distribution.hpp) all take the samples here. (A 64-bit division by a
// run-time value is a routine of about 70 instructions on the GPU: with
// select_pivots' 15 probes in each of d - 1 runs it was most of the kernel's
// work on the H100.)
AGPU_HOST_DEVICE std::uint64_t sample_at(std::uint64_t lo, std::uint64_t len, std::uint64_t j, unsigned per_run_log2) {
    return lo + ((j * len) >> per_run_log2);
}
// log2 of a power of two below 2^32 (a sample count).
AGPU_DEVICE unsigned log2_pow2(unsigned x) { return 31u - unsigned(kl::clz(x)); }

// The runs of group g with elements: they come first (only the last group can
// have fewer than d, and empty ones after them).
AGPU_HOST_DEVICE std::uint64_t nonempty_runs(const merge_shape& s, std::uint64_t g) {
    const std::uint64_t first = run_start(s, g, 0), runs = (s.n - first + s.run_len - 1) / s.run_len;
    return runs < s.d ? runs : s.d;
}

// Whether element y of run y_run goes before key of run key_run in the
// merge's (key, run, position) order: keys at most key's in earlier runs,
// keys below it in later ones (the same run: by position, not asked here).
template <class K>
AGPU_HOST_DEVICE bool before_in_order(K y, unsigned y_run, K key, unsigned key_run) {
    return y_run < key_run ? !key_order<K>::less(key, y) : key_order<K>::less(y, key);
}

// Which pivots the sample of rank `rank` among a group's `present` samples
// is: pivot q (1..P-1) is the sample of rank floor(q·present/P), so the q
// with rank·P <= q·present < (rank + 1)·P, as [first, end): none where no q
// falls on the rank, several where present < P (a pivot repeated, the ranges
// between its copies empty).
struct pivot_span {
    std::uint64_t first, end;
};
AGPU_HOST_DEVICE pivot_span pivots_of_rank(std::uint64_t rank, std::uint64_t present, std::uint64_t parts) {
    const std::uint64_t first = (rank * parts + present - 1) / present;
    const std::uint64_t end = ((rank + 1) * parts + present - 1) / present;
    return {first > 1 ? first : 1, end < parts ? end : parts};
}

// How many of `count` candidates in order (candidate i is keys[at(i)], a
// sorted sequence) satisfy `before`, which holds for a prefix of them: by
// bisection. Every lane makes the same bit-width-of-`most` probes (enough
// for any count <= most), predicated off once its interval is empty, so a
// warp's lanes stay in step and each probe is one warp-instruction, as the
// GPU issues it. A search of data-dependent length lets the lanes drift
// apart (lanes searching runs of different lengths, or none): the simulator
// then grouped one lane's probes with another's (select_pivots' load sectors
// 16% above the GPU's on the sort dataset, split_search's 14 sectors above).
// Bisection, not halving steps from the top power of two: the same probe
// count, but split_search takes 0.13 ms instead of 0.10 at 2^26 with halving
// steps (H100).
template <class K, class At, class Before>
AGPU_DEVICE std::uint64_t bisect_prefix(kl::gspan<const K> keys, std::uint64_t count, std::uint64_t most, At at,
                                        Before before) {
    std::uint64_t a = 0, b = count;
    for (std::uint64_t left = most; left > 0; left /= 2) {
        const bool on = a < b;
        const std::uint64_t mid = a + (b - a) / 2;
        const K y = keys.load_if(on, at(mid), K{});
        kl::compute(1);
        if (on) {
            if (before(y)) a = mid + 1;
            else b = mid;
        }
    }
    return a;
}

// Distribution, first step: a thread per sample (sample x = (g·d + r)·per_run
// + j of `samples` = groups·d·per_run: sample j of run r of group g, the
// element at lo + j·len/per_run of the run's [lo, lo + len)) finds its rank
// among its group's samples in (key, run, sample) order: j, plus for every
// other run with elements how many of its samples precede it (a key at most
// its own in earlier runs, below it in later ones), each by a binary search
// over that run's samples read from global memory (a run's samples are in
// order: it is sorted). The sample whose rank is pivot q's (pivots_of_rank)
// writes pivot q of group g, pivots[g(P - 1) + q - 1], and its tag,
// tags[...] = r·per_run + j. An empty run's samples are absent (runs with
// elements come first in a group). No shared memory and no barrier: the
// searches' latency chains overlap across the whole grid.
template <class K>
AGPU_KERNEL void select_pivots(kl::gspan<const K> keys, kl::gspan<K> pivots, kl::gspan<unsigned> tags, merge_shape s,
                               unsigned per_run, std::uint64_t samples) {
    const std::uint64_t x = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_rank();
    if (x >= samples) return;
    const unsigned d = s.d, r = unsigned(x / per_run % d), j = unsigned(x % per_run), shift = log2_pow2(per_run);
    const std::uint64_t g = x / per_run / d;
    const std::uint64_t lo = run_start(s, g, r), len = run_start(s, g, r + 1) - lo;
    if (len == 0) return;
    const K key = keys.load(sample_at(lo, len, j, shift));
    // Its rank: j, plus each other run's samples before it (a prefix of
    // them; none in its own run and in empty ones, whose searches are
    // predicated off: every lane searches every run, bisect_prefix).
    std::uint64_t rank = j;
    for (unsigned o = 0; o < d; ++o) {
        const std::uint64_t o_lo = run_start(s, g, o), o_len = run_start(s, g, o + 1) - o_lo;
        rank += bisect_prefix(
            keys, o_len > 0 && o != r ? per_run : 0, per_run,
            [&](std::uint64_t i) { return sample_at(o_lo, o_len, i, shift); },
            [&](const K& y) { return before_in_order(y, o, key, r); });
    }
    const pivot_span at = pivots_of_rank(rank, nonempty_runs(s, g) * per_run, s.parts);
    for (std::uint64_t q = at.first; q < at.end; ++q) {
        pivots.store(g * (s.parts - 1) + q - 1, key);
        tags.store(g * (s.parts - 1) + q - 1, r * per_run + j);
    }
}

// Distribution, second step: a thread per (group g, boundary q = 0..P, run r)
// writes how many elements of run r precede boundary q in (key, run, position)
// order: splits[(g(P + 1) + q)d + r] (absolute positions; q = 0 and q = P are
// the runs' ends), by binary search in global memory. Spread over the whole
// grid: the searches' latency chains overlap.
template <class K>
AGPU_KERNEL void split_search(kl::gspan<const K> keys, kl::gspan<const K> pivots, kl::gspan<const unsigned> tags,
                              kl::gspan<std::uint64_t> splits, merge_shape s, unsigned per_run,
                              std::uint64_t searches) {
    const std::uint64_t x = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_rank();
    if (x >= searches) return;
    const unsigned d = s.d, r = unsigned(x % d);
    const std::uint64_t g = x / d / (s.parts + 1);
    const unsigned q = unsigned(x / d % (s.parts + 1));
    const std::uint64_t lo = run_start(s, g, r), len = run_start(s, g, r + 1) - lo;
    const bool inner = q > 0 && q < s.parts;
    K pivot{};
    unsigned pr = 0, pj = 0;
    if (inner) {
        pivot = pivots.load(g * (s.parts - 1) + q - 1);
        const unsigned tag = tags.load(g * (s.parts - 1) + q - 1);
        pr = tag / per_run;
        pj = tag % per_run;
    }
    // Run r's elements before the pivot (<= it for earlier runs, < it for
    // later ones): a prefix of the run (no search at the ends and in the
    // pivot's own run: predicated off, every lane searches, bisect_prefix).
    const std::uint64_t a = bisect_prefix(
        keys, inner && r != pr ? len : 0, s.run_len, [&](std::uint64_t i) { return lo + i; },
        [&](const K& y) { return before_in_order(y, r, pivot, pr); });
    const std::uint64_t split = q == 0    ? lo
                                : !inner  ? lo + len
                                : r == pr ? sample_at(lo, len, pj, log2_pow2(per_run))
                                          : lo + a;
    splits.store(x, split);
}

}  // namespace agpu::kernels::sort
