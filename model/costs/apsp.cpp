// Closed-form AGPU costs of the apsp family (kernels/apsp/): naive, blocked
// (method A and B), recursive and dpx Floyd-Warshall.
//
// Each variant is a fixed sequence of launches of four kernels, whose access
// patterns do not depend on the data; the costs below walk that sequence
// launch by launch and add up, per warp, what every warp-instruction costs
// (requests, 32-byte sectors, b-word blocks, shared wavefronts = the most
// distinct words asked of one bank, barriers, compute notes) and, per block,
// its steps, then place the blocks on the k MPs as the simulator does (in
// order, each on the least-loaded MP). The policy constants are the kernels'
// (kernels/apsp/*.cuh): tile_fw 256 threads (1024 at t = 128), naive 64 x 4,
// regions of 64F rows x 64F words of 256 threads (16 x 16, 4F x 4F words
// each, warps of 4 x 8 threads; shared rows of 64F + 4 and 64F + 8 words; a
// 16-byte shared access served per half-warp), strips t*t2 threads.
//
// Launches: naive n; blocked and dpx 3·n_p/t (1 when n_p = t); dpx with
// lookahead (int32, t = 128; lookahead=1 where (n_p/t - 1)² >= 4k, 2
// always) n_p/t + 2; recursive 5·n_p/t_r - 4; n_p is n
// padded to the tile (t, t_r). Products of int32 with two or more chunks of
// 16 stage double-buffered (one barrier per chunk, two buffers of shared
// memory) where both buffers fit in M. The source paper's
// counts for the blocked algorithm with t x t tiles held on chip and element
// size d: N_b = d·(4n³/t - 2n²) bytes, N_c = 2n(n² - 2t + 1) operations.
//
// Exact where the model is: n a multiple of the tile, rows a whole number of
// b-word blocks (n·d a multiple of 4b bytes), which holds for n a power of
// two >= 64. Otherwise the counts remain the kernels' access patterns with
// one assumption, that every matrix row starts on a b-word block (it starts
// on a sector always): global_*_blocks and io_blocks may then differ slightly;
// every other counter is still exact (kernels/apsp/README.md).
#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "agpu/model/analysis.hpp"
#include "agpu/model/closed_form.hpp"
#include "apsp_costs.hpp"

