// The sort family's plan: from the machine, n and the parameters, the tile and
// every merge pass's shape (d, run length, groups, parts per group, samples),
// and the shared memory each launch needs. One function, used by the drivers
// (kernels/sort/sort_runs.hpp) and the closed forms (model/costs/sort.cpp), so
// a prediction and a run take the same passes. Defined in model/costs/sort.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "agpu/model/algorithm.hpp"
#include "agpu/model/machine.hpp"

namespace agpu::model::sort_plan {

// Threads of every sort kernel's block but the merge's, and block_sort's but
// for keys alone's large tiles (kernels/sort/sort_common.cuh's sort_policy).
inline constexpr std::uint64_t threads = 256;
// Elements per thread of block_sort (sort_policy::max_items), and the most
// threads of a block (every NVIDIA GPU's since Fermi): a tile above
// threads·max_block_items (4096) needs a larger block (block_threads).
inline constexpr std::uint64_t max_block_items = 16, max_block_threads = 1024;
// Threads of a merge block (one heap): `warps` warps of 32 threads on the GPU
// (on a machine of b = 16 twice as many warps, so that a move's 2C outputs
// stay within sort_policy::max_items per thread; on b = 64 warps of 64, so
// that a leaf's read and the root's write take whole warps over b-aligned
// blocks as on the GPU).
inline std::uint64_t merge_threads(const machine& m, std::uint64_t warps) { return (m.b > 32 ? m.b : 32) * warps; }
// Heaps an MP should hold at once (one warp each) so that their latency chains
// (dependent shared loads, a leaf's global read) overlap: d = auto takes the
// largest d whose heap fits in M/heaps_per_mp, i.e. the AGPU heap condition
// 2C(d - 1) <= M read with M/heaps_per_mp words per heap and 4C words per
// node (a ring of 2C per child: multiway.cuh).
inline constexpr std::uint64_t heaps_per_mp = 16;
// At most this many blocks and threads are resident on an SM (sm_90; 32
// blocks since sm_50): caps the heaps an MP holds whatever their size.
inline constexpr std::uint64_t max_blocks_per_mp = 32, max_threads_per_mp = 2048;
// A split merge pass launches about waves·(resident heaps) ranges, so a range
// that ends early is followed by another and the pass has no long tail; the
// ranges a group are rounded down to a power of two (2 to 4 waves), so that
// select_pivots' samples are exactly samples_per_part a range (measured on
// the H100 at 2^28 u32 keys, the tuned shape: 15.95 ms with 9216 to 12288
// ranges in the early passes, 15.48 with 8192 in every pass).
inline constexpr std::uint64_t waves = 4;
// ... but no more ranges than L/(range_chunks·C): a range then takes about
// range_chunks chunks of every run, so its pivot searches (log2 L probes per
// run) and its partial first and last moves stay small beside its data.
inline constexpr std::uint64_t range_chunks = 8;
// ... and no more than one pivot per d samples, i.e. at most per_run ranges a
// group: select_pivots takes evenly spaced samples of each run, and on runs
// of i.i.d. keys the d runs' samples of one rank fall together, so a pivot
// per sample cuts ranges within those clusters and leaves the gaps between
// them whole (up to 4x the mean at d = 4). With samples_per_part samples of
// every run per range it does not bind; it did while select_pivots sorted a
// group's samples in one block's shared memory, 8192 at most (at 2^26 keys
// the last pass went from 8192 uneven ranges, 0.72 ms, to 2048 even ones).
inline constexpr std::uint64_t samples_per_part = 2;

struct sort_shape {
    std::string key;  // the algorithm: sort/multiway, sort/pairwise or sort/bitonic
    std::uint64_t key_bytes = 4, value_bytes = 4;
    bool pairs = false;
    std::uint64_t tile = 1024, chunk = 128;
    std::uint64_t d = 0;      // 0: the largest power of two whose heap fits in M/heaps_per_mp
    std::uint64_t warps = 1;  // warps per heap (a merge block of merge_threads)
    std::uint64_t parts = 0;  // 0: 1 while groups >= waves·(resident heaps), else enough for that many blocks (at
                              // most L/(range_chunks·chunk) and per_run), rounded down to a power of two
};

// The warp the bitonic moves are compiled for (kernels/sort/sort_common.cuh's
// sort_policy::bitonic_lanes).
inline constexpr std::uint64_t bitonic_lanes = 32;
// Outputs per lane of a merge move by a bitonic network (keys alone, one warp
// of bitonic_lanes per heap on a machine of that b, C = 2, 4 or 8 times it;
// kernels/sort/multiway.cuh's bitonic_merge), or 0: the merge path's moves.
inline std::uint64_t bitonic_items(const machine& m, const sort_shape& s) {
    if (s.pairs || m.b != bitonic_lanes || s.warps != 1 || s.chunk % bitonic_lanes != 0) return 0;
    const std::uint64_t r = s.chunk / bitonic_lanes;
    return r == 2 || r == 4 || r == 8 ? r : 0;
}

// Whether block_sort's tile may exceed threads·max_block_items: keys alone
// (no positions in shared memory, so a tile of 16384 u32 keys takes 66 kB) in
// a merge sort (sort/bitonic's tile merge keeps 256 threads and positions) on
// a machine of b = bitonic_lanes (the warp network's, below).
inline bool big_tiles(const machine& m, const sort_shape& s) {
    return !s.pairs && s.key != "sort/bitonic" && m.b == bitonic_lanes;
}
// The largest tile the shape takes on m: 4096, or 16384 where big_tiles
// (max_block_threads threads of max_block_items).
inline std::uint64_t max_tile(const machine& m, const sort_shape& s) {
    return (big_tiles(m, s) ? max_block_threads : threads) * max_block_items;
}
// Threads of block_sort's block: `threads`, or tile/max_block_items where the
// tile is larger (big_tiles: 512 at tile 8192, 1024 at 16384; make_plan
// refuses a larger tile elsewhere), so a tile is still one block on one MP and
// a thread's items stay within its registers (16 keys: 32 registers for u32,
// 40 for float, 60 for u64 on sm_90, within the 64 a block of 1024 allows).
inline std::uint64_t block_threads(const sort_shape& s) { return std::max(threads, s.tile / max_block_items); }

// Elements per thread that block_sort's warps sort by a bitonic network
// before its merge rounds (keys alone on a machine of b = bitonic_lanes:
// kernels/sort/sort_common.cuh's warp_bitonic_sort), or 0: each thread sorts
// its own (stable) and every round merges.
inline std::uint64_t block_network_items(const machine& m, const sort_shape& s) {
    return s.pairs || m.b != bitonic_lanes ? 0 : s.tile / block_threads(s);
}

struct merge_pass {
    std::uint64_t d = 2, run_len = 0, runs = 0, groups = 0, parts = 1;
    std::uint64_t resident = 0;  // heaps held at once by the k MPs: k·min(max_blocks_per_mp, threads cap, M/heap)
    // Samples per run of select_pivots (parts > 1): pow2_ceil(samples_per_part·parts), at most the run length.
    std::uint64_t per_run = 0;
    std::uint64_t heap_bytes = 0;
};

// select_pivots' samples, a thread each: per_run of every run of every group
// (an empty run's too, absent: their threads return at once).
inline std::uint64_t pivot_samples(const merge_pass& ps) { return ps.groups * ps.d * ps.per_run; }

struct plan {
    std::uint64_t n = 0, tiles = 0, tile_bytes = 0;
    std::uint64_t block_threads = threads;  // block_sort's (sort_plan::block_threads)
    std::vector<merge_pass> passes;         // sort/multiway and sort/pairwise
};

// The parameters of a sort run (type, values, tile, chunk, d, parts); throws
// input_error naming the parameter and the rule.
sort_shape shape_of(const std::string& key, const param_values& p);
// Bytes of multiway_merge's heap (kernels/sort/multiway.cuh's heap_layout;
// `bitonic`: moves by the network, bitonic_items > 0).
std::uint64_t heap_bytes(std::uint64_t d, std::uint64_t chunk, std::uint64_t key_bytes, std::uint64_t value_bytes,
                         bool pairs, bool bitonic);
// Bytes of block_sort's tile (kernels/sort/sort_common.cuh's tile_shared_bytes):
// the padded keys, the positions where `tags` (pairs, and sort/bitonic's tile
// merge), the values for pairs.
std::uint64_t tile_bytes(std::uint64_t tile, std::uint64_t key_bytes, std::uint64_t value_bytes, bool pairs, bool tags);
// Whether the shape's tiles need positions in shared memory (tile_bytes' `tags`).
inline bool tile_tags(const sort_shape& s) { return s.pairs || s.key == "sort/bitonic"; }
// The passes of a merge sort of n elements on m; throws input_error when a
// launch's shared memory exceeds M.
plan make_plan(const machine& m, std::uint64_t n, const sort_shape& s);

// The simulator's lane accesses, estimated (the counts leave them out: the
// merges' depend on the keys), to tell how long a simulation takes: per
// element of block_sort (a load and a store of each element, then per round
// a store, a merge-path search of about log2(width) steps per thread and a
// load per output: a line in 1/E and log2(E)/E, E = tile/block_threads; the
// warp network of keys alone on b = bitonic_lanes moves no memory and leaves
// r = log2(block_threads/b) rounds: 2r + 6 + r·(11.5 + 2·log2 E)/E, plus its 15
// shuffles per element, which cost the simulator about as much as an access
// (an exact sort of 2^19 keys on one core took 0.32 s less, 0.09 s and
// 0.17 s more with the network at tile 256, 1024 and 4096, of 2 to 4 s)
// and per key
// of a merge pass (per heap level a move's co-rank search, 2·(log2(C) + 1)
// loads by each of the merge block's threads per C keys, and its merge and
// stores, about 3.4 per key, 2.0 more for pairs beside a doubled search; the
// leaf's read and the root's write). Fitted to exact runs on the H100 preset
// (u32 keys, 2^17 and 2^18 elements): block_sort 82, 43 and 29 per element at
// tile 256, 1024 and 4096 without the network (pairs 69 and 52 at 1024 and
// 4096; keys alone on b = 16 and 64), 46.4, 23.4 and 15.6 (accesses alone)
// with it; the merges
// of the ring heaps (multiway.cuh) 20.4 per key and pass at d = 4 and chunk
// 128, 14.6 at chunk 256, 76.1 per key in all at d = 8 (three passes), 29.0
// per pass for pairs at d = 4; the formulas are within 8% of each (the
// network's within 1%).
double block_sort_lanes_per_element(const machine& m, const sort_shape& s);
double merge_lanes_per_key(const machine& m, const merge_pass& ps, const sort_shape& s);
// Their sum over a merge sort's plan (sort/multiway, sort/pairwise).
double merge_sort_lanes(const machine& m, const plan& pl, const sort_shape& s);

}  // namespace agpu::model::sort_plan
