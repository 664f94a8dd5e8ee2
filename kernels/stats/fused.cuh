// stats/fused: min, max, count, mean, variance (population and sample) and
// standard deviation of n values of T (float or double) in one pass over
// the data, numerically stable (moments.cuh); 1 <= n < 2^31.
//
// Phases (two launches, no inter-block fences):
//   1. fused_partials: G = min(blocks_per_mp k, ceil(n / (B V U))) blocks of
//      B threads, V = 16 / sizeof(T) values per 16-byte vector. The last
//      n mod V values (the tail) go one each to threads 0, 1, ... of the grid;
//      the n / V whole vectors are read in a grid-stride loop, U vectors per
//      thread per iteration (all U loads issued before any is used), then the
//      rest one at a time. Each thread keeps shifted sums in double, turns
//      them into (count, mean, M2, min, max) once, and the block merges them
//      (Chan, by shuffles, then shared memory); thread 0 writes the block's
//      five fields to partials[f * G + block].
//   2. fused_merge: one block of merge_threads; thread t merges partials
//      t, t + B2, ... in turn, the block merges as above, and lanes 0..7 of
//      warp 0 write the eight results (enum field).
//
// AGPU cost (s-byte values, B = 256): reads the data once, in coalesced
// 16-byte lanes: about n / (V b) load instructions of 16b bytes (b/2 sectors,
// 128/w blocks each), so I/O n s / (b w/8) blocks, plus 5G partials written
// and read; time ceil(G/k) (B/b) ceil(n / (V G B)) steps of loads plus the
// merges, per block (B/b)(5 log2 b + 6) + 5 log2 b + 10 steps or so;
// 2 launches; shared 5 (B/b) doubles per block. Exact counts:
// model/costs/stats.cpp.
//
// Assumptions: the array starts 16-byte aligned (every allocation does);
// n < 2^31 and G B < 2^29, so 32-bit indices cannot wrap (i + U * stride).
#pragma once

#include <cstdint>

#include "agpu/kl/kl.hpp"
#include "stats/moments.cuh"

namespace agpu::kernels::stats {

struct fused_policy {
    // 256 threads and 4 blocks per MP: 1024 resident threads per SM on the
    // H100 if the partials kernel stays within 64 registers per thread (nvcc
    // -Xptxas -v reports its count), so the whole grid is one wave (a second
    // wave would leave most SMs idle for its length). nvcc 13.0, sm_90: 46
    // registers for float, 50 for double, no spills.
    static constexpr unsigned block_threads = 256;
    static constexpr unsigned blocks_per_mp = 4;
    // Vectors in flight per thread: 4 x 16 bytes x 1024 threads = 64 KB per
    // SM, over three times the ~18 KB that Little's law asks for at the
    // H100's 3.35 TB/s and ~700 ns DRAM latency (132 SMs).
    static constexpr unsigned unroll = 4;
    // The merge of G <= 4k partials: one block; 256 threads keep its loads
    // few (ceil(G / 256) per thread) without idle warps to pay for.
    static constexpr unsigned merge_threads = 256;
};

// Phase 1. x: the n values (its tail is read as scalars); xv: its n / V whole
// vectors (the same memory); partials: 5 * gridDim.x doubles.
template <class T>
AGPU_KERNEL void fused_partials(kl::gspan<const T> x, kl::gspan<const vec16<T>> xv, kl::gspan<double> partials) {
    constexpr unsigned V = vec16<T>::size, U = fused_policy::unroll;
    const unsigned nvec = static_cast<unsigned>(xv.size());
    const unsigned tail = static_cast<unsigned>(x.size()) - nvec * V;
    const unsigned stride = kl::grid_dim().x * kl::block_dim().x;
    const unsigned gtid = kl::block_idx().x * kl::block_dim().x + kl::thread_idx().x;

    thread_sums<T> acc;
    if (gtid < tail) {
        const T first = x.load(std::size_t(nvec) * V + gtid);
        acc.start(first);
        acc.add0(first);
        acc.count = 1;
    }
    unsigned i = gtid;
    for (; i + (U - 1) * stride < nvec; i += U * stride) {
        vec16<T> v[U];
        for (unsigned u = 0; u < U; ++u) v[u] = xv.load(i + u * stride);
        if (acc.count == 0) acc.start(v[0].v[0]);
        for (unsigned u = 0; u < U; ++u) acc.add(v[u]);
    }
    for (; i < nvec; i += stride) {
        const vec16<T> v = xv.load(i);
        if (acc.count == 0) acc.start(v.v[0]);
        acc.add(v);
    }

    const moments<T> m = block_merge(acc.result(), kl::dynamic_shared<double>());
    if (kl::thread_rank() == 0) {
        const unsigned g = kl::grid_dim().x, blk = kl::block_idx().x;
        partials.store(blk, double(m.count));
        partials.store(g + blk, m.mean);
        partials.store(2 * g + blk, m.m2);
        partials.store(3 * g + blk, double(m.min));
        partials.store(4 * g + blk, double(m.max));
    }
}

// Phase 2 (one block). partials: 5 * blocks doubles from phase 1; out: the
// field_count results.
template <class T>
AGPU_KERNEL void fused_merge(kl::gspan<const double> partials, unsigned blocks, kl::gspan<double> out) {
    moments<T> m = empty_moments<T>();
    for (unsigned j = kl::thread_rank(); j < blocks; j += kl::block_dim().x)
        m = chan_merge(m, moments<T>{static_cast<unsigned>(partials.load(j)), partials.load(blocks + j),
                                     partials.load(2 * blocks + j), static_cast<T>(partials.load(3 * blocks + j)),
                                     static_cast<T>(partials.load(4 * blocks + j))});
    m = block_merge(m, kl::dynamic_shared<double>());
    if (kl::warp_id() == 0) {
        // Lane 0 holds the result: every lane takes a copy, lane f writes field f.
        m.count = kl::shfl(m.count, 0);
        m.mean = kl::shfl(m.mean, 0);
        m.m2 = kl::shfl(m.m2, 0);
        m.min = kl::shfl(m.min, 0);
        m.max = kl::shfl(m.max, 0);
        const unsigned lane = kl::lane_id();
        if (lane < field_count) out.store(lane, result_field(m, lane));
    }
}

}  // namespace agpu::kernels::stats
