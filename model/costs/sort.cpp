// The sort family's plan (agpu/model/sort_plan.hpp) and closed-form costs
// (kernels/sort/).
//
// Exact at every n on any machine (kernels/sort/tests/sort_test.cpp checks
// them against the simulator on b = 32, 16 and 64 and a small M):
//   every algorithm: launches, thread_blocks, threads, shared_words_max (the
//     plan is a function of n, the machine and the parameters only);
//   sort/bitonic: every global counter (requests, instructions, sectors,
//     blocks; loads and stores) and io_blocks: every compare-exchange loads
//     and stores both elements, so the addresses do not depend on the data;
//   sort/multiway, sort/pairwise: the same global counters when every merge
//     pass is of the first kind (parts = 1: a block merges a whole group):
//     leaves read their runs in C-element moves from the runs' starts and the
//     root writes C-element moves from the group's start (a node passes C
//     elements every time but the last, see multiway.cuh), all at the same
//     offsets whatever the keys.
// Bounded (sort_bounds): with split ranges (parts > 1) the ranges start where
// the pivots fall and select_pivots' and split_search's binary searches go
// where the keys say: global sectors and blocks lie between what the elements
// need when perfectly aligned and one extra sector per warp-instruction on the
// most instructions the ranges can take, plus a sector per probe.
// Not given: time steps, shared wavefronts and conflicts, warp-instructions,
// barriers and compute: the merges' co-rank searches and the heap's choices
// depend on the keys (the bitonic network's do not, and follow the same
// pattern as block_sort; a closed form for them is future work).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "agpu/errors.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/model/sort_plan.hpp"

