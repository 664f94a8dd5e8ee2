// Closed-form AGPU costs of the rank family (kernels/rank/): exact for the
// builds (every counter the simulator fills), exact for the query kernels'
// instructions, requests, stores, steps and launches, and bounded for their
// random loads' sectors and blocks (kernels/rank/tests/rank_test.cpp checks
// both against the simulator on b = 32, 64 and 16).
//
// Notation: b lanes, W = 256/b warps per block, I = 8 items per thread,
// 32-byte sectors, AGPU blocks of 4b bytes, D = ceil(n/128) chunks of the
// bit vector; every array starts 4096-byte aligned. A warp-item is one warp's
// accesses for one of its I items; "live" lanes are those whose index is in range.
//
// rank/jacobson (S, L: powers of two nearest (lg n)/2 and lg^2 n, S in {8, 16},
// L in [128, 1024]; g = L/128; superblocks P = n/L + 1; chunks C = P g;
// tiles T = ceil(C / 2048); 1 build launch):
//   per tile: 1 counter atomic, 1 + W shared accesses and W barriers to share
//   the tile; per warp-item 1 load of 16 B per live lane (chunk < D),
//   log2 b + 2 shuffles, 1 (S = 16: 16 B per lane) or 2 (S = 8: 16 B per lane,
//   32 B apart) ST stores if a lane's chunk < C, 1 shared store of b/g words;
//   then 2W barriers, W + 1 shared accesses, log2 b + 1 shuffles, and per
//   8-byte LT entry (2048/g per tile, those < P) 2 shared loads and a store.
//   Chained prefix: tile 0 1 atomic; tile t >= 1 3 atomics (min(b, t) lanes in
//   one of them, on status words t-min(b,t)..t-1), 2 + log2 b collectives.
//   I/O ~ (n/8 + 2n/S + 8P) / 4b blocks; time W(I(log2 b + 5) + 5 + 3I/g)
//   + 2 log2 b + 10 steps per tile, tiles greedily over k MPs.
// rank/interleaved (lines = n/448 + 1, T = ceil(lines/512); 1 build launch):
//   per warp-item (b/4 lines): 2 8-byte loads (3b/4 and b lanes: the words
//   7j + 2p - 1 and 7j + 2p, within 2D words), log2 b + 3 shuffles, 1 store of
//   16 B per live lane (line < lines); per tile the same claim, chained prefix
//   and warp totals as jacobson, and 1 broadcast shared load per warp.
//   I/O ~ (n/8 + (8/7) n/8) / 4b blocks (the loads' sectors counted twice:
//   both loads of a warp-item span the same 14b bytes); time W(I(log2 b + 6)
//   + 6) + 2 log2 b + 10 steps per tile.
// Queries (Q of them, one per thread, blocks of 256; 1 launch), per warp of
// Lw live lanes: 1 coalesced 8-byte load of the arguments and 1 coalesced
// 8-byte store of the answers (exact), plus random loads:
//   jacobson rank1/rank0: 3 (LT, ST, the word);
//   jacobson select1:     1 broadcast of the count + floor(log2 P) + 1 LT
//                         probes + log2(L/S) ST probes + 1 word;
//   interleaved rank1/rank0: 2 16-byte pieces of one line;
//   interleaved select1:  1 broadcast + floor(log2 lines) + 1 header probes +
//                         2 pieces.
//   Each random lane access lies in one sector and one block, so each random
//   load costs between 1 and min(Lw, the sectors (blocks) of its array)
//   sectors (blocks): rank_query_bounds gives the sums.
// The simulator runs blocks one after another, so a look-back there always
// finds tile t-1's prefix in its first window; on a GPU it may poll again or
// go back further (kernels/rank/README.md).
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "agpu/model/closed_form.hpp"

