// The apsp kernels' costs, one launch at a time (apsp_costs.hpp): naive,
// tile_fw (with registers from t = 64), minplus_strips and minplus_regions,
// every warp-instruction costed by the model's rules (model/costing.hpp)
// on the kernels' own lane addresses, the blocks placed on the MPs as the
// simulator places them.
#include <algorithm>
#include <array>
#include <unordered_map>
#include <utility>
#include <vector>

#include "apsp_costs.hpp"

namespace agpu::model::apsp_costs {
namespace {

// ---------------------------------------------------------------- tile_fw

// Sectors and b-word blocks that accesses of `bytes` bytes at these byte
// addresses touch.
std::pair<std::uint64_t, std::uint64_t> access_units(const std::vector<std::uint64_t>& addrs, std::uint64_t bytes,
                                                     std::uint64_t block_bytes) {
    lane_accesses acc;
    for (auto a : addrs) acc.emplace_back(a, std::uint32_t(bytes));
    return {distinct_units(acc, sector_bytes), distinct_units(acc, block_bytes)};
}

// tile_fw on a tile of side >= 64 at (origin, origin) of an np-wide matrix:
// (tile/4)² threads of 4 x 4 registers, warps of 4 ty x 8 tx, row and column
// k published in double-buffered shared vectors.
void tile_fw_registers(tally& t, const machine& m, std::uint64_t tile, std::uint64_t es, std::uint64_t origin,
                       std::uint64_t np) {
    const std::uint64_t threads = tile * tile / 16, b = m.b, warps = threads / b, V = tile / 4;
    const auto ty = [&](std::uint64_t tid) { return tid / 32 / (tile / 32) * 4 + tid % 32 / 8; };
    const auto tx = [&](std::uint64_t tid) { return tid / 32 % (tile / 32) * 8 + tid % 8; };
    std::uint64_t block_steps = 0, block_waits = 0, block_collectives_sum = 0;
    for (std::uint64_t w = 0; w < warps; ++w) {
        tally c;
        std::uint64_t st = 0;
        for (std::uint64_t r = 0; r < 4; ++r) {  // 4 quads in, 4 out
            std::vector<std::uint64_t> addrs;
            for (std::uint64_t l = 0; l < b; ++l)
                addrs.push_back(((origin + 4 * ty(w * b + l) + r) * np + origin + 4 * tx(w * b + l)) * es);
            const auto [sec, blk] = access_units(addrs, 4 * es, m.block_bytes());
            c.gload(sec, blk);
            c.gstore(sec, blk);
            st += 2;
        }
        // The owners of row k and column k publish them (k = 0 .. tile - 1).
        for (std::uint64_t k = 0; k < tile; ++k) {
            std::vector<std::uint64_t> row, col;
            for (std::uint64_t l = 0; l < b; ++l) {
                const std::uint64_t tid = w * b + l;
                row.push_back(ty(tid) == k / 4 ? tx(tid) : vector_off);
                col.push_back(tx(tid) == k / 4 ? 2 * V + ty(tid) : vector_off);
            }
            for (auto* lanes : {&row, &col}) {
                if (std::all_of(lanes->begin(), lanes->end(), [](std::uint64_t v) { return v == vector_off; })) {
                    c.null_access(counter::shared_store_instructions);
                    st += 1;
                    continue;
                }
                const bank_cost cost = shared_vector_cost(*lanes, m);
                c.sstore(cost);
                st += cost.wf;
            }
        }
        // Per k: column k's 4 values and row k's, 16 relaxations, a barrier.
        std::vector<std::uint64_t> a, bv;
        for (std::uint64_t l = 0; l < b; ++l) {
            a.push_back(2 * V + ty(w * b + l));
            bv.push_back(tx(w * b + l));
        }
        const bank_cost ca = shared_vector_cost(a, m), cb = shared_vector_cost(bv, m);
        c.sload(ca, tile);
        c.sload(cb, tile);
        c.compute(16 * tile);
        c.barrier(tile + 1);
        st += (ca.wf + cb.wf + 16 + 1) * tile + 1;
        t.add(c.c);
        block_steps += st;
        block_waits += waits_of(c.c);
        block_collectives_sum += collectives_of(c.c);
    }
    t.launch(1, threads, block_steps, block_waits, 4 * tile, m, block_collectives_sum);
}

// Sectors and b-word blocks of one global warp-instruction on 16-byte
// vectors (row, vector) of a matrix whose rows start on a block (placed here
// a large multiple of a block apart); `residue` is the vector offset of
// vector 0 within its block.
std::pair<std::uint64_t, std::uint64_t> vector_units(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& rv,
                                                     std::uint64_t residue, std::uint64_t block_bytes) {
    const std::uint64_t row_bytes = block_bytes << 24;
    lane_accesses acc;
    for (auto [r, v] : rv) acc.emplace_back(r * row_bytes + (residue + v) * 16, 16);
    return {distinct_units(acc, sector_bytes), distinct_units(acc, block_bytes)};
}

// One global atomic of one lane (a flag, a counter): one instruction, sector, block.
void lone_atomic(tally& t, std::uint64_t times = 1) {
    t.add_to(counter::global_atomic_instructions, times);
    t.add_to(counter::global_atomic_sectors, times);
    t.add_to(counter::global_atomic_blocks, times);
    t.add_to(counter::io_blocks, times);
    t.add_to(counter::warp_instructions, times);
}

// close_region<F> (the lookahead's Floyd-Warshall on T(a, a) in registers):
// per warp 64F + 2 barriers; per k 2F vector loads (column k at 2·16F +
// buf·16F + ty + 16f, row k at buf·16F + tx + 16g) and 16F² relaxations;
// 64F publications of a row (F stores by the lanes with ty = q) and a column
// (F stores by the lanes with tx = q). Returns the block's steps.
std::uint64_t closure(tally& blk, const machine& m, std::uint64_t F) {
    const region_geometry G(F);
    const std::uint64_t b = m.b, warps = region_threads / b, RV = 16 * F, side = 64 * F;
    std::uint64_t st = 0;
    for (std::uint64_t w = 0; w < warps; ++w) {
        blk.barrier(side + 2);
        st += side + 2;
        for (std::uint64_t f = 0; f < 2 * F; ++f) {
            std::vector<std::uint64_t> vecs;
            for (std::uint64_t l = 0; l < b; ++l) {
                const std::uint64_t tid = w * b + l;
                vecs.push_back(f < F ? 2 * RV + G.ty(tid) + 16 * f : G.tx(tid) + 16 * (f - F));
            }
            const bank_cost c = shared_vector_cost(vecs, m);
            blk.sload(c, side);
            st += c.wf * side;
        }
        blk.compute(16 * F * F * side);
        st += 16 * F * F * side;
        for (std::uint64_t k = 0; k < side; ++k) {
            const std::uint64_t q = k % 64 / 4;
            for (std::uint64_t x = 0; x < 2 * F; ++x) {  // F row stores, F column stores
                std::vector<std::uint64_t> vecs;
                bool any = false;
                for (std::uint64_t l = 0; l < b; ++l) {
                    const std::uint64_t tid = w * b + l;
                    const bool row = x < F, mine = row ? G.ty(tid) == q : G.tx(tid) == q;
                    vecs.push_back(!mine ? vector_off : row ? G.tx(tid) + 16 * x : 2 * RV + G.ty(tid) + 16 * (x - F));
                    any |= mine;
                }
                if (!any) {
                    blk.null_access(counter::shared_store_instructions);
                    st += 1;
                    continue;
                }
                const bank_cost c = shared_vector_cost(vecs, m);
                blk.sstore(c);
                st += c.wf;
            }
        }
    }
    return st;
}

}  // namespace

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
            row_sectors += units(start, 4 * L, sector_bytes);
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
    // A live warp loads three words (d[i][j], d[i][k], d[k][j]): a block's waits are 3/5 of its steps.
    const std::uint64_t heaviest = *std::max_element(steps.begin(), steps.end()) / 5 * 3;
    for (std::uint64_t k = 0; k < n; ++k) t.launch(gx * gy, naive_bx * naive_by, time, heaviest, 0, m);
    return t.c;
}

