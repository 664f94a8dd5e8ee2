// apsp/blocked method=B: two-level blocking. Phases 2 and 3 of the blocked
// algorithm as one tile-by-tile min-plus product C = min(C, A ⊗ B), with
// C = T(I, J), A = T(I, K), B = T(K, J) for the pivot K:
//   phase 2: the pivot row T(K, J) (A is the pivot tile) and the pivot column
//            T(I, K) (B is the pivot tile), J, I != K: 2(n/t - 1) blocks;
//   phase 3: every T(I, J) with I, J != K: (n/t - 1)² blocks.
// The pivot tile is closed (phase 1), so the product equals Floyd-Warshall's
// in-order update of the tile, in phase 2 too.
//
// One block of Tile·Sub threads per t x t tile (t = Tile, t2 = Sub). Thread
// (r, j), r < t2, j < t, keeps C[r + t2·q][j], q < t/t2, in registers. The
// k dimension goes in t/t2 strips of t2: the block stages A's t x t2 strip
// and B's t2 x t strip in shared memory (one word of each per thread), then
// for each of the t2 k's a thread reads B[k][j] and its t/t2 values A[.][k]
// (a broadcast: a warp shares r; 4 k per 16-byte vector, 2 at t2 = 2) and
// relaxes its t/t2 outputs.
//
// AGPU cost per tile: global t² words of C loaded and stored, t² of A and t²
// of B loaded (1 word per thread per strip each: B coalesced, A in runs of t2
// words); shared per 4 k and thread 4 loads of B (one wavefront each) and t/t2
// vector loads of A (2 wavefronts: one per half-warp) per 4t/t2 relaxations,
// and 2 conflict-free stores per strip; 2t/t2 - 1
// barriers; t·t/t2 compute instructions per thread. Shared footprint 2·t·t2
// words.
#pragma once

#include "apsp/apsp_common.cuh"

namespace agpu::kernels::apsp {

// pitch: elements per row of the padded matrix; pivot K; phase 2 or 3.
template <unsigned Tile, unsigned Sub>
AGPU_KERNEL void minplus_strips(kl::gspan<std::int32_t> m, std::uint32_t pitch, std::uint32_t pivot,
                                std::uint32_t phase) {
    static_assert(Sub <= Tile && Tile % Sub == 0, "t2 must divide t");
    constexpr unsigned per = Tile / Sub;
    const std::uint32_t tiles = pitch / Tile, x = kl::block_idx().x;
    std::uint32_t ti, tj;  // the output tile
    if (phase == 2) {
        const std::uint32_t other = x % (tiles - 1);
        const std::uint32_t skip_pivot = other + (other >= pivot ? 1u : 0u);
        ti = x < tiles - 1 ? pivot : skip_pivot;
        tj = x < tiles - 1 ? skip_pivot : pivot;
    } else {
        const std::uint32_t i = x / (tiles - 1), j = x % (tiles - 1);
        ti = i + (i >= pivot ? 1u : 0u);
        tj = j + (j >= pivot ? 1u : 0u);
    }
    const std::uint64_t row0 = std::uint64_t(ti) * Tile, col0 = std::uint64_t(tj) * Tile,
                        k_0 = std::uint64_t(pivot) * Tile;
    const unsigned tid = kl::thread_rank(), r = tid / Tile, j = tid % Tile;
    const auto sa = kl::dynamic_shared<std::int32_t>();  // A strip: t rows x t2, then B strip: t2 rows x t
    const auto sb = sa.subspan(Tile * Sub, Tile * Sub);
    constexpr unsigned KV = Sub >= 4 ? 4 : Sub;       // k per A vector
    const auto sav = kl::dynamic_shared<ivec<KV>>();  // the A strip as vectors of KV words

    std::int32_t c[per];
    for (unsigned q = 0; q < per; ++q) c[q] = m.load((row0 + r + Sub * q) * pitch + col0 + j);
    for (unsigned k0 = 0; k0 < Tile; k0 += Sub) {
        if (k0 != 0) kl::sync_threads();
        sa.store(tid, m.load((row0 + tid / Sub) * pitch + k_0 + k0 + tid % Sub));
        sb.store(tid, m.load((k_0 + k0 + tid / Tile) * pitch + col0 + tid % Tile));
        kl::sync_threads();
        // KV k at a time: KV words of B (one per k), and each owned row's KV
        // words of A as one vector (LDS.128, or LDS.64 at t2 = 2): what nvcc
        // makes of scalar loads here, written out so the simulator counts it.
        for (unsigned k = 0; k < Sub; k += KV) {
            std::int32_t b[KV];
            for (unsigned u = 0; u < KV; ++u) b[u] = sb.load((k + u) * Tile + j);
            for (unsigned q = 0; q < per; ++q) {
                const ivec<KV> a = sav.load(((r + Sub * q) * Sub + k) / KV);
                for (unsigned u = 0; u < KV; ++u) c[q] = kl::min(c[q], a.w[u] + b[u]);
            }
            kl::compute(per * KV);
        }
    }
    for (unsigned q = 0; q < per; ++q) m.store((row0 + r + Sub * q) * pitch + col0 + j, c[q]);
}

}  // namespace agpu::kernels::apsp