namespace agpu::model {

// The closed forms' bounds (closed_form::bounds) of the random query loads.
namespace rank_costs {
count_bounds rank_query_bounds(const machine& m, const std::string& key, std::uint64_t n, const param_values& p);
}  // namespace rank_costs

namespace {

// kernels/rank/rank_common.cuh: rank_policy.
constexpr std::uint64_t block_threads = 256, items = 8, query_threads = 256;
constexpr std::uint64_t tile_chunks = block_threads * items;     // jacobson
constexpr std::uint64_t tile_lines = block_threads * items / 4;  // interleaved
// Static shared arrays in declaration order: slot (8 B), [jacobson: sb_local
// (2048 x 4 B)], warp_total (16 x 4 B), warp_base (16 x 8 B).
constexpr std::uint64_t max_warps = block_threads / 16;

unsigned log2_exact(std::uint64_t x) { return unsigned(std::bit_width(x) - 1); }

// kernels/rank/jacobson.cuh: jacobson_layout_for.
struct jacobson_shape {
    unsigned log_s = 0, log_l = 0;
    std::uint64_t data_chunks = 0, superblocks = 0, chunks = 0, small_blocks = 0, tiles = 0;
};

unsigned nearest_pow2_exponent(double x, unsigned lo, unsigned hi) {
    const long e = x <= 1 ? 0 : std::lround(std::log2(x));
    return static_cast<unsigned>(std::min<long>(std::max<long>(e, long(lo)), long(hi)));
}

jacobson_shape jacobson_of(std::uint64_t n) {
    unsigned lg = 0;
    while ((std::uint64_t(1) << lg) < n) ++lg;
    const double l = std::max(1u, lg);
    jacobson_shape j;
    j.log_s = nearest_pow2_exponent(l / 2, 3, 4);
    j.log_l = nearest_pow2_exponent(l * l, 7, 10);
    j.data_chunks = (n + 127) / 128;
    j.superblocks = (n >> j.log_l) + 1;
    j.chunks = j.superblocks << (j.log_l - 7);
    j.small_blocks = j.chunks << (7 - j.log_s);
    j.tiles = (j.chunks + tile_chunks - 1) / tile_chunks;
    return j;
}

// kernels/rank/interleaved.cuh: interleaved_layout_for.
struct interleaved_shape {
    std::uint64_t data_words = 0, lines = 0, tiles = 0;
};

interleaved_shape interleaved_of(std::uint64_t n) {
    interleaved_shape s;
    s.data_words = 2 * ((n + 127) / 128);
    s.lines = n / 448 + 1;
    s.tiles = (s.lines + tile_lines - 1) / tile_lines;
    return s;
}

// ---- the simulator's costing rules, applied to known lane addresses ----

enum class access { load, store, atomic };

// The counters and steps of a set of warp-instructions.
class tally {
public:
    explicit tally(const machine& m) : m_m(&m) {}

    std::uint64_t& operator[](counter k) { return m_c[k]; }
    std::uint64_t operator[](counter k) const { return m_c[k]; }
    std::uint64_t steps() const { return m_steps; }
    const counts& all() const { return m_c; }
    void add(const tally& o, std::uint64_t times = 1) {
        for (std::size_t i = 0; i < counter_count; ++i) m_c.v[i] += times * o.m_c.v[i];
        m_steps += times * o.m_steps;
    }

