// scan/hillis-steele: Hillis and Steele's scan inside each thread block, and
// the multi-level scan across blocks that the rank dictionary uses (scan each
// block, scan the block sums recursively, add them back).
//
// Computes out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1]
// (exclusive; out[0] = 0) over unsigned integers, wrapping like the GPU does.
//
// Kernels, B = hillis_steele_policy::block_threads, one element per thread:
//   hillis_steele_block_scan  each block loads B elements (zeros past n) into
//       shared memory and runs log2 B steps; in step d = 1, 2, 4, ..., B/2
//       thread t adds the element d to its left (a barrier per step, two
//       buffers so that no step overwrites what another thread still reads);
//       writes its block's scan and, on all but the top level, the block's
//       total to block_sums.
//   hillis_steele_add_back  block k >= 1 adds the scanned sum of blocks 0..k-1
//       to its elements.
// The driver (multi_level_scan in scan_runs.hpp) scans level l's block sums
// into level l + 1 until one block holds them: L = ceil(log_B n) levels,
// 2L - 1 launches.
//
// AGPU cost (s-byte elements, b lanes, W = B/b warps per block, n_l =
// ceil(n / B^l) elements at level l): I/O per level about 2·s·n_l/(4b) blocks
// for the block scan and 2·s·n_l/(4b) more for the add-back (plus one sector
// per warp for the broadcast sum); time per block (log2 B)·W steps of shared
// loads, stores and barriers, so O((n/p) log B) over the levels: the scan does
// O(n log B) additions where a work-efficient one does O(n). Shared memory 2B
// elements per block.
//
// Every thread of a block takes part in every step's barrier and store; only
// lanes t >= d load (nvcc predicates the load so even when the code loads for
// every lane: a warp whose lanes are all below d makes no wavefront on the
// GPU, and the simulator must see the same).
#pragma once

#include <cstdint>

#include "agpu/kl/kl.hpp"

namespace agpu::kernels::scan {

namespace kl = agpu::kl;

struct hillis_steele_policy {
    // 256 threads: 8 steps per block; the rank dictionary's blocks of small-
    // block counts are of this order, and every preset (b = 16..64) allows it.
    static constexpr unsigned block_threads = 256;
};

// Scans each block of B elements; writes each block's total to block_sums[block]
// when block_sums is not empty.
template <class T>
AGPU_KERNEL void hillis_steele_block_scan(kl::gspan<const T> in, kl::gspan<T> out, kl::gspan<T> block_sums,
                                          std::uint64_t n, bool exclusive) {
    constexpr unsigned B = hillis_steele_policy::block_threads;
    AGPU_SHARED(T, buffers, 2 * B);
    const unsigned t = kl::thread_rank();
    const std::uint64_t i = std::uint64_t(kl::block_idx().x) * B + t;
    const T x = i < n ? in.load(i) : T(0);
    T v = x;
    unsigned current = 0;
    buffers.store(t, v);
    for (unsigned d = 1; d < B; d *= 2) {
        kl::sync_threads();
        if (t >= d) v += buffers.load(current * B + t - d);
        kl::compute(1);
        if (2 * d < B) {
            current ^= 1;
            buffers.store(current * B + t, v);
        }
    }
    if (i < n) out.store(i, exclusive ? T(v - x) : v);
    if (t == B - 1 && block_sums.size() > 0) block_sums.store(kl::block_idx().x, v);
}

// Block k + 1 adds scanned_sums[k + 1] (the sum of blocks 0..k) to its elements.
template <class T>
AGPU_KERNEL void hillis_steele_add_back(kl::gspan<T> out, kl::gspan<const T> scanned_sums, std::uint64_t n) {
    constexpr unsigned B = hillis_steele_policy::block_threads;
    const std::uint64_t block = std::uint64_t(kl::block_idx().x) + 1;
    const std::uint64_t i = block * B + kl::thread_rank();
    if (i < n) out.store(i, T(out.load(i) + scanned_sums.load(block)));
}

}  // namespace agpu::kernels::scan
