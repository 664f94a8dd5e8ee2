// apsp: plain Floyd-Warshall on one Tile x Tile diagonal tile, held in shared
// memory. Phase 1 of the blocked algorithm (the pivot tile) and the base case
// of the recursive one.
//
// One block of tile_fw_policy::threads threads. Thread r owns column
// j = r mod Tile of rows r / Tile + e·(threads / Tile), e < Tile²/threads,
// and keeps them in registers. For each k: read d[k][j] once, then for each
// owned row d[i][j] = min(d[i][j], d[i][k] + d[k][j]) and write it back to
// shared memory; one barrier per k. Row k and column k do not change during
// step k (d[k][k] = 0: no negative cycle), so the in-place update is exact.
//
// AGPU cost (b lanes, E = Tile²/256): global Tile² words read and written once
// (E coalesced loads and stores per thread); shared per k and thread 1 + E
// loads and E stores, each warp-instruction one wavefront (d[i][k] is a
// broadcast, the rest is contiguous); Tile + 1 barriers; Tile·E compute
// instructions per thread. Time on one MP: about Tile·(2E + 1 + E) steps per
// warp times 256/b warps. Shared footprint Tile² words.
#pragma once

#include "apsp/apsp_common.cuh"

namespace agpu::kernels::apsp {

struct tile_fw_policy {
    // 256 threads: one per element at Tile = 16, 4 or 16 elements at 32 or 64;
    // 8 warps keep the one busy MP's pipelines fed between barriers.
    static constexpr unsigned threads = 256;
};

// d: the padded matrix (`pitch` elements per row); the tile's first row and
// column are `origin`. T is int32 or int16; arithmetic in int32 is exact for
// both (values stay within [-inf, inf], sums within 2·inf).
template <class T, unsigned Tile>
AGPU_KERNEL void tile_fw(kl::gspan<T> d, std::uint64_t pitch, std::uint32_t origin) {
    constexpr unsigned threads = tile_fw_policy::threads;
    static_assert(threads % Tile == 0 && Tile * Tile % threads == 0, "Tile must divide 256 and Tile² be a multiple of it");
    constexpr unsigned per = Tile * Tile / threads, row_step = threads / Tile;
    const auto s = kl::dynamic_shared<std::int32_t>();
    const unsigned r = kl::thread_rank(), j = r % Tile, i0 = r / Tile;
    std::int32_t v[per];
    for (unsigned e = 0; e < per; ++e) {
        const unsigned i = i0 + e * row_step;
        v[e] = d.load((origin + i) * pitch + origin + j);
        s.store(i * Tile + j, v[e]);
    }
    kl::sync_threads();
    for (unsigned k = 0; k < Tile; ++k) {
        const std::int32_t dkj = s.load(k * Tile + j);
        for (unsigned e = 0; e < per; ++e) {
            const unsigned i = i0 + e * row_step;
            v[e] = kl::min(v[e], s.load(i * Tile + k) + dkj);
            s.store(i * Tile + j, v[e]);
        }
        kl::compute(per);
        kl::sync_threads();
    }
    for (unsigned e = 0; e < per; ++e) d.store((origin + i0 + e * row_step) * pitch + origin + j, static_cast<T>(v[e]));
}

}  // namespace agpu::kernels::apsp