    void global(access a, const lane_accesses& acc) {
        if (acc.empty()) return;
        const std::uint64_t sectors = distinct_units(acc, sector_bytes),
                            blocks = distinct_units(acc, m_m->block_bytes());
        instruction(1, acc.size());
        m_c[counter::io_blocks] += blocks;
        if (a == access::atomic) {
            m_c[counter::global_atomic_instructions] += 1;
            m_c[counter::global_atomic_sectors] += sectors;  // distinct addresses only in these kernels
            m_c[counter::global_atomic_blocks] += blocks;
            return;
        }
        add_global(m_c, a == access::load, 1, sectors, blocks);
    }
    // Contiguous lanes: `lanes` accesses of `bytes` bytes from `first`, `stride` apart.
    void global(access a, std::uint64_t first, std::uint64_t lanes, std::uint64_t bytes, std::uint64_t stride) {
        lane_accesses acc;
        for (std::uint64_t l = 0; l < lanes; ++l) acc.push_back({first + l * stride, std::uint32_t(bytes)});
        global(a, acc);
    }
    void shared(access a, const lane_accesses& acc) {
        if (acc.empty()) return;
        std::vector<std::uint32_t> lanes(acc.size());
        for (std::size_t l = 0; l < acc.size(); ++l) lanes[l] = std::uint32_t(l);
        const bank_cost cost = access_coster(*m_m).shared(acc, lanes);
        m_c[counter::warp_instructions] += 1;
        m_c[counter::lane_accesses] += acc.size();
        add_shared(m_c, a == access::load ? shared_op::load : shared_op::store, 1, cost);
        m_steps += cost.wf;
    }
    void shared(access a, std::uint64_t first, std::uint64_t lanes, std::uint64_t bytes, std::uint64_t stride) {
        lane_accesses acc;
        for (std::uint64_t l = 0; l < lanes; ++l) acc.push_back({first + l * stride, std::uint32_t(bytes)});
        shared(a, acc);
    }
    void collectives(std::uint64_t k) {
        m_c[counter::collective_instructions] += k;
        m_c[counter::warp_instructions] += k;
        m_steps += k;
    }
    void barriers(std::uint64_t k) {
        m_c[counter::barrier_instructions] += k;
        m_c[counter::warp_instructions] += k;
        m_steps += k;
    }
    // A global warp-instruction whose sectors and blocks are not known (random
    // addresses): its instruction, request, lanes and step only.
    void random_load(std::uint64_t lanes) {
        instruction(1, lanes);
        m_c[counter::global_load_instructions] += 1;
        m_c[counter::global_load_requests] += 1;
        m_c[counter::global_requests] += 1;
    }

private:
    void instruction(std::uint64_t k, std::uint64_t lanes) {
        m_c[counter::warp_instructions] += k;
        m_c[counter::lane_accesses] += lanes;
        m_steps += k;
    }
    const machine* m_m;
    counts m_c;
    std::uint64_t m_steps = 0;
};

std::uint64_t clamp_lanes(std::uint64_t limit, std::uint64_t first, std::uint64_t b) {
    return first >= limit ? 0 : std::min(b, limit - first);
}

// ---- the builds ----

// Shared offsets (bytes): slot at 0, then the kernel's arrays.
struct shared_map {
    std::uint64_t sb_local, warp_total, warp_base, words;
};
constexpr shared_map jacobson_shared{8, 8 + tile_chunks * 4, 8 + tile_chunks * 4 + max_warps * 4,
                                     (8 + tile_chunks * 4 + max_warps * 4 + max_warps * 8) / 4};
constexpr shared_map interleaved_shared{0, 8, 8 + max_warps * 4, (8 + max_warps * 4 + max_warps * 8) / 4};

// The tile claim (tile_claim), the same in both builds.
void claim(tally& t, std::uint64_t tiles, std::uint64_t W, std::uint64_t b) {
    t.global(access::atomic, 8 * tiles, 1, 8, 8);
    t.shared(access::store, 0, 1, 8, 8);
    t.barriers(W);
    for (std::uint64_t w = 0; w < W; ++w) t.shared(access::load, lane_accesses(b, {0, 8}));
}

// Warp totals and the chained prefix around it, the same in both builds:
// lane 0 of each warp stores its total; barrier; warp 0 scans them and looks back; barrier.
void combine(tally& t, std::uint64_t tile, const shared_map& sh, std::uint64_t W, std::uint64_t b) {
    for (std::uint64_t w = 0; w < W; ++w) t.shared(access::store, sh.warp_total + 4 * w, 1, 4, 4);
    t.barriers(2 * W);
    t.shared(access::load, sh.warp_total, W, 4, 4);
    t.collectives(log2_exact(b) + 1);
    if (tile == 0) {
        t.global(access::atomic, 0, 1, 8, 8);
    } else {
        const std::uint64_t lanes = std::min(b, tile);
        t.global(access::atomic, 8 * tile, 1, 8, 8);
        lane_accesses acc;
        for (std::uint64_t l = 0; l < lanes; ++l) acc.push_back({8 * (tile - 1 - l), 8});
        t.global(access::atomic, acc);
        t.collectives(2 + log2_exact(b));
        t.global(access::atomic, 8 * tile, 1, 8, 8);
    }
    t.shared(access::store, sh.warp_base, W, 8, 8);
}

// jacobson_build's tile `tile`, without claim() and combine().
tally jacobson_tile(const machine& m, const jacobson_shape& s, std::uint64_t tile) {
    const std::uint64_t b = m.b, W = block_threads / b, g = std::uint64_t(1) << (s.log_l - 7);
    const bool s8 = s.log_s == 3;
    tally t(m);
    for (std::uint64_t w = 0; w < W; ++w)
        for (std::uint64_t it = 0; it < items; ++it) {
            const std::uint64_t first = tile * tile_chunks + (w * items + it) * b;
            t.global(access::load, 16 * first, clamp_lanes(s.data_chunks, first, b), 16, 16);
            t.collectives(log2_exact(b) + 2);
            const std::uint64_t st_lanes = clamp_lanes(s.chunks, first, b);
            if (s8) {
                t.global(access::store, 32 * first, st_lanes, 16, 32);
                t.global(access::store, 32 * first + 16, st_lanes, 16, 32);
            } else {
                t.global(access::store, 16 * first, st_lanes, 16, 16);
            }
            t.shared(access::store, jacobson_shared.sb_local + 4 * (w * items + it) * (b / g), b / g, 4, 4);
        }
    const std::uint64_t per_tile = tile_chunks / g, per_warp = items * b / g;
    for (std::uint64_t j0 = 0; j0 < per_tile; j0 += b) {
        const std::uint64_t live = clamp_lanes(s.superblocks, tile * per_tile + j0, b);
        if (live == 0) continue;
        t.shared(access::load, lane_accesses(live, {jacobson_shared.warp_base + 8 * (j0 / per_warp), 8}));
        t.shared(access::load, jacobson_shared.sb_local + 4 * j0, live, 4, 4);
        t.global(access::store, 8 * (tile * per_tile + j0), live, 8, 8);
    }
    return t;
}

// interleaved_build's tile `tile`, without claim() and combine().
tally interleaved_tile(const machine& m, const interleaved_shape& s, std::uint64_t tile) {
    const std::uint64_t b = m.b, W = block_threads / b;
    tally t(m);
    for (std::uint64_t w = 0; w < W; ++w) {
        for (std::uint64_t it = 0; it < items; ++it) {
            const std::uint64_t j0 = tile * tile_lines + (w * items + it) * (b / 4);
            lane_accesses first_words, second_words;
            for (std::uint64_t l = 0; l < b; ++l) {
                const std::uint64_t x = 7 * (j0 + l / 4) + 2 * (l % 4);
                if (l % 4 > 0 && x - 1 < s.data_words) first_words.push_back({8 * (x - 1), 8});
                if (x < s.data_words) second_words.push_back({8 * x, 8});
            }
            t.global(access::load, first_words);
            t.global(access::load, second_words);
            t.collectives(log2_exact(b) + 3);
            t.global(access::store, 64 * j0, clamp_lanes(4 * s.lines, 4 * j0, b), 16, 16);
        }
        t.shared(access::load, lane_accesses(b, {interleaved_shared.warp_base + 8 * w, 8}));
    }
    return t;
}

// Sums tiles 0..T-1 of a build. Tiles differ only in their look-back (by
// min(b, t) and by t modulo the status words per sector and per block) and
// in the last two (the last holds the end of the tables; the one before may
// hold the end of the bit vector), so a few are costed and the rest repeat.
template <class Tile>
tally build_costs(const machine& m, std::uint64_t tiles, const shared_map& sh, Tile tile_body,
                  std::uint64_t& time_steps, std::uint64_t& chain_waits, std::uint64_t& chain_collectives) {
    const std::uint64_t b = m.b, W = block_threads / b, period = std::max<std::uint64_t>(4, b / 2);
    std::map<std::uint64_t, tally> bodies, heads;  // by tile (last two) and by look-back class
    const auto body = [&](std::uint64_t t) -> const tally& {
        const std::uint64_t key = t + 2 >= tiles ? t : 0;
        auto it = bodies.find(key);
        if (it == bodies.end()) it = bodies.emplace(key, tile_body(key)).first;
        return it->second;
    };
    const auto head = [&](std::uint64_t t) -> const tally& {
        const std::uint64_t key = t < b ? t : b + t % period;
        auto it = heads.find(key);
        if (it == heads.end()) {
            tally one(m);
            claim(one, tiles, W, b);
            combine(one, t, sh, W, b);
            it = heads.emplace(key, one).first;
        }
        return it->second;
    };
    tally total(m);
    std::vector<std::uint64_t> steps(tiles);
    std::uint64_t heaviest = 0, heaviest_collectives = 0;  // the most waits (collectives) of a tile
    for (std::uint64_t t = 0; t < tiles; ++t) {
        const tally& h = head(t);
        const tally& bd = body(t);
        steps[t] = h.steps() + bd.steps();
        heaviest = std::max(heaviest, block_waits(h.all()) + block_waits(bd.all()));
        heaviest_collectives = std::max(heaviest_collectives, block_collectives(h.all()) + block_collectives(bd.all()));
        total.add(h);
        total.add(bd);
    }
    time_steps = greedy_makespan(steps, m.k());
    chain_waits = launch_chain(heaviest, block_threads, b);
    chain_collectives = launch_chain(heaviest_collectives, block_threads, b);
    return total;
}

partial_counts to_partial(const tally& t) { return every_counter(t.all()); }

// Launch-level counters of a launch of `blocks` blocks of `threads`.
void launch(partial_counts& c, std::uint64_t blocks, std::uint64_t threads) {
    c[counter::launches] += 1;
    c[counter::thread_blocks] += blocks;
    c[counter::threads] += blocks * threads;
}

partial_counts jacobson_build_counts(const machine& m, std::uint64_t n) {
    const jacobson_shape s = jacobson_of(n);
    std::uint64_t time = 0, chain = 0, collectives = 0;
    const tally t = build_costs(
        m, s.tiles, jacobson_shared, [&](std::uint64_t tile) { return jacobson_tile(m, s, tile); }, time, chain,
        collectives);
    partial_counts c = to_partial(t);
    c[counter::time_steps] = time;
    c[counter::chain_waits] = chain;
    c[counter::chain_collectives] = collectives;
    c[counter::shared_words_max] = jacobson_shared.words;
    launch(c, s.tiles, block_threads);
    return c;
}

partial_counts interleaved_build_counts(const machine& m, std::uint64_t n) {
    const interleaved_shape s = interleaved_of(n);
    std::uint64_t time = 0, chain = 0, collectives = 0;
    const tally t = build_costs(
        m, s.tiles, interleaved_shared, [&](std::uint64_t tile) { return interleaved_tile(m, s, tile); }, time, chain,
        collectives);
    partial_counts c = to_partial(t);
    c[counter::time_steps] = time;
    c[counter::chain_waits] = chain;
    c[counter::chain_collectives] = collectives;
    c[counter::shared_words_max] = interleaved_shared.words;
    launch(c, s.tiles, block_threads);
    return c;
}

// ---- the queries ----

// One random-load site of a query kernel: its array's size in bytes (for the
// upper bound) and whether every lane reads the same address (exact: 1 unit).
struct random_site {
    std::uint64_t array_bytes;
    bool broadcast = false;
};

struct query_plan {
    std::vector<random_site> sites;  // in order, per warp
};

query_plan plan_of(const std::string& key, const std::string& op, std::uint64_t n) {
    query_plan q;
    if (key == "rank/jacobson") {
        const jacobson_shape s = jacobson_of(n);
        const std::uint64_t lt = 8 * s.superblocks, st = 2 * s.small_blocks, words = 16 * s.data_chunks;
        if (op == "select1") {
            q.sites.push_back({8 * (s.tiles + 1), true});
            for (std::uint64_t k = 0; k <= log2_exact(s.superblocks); ++k) q.sites.push_back({lt});
            for (std::uint64_t k = 0; k < s.log_l - s.log_s; ++k) q.sites.push_back({st});
            q.sites.push_back({words});
        } else {
            q.sites = {{lt}, {st}, {words}};
        }
    } else {
        const interleaved_shape s = interleaved_of(n);
        const std::uint64_t lines = 64 * s.lines;
        if (op == "select1") {
            q.sites.push_back({8 * (s.tiles + 1), true});
            for (std::uint64_t k = 0; k <= log2_exact(s.lines); ++k) q.sites.push_back({lines});
        }
        q.sites.push_back({lines});
        q.sites.push_back({lines});
    }
    return q;
}

std::uint64_t query_count(std::uint64_t n, const param_values& p) {
    const auto q = static_cast<std::uint64_t>(p.integer("queries"));
    return q != 0 ? q : std::min<std::uint64_t>(n, std::uint64_t(1) << 20);
}

// The warps of a query launch: `full` of b live lanes and, if Q mod b > 0, one of `rest`.
struct query_warps {
    std::uint64_t full = 0, rest = 0;
};

// Exact counters of one warp of `lanes` live lanes (its first query `first`).
tally query_warp(const machine& m, const query_plan& plan, std::uint64_t first, std::uint64_t lanes) {
    tally t(m);
    t.global(access::load, 8 * first, lanes, 8, 8);
    for (const auto& s : plan.sites) {
        if (s.broadcast) t.global(access::load, lane_accesses(lanes, {0, 8}));
        else t.random_load(lanes);
    }
    t.global(access::store, 8 * first, lanes, 8, 8);
    return t;
}

// Exact counters of the query launch; its warps in `warps`.
tally query_costs(const machine& m, const query_plan& plan, std::uint64_t queries, std::uint64_t& time_steps,
                  std::uint64_t& chain_waits, query_warps& warps, std::uint64_t& chain_collectives) {
    const std::uint64_t b = m.b, blocks = (queries + query_threads - 1) / query_threads;
    warps = {queries / b, queries % b};
    tally total(m);
    const tally full = query_warp(m, plan, 0, b);  // every full warp starts 8b-byte aligned: the same costs
    total.add(full, warps.full);
    const tally rest = warps.rest > 0 ? query_warp(m, plan, warps.full * b, warps.rest) : tally(m);
    total.add(rest);
    // The last block: its full warps and the rest; every other block: query_threads / b full warps.
    const std::uint64_t last_full = (queries - (blocks - 1) * query_threads) / b;
    std::vector<std::uint64_t> steps(blocks, full.steps() * (query_threads / b));
    steps.back() = full.steps() * last_full + rest.steps();
    time_steps = greedy_makespan(steps, m.k());
    const auto chain = [&](std::uint64_t (*per)(const counts&)) {  // the heaviest block's, per warp
        const std::uint64_t last = per(full.all()) * last_full + per(rest.all());
        return launch_chain(std::max(blocks > 1 ? per(full.all()) * (query_threads / b) : 0, last), query_threads, b);
    };
    chain_waits = chain(block_waits);
    chain_collectives = chain(block_collectives);
    return total;
}

partial_counts rank_costs(const machine& m, const std::string& key, std::uint64_t n, const param_values& p) {
    partial_counts c = key == "rank/jacobson" ? jacobson_build_counts(m, n) : interleaved_build_counts(m, n);
    const std::string& op = p.text("op");
    if (op == "build") return c;
    const query_plan plan = plan_of(key, op, n);
    const std::uint64_t queries = query_count(n, p);
    std::uint64_t time = 0, chain = 0;
    query_warps warps;
    std::uint64_t qcollectives = 0;
    const tally q = query_costs(m, plan, queries, time, chain, warps, qcollectives);
    for (std::size_t i = 0; i < counter_count; ++i) c[counter(i)] += q.all().v[i];
    c[counter::time_steps] += time;
    c[counter::chain_waits] += chain;
    c[counter::chain_collectives] += qcollectives;
    launch(c, (queries + query_threads - 1) / query_threads, query_threads);
    // The random loads' sectors and blocks depend on the data: in the bounds only.
    for (counter k :
         {counter::global_load_sectors, counter::global_load_blocks, counter::global_sectors, counter::io_blocks})
        c.erase(k);
    return c;
}

partial_counts jacobson_costs(const machine& m, std::uint64_t n, const param_values& p) {
    return rank_costs(m, "rank/jacobson", n, p);
}
partial_counts interleaved_costs(const machine& m, std::uint64_t n, const param_values& p) {
    return rank_costs(m, "rank/interleaved", n, p);
}

AGPU_REGISTER_CLOSED_FORM({"rank/jacobson",
                           "build (1 launch): per tile of 2048 chunks, per warp-item 1 16-byte load, log2 b + 2 "
                           "shuffles, 1 (S=16) or 2 (S=8) ST stores, then 2048/g LT stores and a chained prefix "
                           "(3 atomics); queries (1 launch): per warp 1 argument load, 3 random loads (rank) or "
                           "floor(log2 P) + log2(L/S) + 3 (select), 1 store",
                           jacobson_costs,
                           {},
                           [](const machine& m, std::uint64_t n, const param_values& p) {
                               return rank_costs::rank_query_bounds(m, "rank/jacobson", n, p);
                           }});
AGPU_REGISTER_CLOSED_FORM({"rank/interleaved",
                           "build (1 launch): per tile of 512 lines, per warp-item 2 8-byte loads over 14b bytes, "
                           "log2 b + 3 shuffles, 1 store of 16b bytes, and a chained prefix (3 atomics); queries "
                           "(1 launch): per warp 1 argument load, 2 random 16-byte loads in one line (rank) or "
                           "floor(log2 lines) + 4 (select), 1 store",
                           interleaved_costs,
                           {},
                           [](const machine& m, std::uint64_t n, const param_values& p) {
                               return rank_costs::rank_query_bounds(m, "rank/interleaved", n, p);
                           }});

}  // namespace

namespace rank_costs {

count_bounds rank_query_bounds(const machine& m, const std::string& key, std::uint64_t n, const param_values& p) {
    count_bounds r;
    const std::string& op = p.text("op");
    if (op == "build") return r;  // every counter of a build is exact
    const partial_counts build = key == "rank/jacobson" ? jacobson_build_counts(m, n) : interleaved_build_counts(m, n);
    const auto exact = [&](counter k) { return build.count(k) ? build.at(k) : 0; };
    std::uint64_t lo_sec = exact(counter::global_load_sectors), lo_blk = exact(counter::global_load_blocks);
    std::uint64_t hi_sec = lo_sec, hi_blk = lo_blk;
    std::uint64_t store_sec = exact(counter::global_store_sectors), io_other = exact(counter::io_blocks) - lo_blk;
    {
        const query_plan plan = plan_of(key, op, n);
        const std::uint64_t queries = query_count(n, p);
        std::uint64_t time = 0, chain = 0;
        query_warps warps;
        std::uint64_t qcollectives = 0;
        const tally q = query_costs(m, plan, queries, time, chain, warps, qcollectives);
        // Exact parts (argument loads, broadcasts, answer stores) ...
        lo_sec += q[counter::global_load_sectors];
        lo_blk += q[counter::global_load_blocks];
        hi_sec += q[counter::global_load_sectors];
        hi_blk += q[counter::global_load_blocks];
        store_sec += q[counter::global_store_sectors];
        io_other += q[counter::global_store_blocks];
        // ... and each random load: between 1 and min(lanes, its array's units).
        for (const auto& s : plan.sites) {
            if (s.broadcast) continue;
            const std::uint64_t sec = (s.array_bytes + sector_bytes - 1) / sector_bytes;
            const std::uint64_t blk = (s.array_bytes + m.block_bytes() - 1) / m.block_bytes();
            const std::uint64_t count = warps.full + (warps.rest > 0 ? 1 : 0);
            lo_sec += count;
            lo_blk += count;
            hi_sec += warps.full * std::min<std::uint64_t>(m.b, sec) + std::min(warps.rest, sec);
            hi_blk += warps.full * std::min<std::uint64_t>(m.b, blk) + std::min(warps.rest, blk);
        }
    }
    r.low[counter::global_load_sectors] = lo_sec;
    r.high[counter::global_load_sectors] = hi_sec;
    r.low[counter::global_load_blocks] = lo_blk;
    r.high[counter::global_load_blocks] = hi_blk;
    r.low[counter::global_sectors] = lo_sec + store_sec;
    r.high[counter::global_sectors] = hi_sec + store_sec;
    r.low[counter::io_blocks] = lo_blk + io_other;
    r.high[counter::io_blocks] = hi_blk + io_other;
    return r;
}

}  // namespace rank_costs
}  // namespace agpu::model