// One launch of tile_fw on a tile of side `tile` at (origin, origin) of an
// np-wide matrix, elements of es bytes.
void tile_fw(tally& t, const machine& m, std::uint64_t tile, std::uint64_t es, std::uint64_t origin, std::uint64_t np) {
    if (tile >= 64) return tile_fw_registers(t, m, tile, es, origin, np);
    const std::uint64_t tile_threads = 256;
    const std::uint64_t b = m.b, warps = tile_threads / b, E = tile * tile / tile_threads;
    const std::uint64_t rows = std::max<std::uint64_t>(1, b / tile), seg = std::min(b, tile) * es;
    const std::uint64_t sec = rows * units(0, seg, sector_bytes), blk = rows * units(0, seg, m.block_bytes());
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
    t.launch(1, tile_threads, warps * warp_steps, warps * waits_of(w.c), 2 * tile * tile, m,
             warps * collectives_of(w.c));  // two copies of the tile
}

// ---------------------------------------------------------------- strips (method B)

void strips(tally& t, const machine& m, std::uint64_t tile, std::uint64_t sub, std::uint64_t blocks) {
    const std::uint64_t b = m.b, threads = tile * sub, warps = (threads + b - 1) / b, per = tile / sub;
    const std::uint64_t chunks = tile / sub;
    const std::uint64_t rows = std::max<std::uint64_t>(1, b / tile), seg = std::min(b, tile) * 4;
    const std::uint64_t csec = rows * units(0, seg, sector_bytes), cblk = rows * units(0, seg, m.block_bytes());
    const std::uint64_t arows = std::max<std::uint64_t>(1, b / sub), aseg = std::min(b, sub) * 4;
    const std::uint64_t asec = arows * units(0, aseg, sector_bytes), ablk = arows * units(0, aseg, m.block_bytes());
    tally w;
    w.gload(csec, cblk, per);
    w.gload(asec, ablk, chunks);
    w.gload(csec, cblk, chunks);
    w.sstore({1, 1}, 2 * chunks);
    w.barrier(2 * chunks - 1);
    // Per KV k: KV scalar loads of B, and per owned row one vector of KV words of A
    // (the lanes of a warp share r: b/tile rows per warp).
    const std::uint64_t kv = std::min<std::uint64_t>(4, sub);
    bank_cost a_cost;
    if (kv == 4) {
        std::vector<std::uint64_t> vecs;
        for (std::uint64_t l = 0; l < b; ++l) vecs.push_back(l / tile * sub / 4);
        a_cost = shared_vector_cost(vecs, m);
    } else {
        std::vector<std::uint64_t> words;
        for (std::uint64_t l = 0; l < b; ++l)
            for (std::uint64_t x = 0; x < kv; ++x) words.push_back(l / tile * sub + x);
        a_cost = shared_bank_cost(words, b);
    }
    w.sload({1, 1}, tile);
    w.sload(a_cost, tile / kv * per);
    w.compute(tile * per);
    w.gstore(csec, cblk, per);
    const std::uint64_t warp_steps =
        per + 4 * chunks + 2 * chunks - 1 + tile * (1 + per) + tile / kv * per * a_cost.wf + per;
    t.add(w.c, warps * blocks);
    const std::uint64_t k = m.k(), rounds = (blocks + k - 1) / k;
    t.launch(blocks, threads, rounds * warps * warp_steps, warps * waits_of(w.c), 2 * tile * sub, m,
             warps * collectives_of(w.c));
}