namespace agpu::model {
namespace {

using namespace apsp_costs;

// The kernels' choice (apsp_runs.hpp, launch_regions and pick_region_shape):
// F = 2 where every job spans 128 rows and 128 words, its 128 x 128 regions
// number at least 2·p (the machine's lanes, as the kernels' launch_shape
// says why), and a chunk fits; the chunk kc the largest of
// 64, 32, 16 that divides `unit` and fits in M words.
// The largest of 64, 32, 16 that divides `unit` and whose chunk of regions F
// fits in M (0: none; the kernels' region_chunk).
std::uint64_t chunk(std::uint64_t F, std::uint64_t unit, const machine& m) {
    for (std::uint64_t kc = 64; kc >= 16; kc /= 2)
        if (unit % kc == 0 && region_geometry(F).shared_words(kc) <= m.M) return kc;
    return 0;
}

std::pair<std::uint64_t, std::uint64_t> region_shape(const std::vector<job>& jobs, std::uint64_t unit,
                                                     std::uint64_t epw, const machine& m) {
    bool wide = true;
    std::uint64_t regions2 = 0;
    for (const job& j : jobs) {
        wide &= j.rows >= 128 && j.cols / epw >= 128;
        regions2 += j.rows / 128 * (j.cols / epw / 128);
    }
    wide &= regions2 >= 2 * m.p;
    for (std::uint64_t F = wide ? 2 : 1; F >= 1; --F)
        if (const std::uint64_t kc = chunk(F, unit, m)) return {F, kc};
    return {1, 16};
}

// A launch of minplus_regions as launch_regions makes it: the shape (a
// lookahead launch: F = 2), then the double-buffered staging where the
// product is int32 with two or more chunks of 16 and both buffers fit.
void product(tally& t, const machine& m, const std::vector<job>& jobs, std::uint64_t unit, std::uint64_t gv,
             std::uint64_t epw, const ahead_info* ahead = nullptr) {
    auto [F, kc] =
        ahead ? std::pair<std::uint64_t, std::uint64_t>{2, chunk(2, unit, m)} : region_shape(jobs, unit, epw, m);
    bool pipe = epw == 1;
    for (const job& j : jobs) pipe &= j.inner >= 32;
    pipe &= 2 * region_geometry(F).shared_words(16) + (ahead ? 4 : 0) <= m.M;
    if (pipe) kc = 16;
    regions(t, m, jobs, F, kc, gv, epw, pipe, ahead);
}

job make_job(std::uint64_t row0, std::uint64_t rows, std::uint64_t col0, std::uint64_t cols, std::uint64_t a_col0,
             std::uint64_t b_row0, std::uint64_t inner) {
    job j;
    j.row0 = row0;
    j.rows = rows;
    j.col0 = col0;
    j.cols = cols;
    j.a_col0 = a_col0;
    j.b_row0 = b_row0;
    j.inner = inner;
    return j;
}

// Blocked Floyd-Warshall with regions (method A, dpx), as blocked_regions
// launches it; lookahead (apsp/dpx, int32, t = 128 where a chunk of F = 2
// fits): step K's other tiles, T(K+1, K+1)'s closure and row and column
// K + 1 in one launch.
partial_counts blocked_regions(const machine& m, std::uint64_t n, std::uint64_t tile, std::uint64_t epw,
                               std::int64_t lookahead = 0) {
    const std::uint64_t np = pad(n, tile), tiles = np / tile, es = 4 / epw;
    const std::uint64_t gv = std::min<std::uint64_t>(16, tile / (4 * epw));
    const auto row_column = [&](std::uint64_t K) {
        const std::uint64_t band = K * tile;
        job row = make_job(band, tile, 0, np, band, band, tile);
        row.skip_col0 = band;
        row.skip_cols = tile;
        job col = make_job(0, np, band, tile, band, band, tile);
        col.skip_row0 = band;
        col.skip_rows = tile;
        return std::vector<job>{row, col};
    };
    tally t;
    bool pivot_done = false;
    for (std::uint64_t K = 0; K < tiles; ++K) {
        const std::uint64_t band = K * tile;
        if (!pivot_done) {
            tile_fw(t, m, tile, es, band, np);
            if (tiles == 1) break;
            product(t, m, row_column(K), tile, gv, epw);
        }
        job rest = make_job(0, np, 0, np, band, band, tile);
        rest.skip_row0 = rest.skip_col0 = band;
        rest.skip_rows = rest.skip_cols = tile;
        // lookahead=1 where the other tiles fill two waves of 2 blocks per MP (kernels: lookahead_pays).
        const bool pays = (tiles - 1) * (tiles - 1) >= 4 * m.k();
        pivot_done = (lookahead == 2 || (lookahead == 1 && pays)) && epw == 1 && K + 1 < tiles && tile == 128 &&
                     chunk(2, tile, m) != 0;
        if (pivot_done) {
            std::vector<job> jobs{rest};
            for (const job& j : row_column(K + 1)) jobs.push_back(j);
            const ahead_info ahead{K + 1, tiles};
            product(t, m, jobs, tile, gv, epw, &ahead);
        } else {
            product(t, m, {rest}, tile, gv, epw);
        }
    }
    return t.c;
}

partial_counts blocked(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t tile = std::uint64_t(p.integer("t"));
    if (p.text("method") == "A") return blocked_regions(m, n, tile, 1);
    const std::uint64_t sub = std::uint64_t(p.integer("t2")), np = pad(n, tile), tiles = np / tile;
    tally t;
    for (std::uint64_t K = 0; K < tiles; ++K) {
        tile_fw(t, m, tile, 4, K * tile, np);
        if (tiles == 1) break;
        strips(t, m, tile, sub, 2 * (tiles - 1));
        strips(t, m, tile, sub, (tiles - 1) * (tiles - 1));
    }
    return t.c;
}

partial_counts dpx(const machine& m, std::uint64_t n, const param_values& p) {
    return blocked_regions(m, n, std::uint64_t(p.integer("t")), p.integer("width") == 16 ? 2 : 1,
                           p.integer("lookahead"));
}

void recursive_fw(tally& t, const machine& m, std::uint64_t tr, std::uint64_t np, std::uint64_t o,
                  std::uint64_t blocks) {
    if (blocks == 1) {
        tile_fw(t, m, tr, 4, o, np);
        return;
    }
    const std::uint64_t b1 = (blocks + 1) / 2, n1 = b1 * tr, n2 = (blocks - b1) * tr,
                        gv = std::min<std::uint64_t>(16, tr / 4);
    recursive_fw(t, m, tr, np, o, b1);
    product(t, m, {make_job(o, n1, o + n1, n2, o, o, n1), make_job(o + n1, n2, o, n1, o, o, n1)}, tr, gv, 1);
    product(t, m, {make_job(o + n1, n2, o + n1, n2, o, o, n1)}, tr, gv, 1);
    recursive_fw(t, m, tr, np, o + n1, blocks - b1);
    product(t, m, {make_job(o, n1, o + n1, n2, o + n1, o + n1, n2), make_job(o + n1, n2, o, n1, o + n1, o + n1, n2)},
            tr, gv, 1);
    product(t, m, {make_job(o, n1, o, n1, o + n1, o + n1, n2)}, tr, gv, 1);
}

partial_counts recursive(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t tr = std::uint64_t(p.integer("tr")), np = pad(n, tr);
    tally t;
    recursive_fw(t, m, tr, np, 0, np / tr);
    return t.c;
}

AGPU_REGISTER_CLOSED_FORM(
    {"apsp/naive",
     "n launches of one thread per element: 3 loads (d[i][j], d[i][k] one word per warp, d[k][j]) "
     "and 1 store per update; n^3 updates, about 4n^3/b warp-instructions",
     naive});
AGPU_REGISTER_CLOSED_FORM(
    {"apsp/blocked",
     "3n/t launches (n padded to t); per pivot: tile_fw (t^2 words in shared memory, t+1 barriers), "
     "the pivot row and column, the rest; global traffic with tiles on chip "
     "N_b = d(4n^3/t - 2n^2) bytes, arithmetic N_c = 2n(n^2 - 2t + 1) operations; method A: 2F "
     "shared vector loads per 16F^2 updates (F = 2 for products of 128 x 128 and more, else 1), "
     "method B: 1 + t/t2 shared loads per t/t2 updates",
     blocked});
AGPU_REGISTER_CLOSED_FORM(
    {"apsp/recursive",
     "5n/tr - 4 launches (n padded to tr): tile_fw on the n/tr diagonal blocks, 4 min-plus product "
     "launches per recursion node; n^3 updates in products of inner length n/2, n/4, ...",
     recursive});
AGPU_REGISTER_CLOSED_FORM(
    {"apsp/dpx",
     "blocked method A with DPX add-min: 3n/t launches; width 16 moves d = 2 bytes per distance "
     "(N_b = 2(4n^3/t - 2n^2)) and does two updates per instruction (half the compute notes); t = 128 "
     "allowed (1024-thread pivot tile); lookahead (int32, t = 128; =1 where the other tiles fill two waves, =2 "
     "always): n/t + 2 launches, step K's "
     "other tiles, T(K+1, K+1)'s closure in registers and row and column K + 1 in one launch (one "
     "flag poll per wait: the GPU may poll more)",
     dpx});

// ---------------------------------------------------------------- tile-size analysis

std::string num(double v) {
    std::ostringstream o;
    o.precision(3);
    o << v;
    return o.str();
}

// The source paper's tile-size rule: per pivot the tiles stay on chip, so
// global traffic is N_b = d(4n³/t - 2n²) bytes against N_c = 2n(n² - 2t + 1)
// operations (an add and a min per update); memory bounds the run while
// N_b/N_c exceeds the device's bytes per operation (bandwidth / arithmetic
// rate), arithmetic once it is below. The packed 16-bit form moves d = 2
// bytes and does two updates per instruction (the device's rate doubled).
analysis tile_sizes(const device& dev, std::uint64_t n, unsigned width, std::vector<std::uint64_t> tiles) {
    const double d = width == 16 ? 2 : 4, rate = ops_per_second(dev) * (width == 16 ? 2 : 1);
    const double ratio = dev.hw.mem_bandwidth_gbs * 1e9 / rate;
    analysis a;
    a.title = "tile size t: global bytes per operation N_b/N_c against the device's bandwidth/compute ratio (" +
              num(dev.hw.mem_bandwidth_gbs) + " GB/s / " + num(rate * 1e-12) + " T op/s = " + num(ratio) + " bytes/op)";
    a.columns = {"t", "N_b bytes", "N_c ops", "N_b/N_c", "device B/C", "bound"};
    std::uint64_t smallest = 0;
    for (auto t : tiles) {
        const double nb = floyd_warshall_bytes(n, t, d), nc = floyd_warshall_operations(n, t), r = nb / nc;
        const bool arithmetic = r < ratio;
        if (arithmetic && smallest == 0) smallest = t;
        a.rows.push_back(
            {std::to_string(t), num(nb), num(nc), num(r), num(ratio), arithmetic ? "arithmetic" : "memory"});
    }
    a.conclusion = smallest ? "smallest tile for which arithmetic rather than memory bounds the run on " + dev.id +
                                  ": t = " + std::to_string(smallest)
                            : "memory bounds the run on " + dev.id +
                                  " for every tile up to t = " + std::to_string(tiles.back()) + " (N_b/N_c > " +
                                  num(ratio) + " bytes/op)";
    return a;
}

AGPU_REGISTER_ANALYSIS({"apsp/blocked", [](const device& dev, std::uint64_t n, const param_values&) {
                            return tile_sizes(dev, n, 32, {16, 32, 64});
                        }});
AGPU_REGISTER_ANALYSIS({"apsp/dpx", [](const device& dev, std::uint64_t n, const param_values& p) {
                            return tile_sizes(dev, n, unsigned(p.integer("width")), {16, 32, 64, 128});
                        }});

}  // namespace
}  // namespace agpu::model
