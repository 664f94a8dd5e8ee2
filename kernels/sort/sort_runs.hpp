// The sort family's specs, drivers and runs: inputs from a seed and a kind,
// the launches, the check against the CPU reference (the stable order by the
// key order). Templates on the executor, so the simulator (sort.sim.cpp) and
// the GPU (sort.gpu.cu) run exactly the same thing. The passes come from
// agpu/model/sort_plan.hpp, which the closed forms read too.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "agpu/model/sort_plan.hpp"
#include "common/host_util.hpp"
#include "sort/bitonic.cuh"
#include "sort/multiway.cuh"
#include "sort/sort_input.hpp"

namespace agpu::kernels::sort {

using model::algo_spec;
using model::check_result;
using model::param_values;
namespace plan_ns = model::sort_plan;

// Positions are 32-bit in the values (and 2^32 u64 keys are 32 GiB).
inline constexpr std::uint64_t max_elements = std::uint64_t(1) << 32;

inline std::vector<model::param_spec> common_params(bool values) {
    std::vector<model::param_spec> p{
        {"type",
         "key type (float: IEEE 754 totalOrder, -NaN < -inf < -0.0 < +0.0 < +inf < +NaN)",
         "u32",
         {"u32", "u64", "float"},
         0,
         0},
        {"input", "input keys: random bit patterns, sorted, reverse-sorted, all equal, or 16 distinct values", "random",
         input_kinds(), 0, 0},
        {"tile",
         "elements per basic block sorted on chip (a power of two; 256 threads of up to 16 elements)",
         "1024",
         {"256", "512", "1024", "2048", "4096"},
         0,
         0}};
    // The merge sorts (the ones with values) take larger tiles for keys alone
    // on b = 32 (sort_plan::max_tile).
    if (values) {
        p.back().description += "; 8192 and 16384, by blocks of 512 and 1024 threads, only for keys alone on b = 32";
        p.back().choices.insert(p.back().choices.end(), {"8192", "16384"});
        p.push_back({"values",
                     "1: key-value pairs (u32 values, the input positions; a stable sort), 0: keys only",
                     "0",
                     {"0", "1"},
                     0,
                     0});
    }
    return p;
}

inline std::vector<model::param_spec> merge_params(bool with_d) {
    auto p = common_params(true);
    p.push_back(
        {"chunk",
         "C: elements per heap move (a leaf's coalesced read, the root's write, one merge of a node's two runs)",
         "128",
         {"32", "64", "128", "256"},
         0,
         0});
    if (with_d)
        p.push_back({"d",
                     "runs merged at once (a power of two; auto: the largest whose heap, a ring of 2·chunk elements "
                     "per child, fits in M/16, so that an MP holds 16 heaps at once; at most 256)",
                     "auto",
                     {"auto", "2", "4", "8", "16", "32", "64", "128", "256"},
                     0,
                     0});
    p.push_back({"warps",
                 "warps per heap (a merge block of warps·32 threads on the GPU): more warps share a move's "
                 "search and merge, so its chain of dependent shared loads is shorter",
                 "1",
                 {"1", "2", "4", "8"},
                 0,
                 0});
    p.push_back({"parts",
                 "output ranges per group in a merge pass (0: 1 while groups >= 4x the heaps the MPs hold at "
                 "once, else enough for that many blocks, at most run length / (8·chunk); 1: never split)",
                 "0",
                 {},
                 0,
                 65536});
    return p;
}

inline algo_spec multiway_spec() {
    return {"sort/multiway",
            "I/O-optimal multiway merge sort: tiles sorted on chip, then d-way merges by a heap whose nodes buffer 2C "
            "elements in shared memory as their children's runs (one MP per group, or per pivot range when groups are "
            "few)",
            "elements",
            1 << 20,
            0,
            max_elements,
            merge_params(true)};
}

inline algo_spec pairwise_spec() {
    return {"sort/pairwise",
            "two-way merge sort: sort/multiway's kernels with d = 2 (log2(n/tile) passes over the data)",
            "elements",
            1 << 20,
            0,
            max_elements,
            merge_params(false)};
}

inline algo_spec bitonic_spec() {
    return {"sort/bitonic",
            "bitonic sort (keys only, not stable): tiles sorted on chip, then global compare-exchange steps and tile "
            "merges; data-independent",
            "elements",
            1 << 16,
            0,
            std::uint64_t(1) << 24,
            common_params(false)};
}

// Where a sort's result lies.
template <class K, class V>
struct sorted_spans {
    kl::gspan<K> keys;
    kl::gspan<V> vals;
};

// The launches of a merge sort, shared by merge_sort and the simulator's
// sampled driver (sim/estimators/sort_sampled.hpp).
inline merge_shape pass_shape(std::uint64_t n, const plan_ns::merge_pass& ps, const plan_ns::sort_shape& shape) {
    return {n, ps.run_len, static_cast<unsigned>(ps.d), static_cast<unsigned>(shape.chunk),
            static_cast<unsigned>(ps.parts)};
}

template <class Exec, class K, class V, bool Pairs>
void launch_block_sort(Exec& ex, const plan_ns::plan& pl, const plan_ns::sort_shape& shape, kl::gspan<const K> keys,
                       kl::gspan<const V> vals, sorted_spans<K, V> out) {
    ex.launch("block_sort", block_sort_kernel<K, V, Pairs>(plan_ns::block_network_items(ex.machine(), shape)),
              {static_cast<unsigned>(pl.tiles)}, {static_cast<unsigned>(pl.block_threads)}, pl.tile_bytes, keys, vals,
              out.keys, out.vals, pl.n, static_cast<unsigned>(shape.tile));
}

// Distribution: select_pivots (a thread per sample, plan_ns::pivot_samples)
// writes each group's P - 1 pivots and their tags, then split_search (a
// thread per (group, boundary, run)) the pass's splits. Neither uses shared
// memory.
template <class K>
struct pivot_spans {
    kl::gspan<K> keys;
    kl::gspan<std::uint32_t> tags;
};

template <class Exec, class K>
pivot_spans<K> alloc_pivots(Exec& ex, const plan_ns::merge_pass& ps) {
    const std::uint64_t pivots = ps.groups * (ps.parts - 1);
    return {ex.template alloc<K>(pivots), ex.template alloc<std::uint32_t>(pivots)};
}

template <class Exec, class K>
void launch_select_pivots(Exec& ex, const plan_ns::merge_pass& ps, const merge_shape& s, kl::gspan<const K> keys,
                          pivot_spans<K> pivots) {
    const unsigned threads = sort_policy::threads;
    const std::uint64_t samples = plan_ns::pivot_samples(ps);
    AGPU_CHECK(std::has_single_bit(ps.per_run) && ps.per_run <= (std::uint64_t(1) << 31),
               "select_pivots: samples a run are a power of two below 2^32 (sample_at shifts)");
    ex.launch("select_pivots", select_pivots<K>, {blocks_for(samples, threads)}, {threads}, 0, keys, pivots.keys,
              pivots.tags, s, static_cast<unsigned>(ps.per_run), samples);
}

template <class Exec, class K>
void launch_split_search(Exec& ex, const plan_ns::merge_pass& ps, const merge_shape& s, kl::gspan<const K> keys,
                         pivot_spans<K> pivots, kl::gspan<std::uint64_t> splits) {
    const unsigned threads = sort_policy::threads;
    ex.launch("split_search", split_search<K>, {blocks_for(splits.size(), threads)}, {threads}, 0, keys,
              kl::gspan<const K>(pivots.keys), kl::gspan<const std::uint32_t>(pivots.tags), splits, s,
              static_cast<unsigned>(ps.per_run), std::uint64_t(splits.size()));
}

static_assert(plan_ns::bitonic_lanes == sort_policy::bitonic_lanes,
              "the plan and the kernels agree on the bitonic warp");
static_assert(plan_ns::threads == sort_policy::threads && plan_ns::max_block_items == sort_policy::max_items,
              "the plan and the kernels agree on block_sort's threads and items per thread");

template <class Exec, class K, class V, bool Pairs>
void launch_merge(Exec& ex, const plan_ns::merge_pass& ps, const plan_ns::sort_shape& shape, const merge_shape& s,
                  sorted_spans<K, V> in, sorted_spans<K, V> out, kl::gspan<const std::uint64_t> splits) {
    const auto threads = static_cast<unsigned>(plan_ns::merge_threads(ex.machine(), shape.warps));
    const std::uint64_t items = plan_ns::bitonic_items(ex.machine(), shape);
    AGPU_CHECK(items == 0 || s.chunk == items * sort_policy::bitonic_lanes,
               "multiway_merge: the bitonic moves' chunk is their outputs per lane times the warp (a kernel constant)");
    ex.launch("multiway_merge", merge_kernel<K, V, Pairs>(items, s.d), {static_cast<unsigned>(ps.groups * ps.parts)},
              {threads}, ps.heap_bytes, kl::gspan<const K>(in.keys), kl::gspan<const V>(in.vals), out.keys, out.vals,
              splits, s);
}

// Entries of split_search's output for a pass (0 when the pass has no splits).
inline std::uint64_t splits_size(const plan_ns::merge_pass& ps) {
    return ps.parts > 1 ? ps.groups * (ps.parts + 1) * ps.d : 0;
}

// sort/multiway and sort/pairwise: sorts n elements of (keys, vals); the
// inputs are left as they were; returns the spans holding the result.
template <class Exec, class K, class V, bool Pairs>
sorted_spans<K, V> merge_sort(Exec& ex, kl::gspan<const K> keys, kl::gspan<const V> vals, std::uint64_t n,
                              const plan_ns::sort_shape& shape) {
    const auto pl = plan_ns::make_plan(ex.machine(), n, shape);
    sorted_spans<K, V> a{ex.template alloc<K>(n), Pairs ? ex.template alloc<V>(n) : kl::gspan<V>{}};
    if (n == 0) return a;
    launch_block_sort<Exec, K, V, Pairs>(ex, pl, shape, keys, vals, a);
    if (pl.passes.empty()) return a;
    sorted_spans<K, V> b{ex.template alloc<K>(n), Pairs ? ex.template alloc<V>(n) : kl::gspan<V>{}};
    for (const auto& ps : pl.passes) {
        const merge_shape s = pass_shape(n, ps, shape);
        kl::gspan<std::uint64_t> splits{};
        if (ps.parts > 1) {
            const auto pivots = alloc_pivots<Exec, K>(ex, ps);
            splits = ex.template alloc<std::uint64_t>(splits_size(ps));
            launch_select_pivots(ex, ps, s, kl::gspan<const K>(a.keys), pivots);
            launch_split_search(ex, ps, s, kl::gspan<const K>(a.keys), pivots, splits);
        }
        launch_merge<Exec, K, V, Pairs>(ex, ps, shape, s, a, b, kl::gspan<const std::uint64_t>(splits));
        std::swap(a, b);
    }
    return a;
}

// sort/bitonic: sorts n keys; returns the span holding the result.
template <class Exec, class K>
kl::gspan<K> bitonic_sort(Exec& ex, kl::gspan<const K> keys, std::uint64_t n, const plan_ns::sort_shape& shape) {
    const auto pl = plan_ns::make_plan(ex.machine(), n, shape);
    const unsigned threads = sort_policy::threads, tile = static_cast<unsigned>(shape.tile);
    auto a = ex.template alloc<K>(n);
    if (n == 0) return a;
    launch_block_sort<Exec, K, std::uint32_t, false>(ex, pl, shape, keys, {}, {a, {}});
    if (n <= tile) return a;
    const std::uint64_t big = std::uint64_t(1) << std::bit_width(n - 1), pairs = big / 2;
    const unsigned blocks = blocks_for(pairs, threads);
    for (std::uint64_t k = 2 * std::uint64_t(tile); k <= big; k *= 2) {
        for (std::uint64_t j = k / 2; j >= tile; j /= 2)
            ex.launch("bitonic_global_step", bitonic_global_step<K>, {blocks}, {threads}, 0, a, n, pairs, k, j,
                      j == k / 2);
        ex.launch("bitonic_tile_merge", bitonic_tile_merge<K>, {static_cast<unsigned>(pl.tiles)}, {threads},
                  pl.tile_bytes, a, n, tile);
    }
    return a;
}

// ---- runs ----

template <class K>
check_result check_keys(const std::vector<K>& got, const sort_case<K>& ref) {
    const auto m = first_mismatch(as_bits(got), ref.sorted_bits(), "keys (bits)");
    return {m.empty(),
            m.empty() ? "keys: " + std::to_string(got.size()) + " equal the CPU reference (a stable radix sort)" : m};
}

template <class K, class Exec>
check_result run_typed(Exec& ex, const std::string& key, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const auto shape = plan_ns::shape_of(key, p);
    const auto ref = cached_case<K>(n, seed, p.text("input"));
    const auto& h = ref->keys();
    auto in = ex.template alloc<K>(n);
    ex.upload(in, std::span<const K>(h));
    // The reference is made after the run (on first use), so that a run
    // stopped early (too long) stops before paying for it.
    if (key == "sort/bitonic") {
        const auto out = bitonic_sort(ex, kl::gspan<const K>(in), n, shape);
        return check_keys(fetch(ex, out, n), *ref);
    }
    if (!shape.pairs) {
        const auto out = merge_sort<Exec, K, std::uint32_t, false>(ex, kl::gspan<const K>(in),
                                                                   kl::gspan<const std::uint32_t>{}, n, shape);
        return check_keys(fetch(ex, out.keys, n), *ref);
    }
    std::vector<std::uint32_t> pos(n);
    for (std::uint64_t i = 0; i < n; ++i) pos[i] = static_cast<std::uint32_t>(i);
    auto vals = ex.template alloc<std::uint32_t>(n);
    ex.upload(vals, std::span<const std::uint32_t>(pos));
    const auto out = merge_sort<Exec, K, std::uint32_t, true>(ex, kl::gspan<const K>(in),
                                                              kl::gspan<const std::uint32_t>(vals), n, shape);
    auto r = check_keys(fetch(ex, out.keys, n), *ref);
    if (!r.passed) return r;
    const auto m = first_mismatch(fetch(ex, out.vals, n), ref->order(), "values");
    if (!m.empty()) return {false, m};
    return {true, r.detail + "; values: the stable order"};
}

template <class Exec>
check_result run_sort(Exec& ex, const std::string& key, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const std::string& type = p.text("type");
    if (type == "u64") return run_typed<std::uint64_t>(ex, key, n, p, seed);
    if (type == "float") return run_typed<float>(ex, key, n, p, seed);
    return run_typed<std::uint32_t>(ex, key, n, p, seed);
}

template <class Exec>
check_result run_multiway(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return run_sort(ex, "sort/multiway", n, p, seed);
}
template <class Exec>
check_result run_pairwise(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return run_sort(ex, "sort/pairwise", n, p, seed);
}
template <class Exec>
check_result run_bitonic(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return run_sort(ex, "sort/bitonic", n, p, seed);
}

}  // namespace agpu::kernels::sort
