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
// (kernels/apsp/*.cuh): tile_fw 256 threads, naive 64 x 4, regions 64 rows x
// 64 words of 256 threads (16 x 16, 4 x 4 words each; shared rows of 68 and
// 72 words), strips t*t2 threads.
//
// Launches: naive n; blocked and dpx 3·n_p/t (1 when n_p = t); recursive
// 5·n_p/t_r - 4; n_p is n padded to the tile (t, t_r). The source paper's
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
#include <bit>
#include <map>
#include <queue>
#include <unordered_map>
#include <vector>

#include "agpu/model/closed_form.hpp"

namespace agpu::model {
namespace {

constexpr std::uint64_t sector = 32;
constexpr std::int32_t tile_threads = 256;  // tile_fw_policy::threads
constexpr std::uint32_t naive_bx = 64, naive_by = 4;
constexpr std::uint32_t region_threads = 256, region_rows = 64, region_vectors = 16;


// Counters of warp-instructions, scaled by `times`.
struct tally {
    partial_counts c;
    void gload(std::uint64_t sectors, std::uint64_t blocks, std::uint64_t times = 1) {
        c[counter::global_load_instructions] += times;
        c[counter::global_load_requests] += times;
        c[counter::global_load_sectors] += sectors * times;
        c[counter::global_load_blocks] += blocks * times;
        c[counter::global_requests] += times;
        c[counter::global_sectors] += sectors * times;
        c[counter::io_blocks] += blocks * times;
        c[counter::warp_instructions] += times;
    }
    void gstore(std::uint64_t sectors, std::uint64_t blocks, std::uint64_t times = 1) {
        c[counter::global_store_instructions] += times;
        c[counter::global_store_requests] += times;
        c[counter::global_store_sectors] += sectors * times;
        c[counter::global_store_blocks] += blocks * times;
        c[counter::global_requests] += times;
        c[counter::global_sectors] += sectors * times;
        c[counter::io_blocks] += blocks * times;
        c[counter::warp_instructions] += times;
    }
    // A shared load of `x.wf` wavefronts, `times` times (a scalar word per lane: {1, 1}).
    void sload(bank_cost x, std::uint64_t times = 1) {
        c[counter::shared_load_instructions] += times;
        c[counter::shared_load_wavefronts] += x.wf * times;
        c[counter::shared_load_bank_conflicts] += (x.wf - x.ideal) * times;
        c[counter::shared_wavefronts] += x.wf * times;
        c[counter::bank_conflicts] += (x.wf - x.ideal) * times;
        c[counter::warp_instructions] += times;
    }
    void sstore(bank_cost x, std::uint64_t times = 1) { sstores(times, {x.wf * times, x.ideal * times}); }
    // `instructions` shared stores costing `x` in all.
    void sstores(std::uint64_t instructions, bank_cost x) {
        c[counter::shared_store_instructions] += instructions;
        c[counter::shared_store_wavefronts] += x.wf;
        c[counter::shared_store_bank_conflicts] += x.wf - x.ideal;
        c[counter::shared_wavefronts] += x.wf;
        c[counter::bank_conflicts] += x.wf - x.ideal;
        c[counter::warp_instructions] += instructions;
    }
    void barrier(std::uint64_t times = 1) {
        c[counter::barrier_instructions] += times;
        c[counter::warp_instructions] += times;
    }
    void compute(std::uint64_t n) {
        c[counter::compute_instructions] += n;
        c[counter::warp_instructions] += n;
    }
    void launch(std::uint64_t blocks, std::uint64_t threads, std::uint64_t time, std::uint64_t shared_words) {
        c[counter::launches] += 1;
        c[counter::thread_blocks] += blocks;
        c[counter::threads] += blocks * threads;
        c[counter::time_steps] += time;
        c[counter::shared_words_max] = std::max(c[counter::shared_words_max], shared_words);
    }
    void add(const partial_counts& o, std::uint64_t times = 1) {
        for (const auto& [k, v] : o)
            if (k == counter::shared_words_max)
                c[k] = std::max(c[k], v);
            else
                c[k] += v * times;
    }
};

std::uint64_t pad(std::uint64_t n, std::uint64_t unit) { return (n + unit - 1) / unit * unit; }

// ---------------------------------------------------------------- naive

partial_counts naive(const machine& m, std::uint64_t n, const param_values&) {
    const std::uint64_t b = m.b, bb = m.block_bytes();
    const std::uint64_t gx = (n + naive_bx - 1) / naive_bx, gy = (n + naive_by - 1) / naive_by;
    // A row's warps: b consecutive columns each (a warp lies in one row).
    std::uint64_t live_per_row = 0;
    for (std::uint64_t j0 = 0; j0 < gx * naive_bx; j0 += b) live_per_row += j0 < n;
    // Sectors and blocks of each row's warp segments.
    std::uint64_t row_sectors = 0, row_blocks = 0;
    for (std::uint64_t i = 0; i < n; ++i)
        for (std::uint64_t j0 = 0; j0 < n; j0 += b) {
            const std::uint64_t L = std::min(b, n - j0), start = (i * n + j0) * 4;
            row_sectors += units(start, 4 * L, sector);
            row_blocks += units(start, 4 * L, bb);
        }
    tally t;
    const std::uint64_t warps = n * live_per_row;  // per launch
    // Per launch: d[i][j] (row_sectors over all rows), d[i][k] (1 each), d[k][j]
    // (row k's segments, once per row i): summed over k, n·row_sectors.
    t.gload(0, 0, 3 * n * warps);
    t.c[counter::global_load_sectors] += 2 * n * row_sectors + n * warps;
    t.c[counter::global_load_blocks] += 2 * n * row_blocks + n * warps;
    t.gstore(0, 0, n * warps);
    t.c[counter::global_store_sectors] += n * row_sectors;
    t.c[counter::global_store_blocks] += n * row_blocks;
    t.c[counter::global_sectors] += 3 * n * row_sectors + n * warps;
    t.c[counter::io_blocks] += 3 * n * row_blocks + n * warps;
    t.compute(n * warps);
    std::vector<std::uint64_t> steps;
    for (std::uint64_t by = 0; by < gy; ++by)
        for (std::uint64_t bx = 0; bx < gx; ++bx) {
            std::uint64_t live = 0;
            for (std::uint64_t y = 0; y < naive_by; ++y)
                for (std::uint64_t x = 0; x < naive_bx; x += b) live += by * naive_by + y < n && bx * naive_bx + x < n;
            steps.push_back(5 * live);
        }
    const std::uint64_t time = greedy_makespan(steps, m.k());
    for (std::uint64_t k = 0; k < n; ++k) t.launch(gx * gy, naive_bx * naive_by, time, 0);
    return t.c;
}

// ---------------------------------------------------------------- tile_fw

// One launch of tile_fw on a tile of side `tile`, elements of es bytes.
void tile_fw(tally& t, const machine& m, std::uint64_t tile, std::uint64_t es) {
    const std::uint64_t b = m.b, warps = tile_threads / b, E = tile * tile / tile_threads;
    const std::uint64_t rows = std::max<std::uint64_t>(1, b / tile), seg = std::min(b, tile) * es;
    const std::uint64_t sec = rows * units(0, seg, sector), blk = rows * units(0, seg, m.block_bytes());
    tally w;  // one warp
    w.gload(sec, blk, E);
    w.sstore({1, 1}, E);
    w.barrier();
    w.sload({1, 1}, tile * (1 + E));
    w.sstore({1, 1}, tile * E);
    w.compute(tile * E);
    w.barrier(tile);
    w.gstore(sec, blk, E);
    t.add(w.c, warps);
    const std::uint64_t warp_steps = E + E + 1 + tile * (1 + E + E + E + 1) + E;
    t.launch(1, tile_threads, warps * warp_steps, tile * tile);
}

// ---------------------------------------------------------------- strips (method B)

void strips(tally& t, const machine& m, std::uint64_t tile, std::uint64_t sub, std::uint64_t blocks) {
    const std::uint64_t b = m.b, threads = tile * sub, warps = (threads + b - 1) / b, per = tile / sub;
    const std::uint64_t chunks = tile / sub;
    const std::uint64_t rows = std::max<std::uint64_t>(1, b / tile), seg = std::min(b, tile) * 4;
    const std::uint64_t csec = rows * units(0, seg, sector), cblk = rows * units(0, seg, m.block_bytes());
    const std::uint64_t arows = std::max<std::uint64_t>(1, b / sub), aseg = std::min(b, sub) * 4;
    const std::uint64_t asec = arows * units(0, aseg, sector), ablk = arows * units(0, aseg, m.block_bytes());
    tally w;
    w.gload(csec, cblk, per);
    w.gload(asec, ablk, chunks);
    w.gload(csec, cblk, chunks);
    w.sstore({1, 1}, 2 * chunks);
    w.barrier(2 * chunks - 1);
    w.sload({1, 1}, tile * (1 + per));
    w.compute(tile * per);
    w.gstore(csec, cblk, per);
    const std::uint64_t warp_steps = per + 4 * chunks + 2 * chunks - 1 + tile * (1 + 2 * per) + per;
    t.add(w.c, warps * blocks);
    const std::uint64_t k = m.k(), rounds = (blocks + k - 1) / k;
    t.launch(blocks, threads, rounds * warps * warp_steps, 2 * tile * sub);
}

// ---------------------------------------------------------------- regions (method A, dpx, recursive)

struct job {
    std::uint64_t row0, rows, col0, cols;
    std::uint64_t skip_row0 = 0, skip_rows = 0, skip_col0 = 0, skip_cols = 0;
    std::uint64_t a_col0, b_row0, inner;
};

constexpr std::uint64_t a_pitch = 68, b_pitch = 72;  // region_policy: shared row pitches in words

// One launch of minplus_regions: jobs, chunk kc, column runs gv, epw
// distances per word.
void regions(tally& t, const machine& m, const std::vector<job>& jobs, std::uint64_t kc, std::uint64_t gv,
             std::uint64_t epw) {
    const std::uint64_t b = m.b, warps = region_threads / b, epv = 4 * epw, vpb = m.block_bytes() / 16;
    const std::uint64_t a_vecs = kc / epv, b0 = kc * a_pitch;  // B's first word
    const std::uint64_t ty_per_warp = b / 16;
    // Per warp: the shared loads of one k (A^T vector, B vector), by k mod 16.
    std::vector<bank_cost> wf_a(warps * 16), wf_b(warps * 16);
    for (std::uint64_t w = 0; w < warps; ++w)
        for (std::uint64_t u = 0; u < 16; ++u) {
            std::vector<std::uint64_t> wa, wb;
            for (std::uint64_t l = 0; l < b; ++l) {
                const std::uint64_t tid = w * b + l, ty = tid / 16, tx = tid % 16;
                for (std::uint64_t x = 0; x < 4; ++x) {
                    wa.push_back(u * a_pitch + ty * 4 + x);
                    wb.push_back(b0 + u * b_pitch + tx * 4 + x);
                }
            }
            wf_a[w * 16 + u] = shared_bank_cost(wa, b);
            wf_b[w * 16 + u] = shared_bank_cost(wb, b);
        }
    // Staging iterations per warp: A (row group, store wavefronts), B (column run, store wavefronts, lanes' rows).
    struct a_iter { std::uint64_t group; bank_cost store_wf; };
    struct b_iter { std::uint64_t e0, run; bank_cost store_wf; };
    std::vector<a_iter> a_iters;
    std::vector<b_iter> b_iters;
    for (std::uint64_t w = 0; w < warps; ++w) {
        for (std::uint64_t e0 = w * b; e0 < region_rows * a_vecs; e0 += region_threads) {
            bank_cost wf;
            for (std::uint64_t x = 0; x < 4; ++x)
                for (std::uint64_t h = 0; h < epw; ++h) {
                    std::vector<std::uint64_t> words;
                    for (std::uint64_t l = 0; l < b; ++l) {
                        const std::uint64_t e = e0 + l, i = e / (16 * a_vecs) * 16 + e % 16, g = e / 16 % a_vecs;
                        const std::uint64_t k = g * epv + x * epw + h;
                        words.push_back(k * a_pitch + i);
                    }
                    wf += shared_bank_cost(words, b);
                }
            a_iters.push_back({e0 / (16 * a_vecs), wf});
        }
        for (std::uint64_t e0 = w * b; e0 < kc * region_vectors; e0 += region_threads) {
            std::vector<std::uint64_t> words;
            for (std::uint64_t l = 0; l < b; ++l) {
                const std::uint64_t e = e0 + l, vl = e % gv, rest = e / gv, k = rest % kc, vc = rest / kc * gv + vl;
                for (std::uint64_t x = 0; x < 4; ++x) words.push_back(b0 + k * b_pitch + vc * 4 + x);
            }
            b_iters.push_back({e0, e0 / gv / kc, shared_bank_cost(words, b)});
        }
    }
    const auto live = [](std::uint64_t x, std::uint64_t lo, std::uint64_t n, std::uint64_t s0, std::uint64_t sn) {
        return x >= lo && x < lo + n && (x < s0 || x >= s0 + sn);
    };
    // Cost of one block, memoised on its row groups, columns and block alignment.
    struct block_cost {
        partial_counts c;
        std::uint64_t steps = 0;
    };
    std::unordered_map<std::uint64_t, block_cost> memo;
    std::vector<std::uint64_t> steps;
    std::uint64_t total_blocks = 0;
    for (const job& J : jobs) {
        const std::uint64_t width = region_vectors * epv;
        const std::uint64_t rx = (J.cols + width - 1) / width, ry = (J.rows + region_rows - 1) / region_rows;
        const std::uint64_t chunks = J.inner / kc;
        total_blocks += rx * ry;
        for (std::uint64_t y = 0; y < ry; ++y)
            for (std::uint64_t x = 0; x < rx; ++x) {
                const std::uint64_t row_base = J.row0 + y * region_rows, col_base = J.col0 + x * width;
                std::uint64_t row_mask = 0, col_mask = 0;
                for (std::uint64_t g = 0; g < 4; ++g)
                    if (live(row_base + 16 * g, J.row0, J.rows, J.skip_row0, J.skip_rows)) row_mask |= 1u << g;
                for (std::uint64_t v = 0; v < region_vectors; ++v)
                    if (live(col_base + v * epv, J.col0, J.cols, J.skip_col0, J.skip_cols)) col_mask |= 1u << v;
                const std::uint64_t residue = col_base / epv % vpb;
                const std::uint64_t key = row_mask | col_mask << 4 | residue << 20 | chunks << 32;
                auto it = memo.find(key);
                if (it == memo.end()) {
                    block_cost bc;
                    if (row_mask != 0 && col_mask != 0) {
                        tally blk;
                        std::uint64_t st = 0;
                        // C: 4 loads and 4 stores per warp whose row group is live.
                        std::uint64_t csec = 0, cblk = 0;
                        {
                            std::vector<std::uint64_t> secs, blks;
                            for (std::uint64_t v = 0; v < region_vectors; ++v)
                                if (col_mask >> v & 1) {
                                    secs.push_back(v / 2);
                                    blks.push_back((residue + v) / vpb);
                                }
                            secs.erase(std::unique(secs.begin(), secs.end()), secs.end());
                            blks.erase(std::unique(blks.begin(), blks.end()), blks.end());
                            csec = ty_per_warp * secs.size();
                            cblk = ty_per_warp * blks.size();
                        }
                        for (std::uint64_t w = 0; w < warps; ++w) {
                            const std::uint64_t group = w * ty_per_warp / 4;
                            if (row_mask >> group & 1) {
                                blk.gload(csec, cblk, 4);
                                blk.gstore(csec, cblk, 4);
                                st += 8;
                            }
                        }
                        // Staging, per chunk.
                        for (const auto& it_a : a_iters) {
                            if (row_mask >> it_a.group & 1) {
                                // 16 rows x b/16 vectors (16 rows x 32 bytes for b = 32).
                                blk.gload(16 * units(0, b, sector), 16 * units(0, b, m.block_bytes()), chunks);
                                st += chunks;
                            }
                            blk.sstores(4 * epw * chunks, {it_a.store_wf.wf * chunks, it_a.store_wf.ideal * chunks});
                            st += it_a.store_wf.wf * chunks;
                        }
                        for (const auto& it_b : b_iters) {
                            if (col_mask >> (it_b.run * gv) & 1) {
                                // Lanes: rows k x runs of gv vectors; rows assumed to start on a block.
                                std::vector<std::uint64_t> secs, blks;
                                for (std::uint64_t l = 0; l < b; ++l) {
                                    const std::uint64_t e = it_b.e0 + l, vl = e % gv, rest = e / gv, k = rest % kc;
                                    const std::uint64_t vc = rest / kc * gv + vl;
                                    const std::uint64_t addr = k * (1u << 20) + (residue + vc) * 16;
                                    secs.push_back(addr / sector);
                                    blks.push_back(addr / m.block_bytes());
                                }
                                std::sort(secs.begin(), secs.end());
                                std::sort(blks.begin(), blks.end());
                                const auto sec = std::uint64_t(std::unique(secs.begin(), secs.end()) - secs.begin());
                                const auto bl = std::uint64_t(std::unique(blks.begin(), blks.end()) - blks.begin());
                                blk.gload(sec, bl, chunks);
                                st += chunks;
                            }
                            blk.sstore(it_b.store_wf, chunks);
                            st += it_b.store_wf.wf * chunks;
                        }
                        blk.barrier(warps * (2 * chunks - 1));
                        st += warps * (2 * chunks - 1);
                        for (std::uint64_t w = 0; w < warps; ++w)
                            for (std::uint64_t u = 0; u < 16; ++u) {
                                const std::uint64_t reps = kc / 16 * chunks;
                                blk.sload(wf_a[w * 16 + u], reps);
                                blk.sload(wf_b[w * 16 + u], reps);
                                blk.compute(16 * reps);
                                st += (wf_a[w * 16 + u].wf + wf_b[w * 16 + u].wf + 16) * reps;
                            }
                        bc.c = std::move(blk.c);
                        bc.steps = st;
                    }
                    it = memo.emplace(key, std::move(bc)).first;
                }
                t.add(it->second.c);
                steps.push_back(it->second.steps);
            }
    }
    t.launch(total_blocks, region_threads, greedy_makespan(steps, m.k()), kc * (a_pitch + b_pitch));
}

std::uint64_t region_chunk(std::uint64_t unit, std::uint64_t M) {
    for (std::uint64_t kc = 64; kc >= 16; kc /= 2)
        if (unit % kc == 0 && kc * (a_pitch + b_pitch) <= M) return kc;
    return 16;
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

// Blocked Floyd-Warshall with regions (method A, dpx).
partial_counts blocked_regions(const machine& m, std::uint64_t n, std::uint64_t tile, std::uint64_t epw) {
    const std::uint64_t np = pad(n, tile), tiles = np / tile, es = 4 / epw;
    const std::uint64_t kc = region_chunk(tile, m.M), gv = std::min<std::uint64_t>(16, tile / (4 * epw));
    tally t;
    for (std::uint64_t K = 0; K < tiles; ++K) {
        const std::uint64_t band = K * tile;
        tile_fw(t, m, tile, es);
        if (tiles == 1) break;
        job row = make_job(band, tile, 0, np, band, band, tile);
        row.skip_col0 = band;
        row.skip_cols = tile;
        job col = make_job(0, np, band, tile, band, band, tile);
        col.skip_row0 = band;
        col.skip_rows = tile;
        regions(t, m, {row, col}, kc, gv, epw);
        job rest = make_job(0, np, 0, np, band, band, tile);
        rest.skip_row0 = rest.skip_col0 = band;
        rest.skip_rows = rest.skip_cols = tile;
        regions(t, m, {rest}, kc, gv, epw);
    }
    return t.c;
}

partial_counts blocked(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t tile = std::uint64_t(p.integer("t"));
    if (p.text("method") == "A") return blocked_regions(m, n, tile, 1);
    const std::uint64_t sub = std::uint64_t(p.integer("t2")), np = pad(n, tile), tiles = np / tile;
    tally t;
    for (std::uint64_t K = 0; K < tiles; ++K) {
        tile_fw(t, m, tile, 4);
        if (tiles == 1) break;
        strips(t, m, tile, sub, 2 * (tiles - 1));
        strips(t, m, tile, sub, (tiles - 1) * (tiles - 1));
    }
    return t.c;
}

partial_counts dpx(const machine& m, std::uint64_t n, const param_values& p) {
    return blocked_regions(m, n, std::uint64_t(p.integer("t")), p.integer("width") == 16 ? 2 : 1);
}

void recursive_fw(tally& t, const machine& m, std::uint64_t tr, std::uint64_t kc, std::uint64_t o,
                  std::uint64_t blocks) {
    if (blocks == 1) {
        tile_fw(t, m, tr, 4);
        return;
    }
    const std::uint64_t b1 = (blocks + 1) / 2, n1 = b1 * tr, n2 = (blocks - b1) * tr, gv = std::min<std::uint64_t>(16, tr / 4);
    recursive_fw(t, m, tr, kc, o, b1);
    regions(t, m, {make_job(o, n1, o + n1, n2, o, o, n1), make_job(o + n1, n2, o, n1, o, o, n1)}, kc, gv, 1);
    regions(t, m, {make_job(o + n1, n2, o + n1, n2, o, o, n1)}, kc, gv, 1);
    recursive_fw(t, m, tr, kc, o + n1, blocks - b1);
    regions(t, m, {make_job(o, n1, o + n1, n2, o + n1, o + n1, n2), make_job(o + n1, n2, o, n1, o + n1, o + n1, n2)}, kc,
            gv, 1);
    regions(t, m, {make_job(o, n1, o, n1, o + n1, o + n1, n2)}, kc, gv, 1);
}

partial_counts recursive(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t tr = std::uint64_t(p.integer("tr")), np = pad(n, tr);
    tally t;
    recursive_fw(t, m, tr, region_chunk(tr, m.M), 0, np / tr);
    return t.c;
}

AGPU_REGISTER_CLOSED_FORM({"apsp/naive",
                           "n launches of one thread per element: 3 loads (d[i][j], d[i][k] one word per warp, d[k][j]) "
                           "and 1 store per update; n^3 updates, about 4n^3/b warp-instructions",
                           naive});
AGPU_REGISTER_CLOSED_FORM({"apsp/blocked",
                           "3n/t launches (n padded to t); per pivot: tile_fw (t^2 words in shared memory, t+1 barriers), "
                           "the pivot row and column, the rest; global traffic with tiles on chip "
                           "N_b = d(4n^3/t - 2n^2) bytes, arithmetic N_c = 2n(n^2 - 2t + 1) operations; method A: 2 "
                           "shared vector loads per 16 updates, method B: 1 + t/t2 shared loads per t/t2 updates",
                           blocked});
AGPU_REGISTER_CLOSED_FORM({"apsp/recursive",
                           "5n/tr - 4 launches (n padded to tr): tile_fw on the n/tr diagonal blocks, 4 min-plus product "
                           "launches per recursion node; n^3 updates in products of inner length n/2, n/4, ...",
                           recursive});
AGPU_REGISTER_CLOSED_FORM({"apsp/dpx",
                           "blocked method A with DPX add-min: 3n/t launches; width 16 moves d = 2 bytes per distance "
                           "(N_b = 2(4n^3/t - 2n^2)) and does two updates per instruction (half the compute notes)",
                           dpx});

}  // namespace
}  // namespace agpu::model
