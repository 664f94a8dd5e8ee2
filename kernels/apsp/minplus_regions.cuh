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
// launches pick F by launch_shape (apsp_runs.hpp; a lookahead launch F = 2).
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
// Pipelined staging (Pipe: int32, chunks of 16, where two chunks fit in M;
// every int32 product with two or more chunks): two staging buffers; the
// loads of chunk c + 1 are issued into registers before chunk c's
// relaxations and stored into the other buffer after them, one barrier per
// chunk. On the H100 (n = 8192) it took dpx t = 128 int32 from 48.1 to 46.6
// ms, and with the lookahead launch below from 44.4 to 40.6 ms.
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
    static constexpr unsigned unroll = 16;      // k per unrolled body
    static constexpr unsigned stage_batch = 4;  // staging loads in flight per thread (interior regions)
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
    std::uint32_t a_col0, b_row0, inner;  // A = C's rows x [a_col0, +inner); B = [b_row0, +inner) x C's columns
    std::uint32_t regions_x, blocks;      // regions across C; blocks = regions across x down
};

// Lookahead (apsp/dpx lookahead=1; regions of one tile each, int32): the
// launch of step K's other tiles (job 0) also closes the next pivot tile
// T(a, a), a = K + 1, and updates the next pivot row (job 1) and column
// (job 2) by it, so that no launch of step K + 1 waits for them.
// Job 0's regions run in the order T(a, a), row a, column a, the rest
// (row-major): the block of T(a, a) updates it, runs Floyd-Warshall on it in
// registers and stores it; every job-0 region in row or column a then
// publishes flag[y·tiles + x] = epoch (K + 1) after its stores. The blocks of
// jobs 1 and 2 come last in the grid and wait, before they read anything,
// for the flags of their own tile and of T(a, a) (published long before, in
// practice: one poll). Blocks take their order from a counter, claimed in
// launch order (flag[tiles² + K]), so that every block waited for belongs to
// a block already running.
struct region_ahead {
    std::uint32_t on = 0;     // 1: a lookahead launch
    std::uint32_t next = 0;   // a = K + 1
    std::uint32_t tiles = 0;  // tiles (= regions) per side
    std::uint32_t epoch = 0;  // K + 1: the value this launch's flags carry
};

struct region_launch {
    region_job job[3] = {};
    std::uint32_t jobs = 1;  // 1 to 3: blocks [0, job[0].blocks) do job 0, the next job[1].blocks job 1, ...
    std::uint32_t kc = 16;   // inner chunk per shared-memory step
    std::uint32_t gv = 16;   // output columns come in runs of gv 16-byte vectors
    // log2 of kc and gv (both powers of two), set at launch: the staging
    // loops' index arithmetic in shifts and masks (with divisions by the
    // run-time kc and gv it took more instructions than the loads it feeds).
    std::uint32_t kc_log2 = 4, gv_log2 = 4;
    region_ahead ahead;
};

// Polls between a lookahead block's checks of a flag (ns).
inline constexpr unsigned region_poll_ns = 200;

// m: the padded matrix as 16-byte vectors, `pitch` vectors per row.
// CFirst: C is loaded before the first staging rather than after it (below).
// One k of a product on registers: F vectors of A's column k (rows 4ty +
// 64f .. + 3) at sv[a_at + 16f], F of B's row k (words 4(tx + 16g) .. + 3)
// at sv[b_at + 16g], then the thread's 16F² relaxations.
template <class Relax, unsigned F, class V, class S>
AGPU_DEVICE void relax_k(V (&c)[4 * F][F], const S& sv, unsigned a_at, unsigned b_at) {
    V x[F], y[F];
    for (unsigned f = 0; f < F; ++f) x[f] = sv.load(a_at + 16 * f);
    for (unsigned g = 0; g < F; ++g) y[g] = sv.load(b_at + 16 * g);
    for (unsigned f = 0; f < F; ++f)
        for (unsigned r = 0; r < 4; ++r)
            for (unsigned g = 0; g < F; ++g)
                for (unsigned w = 0; w < 4; ++w)
                    c[4 * f + r][g].w[w] = Relax::relax(x[f].w[r], y[g].w[w], c[4 * f + r][g].w[w]);
    kl::compute(16 * F * F);
}

