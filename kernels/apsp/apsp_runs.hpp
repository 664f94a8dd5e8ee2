// The apsp family's specs and runs: inputs from a seed, the launches, and the
// CPU reference check. Templates on the executor, so the simulator
// (apsp.sim.cpp) and the GPU (apsp.gpu.cu) run exactly the same thing.
//
// Every run builds the padded distance matrix on the host (apsp_graph.hpp),
// uploads it, runs the variant's launches in place, downloads it and compares
// the n x n part with the reference: the CPU Floyd-Warshall with the kernels'
// rule, bit for bit, up to n = full_check_max_n; beyond (an n³ CPU run would
// take minutes), the true distances of check_rows rows by Dijkstra, a value
// above inf / 2 standing for "no path".
#pragma once

#include <algorithm>
#include <deque>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "apsp/apsp_graph.hpp"
#include "apsp/minplus_regions.cuh"
#include "apsp/minplus_strips.cuh"
#include "apsp/naive.cuh"
#include "apsp/tile_fw.cuh"
#include "common/sampling.hpp"

namespace agpu::kernels::apsp {

using model::algo_spec;
using model::check_result;
using model::param_values;

inline constexpr std::uint64_t max_vertices = 32768;
inline constexpr std::uint32_t full_check_max_n = 2048;
inline constexpr std::uint32_t check_rows = 16;

inline std::uint32_t round_up(std::uint64_t n, std::uint32_t unit) {
    return static_cast<std::uint32_t>((n + unit - 1) / unit * unit);
}

// ---------------------------------------------------------------- specs

inline model::param_spec graph_param() {
    return {"graph",
            "input: sparse (4n random edges, weights 1..100), dense (every pair, 1..100), negative (sparse reweighted "
            "by random potentials: negative edges, no negative cycle)",
            "sparse",
            {"sparse", "dense", "negative"},
            0,
            0};
}

inline model::param_spec tile_param(const char* dflt, std::vector<std::string> sides = {"16", "32", "64"}) {
    return {"t", "tile side t: the matrix is padded with inf to a multiple of t", dflt, std::move(sides), 0, 0};
}

inline algo_spec naive_spec() {
    return {"apsp/naive",
            "Floyd-Warshall with one kernel per k (n launches), a thread per matrix element",
            "vertices",
            256,
            1,
            max_vertices,
            {graph_param()}};
}

inline algo_spec blocked_spec() {
    return {
        "apsp/blocked",
        "blocked Floyd-Warshall: per pivot the pivot tile, its row and column, every other tile (3n/t launches)",
        "vertices",
        512,
        1,
        max_vertices,
        {tile_param("32"),
         {"method",
          "A: register-blocked min-plus product (256-thread blocks of 128 x 128 outputs, 8 x 8 per thread, where the "
          "product spans 128 x 128; 64 x 64, 4 x 4 per thread, otherwise); "
          "B: two-level blocking (one t x t tile per block of t*t2 threads, strips of t2)",
          "A",
          {"A", "B"},
          0,
          0},
         {"t2", "method B: strip depth t2 (t*t2 threads per block)", "8", {"2", "4", "8", "16"}, 0, 0},
         graph_param()}};
}

inline algo_spec recursive_spec() {
    return {
        "apsp/recursive",
        "recursive blocked Floyd-Warshall (Kleene): recursion on the diagonal quadrants, min-plus products "
        "between them, plain Floyd-Warshall below tr (5n/tr - 4 launches)",
        "vertices",
        512,
        1,
        max_vertices,
        {{"tr", "base-case side tr: the matrix is padded with inf to a multiple of tr", "32", {"16", "32", "64"}, 0, 0},
         graph_param()}};
}

inline algo_spec dpx_spec() {
    return {"apsp/dpx",
            "blocked Floyd-Warshall, method A written with sm_90 DPX add-min; width=16 packs two 16-bit distances "
            "per register (two updates per instruction)",
            "vertices",
            512,
            1,
            max_vertices,
            {tile_param("64", {"16", "32", "64", "128"}),
             {"width",
              "distance bits: 32, or 16 (inf = 2^14 - 1; finite distances must stay below 2^13)",
              "32",
              {"32", "16"},
              0,
              0},
             {"lookahead",
              "1: where step K's other tiles fill at least two waves of 128 x 128 regions (2 blocks per SM; n >= "
              "~3000 on the H100), their launch also closes pivot tile K+1 and updates its row and column "
              "(width=32, t=128: n/t + 2 launches); 2: always (width=32, t=128); 0: three launches per pivot",
              "1",
              {"0", "1", "2"},
              0,
              0},
             graph_param()}};
}

// ---------------------------------------------------------------- checks

struct reference {
    graph_kind kind{};
    std::uint32_t n = 0;
    std::uint64_t seed = 0;
    std::int32_t inf = 0;
    bool full = false;
    std::vector<std::int32_t> d;                  // full: the n x n matrix by the kernels' rule
    std::vector<std::uint32_t> rows;              // otherwise: the rows checked
    std::vector<std::vector<std::int64_t>> dist;  // and their true distances
};

// Rows checked beyond full_check_max_n: spread over the matrix, first and last included.
inline std::vector<std::uint32_t> sample_rows(std::uint32_t n) {
    std::vector<std::uint32_t> rows;
    for (std::uint32_t r = 0; r < check_rows; ++r)
        rows.push_back(std::uint32_t(std::uint64_t(n - 1) * r / (check_rows - 1)));
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

// The last references, kept: the repetitions of a timed GPU run ask again,
// and a suite measures every variant at one size (both widths' infinities)
// before it moves on. At most 16, the oldest dropped (16 MB each at n = 2048).
inline const reference& cached_reference(const graph& g, std::int32_t inf) {
    static thread_local std::deque<reference> kept;
    for (const auto& r : kept)
        if (r.n == g.n && r.kind == g.kind && r.seed == g.seed && r.inf == inf) return r;
    reference r;
    r.kind = g.kind;
    r.n = g.n;
    r.seed = g.seed;
    r.inf = inf;
    r.full = g.n <= full_check_max_n;
    if (r.full) {
        r.d = fw_reference(g, inf);
    } else {
        r.rows = sample_rows(g.n);
        for (auto s : r.rows) r.dist.push_back(true_row(g, s));
    }
    if (kept.size() == 16) kept.pop_front();
    kept.push_back(std::move(r));
    return kept.back();
}

// Compares the n x n part of the np x np result with the reference.
inline check_result check_distances(const graph& g, const std::vector<std::int32_t>& got, std::uint32_t np,
                                    std::int32_t inf) {
    const reference& ref = cached_reference(g, inf);
    const std::uint32_t n = g.n;
    const auto at = [&](std::uint32_t i, std::uint32_t j) { return got[std::size_t(i) * np + j]; };
    const auto mismatch = [](std::uint32_t i, std::uint32_t j, std::int64_t v, const std::string& want) {
        std::ostringstream os;
        os << "d[" << i << "][" << j << "] = " << v << ", expected " << want;
        return check_result{false, os.str()};
    };
    if (ref.full) {
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j)
                if (at(i, j) != ref.d[std::size_t(i) * n + j])
                    return mismatch(
                        i, j, at(i, j),
                        std::to_string(ref.d[std::size_t(i) * n + j]) + " (CPU Floyd-Warshall, same inf rule)");
        return {true, std::to_string(std::uint64_t(n) * n) +
                          " distances equal the CPU Floyd-Warshall's (int32, missing edges weigh inf)"};
    }
    for (std::size_t r = 0; r < ref.rows.size(); ++r) {
        const std::uint32_t i = ref.rows[r];
        for (std::uint32_t j = 0; j < n; ++j) {
            const std::int64_t want = ref.dist[r][j];
            const std::int64_t v = at(i, j);
            if (want == no_path ? v <= inf / 2 : v != want)
                return mismatch(i, j, v, want == no_path ? "no path (a value above inf/2)" : std::to_string(want));
        }
    }
    return {true, std::to_string(ref.rows.size()) + " rows of " + std::to_string(n) +
                      " distances equal Dijkstra's (n > " + std::to_string(full_check_max_n) +
                      ": rows sampled; above inf/2 means no path)"};
}

// ---------------------------------------------------------------- launches

template <class Exec, class T>
std::vector<std::int32_t> fetch_widened(Exec& ex, kl::gspan<T> d, std::size_t count) {
    std::vector<T> h(count);
    ex.download(std::span<T>(h), d);
    return std::vector<std::int32_t>(h.begin(), h.end());
}

template <class T, class Exec>
kl::gspan<T> upload_matrix(Exec& ex, const graph& g, std::uint32_t np, T inf) {
    const auto h = distance_matrix<T>(g, np, inf);
    auto d = ex.template alloc<T>(h.size());
    ex.upload(d, std::span<const T>(h));
    return d;
}

// Floyd-Warshall on the t x t diagonal tile at (origin, origin).
template <class T, class Exec>
void launch_tile_fw(Exec& ex, const char* name, kl::gspan<T> d, std::uint32_t np, std::uint32_t origin, unsigned t) {
    const auto go = [&]<unsigned Tile>(std::integral_constant<unsigned, Tile>) {
        ex.launch(name, tile_fw<T, Tile>, {1}, {tile_fw_policy::threads(Tile)}, tile_fw_policy::shared_bytes(Tile), d,
                  std::uint64_t(np), origin);
    };
    switch (t) {
        case 16: go(std::integral_constant<unsigned, 16>{}); break;
        case 32: go(std::integral_constant<unsigned, 32>{}); break;
        case 64: go(std::integral_constant<unsigned, 64>{}); break;
        case 128: go(std::integral_constant<unsigned, 128>{}); break;
        default: throw input_error("option --set t", "must be 16, 32, 64 or 128");
    }
}

// The shape of one minplus_regions launch: F (regions of 64F rows x 64F
// words) and the inner chunk kc, the largest of 64, 32, 16 that divides `unit`
// (every inner length is a multiple of it) and whose staged parts fit in the
// machine's M words. F = 2 where every job spans at least 128 rows and 128
// words of columns and its chunk fits; F = 1 otherwise.
struct region_shape {
    unsigned F = 1, kc = 16;
};

template <unsigned F>
inline unsigned region_chunk(unsigned unit, std::uint64_t M) {
    for (unsigned kc = region_policy<F>::max_kc; kc >= 16; kc /= 2)
        if (unit % kc == 0 && region_policy<F>::shared_bytes(kc) <= M * 4) return kc;
    return 0;
}

inline region_shape pick_region_shape(unsigned unit, std::uint64_t M, bool wide) {
    if (const unsigned kc = wide ? region_chunk<2>(unit, M) : 0) return {2, kc};
    if (const unsigned kc = region_chunk<1>(unit, M)) return {1, kc};
    throw input_error("device", "M = " + std::to_string(M) +
                                    " words is below the 2048 that the min-plus product's smallest chunk stages");
}

// log2 of x, a power of two (an internal error otherwise).
inline std::uint32_t log2_exact(std::uint32_t x, const char* what) {
    AGPU_CHECK(x != 0 && (x & (x - 1)) == 0, std::string(what) + " must be a power of two");
    std::uint32_t l = 0;
    while ((1u << l) < x) ++l;
    return l;
}

// A job of minplus_regions (regions_x and blocks are set at launch).
inline region_job make_job(std::uint32_t row0, std::uint32_t rows, std::uint32_t col0, std::uint32_t cols,
                           std::uint32_t a_col0, std::uint32_t b_row0, std::uint32_t inner) {
    region_job j{};
    j.row0 = row0;
    j.rows = rows;
    j.col0 = col0;
    j.cols = cols;
    j.a_col0 = a_col0;
    j.b_row0 = b_row0;
    j.inner = inner;
    return j;
}

// The shape launch_regions gives L: F = 2 only where its 128 x 128 regions
// number at least 2·p (p the machine's lanes: 8448 on the H100, so F = 1 for
// every product up to n ~ 11700). The threshold is 2·p rather than 2·k
// because that is what measures faster: with 2·k at n = 8192, t = 128
// (other_tiles at F = 2, 2 blocks of 8 warps per SM) the run took 50.66 ms
// against 49.73 at F = 1 (4 blocks per SM, H100), and the pivot row and
// column at F = 1 take 2.02 ms against 2.24. A lookahead launch is F = 2
// regardless (ahead_shape).
template <class Relax>
region_shape launch_shape(const model::machine& mach, const region_launch& L, unsigned unit) {
    constexpr unsigned epw = Relax::per_word;
    bool wide = true;
    std::uint64_t regions2 = 0;
    for (std::uint32_t i = 0; i < L.jobs; ++i) {
        wide &= L.job[i].rows >= 128 && L.job[i].cols / epw >= 128;
        regions2 += std::uint64_t(L.job[i].rows / 128) * (L.job[i].cols / epw / 128);
    }
    wide &= regions2 >= std::uint64_t(region_policy<2>::min_blocks) * mach.p;
    return pick_region_shape(unit, mach.M, wide);
}

// Whether apsp/dpx lookahead=1 uses the lookahead launch: where the other
// tiles' regions (one per tile, 2 blocks per SM) fill at least two waves of
// the k SMs. With fewer, the last blocks (the next pivot row and column)
// start while T(a, a) is still being closed and wait for it: on the H100,
// t = 128, lookahead against none: n = 256 1.26x the time, 512 1.36x, 1024
// 1.30x, 2048 (0.85 waves) 1.17x, 4096 (3.6 waves) 0.77x, 8192 0.87x.
inline bool lookahead_pays(std::uint32_t tiles, std::uint64_t k) {
    return std::uint64_t(tiles - 1) * (tiles - 1) >= 2 * region_policy<2>::min_blocks * k;
}

// The shape of a lookahead launch: regions of one t x t tile, t = 128 (F =
// 2), where its chunk fits in M words; F = 0 otherwise (no lookahead).
inline region_shape ahead_shape(unsigned t, std::uint64_t M) {
    const unsigned kc = t == 128 ? region_chunk<2>(t, M) : 0;
    return {kc == 0 ? 0u : 2u, kc};
}

// Launches L's jobs with regions of 64F rows x 64F words (launch_shape);
// `unit` divides every inner length. sync: a lookahead launch's flags (its
// regions are one tile: ahead_shape).
template <class Relax, class Exec>
void launch_regions(Exec& ex, const char* name, kl::gspan<word4<typename Relax::word>> m, std::uint32_t np,
                    region_launch L, unsigned unit, kl::gspan<std::uint32_t> sync = {}) {
    constexpr unsigned epw = Relax::per_word, epv = 4 * epw;
    const region_shape shape =
        L.ahead.on ? ahead_shape(unit, ex.machine().M) : launch_shape<Relax>(ex.machine(), L, unit);
    L.kc = shape.kc;
    L.kc_log2 = log2_exact(L.kc, "the inner chunk kc");
    L.gv_log2 = log2_exact(L.gv, "the column run gv");
    // C before the first staging where that measured faster on the H100 (n =
    // 8192): int32 with two or more chunks (t = 128: other_tiles 48.1 -> 45.7
    // ms); with one chunk (t <= 64) it was 25% slower, and the packed 16-bit
    // variant at t = 128 3% slower. (Issuing several staging loads before
    // their stores, or chunks of 32, made no difference.)
    bool c_first = Relax::per_word == 1;
    for (std::uint32_t i = 0; i < L.jobs; ++i) c_first &= L.job[i].inner > L.kc;
    // Double-buffered staging in chunks of 16 (int32, two or more chunks,
    // where the two buffers fit in M).
    bool pipe = Relax::per_word == 1;
    for (std::uint32_t i = 0; i < L.jobs; ++i) pipe &= L.job[i].inner >= 32;
    const std::size_t two16 =
        2 * (shape.F == 2 ? region_policy<2>::shared_bytes(16) : region_policy<1>::shared_bytes(16));
    pipe &= two16 + (L.ahead.on ? 16 : 0) <= ex.machine().M * 4;
    if (pipe) {
        L.kc = 16;
        L.kc_log2 = 4;
    }
    const auto go = [&]<unsigned F>(std::integral_constant<unsigned, F>) {
        using P = region_policy<F>;
        unsigned blocks = 0;
        for (std::uint32_t i = 0; i < L.jobs; ++i) {
            region_job& j = L.job[i];
            j.regions_x = (j.cols + P::vectors * epv - 1) / (P::vectors * epv);
            j.blocks = j.regions_x * ((j.rows + P::rows - 1) / P::rows);
            blocks += j.blocks;
        }
        const std::uint32_t pitch = np / epv;
        // A lookahead launch: one word more, for the block's claimed place.
        const std::size_t smem = (pipe ? 2 * P::shared_bytes(16) : P::shared_bytes(L.kc)) + (L.ahead.on ? 16 : 0);
        if constexpr (Relax::per_word == 1)
            if (pipe)
                return ex.launch(name, minplus_regions<Relax, F, true, true>, {blocks}, {P::threads}, smem, m, pitch, L,
                                 sync);
        if (c_first)
            ex.launch(name, minplus_regions<Relax, F, true, false>, {blocks}, {P::threads}, smem, m, pitch, L, sync);
        else ex.launch(name, minplus_regions<Relax, F, false, false>, {blocks}, {P::threads}, smem, m, pitch, L, sync);
    };
    if (shape.F == 2) go(std::integral_constant<unsigned, 2>{});
    else go(std::integral_constant<unsigned, 1>{});
}

// Blocked Floyd-Warshall with the register-blocked product (method A, dpx):
// per pivot K, tile_fw on T(K, K); one launch for the pivot row (a region
// job whose only output rows are the band) and column; one for the rest.
// With lookahead (apsp/dpx lookahead=2, or 1 where lookahead_pays; int32,
// t = 128: its regions are one tile each, F = 2), the launch of step K's other tiles also closes
// T(K+1, K+1) and updates row and column K + 1 by it (region_ahead): n/t + 2
// launches instead of 3n/t, and the next step's pivot work runs while the SMs
// update the other tiles rather than alone on one SM and then one wave.
template <class Relax, class T, class Exec>
void blocked_regions(Exec& ex, kl::gspan<T> d, std::uint32_t np, unsigned t, std::int64_t lookahead = 0) {
    using V = word4<typename Relax::word>;
    constexpr unsigned epv = 4 * Relax::per_word;
    const kl::gspan<V> m(reinterpret_cast<V*>(d.data()), std::size_t(np) * np / epv);
    const unsigned gv = std::min(16u, t / epv);
    const std::uint32_t tiles = np / t;
    const auto row_column = [&](std::uint32_t K, region_launch& L, std::uint32_t first) {
        const std::uint32_t band = K * t;
        L.job[first] = make_job(band, t, 0, np, band, band, t);  // pivot row: A is the pivot tile
        L.job[first].skip_col0 = band;
        L.job[first].skip_cols = t;
        L.job[first + 1] = make_job(0, np, band, t, band, band, t);  // pivot column: B is the pivot tile
        L.job[first + 1].skip_row0 = band;
        L.job[first + 1].skip_rows = t;
    };
    kl::gspan<std::uint32_t> sync;
    bool pivot_done = false;  // T(K, K) and its row and column done by the lookahead launch before
    for (std::uint32_t K = 0; K < tiles; ++K) {
        const std::uint32_t band = K * t;
        if (!pivot_done) {
            launch_tile_fw(ex, "pivot_tile", d, np, band, t);
            if (tiles == 1) break;
            region_launch rc;
            rc.jobs = 2;
            rc.gv = gv;
            row_column(K, rc, 0);
            launch_regions<Relax>(ex, "pivot_row_column", m, np, rc, t);
        }
        region_launch rest;
        rest.gv = gv;
        rest.job[0] = make_job(0, np, 0, np, band, band, t);
        rest.job[0].skip_row0 = rest.job[0].skip_col0 = band;
        rest.job[0].skip_rows = rest.job[0].skip_cols = t;
        pivot_done = false;
        if ((lookahead == 2 || (lookahead == 1 && lookahead_pays(tiles, ex.machine().k()))) && Relax::per_word == 1 &&
            K + 1 < tiles) {
            region_launch ahead = rest;
            ahead.jobs = 3;
            row_column(K + 1, ahead, 1);
            if (ahead_shape(t, ex.machine().M).F != 0) {
                if (sync.size() == 0) {  // tiles² flags and a counter per launch, from 0
                    sync = ex.template alloc<std::uint32_t>(std::size_t(tiles) * tiles + tiles);
                    const std::vector<std::uint32_t> zeros(sync.size(), 0);
                    ex.upload(sync, std::span<const std::uint32_t>(zeros));
                }
                ahead.ahead = {1, K + 1, tiles, K + 1};
                launch_regions<Relax>(ex, "other_tiles_ahead", m, np, ahead, t, sync);
                pivot_done = true;
                continue;
            }
        }
        launch_regions<Relax>(ex, "other_tiles", m, np, rest, t);
    }
}

template <unsigned Tile, class Exec, class... A>
void launch_strips_t(Exec& ex, const char* name, unsigned t2, unsigned blocks, A... args) {
    const std::size_t smem = std::size_t(2) * Tile * t2 * 4;
    const unsigned threads = Tile * t2;
    switch (t2) {
        case 2: ex.launch(name, minplus_strips<Tile, 2>, {blocks}, {threads}, smem, args...); break;
        case 4: ex.launch(name, minplus_strips<Tile, 4>, {blocks}, {threads}, smem, args...); break;
        case 8: ex.launch(name, minplus_strips<Tile, 8>, {blocks}, {threads}, smem, args...); break;
        case 16: ex.launch(name, minplus_strips<Tile, 16>, {blocks}, {threads}, smem, args...); break;
        default: throw input_error("option --set t2", "must be 2, 4, 8 or 16");
    }
}

template <class Exec>
void launch_strips(Exec& ex, const char* name, unsigned t, unsigned t2, unsigned blocks, kl::gspan<std::int32_t> d,
                   std::uint32_t np, std::uint32_t K, std::uint32_t phase) {
    switch (t) {
        case 16: launch_strips_t<16>(ex, name, t2, blocks, d, np, K, phase); break;
        case 32: launch_strips_t<32>(ex, name, t2, blocks, d, np, K, phase); break;
        case 64: launch_strips_t<64>(ex, name, t2, blocks, d, np, K, phase); break;
        default: throw input_error("option --set t", "must be 16, 32 or 64");
    }
}

// Blocked Floyd-Warshall, method B: per pivot, tile_fw, then minplus_strips
// on the 2(n/t - 1) pivot row and column tiles, then on the (n/t - 1)² others.
template <class Exec>
void blocked_strips(Exec& ex, kl::gspan<std::int32_t> d, std::uint32_t np, unsigned t, unsigned t2) {
    const std::uint32_t tiles = np / t;
    for (std::uint32_t K = 0; K < tiles; ++K) {
        launch_tile_fw(ex, "pivot_tile", d, np, K * t, t);
        if (tiles == 1) break;
        launch_strips(ex, "pivot_row_column", t, t2, 2 * (tiles - 1), d, np, K, 2u);
        launch_strips(ex, "other_tiles", t, t2, (tiles - 1) * (tiles - 1), d, np, K, 3u);
    }
}

// Kleene's recursion on the m x m blocks of side tr from (o, o):
//   FW(A11); A12 = A11 A12 and A21 = A21 A11 (one launch); A22 = min(A22, A21 A12);
//   FW(A22); A12 = A12 A22 and A21 = A22 A21 (one launch); A11 = min(A11, A12 A21).
// 5m - 4 launches. A product whose output is also an operand (A12 = A11 A12)
// runs in place: a block may read words of the operand that another block has
// already updated, and that changes nothing, because A11 is closed
// (A11 A11 = A11): every value read lies between the old and the new one,
// and both give the same product.
template <class Exec>
void recursive_fw(Exec& ex, kl::gspan<std::int32_t> d, kl::gspan<word4<std::int32_t>> m, std::uint32_t np, unsigned tr,
                  std::uint32_t o, std::uint32_t blocks) {
    if (blocks == 1) {
        launch_tile_fw(ex, "base_fw", d, np, o, tr);
        return;
    }
    const std::uint32_t b1 = (blocks + 1) / 2, n1 = b1 * tr, n2 = (blocks - b1) * tr;
    region_launch L;
    L.gv = std::min(16u, tr / 4);
    recursive_fw(ex, d, m, np, tr, o, b1);
    L.jobs = 2;
    L.job[0] = make_job(o, n1, o + n1, n2, o, o, n1);  // A12 = A11 A12
    L.job[1] = make_job(o + n1, n2, o, n1, o, o, n1);  // A21 = A21 A11
    launch_regions<relax_plain>(ex, "panels_by_a11", m, np, L, tr);
    L.jobs = 1;
    L.job[0] = make_job(o + n1, n2, o + n1, n2, o, o, n1);  // A22 = min(A22, A21 A12)
    launch_regions<relax_plain>(ex, "a22_update", m, np, L, tr);
    recursive_fw(ex, d, m, np, tr, o + n1, blocks - b1);
    L.jobs = 2;
    L.job[0] = make_job(o, n1, o + n1, n2, o + n1, o + n1, n2);  // A12 = A12 A22
    L.job[1] = make_job(o + n1, n2, o, n1, o + n1, o + n1, n2);  // A21 = A22 A21
    launch_regions<relax_plain>(ex, "panels_by_a22", m, np, L, tr);
    L.jobs = 1;
    L.job[0] = make_job(o, n1, o, n1, o + n1, o + n1, n2);  // A11 = min(A11, A12 A21)
    launch_regions<relax_plain>(ex, "a11_update", m, np, L, tr);
}

// ---------------------------------------------------------------- runs

template <class Exec>
check_result run_naive(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const graph& g = cached_graph(parse_graph_kind(p.text("graph")), std::uint32_t(n), seed);
    const std::uint32_t nn = g.n;
    auto d = upload_matrix<std::int32_t>(ex, g, nn, inf32);
    const unsigned bx = naive_policy::bx, by = naive_policy::by;
    const data_independent_launches<Exec> declared(ex);  // addresses from i, j, k only; min, no branch on distances
    for (std::uint32_t k = 0; k < nn; ++k)
        ex.launch("naive_step", naive_step, {(nn + bx - 1) / bx, (nn + by - 1) / by}, {bx, by}, 0, d, nn, k);
    return check_distances(g, fetch_widened(ex, d, std::size_t(nn) * nn), nn, inf32);
}

template <class Exec>
check_result run_blocked(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const unsigned t = unsigned(p.integer("t")), t2 = unsigned(p.integer("t2"));
    const bool method_a = p.text("method") == "A";
    if (!method_a && std::uint64_t(t) * t2 > ex.device().hw.max_threads_per_block)
        throw input_error("option --set t2",
                          "method B runs t*t2 = " + std::to_string(t * t2) + " threads per block, more than the " +
                              std::to_string(ex.device().hw.max_threads_per_block) + " of device " + ex.device().id);
    const graph& g = cached_graph(parse_graph_kind(p.text("graph")), std::uint32_t(n), seed);
    const std::uint32_t np = round_up(n, t);
    auto d = upload_matrix<std::int32_t>(ex, g, np, inf32);
    if (method_a) blocked_regions<relax_plain>(ex, d, np, t);
    else blocked_strips(ex, d, np, t, t2);
    return check_distances(g, fetch_widened(ex, d, std::size_t(np) * np), np, inf32);
}

template <class Exec>
check_result run_recursive(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const unsigned tr = unsigned(p.integer("tr"));
    const graph& g = cached_graph(parse_graph_kind(p.text("graph")), std::uint32_t(n), seed);
    const std::uint32_t np = round_up(n, tr);
    auto d = upload_matrix<std::int32_t>(ex, g, np, inf32);
    using V = word4<std::int32_t>;
    const kl::gspan<V> m(reinterpret_cast<V*>(d.data()), std::size_t(np) * np / 4);
    recursive_fw(ex, d, m, np, tr, 0, np / tr);
    return check_distances(g, fetch_widened(ex, d, std::size_t(np) * np), np, inf32);
}

template <class Exec>
check_result run_dpx(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const unsigned t = unsigned(p.integer("t"));
    if (tile_fw_policy::threads(t) > ex.device().hw.max_threads_per_block)
        throw input_error("option --set t",
                          "t = " + std::to_string(t) + " runs the pivot tile on " +
                              std::to_string(tile_fw_policy::threads(t)) + " threads per block, more than the " +
                              std::to_string(ex.device().hw.max_threads_per_block) + " of device " + ex.device().id);
    const graph& g = cached_graph(parse_graph_kind(p.text("graph")), std::uint32_t(n), seed);
    const std::uint32_t np = round_up(n, t);
    if (p.integer("width") == 32) {
        auto d = upload_matrix<std::int32_t>(ex, g, np, inf32);
        blocked_regions<relax_dpx32>(ex, d, np, t, p.integer("lookahead"));
        return check_distances(g, fetch_widened(ex, d, std::size_t(np) * np), np, inf32);
    }
    auto d = upload_matrix<std::int16_t>(ex, g, np, inf16);
    blocked_regions<relax_dpx16x2>(ex, d, np, t);
    return check_distances(g, fetch_widened(ex, d, std::size_t(np) * np), np, inf16);
}

}  // namespace agpu::kernels::apsp
