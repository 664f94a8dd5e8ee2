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
// Thread blocks: 256 threads per region of 64F rows x 64F words (F = 1 or 2;
// 64F int32 columns, or 128F int16 columns in the packed variant). Thread
// (ty, tx), ty, tx < 16, keeps rows 4ty + 64f .. +3 x the words of vectors
// tx + 16g (f, g < F) of C in 16F² registers. A warp's lanes are 4 ty x 8 tx
// (warp w: ty = 4(w / 2) + lane / 8, tx = 8(w mod 2) + lane mod 8), so each
// half-warp reads 2 vectors of A and 8 of B: one wavefront each, since the
// H100 serves a 16-byte shared access per half-warp (a 2 x 16 layout would
// take 2 and 4). The inner dimension is streamed in chunks of kc (16, 32 or
// 64): the block stages A's 64F x kc part transposed (A^T, one row per k)
// and B's kc x 64F part in shared memory, then for each k every thread reads
// F vectors of each and does 16F² relaxations on registers. Relax picks the
// instruction: min(c, a + b), DPX add-min, or the packed 16-bit add-min (two
// relaxations per instruction). F = 2 (8 x 8 words per thread, ~100
// registers, 2 blocks per SM) halves the shared loads and the A and B
// traffic per update against F = 1 (4 x 4, 56 registers, 4 blocks per SM);
// launches pick F = 2 for jobs at least 128 words both ways when its chunk
// fits the machine's M.
//
// Shared layout: A^T's rows are padded to 64F + 4 words and B's to 64F + 8.
// The transposing stores of A (a warp: 16 rows x 2 vectors, i.e. the same 16
// rows at k and k + 4: 4(64F + 4) = 16 mod 32 banks apart) and B's staging
// stores (runs of gv vectors over 32/gv rows of k, 64F + 8 = 8 mod 32) spread
// over all banks. In the 16-bit variant a warp's two A vectors are 8 k apart
// (0 mod 32): its transposing stores cost 2 wavefronts each.
//
// Columns that are outputs come in runs of gv vectors (gv = the tile width,
// at most 16); rows in runs of 16. Rows and columns that are not outputs are
// staged as inf and never loaded or stored (predicated accesses, load_if and
// store_if: one warp-instruction per unrolled access whichever lanes are
// off); a block with no output returns at once.
//
// AGPU cost of a full region (no masked parts) with inner length L in chunks
// of kc, b = 32, d bytes per distance: global 4F² vector loads and stores of
// C per thread (16 sectors per warp-instruction), per chunk the staging loads
// of A (16 rows x 32 bytes per warp-instruction) and B; shared per k per warp
// 2F loads of 2 wavefronts each, staging stores at the minimum (1 wavefront
// per scalar store, 2 in the 16-bit variant, 4 per vector store); 2·L/kc - 1
// barriers; 16F² compute instructions per k per thread. Per update:
// 4/(512F) shared wavefronts and 2d/L + 2d/(64F) global bytes (C once, the A
// and B strips).
//
// Assumptions: rows, cols, band edges and inner are multiples of 16 (tiles of
// 16, 32, 64 or 128); kc divides inner and the chunk fits in shared memory;
// pitch (16-byte vectors per matrix row) covers the padded matrix.
#pragma once

#include "apsp/apsp_common.cuh"

