// sort/bitonic: Batcher's bitonic sort, for small inputs and as the
// data-independent reference point of the family (keys only: it is not stable).
//
// Phases (the driver is bitonic_sort in sort_runs.hpp), N = n rounded up to a
// power of two, positions n..N-1 absent (larger than every key, never stored):
//   1. block_sort (sort_common.cuh): tiles of `tile` elements sorted on chip.
//   2. For each stage k = 2·tile, 4·tile, ..., N: bitonic_global_step for the
//      distances that cross tiles (the mirror step i <-> i ^ (k - 1), then
//      i <-> i + j for j = k/4 .. tile), one launch each, a thread per pair;
//      then bitonic_tile_merge finishes the stage's distances below the tile
//      on chip.
// Every compare-exchange loads both elements and stores both back, swapped or
// not, so every counter is independent of the data (the closed form is exact).
// AGPU cost: launches 1 + sum over stages (log2(k/tile) + 1); I/O per global
// step and per tile merge 2·n·s/(4b) blocks (log2(N/tile)(log2(N/tile) + 1)/2
// global steps): O((n/b) log²(n/tile)), more than the merge sorts; time
// O((n/p) log² n).
#pragma once

#include <cstdint>

#include "sort/sort_common.cuh"

namespace agpu::kernels::sort {

// One step of stage k at distance j (mirror: partner i ^ (k - 1)); thread per pair.
template <class K>
AGPU_KERNEL void bitonic_global_step(kl::gspan<K> keys, std::uint64_t n, std::uint64_t pairs, std::uint64_t k,
                                     std::uint64_t j, bool mirror) {
    const std::uint64_t p = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_rank();
    if (p >= pairs) return;
    const std::uint64_t i = pair_low(p, j), l = mirror ? (i ^ (k - 1)) : i + j;
    if (l >= n) return;  // an absent partner is the larger: i keeps its key
    const K a = keys.load(i), b = keys.load(l);
    kl::compute(1);
    const bool swap = key_order<K>::less(b, a);
    keys.store(i, swap ? b : a);
    keys.store(l, swap ? a : b);
}

// The distances tile/2 .. 1 of a stage, on chip: one block per tile.
template <class K>
AGPU_KERNEL void bitonic_tile_merge(kl::gspan<K> keys, std::uint64_t n, unsigned tile) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const kl::sspan<K> sk = kl::dynamic_shared<K>().subspan(0, tile);
    const kl::sspan<unsigned> st =
        kl::dynamic_shared<unsigned>().subspan(align16(std::uint64_t(tile) * sizeof(K)) / 4, tile);
    const std::uint64_t base = std::uint64_t(kl::block_idx().x) * tile;
    const unsigned valid = unsigned(kl::min<std::uint64_t>(tile, n - base));
    for (unsigned i = t; i < tile; i += threads) {
        sk.store(i, i < valid ? keys.load(base + i) : K{});
        st.store(i, i);
    }
    bitonic_merge_shared(sk, st, tile, valid);
    for (unsigned i = t; i < valid; i += threads) keys.store(base + i, sk.load(i));
}

}  // namespace agpu::kernels::sort
