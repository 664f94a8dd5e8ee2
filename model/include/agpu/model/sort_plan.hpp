// The sort family's plan: from the machine, n and the parameters, the tile and
// every merge pass's shape (d, run length, groups, parts per group, samples),
// and the shared memory each launch needs. One function, used by the drivers
// (kernels/sort/sort_runs.hpp) and the closed forms (model/costs/sort.cpp), so
// a prediction and a run take the same passes. Defined in model/costs/sort.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agpu/model/algorithm.hpp"
#include "agpu/model/machine.hpp"

namespace agpu::model::sort_plan {

// Threads of every sort kernel's block (kernels/sort/sort_common.cuh's sort_policy).
inline constexpr std::uint64_t threads = 256;

struct sort_shape {
    std::string key;  // the algorithm: sort/multiway, sort/pairwise or sort/bitonic
    std::uint64_t key_bytes = 4, value_bytes = 4;
    bool pairs = false;
    std::uint64_t tile = 1024, chunk = 256;
    std::uint64_t d = 0;      // 0: the largest power of two whose heap fits in M
    std::uint64_t parts = 0;  // 0: 1 while groups >= k, else enough to fill 2k blocks
};

struct merge_pass {
    std::uint64_t d = 2, run_len = 0, runs = 0, groups = 0, parts = 1;
    std::uint64_t per_run = 0;  // samples per run of select_splits (parts > 1)
    std::uint64_t heap_bytes = 0, splits_bytes = 0;
};

struct plan {
    std::uint64_t n = 0, tiles = 0, tile_bytes = 0;
    std::vector<merge_pass> passes;  // sort/multiway and sort/pairwise
};

// The parameters of a sort run (type, values, tile, chunk, d, parts); throws
// input_error naming the parameter and the rule.
sort_shape shape_of(const std::string& key, const param_values& p);
// Bytes of multiway_merge's heap (kernels/sort/multiway.cuh's heap_layout).
std::uint64_t heap_bytes(std::uint64_t d, std::uint64_t chunk, std::uint64_t key_bytes, std::uint64_t value_bytes,
                         bool pairs);
// Bytes of block_sort's tile (kernels/sort/sort_common.cuh's tile_shared_bytes).
std::uint64_t tile_bytes(std::uint64_t tile, std::uint64_t key_bytes, std::uint64_t value_bytes, bool pairs);
// The passes of a merge sort of n elements on m; throws input_error when a
// launch's shared memory exceeds M.
plan make_plan(const machine& m, std::uint64_t n, const sort_shape& s);

// The simulator's lane accesses, estimated (the counts leave them out: the
// merges' depend on the keys), to tell how long a simulation takes: per
// element of block_sort (its bitonic network: 4 per element per step,
// log2(tile)(log2(tile) + 1)/2 steps), and per key of a merge pass (per heap
// level a move's co-rank search, about 2·log2(2C) loads per thread for C keys,
// and about 8 per key to merge and move them). Measured on the H100 preset,
// u32 keys, tile 1024, chunk 256: block_sort 225 per element (225), merges
// 53, 109 and 159 per key at d = 4, 16 and 64 (53, 105, 157).
double block_sort_lanes_per_element(const sort_shape& s);
double merge_lanes_per_key(const merge_pass& ps, const sort_shape& s);

}  // namespace agpu::model::sort_plan