// ---------------------------------------------------------------- regions (method A, dpx, recursive)

// One launch of minplus_regions<F>: jobs, chunk kc, column runs gv, epw
// distances per word; pipe: the double-buffered staging (kc = 16, one barrier
// per chunk); ahead: a lookahead launch. Walks every warp-instruction of one
// block per distinct (live rows, live columns, block alignments, chunks,
// lookahead role), as the kernel runs it.
void regions(tally& t, const machine& m, const std::vector<job>& jobs, std::uint64_t F, std::uint64_t kc,
             std::uint64_t gv, std::uint64_t epw, bool pipe, const ahead_info* ahead) {
    const region_geometry G(F);
    const std::uint64_t b = m.b, warps = region_threads / b, epv = 4 * epw, vpb = m.block_bytes() / 16;
    const std::uint64_t a_vecs = kc / epv, b0v = kc * G.a_pitch / 4;  // B's first vector
    // Per warp: the shared loads of one k, by k mod 16: F of A^T, F of B.
    std::vector<std::uint64_t> k_steps(warps * 16);
    std::vector<bank_cost> k_wf(warps * 16);
    for (std::uint64_t w = 0; w < warps; ++w)
        for (std::uint64_t u = 0; u < 16; ++u)
            for (std::uint64_t f = 0; f < 2 * F; ++f) {
                std::vector<std::uint64_t> vecs;
                for (std::uint64_t l = 0; l < b; ++l) {
                    const std::uint64_t tid = w * b + l;
                    vecs.push_back(f < F ? u * G.a_pitch / 4 + G.ty(tid) + 16 * f
                                         : b0v + u * G.b_pitch / 4 + G.tx(tid) + 16 * (f - F));
                }
                k_wf[w * 16 + u] += shared_vector_cost(vecs, m);
            }
    // Staging stores per warp and chunk (independent of masks and alignment).
    std::vector<bank_cost> a_store(warps), b_store(warps);
    std::vector<std::uint64_t> a_store_n(warps), b_store_n(warps);
    for (std::uint64_t w = 0; w < warps; ++w) {
        for (std::uint64_t e0 = w * b; e0 < G.rows * a_vecs; e0 += region_threads)
            for (std::uint64_t x = 0; x < 4; ++x)
                for (std::uint64_t h = 0; h < epw; ++h) {
                    std::vector<std::uint64_t> words;
                    for (std::uint64_t l = 0; l < b; ++l) {
                        const std::uint64_t e = e0 + l, i = e / (16 * a_vecs) * 16 + e % 16, g = e / 16 % a_vecs;
                        words.push_back((g * epv + x * epw + h) * G.a_pitch + i);
                    }
                    a_store[w] += shared_bank_cost(words, b);
                    a_store_n[w] += 1;
                }
        for (std::uint64_t e0 = w * b; e0 < kc * G.vectors; e0 += region_threads) {
            std::vector<std::uint64_t> vecs;
            for (std::uint64_t l = 0; l < b; ++l) {
                const std::uint64_t e = e0 + l, vl = e % gv, rest = e / gv, k = rest % kc, vc = rest / kc * gv + vl;
                vecs.push_back(b0v + k * G.b_pitch / 4 + vc);
            }
            b_store[w] += shared_vector_cost(vecs, m);
            b_store_n[w] += 1;
        }
    }
    const auto live = [](std::uint64_t x, std::uint64_t lo, std::uint64_t n, std::uint64_t s0, std::uint64_t sn) {
        return x >= lo && x < lo + n && (x < s0 || x >= s0 + sn);
    };
    struct block_cost {
        partial_counts c;
        std::uint64_t steps = 0, waits = 0, collectives = 0;
    };
    // A chunk's staging loads of one block: by (row mask, A's and C's vector residues).
    std::unordered_map<std::uint64_t, block_cost> staging_memo;
    const auto staging = [&](std::uint64_t row_mask, std::uint64_t col_mask, std::uint64_t a_res,
                             std::uint64_t c_res) -> const block_cost& {
        const std::uint64_t key = row_mask | a_res << 8 | c_res << 16 | col_mask << 24;
        auto it = staging_memo.find(key);
        if (it != staging_memo.end()) return it->second;
        block_cost bc;
        tally blk;
        // One staging load: its live lanes' (row, vector) pairs, or none (predicated off).
        const auto stage = [&](const std::vector<std::pair<std::uint64_t, std::uint64_t>>& rv, std::uint64_t res) {
            if (rv.empty()) {
                blk.null_access(counter::global_load_instructions);
            } else {
                const auto [sec, bl] = vector_units(rv, res, m.block_bytes());
                blk.gload(sec, bl);
            }
            bc.steps += 1;
        };
        for (std::uint64_t w = 0; w < warps; ++w) {
            for (std::uint64_t e0 = w * b; e0 < G.rows * a_vecs; e0 += region_threads) {
                std::vector<std::pair<std::uint64_t, std::uint64_t>> rv;
                for (std::uint64_t l = 0; l < b; ++l) {
                    const std::uint64_t e = e0 + l, i = e / (16 * a_vecs) * 16 + e % 16, g = e / 16 % a_vecs;
                    if (row_mask >> (i / 16) & 1) rv.emplace_back(i, g);
                }
                stage(rv, a_res);
            }
            for (std::uint64_t e0 = w * b; e0 < kc * G.vectors; e0 += region_threads) {
                std::vector<std::pair<std::uint64_t, std::uint64_t>> rv;
                for (std::uint64_t l = 0; l < b; ++l) {
                    const std::uint64_t e = e0 + l, vl = e % gv, rest = e / gv, k = rest % kc, vc = rest / kc * gv + vl;
                    if (col_mask >> vc & 1) rv.emplace_back(k, vc);
                }
                stage(rv, c_res);
            }
        }
        bc.c = std::move(blk.c);
        return staging_memo.emplace(key, std::move(bc)).first->second;
    };
    // Cost of one block, memoised on its masks, alignments and chunks.
    // Keyed on (col_mask, row_mask | role, residues, chunks): a string key
    // took a fifth of a paper-scale prediction's time.
    struct key_hash {
        std::size_t operator()(const std::array<std::uint64_t, 4>& k) const {
            std::size_t h = 0;
            for (auto v : k) h = h * 0x9e3779b97f4a7c15ull + std::hash<std::uint64_t>{}(v);
            return h;
        }
    };
    std::unordered_map<std::array<std::uint64_t, 4>, block_cost, key_hash> memo;
    std::vector<std::uint64_t> steps;
    std::uint64_t total_blocks = 0, heaviest = 0, heaviest_collectives = 0;  // the most waits (collectives) of a block
    for (std::uint64_t ji = 0; ji < jobs.size(); ++ji) {
        const job& J = jobs[ji];
        const std::uint64_t width = G.vectors * epv;
        const std::uint64_t rx = (J.cols + width - 1) / width, ry = (J.rows + G.rows - 1) / G.rows;
        const std::uint64_t chunks = J.inner / kc;
        total_blocks += rx * ry;
        // Regions in launch order: row-major, or a lookahead's job 0 as the
        // kernel orders it: T(a, a), row a, column a, the rest row-major.
        std::vector<std::pair<std::uint64_t, std::uint64_t>> order;
        order.reserve(rx * ry);
        if (ahead && ji == 0) {
            const std::uint64_t a = ahead->next;
            order.emplace_back(a, a);
            for (std::uint64_t x = 0; x < rx; ++x)
                if (x != a) order.emplace_back(a, x);
            for (std::uint64_t y = 0; y < ry; ++y)
                if (y != a) order.emplace_back(y, a);
            for (std::uint64_t y = 0; y < ry; ++y)
                for (std::uint64_t x = 0; x < rx; ++x)
                    if (y != a && x != a) order.emplace_back(y, x);
        } else {
            for (std::uint64_t y = 0; y < ry; ++y)
                for (std::uint64_t x = 0; x < rx; ++x) order.emplace_back(y, x);
        }
        for (const auto& [y, x] : order) {
            const std::uint64_t row_base = J.row0 + y * G.rows, col_base = J.col0 + x * width;
            // Lookahead roles: 1 publishes (job 0, row or column a), 2 also
            // closes (T(a, a)), 3 waits (jobs 1 and 2).
            const std::uint64_t role = !ahead                                 ? 0
                                       : ji != 0                              ? 3
                                       : y == ahead->next && x == ahead->next ? 2
                                       : y == ahead->next || x == ahead->next ? 1
                                                                              : 0;
            std::uint64_t row_mask = 0, col_mask = 0;
            for (std::uint64_t g = 0; g < G.rows / 16; ++g)
                if (live(row_base + 16 * g, J.row0, J.rows, J.skip_row0, J.skip_rows)) row_mask |= 1ull << g;
            for (std::uint64_t v = 0; v < G.vectors; ++v)
                if (live(col_base + v * epv, J.col0, J.cols, J.skip_col0, J.skip_cols)) col_mask |= 1ull << v;
            const std::uint64_t c_res = col_base / epv % vpb;
            const std::array<std::uint64_t, 4> key{col_mask, row_mask | role << 32,
                                                   c_res | (J.a_col0 / epv % vpb) << 32, chunks};
            auto it = memo.find(key);
            if (it == memo.end()) {
                block_cost bc;
                tally blk;
                std::uint64_t st = 0;
                if (ahead) {  // the claim: thread 0's atomic and store, a barrier, every thread's load
                    lone_atomic(blk);
                    blk.sstore({1, 1});
                    blk.barrier(warps);
                    blk.sload({1, 1}, warps);
                    st += 2 + 2 * warps;
                }
                if (row_mask == 0 || col_mask == 0) {
                    if (role == 1 || role == 2) {  // a band region of row or column a: published at once
                        lone_atomic(blk);
                        st += 1;
                    }
                } else {
                    if (role == 3) {  // two polls by thread 0, a barrier
                        lone_atomic(blk, 2);
                        blk.barrier(warps);
                        st += 2 + warps;
                    }
                    // C: 4F² vector loads and stores per thread, predicated per row group and column vector.
                    for (std::uint64_t w = 0; w < warps; ++w)
                        for (std::uint64_t f = 0; f < F; ++f)
                            for (std::uint64_t r = 0; r < 4; ++r)
                                for (std::uint64_t g = 0; g < F; ++g) {
                                    std::vector<std::pair<std::uint64_t, std::uint64_t>> rv;
                                    for (std::uint64_t l = 0; l < b; ++l) {
                                        const std::uint64_t tid = w * b + l, row = 64 * f + 4 * G.ty(tid) + r;
                                        const std::uint64_t v = G.tx(tid) + 16 * g;
                                        if ((row_mask >> (row / 16) & 1) && (col_mask >> v & 1))
                                            rv.emplace_back(row, v);
                                    }
                                    if (rv.empty()) {
                                        blk.null_access(counter::global_load_instructions);
                                        blk.null_access(counter::global_store_instructions);
                                        st += 2;
                                        continue;
                                    }
                                    const auto [sec, bl] = vector_units(rv, c_res, m.block_bytes());
                                    blk.gload(sec, bl);
                                    blk.gstore(sec, bl);
                                    st += 2;
                                }
                    for (std::uint64_t k0 = 0; k0 < chunks * kc; k0 += kc) {
                        const block_cost& s = staging(row_mask, col_mask, (J.a_col0 + k0) / epv % vpb, c_res);
                        blk.add(s.c);
                        st += s.steps;
                    }
                    for (std::uint64_t w = 0; w < warps; ++w) {
                        blk.sstores(a_store_n[w] * chunks, {a_store[w].wf * chunks, a_store[w].ideal * chunks});
                        blk.sstores(b_store_n[w] * chunks, {b_store[w].wf * chunks, b_store[w].ideal * chunks});
                        st += (a_store[w].wf + b_store[w].wf) * chunks;
                    }
                    const std::uint64_t barriers = pipe ? chunks : 2 * chunks - 1;
                    blk.barrier(warps * barriers);
                    st += warps * barriers;
                    const std::uint64_t reps = kc / 16 * chunks;
                    for (std::uint64_t w = 0; w < warps; ++w)
                        for (std::uint64_t u = 0; u < 16; ++u) {
                            const bank_cost& c = k_wf[w * 16 + u];
                            blk.c[counter::shared_load_instructions] += 2 * F * reps;
                            blk.c[counter::warp_instructions] += 2 * F * reps;
                            blk.c[counter::shared_load_wavefronts] += c.wf * reps;
                            blk.c[counter::shared_wavefronts] += c.wf * reps;
                            blk.c[counter::shared_load_bank_conflicts] += (c.wf - c.ideal) * reps;
                            blk.c[counter::bank_conflicts] += (c.wf - c.ideal) * reps;
                            blk.compute(16 * F * F * reps);
                            st += (c.wf + 16 * F * F) * reps;
                        }
                    if (role == 2) st += closure(blk, m, F);
                    if (role == 1 || role == 2) {  // after the stores: a barrier, thread 0's flag
                        blk.barrier(warps);
                        lone_atomic(blk);
                        st += warps + 1;
                    }
                }
                bc.c = std::move(blk.c);
                bc.steps = st;
                bc.waits = waits_of(bc.c);
                bc.collectives = collectives_of(bc.c);
                it = memo.emplace(key, std::move(bc)).first;
            }
            t.add(it->second.c);
            steps.push_back(it->second.steps);
            heaviest = std::max(heaviest, it->second.waits);
            heaviest_collectives = std::max(heaviest_collectives, it->second.collectives);
        }
    }
    const std::uint64_t words = (pipe ? 2 * G.shared_words(16) : G.shared_words(kc)) + (ahead ? 4 : 0);
    t.launch(total_blocks, region_threads, greedy_makespan(steps, m.k()), heaviest, words, m, heaviest_collectives);
}

}  // namespace agpu::model::apsp_costs