namespace agpu::model {
namespace sort_plan {
namespace {

std::uint64_t align16(std::uint64_t x) { return (x + 15) / 16 * 16; }
std::uint64_t pow2_ceil(std::uint64_t x) { return x <= 1 ? 1 : std::uint64_t(1) << std::bit_width(x - 1); }
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::string bytes_rule(std::uint64_t bytes, const machine& m) {
    return "needs " + std::to_string(ceil_div(bytes, m.word_bytes())) +
           " words of shared memory, more than M = " + std::to_string(m.M) + " words";
}

}  // namespace

std::uint64_t heap_bytes(std::uint64_t d, std::uint64_t chunk, std::uint64_t kb, std::uint64_t vb, bool pairs,
                         bool bitonic) {
    // A ring of 2C for every child 2..2d-1 and the root's stage of C, one word
    // of padding per 32; the bitonic moves' rings unpadded and no stage
    // (multiway.cuh's heap_layout).
    const std::uint64_t slots =
        bitonic ? (2 * d - 2) * 2 * chunk : (2 * d - 2) * (2 * chunk + 2 * chunk / 32) + chunk + chunk / 32;
    std::uint64_t at = align16(slots * kb);
    if (pairs) at += align16(slots * vb);
    at += 2 * align16(16 * d);  // pos, end
    at += align16(2 * d * kb);  // last
    at += 3 * align16(8 * d);   // count, head, dry
    return at + 32;             // misc
}

std::uint64_t tile_bytes(std::uint64_t tile, std::uint64_t kb, std::uint64_t vb, bool pairs, bool tags) {
    const std::uint64_t slots = tile + tile / 32;  // one word of padding per 32 (bank-conflict-free blocked accesses)
    return align16(slots * kb) + (tags ? align16(slots * 4) : 0) + (pairs ? align16(tile * vb) : 0);
}

sort_shape shape_of(const std::string& key, const param_values& p) {
    sort_shape s;
    s.key = key;
    const std::string& type = p.text("type");
    s.key_bytes = type == "u64" ? 8 : 4;
    s.pairs = key != "sort/bitonic" && p.text("values") == "1";
    s.tile = std::stoull(p.text("tile"));
    if (key != "sort/bitonic") s.chunk = std::stoull(p.text("chunk"));
    if (key == "sort/multiway") {
        const std::string& d = p.text("d");
        s.d = d == "auto" ? 0 : std::stoull(d);
    } else {
        s.d = 2;
    }
    if (key != "sort/bitonic") {
        s.parts = static_cast<std::uint64_t>(p.integer("parts"));
        s.warps = std::stoull(p.text("warps"));
    }
    return s;
}

plan make_plan(const machine& m, std::uint64_t n, const sort_shape& s) {
    plan out;
    out.n = n;
    out.tiles = ceil_div(n, s.tile);
    if (const std::uint64_t most = max_tile(m, s); s.tile > most)
        throw input_error(
            "option --set tile=" + std::to_string(s.tile),
            s.key + ": a tile is at most " + std::to_string(most) +
                (big_tiles(m, s) ? " (" + std::to_string(max_block_threads) + " threads of " +
                                       std::to_string(max_block_items) + " elements)"
                                 : " (" + std::to_string(threads) + " threads of " + std::to_string(max_block_items) +
                                       " elements; larger tiles only for keys alone in sort/multiway "
                                       "or sort/pairwise on b = " +
                                       std::to_string(bitonic_lanes) + ")"));
    out.block_threads = block_threads(s);
    out.tile_bytes = tile_bytes(s.tile, s.key_bytes, s.value_bytes, s.pairs, tile_tags(s));
    if (out.tile_bytes > m.shared_bytes())
        throw input_error("option --set tile=" + std::to_string(s.tile),
                          s.key + ": a tile " + bytes_rule(out.tile_bytes, m));
    if (s.key == "sort/bitonic" || out.tiles <= 1) return out;
    const bool bitonic = bitonic_items(m, s) > 0;  // the heap's layout (multiway.cuh's heap_layout)
    std::uint64_t d_max = s.d;
    if (d_max == 0) {  // the largest d whose heap fits in M/heaps_per_mp; at least 4 where that fits in M (d = 2 is
                       // sort/pairwise)
        auto fits = [&](std::uint64_t d, std::uint64_t heaps) {
            return heap_bytes(d, s.chunk, s.key_bytes, s.value_bytes, s.pairs, bitonic) * heaps <= m.shared_bytes();
        };
        d_max = fits(4, 1) ? 4 : 2;
        while (d_max < 256 && fits(2 * d_max, heaps_per_mp)) d_max *= 2;
    }
    if (const std::uint64_t hb = heap_bytes(d_max, s.chunk, s.key_bytes, s.value_bytes, s.pairs, bitonic);
        hb > m.shared_bytes())
        throw input_error(
            s.d ? "option --set d=" + std::to_string(s.d) : "option --set chunk=" + std::to_string(s.chunk),
            s.key + ": a heap of d = " + std::to_string(d_max) + " leaves and chunk " + std::to_string(s.chunk) + " " +
                bytes_rule(hb, m));
    const std::uint64_t k = m.k();
    std::uint64_t runs = out.tiles, len = s.tile;
    while (runs > 1) {
        merge_pass ps;
        ps.d = std::min(d_max, pow2_ceil(runs));
        ps.run_len = len;
        ps.runs = runs;
        ps.groups = ceil_div(runs, ps.d);
        ps.heap_bytes = heap_bytes(ps.d, s.chunk, s.key_bytes, s.value_bytes, s.pairs, bitonic);
        ps.resident =
            k * std::clamp<std::uint64_t>(m.shared_bytes() / ps.heap_bytes, 1,
                                          std::min(max_blocks_per_mp, max_threads_per_mp / merge_threads(m, s.warps)));
        if (s.parts > 0) ps.parts = s.parts;
        else if (ps.groups >= waves * ps.resident) ps.parts = 1;
        // Enough ranges for waves·resident blocks, but no more than L/(range_chunks·C), rounded down to a
        // power of two (sort_plan.hpp).
        else
            ps.parts = std::bit_floor(std::max<std::uint64_t>(
                1, std::min(ceil_div(waves * ps.resident, ps.groups), len / (range_chunks * s.chunk))));
        if (ps.parts > 1) {
            // Samples: samples_per_part per part from every run (one thread each, no shared memory), at most
            // the run (a power of two: tile·d^i); tags run·per_run + sample in 32 bits.
            ps.per_run = std::min(pow2_ceil(samples_per_part * ps.parts), ps.run_len);
            if (ps.d * ps.per_run > std::numeric_limits<std::uint32_t>::max())
                throw input_error(s.parts > 0 ? "option --set parts=" + std::to_string(s.parts)
                                              : "device field agpu.p = " + std::to_string(m.p),
                                  s.key + ": " + std::to_string(ps.d * ps.per_run) +
                                      " pivot samples a group, more than select_pivots' 32-bit tags hold");
            // At most one pivot per d samples (sort_plan.hpp).
            if (s.parts == 0) ps.parts = std::min(ps.parts, ps.per_run);
        }
        out.passes.push_back(ps);
        runs = ps.groups;
        len *= ps.d;
    }
    return out;
}

double block_sort_lanes_per_element(const machine& m, const sort_shape& s) {
    const double e = double(s.tile) / double(block_threads(s));  // E: elements per thread
    if (block_network_items(m, s) > 0) {  // its shuffles count as accesses: they cost the simulator about as much
        const double rounds = std::log2(double(block_threads(s)) / double(bitonic_lanes));
        const double lane_bits = std::log2(double(bitonic_lanes)), shuffles = lane_bits * (lane_bits + 1) / 2;
        return 2 * rounds + 6 + rounds * (11.5 + 2 * std::log2(e)) / e + shuffles;
    }
    const double lanes = 22.3 + 20.4 / e + 11.3 * (std::log2(e) + 3.5) / e;
    return lanes + (s.pairs ? 22.0 + 16.0 / e : 0.0);
}

double merge_lanes_per_key(const machine& m, const merge_pass& ps, const sort_shape& s) {
    const double levels = double(std::bit_width(ps.d) - 1), c = double(s.chunk);
    const double search = 2.0 * double(merge_threads(m, s.warps)) * (std::log2(c) + 1) / c;
    return s.pairs ? 9.0 + levels * (2 * search + 2.0) : 4.5 + levels * (search + 3.4);
}

double merge_sort_lanes(const machine& m, const plan& pl, const sort_shape& s) {
    double per_key = block_sort_lanes_per_element(m, s);
    for (const auto& ps : pl.passes) per_key += merge_lanes_per_key(m, ps, s);
    return double(pl.n) * per_key;
}

}  // namespace sort_plan

namespace sort_costs {

namespace {

using namespace sort_plan;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Global counters of warp-instructions over contiguous bytes.
struct global_tally {
    const machine* m;
    partial_counts c;
    void access(bool load, std::uint64_t first_byte, std::uint64_t bytes, std::uint64_t times = 1) {
        const std::uint64_t sectors = units(first_byte, bytes, sector_bytes) * times;
        const std::uint64_t blocks = units(first_byte, bytes, m->block_bytes()) * times;
        add_global(c, load, times, sectors, blocks);
        c[counter::io_blocks] += blocks;
    }
    // A loop `for (i = t; i < len; i += threads)` of one access of `s`-byte
    // elements from element `first` (aligned as the element index says).
    void strided_loop(bool load, std::uint64_t first, std::uint64_t len, std::uint64_t s, std::uint64_t times = 1) {
        const std::uint64_t b = m->b;
        for (std::uint64_t w0 = 0; w0 < len; w0 += b) {
            const std::uint64_t live = std::min(b, len - w0);
            access(load, (first + w0) * s, live * s, times);
        }
    }
    // len elements moved in chunks of `chunk` from element `first` (each chunk its own loop).
    void chunked(bool load, std::uint64_t first, std::uint64_t len, std::uint64_t chunk, std::uint64_t s,
                 std::uint64_t times = 1) {
        for (std::uint64_t c0 = 0; c0 < len; c0 += chunk)
            strided_loop(load, first + c0, std::min(chunk, len - c0), s, times);
    }
};

// The exact counters every sort has: launches, blocks, threads, shared words.
void add_launch(partial_counts& c, const machine& m, std::uint64_t blocks, std::uint64_t shared_bytes,
                std::uint64_t block_threads = threads) {
    c[counter::launches] += 1;
    c[counter::thread_blocks] += blocks;
    c[counter::threads] += blocks * block_threads;
    c[counter::shared_words_max] = std::max(c[counter::shared_words_max], ceil_div(shared_bytes, m.word_bytes()));
}

void init_exact(partial_counts& c, bool with_global) {
    for (counter k : {counter::launches, counter::thread_blocks, counter::threads, counter::shared_words_max}) c[k] = 0;
    if (with_global)
        for (counter k :
             {counter::global_load_instructions, counter::global_load_requests, counter::global_load_sectors,
              counter::global_load_blocks, counter::global_store_instructions, counter::global_store_requests,
              counter::global_store_sectors, counter::global_store_blocks, counter::global_requests,
              counter::global_sectors, counter::io_blocks, counter::global_atomic_instructions,
              counter::global_atomic_sectors, counter::global_atomic_blocks})
            c[k] = 0;
}

// block_sort (and bitonic_tile_merge, with pairs = false) over n elements in tiles.
void tile_pass(global_tally& g, std::uint64_t n, std::uint64_t tile, std::uint64_t kb, std::uint64_t vb, bool pairs) {
    const std::uint64_t full = n / tile, rest = n % tile;
    for (bool load : {true, false}) {
        g.strided_loop(load, 0, tile, kb, full);
        if (rest) g.strided_loop(load, full * tile, rest, kb);
        if (pairs) {
            g.strided_loop(load, 0, tile, vb, full);
            if (rest) g.strided_loop(load, full * tile, rest, vb);
        }
    }
}

bool exact_global(const plan& pl) {
    return std::all_of(pl.passes.begin(), pl.passes.end(), [](const merge_pass& p) { return p.parts == 1; });
}

partial_counts merge_sort_costs(const machine& m, std::uint64_t n, const param_values& p, const std::string& key) {
    const sort_shape s = shape_of(key, p);
    const plan pl = make_plan(m, n, s);
    partial_counts c;
    const bool exact = exact_global(pl);
    init_exact(c, exact);
    if (n == 0) return c;
    global_tally g{&m, {}};
    add_launch(c, m, pl.tiles, pl.tile_bytes, pl.block_threads);
    tile_pass(g, n, s.tile, s.key_bytes, s.value_bytes, s.pairs);
    for (const auto& ps : pl.passes) {
        if (ps.parts > 1) {
            add_launch(c, m, ceil_div(pivot_samples(ps), threads), 0);                  // select_pivots
            add_launch(c, m, ceil_div(ps.groups * (ps.parts + 1) * ps.d, threads), 0);  // split_search
        }
        add_launch(c, m, ps.groups * ps.parts, ps.heap_bytes, merge_threads(m, s.warps));
        if (!exact) continue;
        // Leaves: every run from its start in chunks; roots: every group from its start in chunks.
        const std::uint64_t full_runs = n / ps.run_len, last_run = n % ps.run_len;
        const std::uint64_t glen = ps.d * ps.run_len, full_groups = n / glen, last_group = n % glen;
        for (auto [s_, load] : {std::pair{s.key_bytes, true}, std::pair{s.value_bytes, false}}) {
            (void)load;
            if (!load && !s.pairs) continue;
            g.chunked(true, 0, ps.run_len, s.chunk, s_, full_runs);
            if (last_run) g.chunked(true, full_runs * ps.run_len, last_run, s.chunk, s_);
            g.chunked(false, 0, glen, s.chunk, s_, full_groups);
            if (last_group) g.chunked(false, full_groups * glen, last_group, s.chunk, s_);
        }
    }
    if (exact)
        for (auto& [k, v] : g.c) c[k] += v;
    return c;
}

partial_counts multiway(const machine& m, std::uint64_t n, const param_values& p) {
    return merge_sort_costs(m, n, p, "sort/multiway");
}
partial_counts pairwise(const machine& m, std::uint64_t n, const param_values& p) {
    return merge_sort_costs(m, n, p, "sort/pairwise");
}

// The exact simulator's lane accesses (sort_plan's estimates per element and key).
double merge_sort_lanes(const machine& m, std::uint64_t n, const param_values& p, const std::string& key) {
    const sort_shape s = shape_of(key, p);
    return sort_plan::merge_sort_lanes(m, make_plan(m, n, s), s);
}
double multiway_lanes(const machine& m, std::uint64_t n, const param_values& p) {
    return merge_sort_lanes(m, n, p, "sort/multiway");
}
double pairwise_lanes(const machine& m, std::uint64_t n, const param_values& p) {
    return merge_sort_lanes(m, n, p, "sort/pairwise");
}
// sort/bitonic: block_sort, then per stage s its s global steps (a load and a
// store of each element) and a tile merge (log2(tile) steps on chip, as block_sort's last).
double bitonic_lanes(const machine& m, std::uint64_t n, const param_values& p) {
    const sort_shape s = shape_of("sort/bitonic", p);
    if (n <= s.tile) return double(n) * block_sort_lanes_per_element(m, s);
    const double levels = double(std::bit_width(s.tile) - 1);
    const double stages = double(std::bit_width(n - 1)) - levels;
    return double(n) * (block_sort_lanes_per_element(m, s) + stages * (stages + 1) + stages * (4 * levels + 2));
}

// sort/bitonic: block_sort, then per stage the global steps and a tile merge.
partial_counts bitonic(const machine& m, std::uint64_t n, const param_values& p) {
    const sort_shape s = shape_of("sort/bitonic", p);
    const plan pl = make_plan(m, n, s);
    partial_counts c;
    init_exact(c, true);
    if (n == 0) return c;
    global_tally g{&m, {}};
    const std::uint64_t kb = s.key_bytes, b = m.b;
    add_launch(c, m, pl.tiles, pl.tile_bytes);
    tile_pass(g, n, s.tile, kb, 0, false);
    const std::uint64_t big = std::uint64_t(1) << std::bit_width(n - 1);  // n rounded up to a power of two
    const std::uint64_t pairs = n <= 1 ? 0 : big / 2;
    for (std::uint64_t k = 2 * s.tile; k <= big && n > s.tile; k *= 2) {
        for (std::uint64_t j = k / 2; j >= s.tile; j /= 2) {
            const bool mirror = j == k / 2;
            add_launch(c, m, ceil_div(pairs, threads), 0);
            // A warp's lanes p0..p0+b-1 lie in one run of j pairs (j >= tile >= b): i contiguous, l contiguous
            // (ascending, or descending for the mirror step). Active lanes: l < n.
            for (std::uint64_t p0 = 0; p0 < pairs; p0 += b) {
                const std::uint64_t lanes = std::min(b, pairs - p0);
                const std::uint64_t i0 = ((p0 & ~(j - 1)) << 1) | (p0 & (j - 1));
                std::uint64_t lo_i = 0, active = 0, lo_l = 0;
                if (!mirror) {  // l = i + j rises with the lane: the first lanes are active
                    active = i0 + j >= n ? 0 : std::min(lanes, n - (i0 + j));
                    lo_i = i0;
                    lo_l = i0 + j;
                } else {  // l = i ^ (k - 1) falls with the lane: the last lanes are active
                    const std::uint64_t l_first = i0 ^ (k - 1);  // the first lane's (largest) l
                    const std::uint64_t l_last = l_first - (lanes - 1);
                    if (l_last < n) {
                        active = std::min(lanes, n - l_last);
                        lo_l = l_last;
                        lo_i = i0 + (lanes - active);
                    }
                }
                if (!active) continue;
                for (bool load : {true, false}) {
                    g.access(load, lo_i * kb, active * kb);
                    g.access(load, lo_l * kb, active * kb);
                }
            }
        }
        add_launch(c, m, pl.tiles, pl.tile_bytes);
        tile_pass(g, n, s.tile, kb, 0, false);
    }
    for (auto& [k, v] : g.c) c[k] += v;
    return c;
}

}  // namespace

// The closed forms' bounds (closed_form::bounds) of a run of `key`.
count_bounds sort_bounds(const machine& m, const std::string& key, std::uint64_t n, const param_values& p) {
    count_bounds out;
    if (key == "sort/bitonic" || n == 0) return out;
    const sort_shape s = shape_of(key, p);
    const plan pl = make_plan(m, n, s);
    if (exact_global(pl)) return out;
    // Exact part: block_sort and the passes of the first kind.
    global_tally g{&m, {}};
    tile_pass(g, n, s.tile, s.key_bytes, s.value_bytes, s.pairs);
    std::uint64_t low_sectors = 0, high_sectors = 0, low_blocks = 0, high_blocks = 0;
    const std::uint64_t b = m.b, bb = m.block_bytes();
    for (const auto& ps : pl.passes) {
        std::uint64_t len = ps.run_len;
        const std::uint64_t glen = ps.d * len, full_runs = n / len, last_run = n % len;
        const std::uint64_t full_groups = n / glen, last_group = n % glen;
        for (int a = 0; a < (s.pairs ? 2 : 1); ++a) {
            const std::uint64_t e = a == 0 ? s.key_bytes : s.value_bytes;
            if (ps.parts == 1) {
                g.chunked(true, 0, len, s.chunk, e, full_runs);
                if (last_run) g.chunked(true, full_runs * len, last_run, s.chunk, e);
                g.chunked(false, 0, glen, s.chunk, e, full_groups);
                if (last_group) g.chunked(false, full_groups * glen, last_group, s.chunk, e);
                continue;
            }
            // Every element read once and written once; the most warp-instructions: every chunk of every
            // range (n/C + one partial per range), ceil(C/b) each, reading and writing.
            const std::uint64_t ranges = ps.groups * ps.parts * ps.d;
            const std::uint64_t instr = (n / s.chunk + ranges) * ceil_div(s.chunk, b);
            low_sectors += 2 * ceil_div(n * e, sector_bytes);
            low_blocks += 2 * ceil_div(n * e, bb);
            high_sectors += 2 * (ceil_div(n * e, sector_bytes) + instr);
            high_blocks += 2 * (ceil_div(n * e, bb) + instr);
        }
        if (ps.parts > 1) {
            // select_pivots: a thread per sample loads it and binary-searches the samples of the group's
            // d - 1 other runs (at most bit_width(per_run) probes each), one sector and block at most per lane;
            // the pivots' keys and tags stored (P - 1 per group, one sector each at most); split_search: the
            // pivot's key and tag loaded (one sector each per thread at most), the searches
            // (ceil(log2(L + 1)) probes per (q, r)), the splits stored (8 bytes per (q, r)).
            const std::uint64_t searches = ps.groups * (ps.parts + 1) * ps.d;
            const std::uint64_t probes = searches * std::bit_width(len);
            const std::uint64_t samples = pivot_samples(ps) * (1 + (ps.d - 1) * std::bit_width(ps.per_run));
            const std::uint64_t pivots = ps.groups * (ps.parts - 1);
            low_sectors += ceil_div(searches * 8, sector_bytes);
            low_blocks += ceil_div(searches * 8, bb);
            high_sectors += samples + probes + searches + 2 * pivots + 2 * searches;
            high_blocks += samples + probes + searches + 2 * pivots + 2 * searches;
        }
    }
    const auto& x = g.c;
    auto at = [&](counter k) { return x.count(k) ? x.at(k) : 0; };
    const std::uint64_t exact_sectors = at(counter::global_sectors), exact_blocks = at(counter::io_blocks);
    out.low[counter::global_sectors] = exact_sectors + low_sectors;
    out.high[counter::global_sectors] = exact_sectors + high_sectors;
    out.low[counter::io_blocks] = exact_blocks + low_blocks;
    out.high[counter::io_blocks] = exact_blocks + high_blocks;
    return out;
}

}  // namespace sort_costs

namespace {

AGPU_REGISTER_CLOSED_FORM(
    {"sort/multiway",
     "block_sort of ceil(n/tile) tiles, then ceil(log_d(n/tile)) merge passes (d the largest "
     "power of two with a heap of 4·chunk·(d - 1) elements in M/16: one heap per warp, 16 per MP): per "
     "pass one launch of groups·P heaps (P = 1 while groups >= 4x the heaps the MPs hold at "
     "once) and, when P > 1, select_pivots and split_search; each pass reads and writes every "
     "element once in chunk-element coalesced moves: I/O about (1 + ceil(log_d(n/tile)))·"
     "2·n·s/(4b) blocks, Theta((n/b) log_{M/b}(n/b)); exact: launches, blocks, threads, shared "
     "words, and the global counters when P = 1",
     sort_costs::multiway, sort_costs::multiway_lanes, [](const machine& m, std::uint64_t n, const param_values& p) {
         return sort_costs::sort_bounds(m, "sort/multiway", n, p);
     }});
AGPU_REGISTER_CLOSED_FORM({"sort/pairwise",
                           "sort/multiway with d = 2: ceil(log2(n/tile)) merge passes, each reading and writing every "
                           "element once: I/O about (1 + log2(n/tile))·2·n·s/(4b) blocks, Theta((n/b) log(n/b))",
                           sort_costs::pairwise, sort_costs::pairwise_lanes,
                           [](const machine& m, std::uint64_t n, const param_values& p) {
                               return sort_costs::sort_bounds(m, "sort/pairwise", n, p);
                           }});
AGPU_REGISTER_CLOSED_FORM(
    {"sort/bitonic",
     "block_sort, then for each stage k = 2·tile..N (N = n rounded up to a power of two) "
     "log2(k/tile) global compare-exchange launches and a tile merge: each launch reads and writes "
     "every element once: I/O about (1 + L(L+1)/2·(1 + 1/L))·2·n·s/(4b) blocks, L = log2(N/tile); "
     "exact: launches, blocks, threads, shared words, every global counter",
     sort_costs::bitonic, sort_costs::bitonic_lanes});

}  // namespace
}  // namespace agpu::model
