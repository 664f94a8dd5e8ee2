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
// Shared layout: A^T's rows are padded to 68 words and B's to 72 (18
// vectors). The transposing stores of A (a warp: 16 rows x 2 vectors, i.e.
// the same 16 rows at k and k + 4: 4·68 = 16 mod 32 banks apart) and B's
// staging stores (runs of gv vectors over 32/gv rows of k, 72 = 8 mod 32)
// spread over all banks, and the reads need no address arithmetic beyond
// k·pitch (an XOR swizzle did the same with 12 more registers per thread).
// Reads: A 1 wavefront (2 distinct vectors per warp), B 2 (64 distinct
// words). In the 16-bit variant a warp's two A vectors are 8 k apart
// (8·68 = 0 mod 32): its transposing stores cost 2 wavefronts each.
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
// (1 wavefront per scalar store, 2 in the 16-bit variant, 4 per vector
// store); 2·L/kc - 1 barriers;
// 16 compute instructions per k per thread. Per update: 3/512 shared
// wavefronts and 2d/L + 2d/64 global bytes (C once, the A and B strips).
//
// Assumptions: rows, cols, band edges and inner are multiples of 16 (tiles of
// 16, 32 or 64); kc divides inner and 140·kc words fit in shared memory;
// pitch (16-byte vectors per matrix row) covers the padded matrix.
#pragma once

#include "apsp/apsp_common.cuh"

namespace agpu::kernels::apsp {

struct region_policy {
    // 64 x 64-word regions of 256 threads, 4 x 4 words each: 16 independent
    // accumulators per thread hide the DPX latency; 2 LDS.128 per 16 DPX
    // keep the shared-memory pipe at 3 wavefronts per 16 DPX instructions
    // of a warp (32 cycles of a half-rate pipe; the pipe takes 1 per cycle);
    // 56 registers (ptxas, sm_90) let 4 blocks, 32 warps, share an H100 SM
    // (35 KB of shared memory each at kc = 64).
    static constexpr unsigned threads = 256, side = 16;
    static constexpr unsigned rows = 64, vectors = 16;  // region: 64 rows x 16 vectors of 4 words
    static constexpr unsigned max_kc = 64;
    // Row pitches in shared memory: A^T 68 words (17 vectors), B 72 (18).
    static constexpr unsigned a_pitch = 68, b_pitch = 72;
    // Shared bytes for chunk kc: A^T and B, kc rows each.
    static constexpr std::size_t shared_bytes(unsigned kc) { return std::size_t(kc) * (a_pitch + b_pitch) * 4; }
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

    constexpr unsigned AP = region_policy::a_pitch, BPV = region_policy::b_pitch / 4;
    const auto sv = kl::dynamic_shared<V>();  // A^T: kc rows of AP words; then B: kc rows of BPV vectors
    const auto sw = kl::dynamic_shared<W>();
    const unsigned kc = L.kc, gv = L.gv, a_vecs = kc / epv, b0 = kc * AP / 4;
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
                    sw.store(k * AP + i, Relax::spread(v.w[w], h));
                }
        }
        // B's kc x 64-word part: lanes take runs of gv vectors over 32/gv rows.
        for (unsigned e = tid; e < kc * RV; e += threads) {
            const unsigned vl = e % gv, rest = e / gv, k = rest % kc, vc = rest / kc * gv + vl;
            const std::uint32_t col = col_base + vc * epv;
            const V v = col_live(col) ? m.load(std::uint64_t(J.b_row0 + k0 + k) * pitch + col / epv) : inf_v;
            sv.store(b0 + k * BPV + vc, v);
        }
        kl::sync_threads();
        for (unsigned k16 = 0; k16 < kc; k16 += 16)
            unrolled<16>([&](auto u) {
                const unsigned k = k16 + u;
                const V a = sv.load(k * (AP / 4) + ty);
                const V b = sv.load(b0 + k * BPV + tx);
                for (unsigned r = 0; r < 4; ++r)
                    for (unsigned w = 0; w < 4; ++w) c[r].w[w] = Relax::relax(a.w[r], b.w[w], c[r].w[w]);
                kl::compute(16);
            });
    }
    if (active)
        for (unsigned r = 0; r < 4; ++r) m.store(std::uint64_t(my_row + r) * pitch + my_col / epv, c[r]);
}

}  // namespace agpu::kernels::apsp
