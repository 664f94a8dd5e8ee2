// apsp: the register-blocked min-plus product C = min(C, A ⊗ B) over
// rectangular parts of the distance matrix. Phases 2 and 3 of apsp/blocked
// method=A and apsp/dpx, and every product of apsp/recursive.
//
// A launch does one or two jobs. A job's outputs are C = rows
// [row0, row0 + rows) x columns [col0, col0 + cols), less an optional band of
// rows and one of columns (the pivot tiles of the blocked algorithm); A is C's
// rows x columns [a_col0, a_col0 + inner), B rows [b_row0, b_row0 + inner) x
// C's columns; C[i][j] = min(C[i][j], min_k A[i][k] + B[k][j]).
//
// Thread blocks: 256 threads (16 x 16) per region of 64 rows x 64 words
// (64 int32 columns, or 128 int16 columns in the packed variant). Thread
// (ty, tx) keeps rows 4ty..4ty+3 x words 4tx..4tx+3 of C in 16 registers.
// The inner dimension is streamed in chunks of kc (16, 32 or 64): the block
// stages A's 64 x kc part transposed (A^T, one row per k) and B's kc x 64
// part in shared memory, then for each k every thread reads one 16-byte
// vector of each (its 4 rows of A[.][k], its 4 words of B[k][.]) and does 16
// relaxations on registers: 2 shared loads per 16 relaxations. Relax picks
// the instruction: min(c, a + b), DPX add-min, or the packed 16-bit add-min
// (two relaxations per instruction).
//
// Shared layout, conflict-free both ways: A^T's word (k, i) lives at
// k·64 + (i XOR sa(k)), sa(k) = 4·((k mod 8) XOR 4·(k/8 mod 2)), so the
// transposing stores (16 rows x 2 vectors per warp) hit 32 banks and each
// thread's 4 rows stay one aligned vector; B's vector (k, v) lives at
// k·16 + (v XOR 2·(k mod 4)), so the staging stores of a warp (runs of gv
// vectors over 32/gv rows of k) spread over all banks. Reads: A 1 wavefront
// (2 distinct vectors per warp), B 2 (64 distinct words).
//
// Columns that are outputs come in runs of gv vectors (gv = the tile width,
// at most 16): the B staging gives each warp one run, so whether it loads is
// the same for all its lanes; rows come in runs of 16. Rows and columns that
// are not outputs are staged as inf and never loaded; a thread whose outputs
// are not outputs computes on registers and stores nothing; a block with no
// output returns at once.
//
// AGPU cost of a full region (no masked parts) with inner length L in chunks
// of kc, b = 32, d bytes per distance: global 4 vector loads and 4 vector
// stores of C per thread (16 sectors each per warp), per block L/(2·per_word)
// warp-loads of A and L/2 of B (16 sectors each); shared per k
// per warp 2 loads (1 + 2 wavefronts), staging stores at the minimum
// (1 wavefront per scalar store, 4 per vector store); 2·L/kc - 1 barriers;
// 16 compute instructions per k per thread. Per update: 3/512 shared
// wavefronts and 2d/L + 2d/64 global bytes (C once, the A and B strips).
// Assumptions: rows, cols, band edges and inner are multiples of 16 (tiles of
// 16, 32 or 64); kc divides inner and 2·kc·64 words fit in shared memory;
// pitch (16-byte vectors per matrix row) covers the padded matrix.
#pragma once

#include "apsp/apsp_common.cuh"