namespace agpu::kernels::apsp {

template <unsigned F>
struct region_policy {
    static_assert(F == 1 || F == 2, "regions of 64 or 128 words");
    static constexpr unsigned threads = 256, side = 16;
    static constexpr unsigned rows = 64 * F, vectors = 16 * F;  // region: 64F rows x 16F vectors of 4 words
    static constexpr unsigned max_kc = 64;
    static constexpr unsigned unroll = 16;  // k per unrolled body
    // Row pitches in shared memory (words): A^T 64F + 4, B 64F + 8.
    static constexpr unsigned a_pitch = 64 * F + 4, b_pitch = 64 * F + 8;
    // Resident blocks per SM the register budget is for (ptxas: 56 and ~100 registers).
    static constexpr unsigned min_blocks = F == 1 ? 4 : 2;
    // Shared bytes for chunk kc: A^T and B, kc rows each.
    static constexpr std::size_t shared_bytes(unsigned kc) { return std::size_t(kc) * (a_pitch + b_pitch) * 4; }
    // The thread's (ty, tx) in the 16 x 16 grid: warps of 4 ty x 8 tx.
    static AGPU_HOST_DEVICE unsigned ty(unsigned tid) { return tid / 64 * 4 + tid % 32 / 8; }
    static AGPU_HOST_DEVICE unsigned tx(unsigned tid) { return tid / 32 % 2 * 8 + tid % 8; }
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
    // log2 of kc and gv (both powers of two), set at launch: the staging
    // loops' index arithmetic in shifts and masks (with divisions by the
    // run-time kc and gv it took more instructions than the loads it feeds).
    std::uint32_t kc_log2 = 4, gv_log2 = 4;
};

// m: the padded matrix as 16-byte vectors, `pitch` vectors per row.
// CFirst: C is loaded before the first staging rather than after it (below).
template <class Relax, unsigned F, bool CFirst>
AGPU_KERNEL AGPU_BOUNDS(256, region_policy<F>::min_blocks) void minplus_regions(
    kl::gspan<word4<typename Relax::word>> m, std::uint32_t pitch, region_launch L) {
    using W = typename Relax::word;
    using V = word4<W>;
    using P = region_policy<F>;
    constexpr unsigned epw = Relax::per_word, epv = 4 * epw;  // distances per word, per vector
    constexpr unsigned R = P::rows, RV = P::vectors, side = P::side, threads = P::threads;

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

    const unsigned tid = kl::thread_rank(), ty = P::ty(tid), tx = P::tx(tid);
    const V inf_v = splat4(Relax::inf_word);
    // Bit F·f + g: the thread's outputs in row group f and column vector g are
    // live (one register through the loop, not the job's bounds).
    unsigned on = 0;
    for (unsigned f = 0; f < F; ++f)
        for (unsigned g = 0; g < F; ++g)
            if (row_live(row_base + 64 * f + 4 * ty) && col_live(col_base + (tx + 16 * g) * epv)) on |= 1u << (F * f + g);
    // C's vectors: c0 + (64f + r)·pitch + 16g (32-bit: the matrix has at most 2^28 vectors).
    const std::uint32_t c0 = (row_base + 4 * ty) * pitch + col_base / epv + tx;
    V c[4 * F][F];

    constexpr unsigned AP = P::a_pitch, APV = AP / 4, BPV = P::b_pitch / 4;
    const auto sv = kl::dynamic_shared<V>();  // A^T: kc rows of AP words; then B: kc rows of BPV vectors
    const auto sw = kl::dynamic_shared<W>();
    const unsigned kc = L.kc, gv = L.gv, a_log2 = L.kc_log2 - (epv == 8 ? 3 : 2), a_vecs = 1u << a_log2, b0 = kc * APV;
    // Where C is loaded (the launch picks, region_c_first): before the first
    // staging, so that its DRAM latency overlaps the staging's, or after it,
    // its loads in flight through the barrier.
    if (CFirst)
        for (unsigned f = 0; f < F; ++f)
            for (unsigned r = 0; r < 4; ++r)
                for (unsigned g = 0; g < F; ++g)
                    c[4 * f + r][g] = m.load_if(on >> (F * f + g) & 1, c0 + (64 * f + r) * pitch + 16 * g, inf_v);
    for (std::uint32_t k0 = 0; k0 < J.inner; k0 += kc) {
        if (k0 != 0) kl::sync_threads();
        // A's R x kc part, transposed: lanes take 16 rows x 2 vectors.
        AGPU_NO_UNROLL for (unsigned e = tid; e < R * a_vecs; e += threads) {
            const unsigned i = (e >> (a_log2 + 4)) * side + e % side, g = e / side & (a_vecs - 1);
            const std::uint32_t row = row_base + i;
            const V v = m.load_if(row_live(row), std::uint64_t(row) * pitch + (J.a_col0 + k0) / epv + g, inf_v);
            for (unsigned w = 0; w < 4; ++w)
                for (unsigned h = 0; h < epw; ++h) {
                    const unsigned k = g * epv + w * epw + h;
                    sw.store(k * AP + i, Relax::spread(v.w[w], h));
                }
        }
        // B's kc x RV-vector part: lanes take runs of gv vectors over 32/gv rows.
        AGPU_NO_UNROLL for (unsigned e = tid; e < kc * RV; e += threads) {
            const unsigned vl = e & (gv - 1), rest = e >> L.gv_log2, k = rest & (kc - 1);
            const unsigned vc = (rest >> L.kc_log2 << L.gv_log2) + vl;
            const std::uint32_t col = col_base + vc * epv;
            const V v = m.load_if(col_live(col), std::uint64_t(J.b_row0 + k0 + k) * pitch + col / epv, inf_v);
            sv.store(b0 + k * BPV + vc, v);
        }
        // Or C after the first staging: the staging loops then run without C's
        // 16F² registers. (Measured on the H100: accumulating A ⊗ B from inf
        // and meeting C at the end, with C prefetched to the L2, was 11-14%
        // slower.)
        if (!CFirst && k0 == 0)
            for (unsigned f = 0; f < F; ++f)
                for (unsigned r = 0; r < 4; ++r)
                    for (unsigned g = 0; g < F; ++g)
                        c[4 * f + r][g] = m.load_if(on >> (F * f + g) & 1, c0 + (64 * f + r) * pitch + 16 * g, inf_v);
        kl::sync_threads();
        for (unsigned k16 = 0; k16 < kc; k16 += P::unroll)
            unrolled<P::unroll>([&](auto u) {
                const unsigned k = k16 + u;
                V a[F], b[F];
                for (unsigned f = 0; f < F; ++f) a[f] = sv.load(k * APV + ty + 16 * f);
                for (unsigned g = 0; g < F; ++g) b[g] = sv.load(b0 + k * BPV + tx + 16 * g);
                for (unsigned f = 0; f < F; ++f)
                    for (unsigned r = 0; r < 4; ++r)
                        for (unsigned g = 0; g < F; ++g)
                            for (unsigned w = 0; w < 4; ++w)
                                c[4 * f + r][g].w[w] = Relax::relax(a[f].w[r], b[g].w[w], c[4 * f + r][g].w[w]);
                kl::compute(16 * F * F);
            });
    }
    // The store addresses again, from c0 hidden from nvcc: 16 addresses kept
    // from the loads would cost 16 registers through the loop.
    const std::uint32_t c1 = kl::opaque(c0), pitch1 = kl::opaque(pitch);
    for (unsigned f = 0; f < F; ++f)
        for (unsigned r = 0; r < 4; ++r)
            for (unsigned g = 0; g < F; ++g)
                m.store_if(on >> (F * f + g) & 1, c1 + (64 * f + r) * pitch1 + 16 * g, c[4 * f + r][g]);
}

}  // namespace agpu::kernels::apsp