// Floyd-Warshall on a region of 64F x 64F int32 distances held in the
// registers of minplus_regions (the lookahead's T(a, a), after its update):
// as tile_fw for t >= 64, with 8 x 8 (F = 2) or 4 x 4 values per thread. Step
// k reads column k (F vectors: rows 4ty + 64f .. + 3) and row k (F vectors:
// words 4(tx + 16g) .. + 3) from shared memory, double-buffered (row k at
// buf·16F + x, column k at 32F + buf·16F + y), relaxes its 16F² values, and
// the owners of row and column k + 1 publish them into the other buffer; one
// barrier per k. Shared: the first 64F vectors of the staging area.
template <class Relax, unsigned F, class V, class S>
AGPU_DEVICE void close_region(V (&c)[4 * F][F], const S& sv, unsigned tid) {
    using P = region_policy<F>;
    constexpr unsigned RV = P::vectors, side = 64 * F;
    const unsigned ty = P::ty(tid), tx = P::tx(tid);
    const auto publish = [&](unsigned buf, auto rw, unsigned k) {
        constexpr unsigned r = decltype(rw)::value;
        const unsigned fk = k / 64, q = k % 64 / 4;
        // (f and g compile-time: a run-time index into c would put it in local memory.)
        unrolled<F>([&](auto f) {
            if (f == fk) unrolled<F>([&](auto g) { sv.store_if(ty == q, buf * RV + tx + 16 * g, c[4 * f + r][g]); });
        });
        unrolled<F>([&](auto g) {
            if (g == fk)
                unrolled<F>([&](auto f) {
                    sv.store_if(
                        tx == q, 2 * RV + buf * RV + ty + 16 * f,
                        V{{c[4 * f][g].w[r], c[4 * f + 1][g].w[r], c[4 * f + 2][g].w[r], c[4 * f + 3][g].w[r]}});
                });
        });
    };
    kl::sync_threads();  // the last chunk's shared loads are done
    publish(0, std::integral_constant<unsigned, 0>{}, 0);
    kl::sync_threads();
    for (unsigned k4 = 0; k4 < side; k4 += 4)
        unrolled<4>([&](auto u) {
            const unsigned k = k4 + u, buf = u % 2;
            relax_k<Relax, F>(c, sv, 2 * RV + buf * RV + ty, buf * RV + tx);
            if (k + 1 < side) publish(1 - buf, std::integral_constant<unsigned, (decltype(u)::value + 1) % 4>{}, k + 1);
            kl::sync_threads();
        });
}