namespace agpu::kernels::apsp {

struct region_policy {
    // 64 x 64-word regions of 256 threads, 4 x 4 words each: 16 independent
    // accumulators per thread hide the DPX latency, 2 LDS.128 per 16 DPX
    // leave the shared-memory pipe at 3 wavefronts per 8 DPX issue cycles
    // (below its 1 per cycle), and about 40 registers let 6 blocks share an
    // H100 SM (32 KB of shared memory each at kc = 64).
    static constexpr unsigned threads = 256, side = 16;
    static constexpr unsigned rows = 64, vectors = 16;  // region: 64 rows x 16 vectors of 4 words
    static constexpr unsigned max_kc = 64;
    // Shared bytes for chunk kc: A^T and B, kc x 64 words each.
    static constexpr std::size_t shared_bytes(unsigned kc) { return std::size_t(2) * kc * 64 * 4; }
};

struct region_job {
    std::uint32_t row0, rows, col0, cols;                      // C's rows and columns (distances)
    std::uint32_t skip_row0, skip_rows, skip_col0, skip_cols;  // bands that are not outputs (may be empty)
    std::uint32_t a_col0, b_row0, inner;                       // A = C's rows x [a_col0, +inner); B = [b_row0, +inner) x C's columns
    std::uint32_t regions_x, blocks;                           // regions across C; blocks = regions across x down
};

struct region_launch {
    region_job job[2] = {};
    std::uint32_t jobs = 1;  // 1 or 2: blocks [0, job[0].blocks) do job 0, the rest job 1
    std::uint32_t kc = 16;   // inner chunk per shared-memory step
    std::uint32_t gv = 16;   // output columns come in runs of gv 16-byte vectors
};

// Word offset XOR of A^T's row k (a multiple of 4, below 32).
AGPU_HOST_DEVICE constexpr unsigned a_swizzle(unsigned k) { return 4 * ((k & 7) ^ (((k >> 3) & 1) << 2)); }
// Vector offset XOR of B's row k (below 8).
AGPU_HOST_DEVICE constexpr unsigned b_swizzle(unsigned k) { return 2 * (k & 3); }

// m: the padded matrix as 16-byte vectors, `pitch` vectors per row.
template <class Relax>
AGPU_KERNEL void minplus_regions(kl::gspan<word4<typename Relax::word>> m, std::uint32_t pitch, region_launch L) {
    using W = typename Relax::word;
    using V = word4<W>;
    constexpr unsigned epw = Relax::per_word, epv = 4 * epw;  // distances per word, per vector
    constexpr unsigned R = region_policy::rows, RV = region_policy::vectors, side = region_policy::side;
    constexpr unsigned threads = region_policy::threads;

    const bool second = kl::block_idx().x >= L.job[0].blocks;
    const region_job J = second ? L.job[1] : L.job[0];
    const unsigned bid = second ? kl::block_idx().x - L.job[0].blocks : kl::block_idx().x;
    const std::uint32_t row_base = J.row0 + bid / J.regions_x * R;
    const std::uint32_t col_base = J.col0 + bid % J.regions_x * (RV * epv);
    const auto row_live = [&](std::uint32_t i) {
        return i < J.row0 + J.rows && (i < J.skip_row0 || i >= J.skip_row0 + J.skip_rows);
    };
    const auto col_live = [&](std::uint32_t j) {
        return j < J.col0 + J.cols && (j < J.skip_col0 || j >= J.skip_col0 + J.skip_cols);
    };
    // A region whose rows (or columns) inside C all lie in the band: no output.
    const auto all_skipped = [](std::uint32_t lo, std::uint32_t hi, std::uint32_t s0, std::uint32_t sn) {
        return hi <= lo || (s0 <= lo && hi <= s0 + sn);
    };
    if (all_skipped(row_base, kl::min(row_base + R, J.row0 + J.rows), J.skip_row0, J.skip_rows) ||
        all_skipped(col_base, kl::min(col_base + RV * epv, J.col0 + J.cols), J.skip_col0, J.skip_cols))
        return;

    const unsigned tid = kl::thread_rank(), ty = tid / side, tx = tid % side;
    const std::uint32_t my_row = row_base + 4 * ty, my_col = col_base + tx * epv;
    const bool active = row_live(my_row) && col_live(my_col);
    const V inf_v = splat4(Relax::inf_word);
    V c[4];
    for (unsigned r = 0; r < 4; ++r)
        c[r] = active ? m.load(std::uint64_t(my_row + r) * pitch + my_col / epv) : inf_v;

    const auto sv = kl::dynamic_shared<V>();  // A^T: [0, kc·RV) vectors; B: [kc·RV, 2·kc·RV)
    const auto sw = kl::dynamic_shared<W>();
    const unsigned kc = L.kc, gv = L.gv, a_vecs = kc / epv, b0 = kc * RV;
    for (std::uint32_t k0 = 0; k0 < J.inner; k0 += kc) {
        if (k0 != 0) kl::sync_threads();
        // A's 64 x kc part, transposed: lanes take 16 rows x 2 vectors.
        for (unsigned e = tid; e < R * a_vecs; e += threads) {
            const unsigned i = e / (side * a_vecs) * side + e % side, g = e / side % a_vecs;
            const std::uint32_t row = row_base + i;
            const V v = row_live(row) ? m.load(std::uint64_t(row) * pitch + (J.a_col0 + k0) / epv + g) : inf_v;
            for (unsigned w = 0; w < 4; ++w)
                for (unsigned h = 0; h < epw; ++h) {
                    const unsigned k = g * epv + w * epw + h;
                    sw.store(k * (4 * RV) + (i ^ a_swizzle(k)), Relax::spread(v.w[w], h));
                }
        }
        // B's kc x 64-word part: lanes take runs of gv vectors over 32/gv rows.
        for (unsigned e = tid; e < kc * RV; e += threads) {
            const unsigned vl = e % gv, rest = e / gv, k = rest % kc, vc = rest / kc * gv + vl;
            const std::uint32_t col = col_base + vc * epv;
            const V v = col_live(col) ? m.load(std::uint64_t(J.b_row0 + k0 + k) * pitch + col / epv) : inf_v;
            sv.store(b0 + k * RV + (vc ^ b_swizzle(k)), v);
        }
        kl::sync_threads();
        for (unsigned k16 = 0; k16 < kc; k16 += 16)
            unrolled<16>([&](auto u) {
                const unsigned k = k16 + u;
                const V a = sv.load(k * RV + (ty ^ (a_swizzle(u) / 4)));
                const V b = sv.load(b0 + k * RV + (tx ^ b_swizzle(u)));
                for (unsigned r = 0; r < 4; ++r)
                    for (unsigned w = 0; w < 4; ++w) c[r].w[w] = Relax::relax(a.w[r], b.w[w], c[r].w[w]);
                kl::compute(16);
            });
    }
    if (active)
        for (unsigned r = 0; r < 4; ++r) m.store(std::uint64_t(my_row + r) * pitch + my_col / epv, c[r]);
}

}  // namespace agpu::kernels::apsp
