// The micro-kernels' specs and runs: inputs from a seed, the launches, and the
// CPU reference check. Templates on the executor, so the simulator
// (micro.sim.cpp) and the GPU (validation) run exactly the same thing.
#pragma once

#include <numeric>
#include <span>

#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "common/host_util.hpp"
#include "micro/micro.cuh"

namespace agpu::kernels::micro {

using model::algo_spec;
using model::check_result;
using model::param_values;

inline constexpr std::uint64_t max_threads = std::uint64_t(1) << 24;

inline algo_spec global_stride_spec() {
    return {"micro/global-stride",
            "each thread loads (or stores) one 4-byte word, `stride` words after its neighbour's",
            "threads",
            1 << 16,
            1,
            max_threads,
            {{"stride", "words between neighbouring lanes' words", "1", {}, 1, 1024},
             {"op", "load or store", "load", {"load", "store"}, 0, 0}}};
}

template <class Exec>
check_result run_global_stride(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const auto stride = static_cast<std::uint32_t>(p.integer("stride"));
    const unsigned block = micro_policy::block_threads, grid = blocks_for(n, block);
    if (p.text("op") == "store") {
        auto out = ex.template alloc<std::uint32_t>(n * stride);
        ex.launch("global_stride_store", global_stride_store, {grid}, {block}, 0, out, stride, n);
        const auto got = fetch(ex, out, n * stride);
        std::vector<std::uint32_t> got_written(n), want(n);
        for (std::uint64_t i = 0; i < n; ++i) {
            got_written[i] = got[i * stride];
            want[i] = static_cast<std::uint32_t>(i * 2654435761u);
        }
        return compare(got_written, want, "out[i * stride]");
    }
    const auto values = random_values<std::uint32_t>(n * stride, seed, 0, 0xfffffffe);
    const auto& h = *values;
    auto in = ex.template alloc<std::uint32_t>(n * stride);
    auto out = ex.template alloc<std::uint32_t>(n);
    ex.upload(in, std::span<const std::uint32_t>(h));
    ex.launch("global_stride_load", global_stride_load, {grid}, {block}, 0, kl::gspan<const std::uint32_t>(in), out,
              stride, n);
    std::vector<std::uint32_t> want(n);
    for (std::uint64_t i = 0; i < n; ++i) want[i] = h[i * stride] + 1;
    return compare(fetch(ex, out, n), want, "out");
}

inline algo_spec shared_stride_spec() {
    return {"micro/shared-stride",
            "lane l reads shared word l * stride: gcd(stride, b) wavefronts per warp",
            "threads",
            1 << 14,
            1,
            max_threads,
            {{"stride", "words between neighbouring lanes' shared words", "1", {}, 1, 64},
             {"repeat", "shared reads per thread, each with the same bank pattern", "1", {}, 1, 64}}};
}

template <class Exec>
check_result run_shared_stride(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t) {
    const auto stride = static_cast<std::uint32_t>(p.integer("stride"));
    const auto repeat = static_cast<std::uint32_t>(p.integer("repeat"));
    const unsigned block = micro_policy::block_threads, grid = blocks_for(n, block);
    const unsigned b = ex.machine().b;
    const std::size_t words = std::size_t(b) * stride;
    auto out = ex.template alloc<std::uint32_t>(n);
    ex.launch("shared_stride", shared_stride, {grid}, {block}, words * 4, out, stride, repeat, n);
    std::vector<std::uint32_t> want(n, 0);
    for (std::uint64_t i = 0; i < n; ++i)
        for (std::uint32_t r = 0; r < repeat; ++r)
            want[i] += static_cast<std::uint32_t>((i % block % b + r) * stride % words * 3 + 1);
    return compare(fetch(ex, out, n), want, "out");
}

inline algo_spec broadcast_spec() {
    return {"micro/broadcast",
            "every lane reads one shared word and one global word: 1 wavefront, 1 sector",
            "threads",
            1 << 14,
            1,
            max_threads,
            {}};
}

template <class Exec>
check_result run_broadcast(Exec& ex, std::uint64_t n, const param_values&, std::uint64_t seed) {
    const unsigned block = micro_policy::block_threads, grid = blocks_for(n, block);
    const auto values = random_values<std::uint32_t>(2, seed, 0, 1u << 30);
    const auto& h = *values;
    auto in = ex.template alloc<std::uint32_t>(2);
    auto out = ex.template alloc<std::uint32_t>(n);
    ex.upload(in, std::span<const std::uint32_t>(h));
    ex.launch("broadcast", broadcast, {grid}, {block}, 0, kl::gspan<const std::uint32_t>(in), out, n);
    return compare(fetch(ex, out, n), std::vector<std::uint32_t>(n, h[0] + h[1]), "out");
}

inline algo_spec barriers_spec() {
    return {"micro/barriers",
            "`count` block barriers per thread",
            "threads",
            1 << 14,
            1,
            max_threads,
            {{"count", "barriers per thread", "4", {}, 0, 1024},
             {"threads", "threads per block (the other micro-kernels use 256)", "256", {}, 1, 1024}}};
}

template <class Exec>
check_result run_barriers(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t) {
    const auto count = static_cast<std::uint32_t>(p.integer("count"));
    const auto block = static_cast<unsigned>(p.integer("threads"));
    const unsigned grid = blocks_for(n, block);
    auto out = ex.template alloc<std::uint32_t>(n);
    ex.launch("barriers", barriers, {grid}, {block}, 0, out, count, n);
    return compare(fetch(ex, out, n), std::vector<std::uint32_t>(n, count), "out");
}

inline algo_spec divergent_spec() {
    return {"micro/divergent", "a warp's lanes split into `ways` paths, each storing on its own", "threads", 1 << 14, 1,
            max_threads,       {{"ways", "paths per warp (lane mod ways)", "2", {}, 1, 1024}}};
}

template <class Exec>
check_result run_divergent(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t) {
    const auto ways = static_cast<std::uint32_t>(p.integer("ways"));
    const unsigned block = micro_policy::block_threads, grid = blocks_for(n, block);
    const unsigned b = ex.machine().b;
    auto out = ex.template alloc<std::uint32_t>(n);
    ex.launch("divergent", divergent, {grid}, {block}, 0, out, ways, n);
    std::vector<std::uint32_t> want(n);
    for (std::uint64_t i = 0; i < n; ++i) want[i] = static_cast<std::uint32_t>(i % block % b % ways);
    return compare(fetch(ex, out, n), want, "out");
}

inline algo_spec chase_spec() {
    return {"micro/chase",
            "one thread follows n dependent loads, `stride` words apart: the latency of a load that nothing overlaps",
            "loads",
            1 << 16,
            1,
            std::uint64_t(1) << 26,
            {{"stride", "words between consecutive links (8: a new 32-byte sector every load)", "1", {}, 1, 1024}}};
}

template <class Exec>
check_result run_chase(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const auto stride = static_cast<std::uint64_t>(p.integer("stride"));
    if (n * stride > std::uint64_t(0xffffffffu))
        throw input_error("option --set stride", "n * stride must be below 2^32 (the links are 32-bit), got " +
                                                     std::to_string(n) + " * " + std::to_string(stride));
    const std::uint64_t words = n * stride;
    // Words between the links are random: a step that missed its link would
    // wander off and end elsewhere.
    const auto filler = random_values<std::uint32_t>(words, seed, 0, 0xffffffffu);
    std::vector<std::uint32_t> h(*filler);
    for (std::uint64_t j = 0; j + 1 < n; ++j) h[j * stride] = static_cast<std::uint32_t>((j + 1) * stride);
    h[(n - 1) * stride] = static_cast<std::uint32_t>((n - 1) * stride);
    auto next = ex.template alloc<std::uint32_t>(words);
    auto out = ex.template alloc<std::uint32_t>(1);
    ex.upload(next, std::span<const std::uint32_t>(h));
    ex.launch("chase", chase, {1}, {1}, 0, kl::gspan<const std::uint32_t>(next), out, n);
    return compare(fetch(ex, out, 1), std::vector<std::uint32_t>{static_cast<std::uint32_t>((n - 1) * stride)},
                   "where the chain ends");
}

inline algo_spec atomics_spec() {
    return {"micro/atomics",
            "each thread adds 1 to one of `distinct` counters, in global or shared memory",
            "threads",
            1 << 14,
            1,
            max_threads,
            {{"space", "where the counters live", "global", {"global", "shared"}, 0, 0},
             {"distinct", "counters (lane i uses counter i mod distinct)", "1", {}, 1, 256}}};
}

template <class Exec>
check_result run_atomics(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t) {
    const auto distinct = static_cast<std::uint32_t>(p.integer("distinct"));
    const unsigned block = micro_policy::block_threads, grid = blocks_for(n, block);
    if (p.text("space") == "global") {
        std::vector<std::uint32_t> zero(distinct, 0), want(distinct, 0);
        auto counters = ex.template alloc<std::uint32_t>(distinct);
        ex.upload(counters, std::span<const std::uint32_t>(zero));
        ex.launch("atomics_global", atomics_global, {grid}, {block}, 0, counters, distinct, n);
        for (std::uint64_t i = 0; i < n; ++i) ++want[i % distinct];
        return compare(fetch(ex, counters, distinct), want, "counters");
    }
    auto out = ex.template alloc<std::uint32_t>(std::size_t(grid) * distinct);
    ex.launch("atomics_shared", atomics_shared, {grid}, {block}, std::size_t(distinct) * 4, out, distinct, n);
    std::vector<std::uint32_t> want(std::size_t(grid) * distinct, 0);
    for (std::uint64_t i = 0; i < n; ++i) ++want[i / block * distinct + i % distinct];
    return compare(fetch(ex, out, want.size()), want, "per-block counters");
}

}  // namespace agpu::kernels::micro