// sync: a lookahead launch's flags and counters (region_ahead), empty otherwise.
// Pipe (int32, L.kc = 16): the staging is double-buffered (below).
template <class Relax, unsigned F, bool CFirst, bool Pipe>
// (clang-format 14 reads AGPU_BOUNDS(...) as a call)
// clang-format off
AGPU_KERNEL AGPU_BOUNDS(256, region_policy<F>::min_blocks) void minplus_regions(
    kl::gspan<word4<typename Relax::word>> m, std::uint32_t pitch, region_launch L, kl::gspan<std::uint32_t> sync) {
    // clang-format on
    using W = typename Relax::word;
    using V = word4<W>;
    using P = region_policy<F>;
    constexpr unsigned epw = Relax::per_word, epv = 4 * epw;  // distances per word, per vector
    constexpr unsigned R = P::rows, RV = P::vectors, side = P::side, threads = P::threads;
    const unsigned tid = kl::thread_rank();
    const auto sv = kl::dynamic_shared<V>();  // A^T: kc rows of AP words; then B: kc rows of BPV vectors
    const auto sw = kl::dynamic_shared<W>();

    // The block's place in launch order: its index, or in a lookahead launch
    // the counter's (one word after the staged chunk).
    unsigned bid = kl::block_idx().x;
    const bool ahead = L.ahead.on != 0;
    const std::uint32_t tiles = L.ahead.tiles, next = L.ahead.next;
    if (ahead) {
        const auto slot = kl::dynamic_shared<std::uint32_t>();
        const unsigned at = unsigned((Pipe ? 2 * P::shared_bytes(16) : P::shared_bytes(L.kc)) / 4);
        if (tid == 0) slot.store(at, sync.atomic_add(std::size_t(tiles) * tiles + next - 1, 1u));
        kl::sync_threads();
        bid = slot.load(at);
    }
    unsigned job = 0;
    while (job + 1 < L.jobs && bid >= L.job[job].blocks) bid -= L.job[job++].blocks;
    const region_job J = L.job[job];
    std::uint32_t ry = bid / J.regions_x, rx = bid % J.regions_x;
    if (ahead && job == 0) {  // T(a, a), row a, column a, the rest (a = next)
        const std::uint32_t r1 = tiles - 1;
        if (bid == 0) {
            ry = rx = next;
        } else if (bid < tiles) {
            ry = next;
            rx = bid - 1 + (bid - 1 >= next);
        } else if (bid < 2 * tiles - 1) {
            ry = bid - tiles + (bid - tiles >= next);
            rx = next;
        } else {
            const std::uint32_t rest = bid - (2 * tiles - 1);
            ry = rest / r1 + (rest / r1 >= next);
            rx = rest % r1 + (rest % r1 >= next);
        }
    }
    const std::uint32_t row_base = J.row0 + ry * R;
    const std::uint32_t col_base = J.col0 + rx * (RV * epv);
    // Lookahead: job 0's regions in row or column a publish; T(a, a) closes.
    const bool publishes = ahead && job == 0 && (ry == next || rx == next),
               closes = publishes && ry == next && rx == next;
    const auto publish = [&] {
        kl::thread_fence();
        kl::sync_threads();
        if (tid == 0) sync.atomic_exch(std::size_t(ry) * tiles + rx, L.ahead.epoch);
    };
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
        all_skipped(col_base, kl::min(col_base + RV * epv, J.col0 + J.cols), J.skip_col0, J.skip_cols)) {
        // (In a lookahead launch only step K's pivot row and column, final
        // since the launch before: published at once.)
        if (publishes && tid == 0) sync.atomic_exch(std::size_t(ry) * tiles + rx, L.ahead.epoch);
        return;
    }
    // Jobs 1 and 2 of a lookahead launch: wait for the step-K update of the
    // block's tile and for the closed T(a, a).
    if (ahead && job != 0) {
        if (tid == 0) {
            const std::size_t own = std::size_t(row_base / R) * tiles + col_base / R,
                              pivot = std::size_t(next) * tiles + next;
            while (sync.atomic_add(own, 0u) < L.ahead.epoch) kl::spin_wait(region_poll_ns);
            while (sync.atomic_add(pivot, 0u) < L.ahead.epoch) kl::spin_wait(region_poll_ns);
            kl::thread_fence();
        }
        kl::sync_threads();
    }

    const unsigned ty = P::ty(tid), tx = P::tx(tid);
    const V inf_v = splat4(Relax::inf_word);
    // Bit F·f + g: the thread's outputs in row group f and column vector g are
    // live (one register through the loop, not the job's bounds).
    unsigned on = 0;
    for (unsigned f = 0; f < F; ++f)
        for (unsigned g = 0; g < F; ++g)
            if (row_live(row_base + 64 * f + 4 * ty) && col_live(col_base + (tx + 16 * g) * epv))
                on |= 1u << (F * f + g);
    // C's vectors: c0 + (64f + r)·pitch + 16g (32-bit: the matrix has at most 2^28 vectors).
    const std::uint32_t c0 = (row_base + 4 * ty) * pitch + col_base / epv + tx;
    V c[4 * F][F];

    constexpr unsigned AP = P::a_pitch, APV = AP / 4, BPV = P::b_pitch / 4;
    const unsigned kc = L.kc, gv = L.gv, a_log2 = L.kc_log2 - (epv == 8 ? 3 : 2), a_vecs = 1u << a_log2, b0 = kc * APV;
    // Where C is loaded (the launch picks, region_c_first): before the first
    // staging, so that its DRAM latency overlaps the staging's, or after it,
    // its loads in flight through the barrier.
    if (CFirst)
        for (unsigned f = 0; f < F; ++f)
            for (unsigned r = 0; r < 4; ++r)
                for (unsigned g = 0; g < F; ++g)
                    c[4 * f + r][g] = m.load_if(on >> (F * f + g) & 1, c0 + (64 * f + r) * pitch + 16 * g, inf_v);
    // A region whose rows and columns are all outputs (every region of
    // other_tiles but those at the matrix's edge) stages without liveness
    // tests: a thread's elements of A and B lie at affine offsets, one add per
    // element. (The general loops below test each element's row or column
    // against the job's bounds and bands: on the H100 at t = 128 the interior
    // path took other_tiles from 414 M to 371 M warp-instructions, 304 M to
    // 282 M of them on the ALU pipe that the relaxations need; 4% faster.)
    const auto inside = [](std::uint32_t lo, std::uint32_t len, std::uint32_t first, std::uint32_t count,
                           std::uint32_t s0,
                           std::uint32_t sn) { return lo + len <= first + count && (lo + len <= s0 || lo >= s0 + sn); };
    const bool interior = inside(row_base, R, J.row0, J.rows, J.skip_row0, J.skip_rows) &&
                          inside(col_base, RV * epv, J.col0, J.cols, J.skip_col0, J.skip_cols);
    // A: element e = tid + 256·it is row i = ai + it·(256 / a_vecs), vector ag
    // (a_vecs <= 16); B: row k and vector vc of rest = rest0 + it·(256 / gv).
    const unsigned a_total = R << a_log2, a_its = a_total >= threads ? a_total / threads : unsigned(tid < a_total);
    const unsigned ai = ((tid >> (a_log2 + 4)) << 4) + tid % side, ag = tid >> 4 & (a_vecs - 1);
    const unsigned a_step = threads >> a_log2, b_its = kc * RV / threads, b_step = threads >> L.gv_log2;
    // its elements, SB loads in flight before their stores where its is a
    // multiple of SB (registers: C's 16F² and SB vectors through the staging).
    const auto staged = [&](unsigned its, auto load, auto store) {
        constexpr unsigned SB = P::stage_batch;
        if (its % SB == 0) {
            AGPU_NO_UNROLL for (unsigned it = 0; it < its; it += SB) {
                V v[SB];
                unrolled<SB>([&](auto u) { v[u] = load(it + u); });
                unrolled<SB>([&](auto u) { store(it + u, v[u]); });
            }
        } else {
            AGPU_NO_UNROLL for (unsigned it = 0; it < its; ++it) store(it, load(it));
        }
    };
    if constexpr (Pipe) {
        // Double-buffered staging, chunks of 16: chunk c + 1's loads are
        // issued into registers before chunk c's relaxations and stored into
        // the other buffer after them, so that their latency is spent
        // relaxing; one barrier per chunk. A thread stages F vectors of A and
        // F of B per chunk (A: e = tid + 256·it is row ((e >> 6) << 4) + e mod
        // 16, vector (e >> 4) mod 4; B as the loops below with kc = 16).
        static_assert(epw == 1, "the pipelined staging is for int32");
        constexpr unsigned KC = 16, BUF = KC * (AP + 4 * BPV);  // words per buffer
        V pa[F], pb[F];
        const auto fetch = [&](std::uint32_t k0) {
            for (unsigned it = 0; it < F; ++it) {
                const unsigned e = tid + threads * it, i = ((e >> 6) << 4) + e % 16, g = e >> 4 & 3;
                pa[it] = m.load_if(interior || row_live(row_base + i), (row_base + i) * pitch + (J.a_col0 + k0) / 4 + g,
                                   inf_v);
                const unsigned rest = e >> L.gv_log2, k = rest & (KC - 1),
                               vc = (rest >> 4 << L.gv_log2) + (e & (gv - 1));
                pb[it] = m.load_if(interior || col_live(col_base + vc * 4),
                                   (J.b_row0 + k0 + k) * pitch + col_base / 4 + vc, inf_v);
            }
        };
        const auto put = [&](unsigned buf) {
            for (unsigned it = 0; it < F; ++it) {
                const unsigned e = tid + threads * it, i = ((e >> 6) << 4) + e % 16, g = e >> 4 & 3;
                for (unsigned w = 0; w < 4; ++w) sw.store(buf * BUF + (4 * g + w) * AP + i, pa[it].w[w]);
                const unsigned rest = e >> L.gv_log2, k = rest & (KC - 1),
                               vc = (rest >> 4 << L.gv_log2) + (e & (gv - 1));
                sv.store((buf * BUF + KC * AP) / 4 + k * BPV + vc, pb[it]);
            }
        };
        fetch(0);
        put(0);
        if (!CFirst)
            for (unsigned f = 0; f < F; ++f)
                for (unsigned r = 0; r < 4; ++r)
                    for (unsigned g = 0; g < F; ++g)
                        c[4 * f + r][g] = m.load_if(on >> (F * f + g) & 1, c0 + (64 * f + r) * pitch + 16 * g, inf_v);
        kl::sync_threads();
        const std::uint32_t chunks = J.inner / KC;
        for (std::uint32_t ch = 0; ch < chunks; ++ch) {
            const unsigned buf = ch & 1, sa = buf * BUF / 4, sb = (buf * BUF + KC * AP) / 4;
            const bool more = ch + 1 < chunks;
            if (more) fetch((ch + 1) * KC);
            unrolled<KC>([&](auto k) { relax_k<Relax, F>(c, sv, sa + k * APV + ty, sb + k * BPV + tx); });
            if (more) {
                put(buf ^ 1);
                kl::sync_threads();
            }
        }
    } else
        for (std::uint32_t k0 = 0; k0 < J.inner; k0 += kc) {
            if (k0 != 0) kl::sync_threads();
            if (interior) {
                const std::uint32_t ga = (row_base + ai) * pitch + (J.a_col0 + k0) / epv + ag;
                const unsigned sa = ag * epv * AP + ai;
                staged(
                    a_its, [&](unsigned it) { return m.load(ga + it * a_step * pitch); },
                    [&](unsigned it, const V& v) {
                        for (unsigned w = 0; w < 4; ++w)
                            for (unsigned h = 0; h < epw; ++h)
                                sw.store(sa + it * a_step + (w * epw + h) * AP, Relax::spread(v.w[w], h));
                    });
                const std::uint32_t gb = (J.b_row0 + k0) * pitch + col_base / epv;
                const auto b_at = [&](unsigned it) {
                    const unsigned rest = (tid >> L.gv_log2) + it * b_step;
                    return std::pair<unsigned, unsigned>{rest & (kc - 1),
                                                         (rest >> L.kc_log2 << L.gv_log2) + (tid & (gv - 1))};
                };
                staged(
                    b_its,
                    [&](unsigned it) {
                        const auto [k, vc] = b_at(it);
                        return m.load(gb + k * pitch + vc);
                    },
                    [&](unsigned it, const V& v) {
                        const auto [k, vc] = b_at(it);
                        sv.store(b0 + k * BPV + vc, v);
                    });
            } else {
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
            }
            // Or C after the first staging: the staging loops then run without C's
            // 16F² registers. (Measured on the H100: accumulating A ⊗ B from inf
            // and meeting C at the end, with C prefetched to the L2, was 11-14%
            // slower.)
            if (!CFirst && k0 == 0)
                for (unsigned f = 0; f < F; ++f)
                    for (unsigned r = 0; r < 4; ++r)
                        for (unsigned g = 0; g < F; ++g)
                            c[4 * f + r][g] =
                                m.load_if(on >> (F * f + g) & 1, c0 + (64 * f + r) * pitch + 16 * g, inf_v);
            kl::sync_threads();
            for (unsigned k16 = 0; k16 < kc; k16 += P::unroll)
                unrolled<P::unroll>([&](auto u) {
                    const unsigned k = k16 + u;
                    relax_k<Relax, F>(c, sv, k * APV + ty, b0 + k * BPV + tx);
                });
        }
    // (Only where a lookahead launch may run, F = 2: the closure's code in the
    // F = 1 kernels made ptxas spill there, under their 64-register bound.)
    if constexpr (epw == 1 && F == 2)
        if (closes) close_region<Relax, F>(c, sv, tid);
    // The store addresses again, from c0 hidden from nvcc: 16 addresses kept
    // from the loads would cost 16 registers through the loop.
    const std::uint32_t c1 = kl::opaque(c0), pitch1 = kl::opaque(pitch);
    for (unsigned f = 0; f < F; ++f)
        for (unsigned r = 0; r < 4; ++r)
            for (unsigned g = 0; g < F; ++g)
                m.store_if(on >> (F * f + g) & 1, c1 + (64 * f + r) * pitch1 + 16 * g, c[4 * f + r][g]);
    if (publishes) publish();
}

}  // namespace agpu::kernels::apsp
