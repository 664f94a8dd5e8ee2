// The scan family's specs, drivers and runs: inputs from a seed, the launches,
// the CPU reference check. Templates on the executor, so the simulator
// (scan.sim.cpp) and the GPU (scan.gpu.cu) run exactly the same thing.
//
// The drivers multi_level_scan and chained_scan take device spans and may be
// called by other algorithms (the rank dictionary's prefix sums).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "common/host_util.hpp"
#include "scan/hillis_steele.cuh"
#include "scan/work_efficient.cuh"

namespace agpu::kernels::scan {

using model::algo_spec;
using model::check_result;
using model::param_values;

// Tile ids are 32-bit and 2^32 u32 are 16 GiB: beyond that the GPU runs out first.
inline constexpr std::uint64_t max_elements = std::uint64_t(1) << 32;

// The CPU reference: unsigned sums, wrapping.
template <class T>
std::vector<T> cpu_scan(const std::vector<T>& in, bool exclusive) {
    std::vector<T> out(in.size());
    T sum = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (exclusive) out[i] = sum;
        sum = static_cast<T>(sum + in[i]);
        if (!exclusive) out[i] = sum;
    }
    return out;
}

// ---- scan/hillis-steele ----

inline algo_spec hillis_steele_spec() {
    return {"scan/hillis-steele",
            "prefix sum: Hillis-Steele in blocks of 256, the block sums scanned recursively and added back",
            "elements",
            1 << 20,
            1,
            max_elements,
            {{"kind", "inclusive or exclusive scan", "inclusive", {"inclusive", "exclusive"}, 0, 0},
             {"type", "element type", "u32", {"u32", "u64"}, 0, 0}}};
}

// Levels of the multi-level scan of n elements: n, ceil(n / B), ... down to
// the first that fits one block.
inline std::vector<std::uint64_t> hillis_steele_levels(std::uint64_t n) {
    constexpr std::uint64_t B = hillis_steele_policy::block_threads;
    std::vector<std::uint64_t> levels{n};
    while (levels.back() > B) levels.push_back((levels.back() + B - 1) / B);
    return levels;
}

// out = scan(in) over n elements (out may be in); 2L - 1 launches.
template <class Exec, class T>
void multi_level_scan(Exec& ex, kl::gspan<const T> in, kl::gspan<T> out, std::uint64_t n, bool exclusive) {
    constexpr unsigned B = hillis_steele_policy::block_threads;
    const unsigned blocks = blocks_for(n, B);
    if (blocks == 1) {
        ex.launch("hillis_steele_block_scan", hillis_steele_block_scan<T>, {1}, {B}, 0, in, out, kl::gspan<T>{}, n,
                  exclusive);
        return;
    }
    auto sums = ex.template alloc<T>(blocks);
    ex.launch("hillis_steele_block_scan", hillis_steele_block_scan<T>, {blocks}, {B}, 0, in, out, sums, n, exclusive);
    multi_level_scan(ex, kl::gspan<const T>(sums), sums, blocks, true);
    ex.launch("hillis_steele_add_back", hillis_steele_add_back<T>, {blocks - 1}, {B}, 0, out, kl::gspan<const T>(sums),
              n);
}

// ---- scan/work-efficient ----

inline algo_spec work_efficient_spec() {
    return {"scan/work-efficient",
            "prefix sum in one pass: chained scan with decoupled look-back, 16-byte vectors, tiles of threads x items",
            "elements",
            1 << 20,
            1,
            max_elements,
            {{"kind", "inclusive or exclusive scan", "inclusive", {"inclusive", "exclusive"}, 0, 0},
             {"type", "element type", "u32", {"u32", "u64"}, 0, 0},
             {"threads",
              "threads per block (a multiple of b, at most b warps; auto: 512, or b·b when b warps hold fewer)",
              "auto",
              {"auto", "128", "256", "512"},
              0,
              0},
             {"items", "elements per thread (u32: 4 per vector; u64: 2)", "24", {"8", "16", "24"}, 0, 0},
             {"backoff",
              "nanoseconds a look-back sleeps between polls of an unpublished tile (GPU only)",
              "0",
              {},
              0,
              100000}}};
}

struct chained_config {
    unsigned threads = 0;  // 0: the policy's default, or b warps of b when that is fewer (chained_threads)
    unsigned items = chained_policy::default_items;
    unsigned backoff_ns = 0;
};

// threads=auto: the policy's default, or b warps of b when that is fewer.
inline unsigned chained_threads(const std::string& threads, unsigned b) {
    return threads == "auto" ? std::min(chained_policy::default_threads, b * b)
                             : static_cast<unsigned>(std::stoul(threads));
}

inline chained_config chained_config_of(const param_values& p, unsigned b) {
    return {chained_threads(p.text("threads"), b), static_cast<unsigned>(std::stoul(p.text("items"))),
            static_cast<unsigned>(p.integer("backoff"))};
}

inline std::uint64_t chained_tiles(std::uint64_t n, const chained_config& c) {
    const std::uint64_t tile = std::uint64_t(c.threads) * c.items;
    return (n + tile - 1) / tile;
}

namespace detail {

// The tile status of T's layout, allocated for `tiles` tiles.
template <class Exec>
tile_status<std::uint32_t> alloc_status(Exec& ex, std::uint32_t*, std::uint64_t tiles) {
    return {ex.template alloc<std::uint64_t>(tiles)};
}
template <class Exec>
tile_status<std::uint64_t> alloc_status(Exec& ex, std::uint64_t*, std::uint64_t tiles) {
    return {ex.template alloc<std::uint32_t>(tiles), ex.template alloc<std::uint64_t>(tiles),
            ex.template alloc<std::uint64_t>(tiles)};
}
inline auto& flag_span(tile_status<std::uint32_t>& s) { return s.words; }
inline auto& flag_span(tile_status<std::uint64_t>& s) { return s.flags; }

template <unsigned Vectors, class Exec, class T>
void launch_chained(Exec& ex, kl::gspan<const T> in, kl::gspan<T> out, std::uint64_t n, bool exclusive,
                    const chained_config& c) {
    constexpr unsigned width = vec16<T>::width;
    const std::uint64_t tiles = chained_tiles(n, c);
    auto status = alloc_status(ex, static_cast<T*>(nullptr), tiles);
    auto counter = ex.template alloc<std::uint32_t>(1);
    auto flags = flag_span(status);
    const unsigned init = chained_policy::init_threads;
    ex.launch("init_tile_status", init_tile_status<typename tile_status<T>::flag_word>, {blocks_for(tiles, init)},
              {init}, 0, flags, counter);
    const kl::gspan<const vec16<T>> in_vec(reinterpret_cast<const vec16<T>*>(in.data()), n / width);
    const kl::gspan<vec16<T>> out_vec(reinterpret_cast<vec16<T>*>(out.data()), n / width);
    ex.launch("chained_scan", chained_scan<T, Vectors>, {static_cast<unsigned>(tiles)}, {c.threads}, 0, in_vec, in,
              out_vec, out, status, counter, n, exclusive, c.backoff_ns);
}

}  // namespace detail

// out = scan(in) over n elements (out must not overlap in); 2 launches. Both
// spans must start 16-byte aligned (every allocation does).
template <class Exec, class T>
void chained_scan(Exec& ex, kl::gspan<const T> in, kl::gspan<T> out, std::uint64_t n, bool exclusive,
                  chained_config c = {}) {
    const unsigned b = ex.machine().b;
    if (c.threads == 0) c.threads = chained_threads("auto", b);
    if (c.threads % b != 0 || c.threads / b > b || c.threads / b > chained_policy::max_warps)
        throw input_error("scan/work-efficient: threads=" + std::to_string(c.threads),
                          "a multiple of b = " + std::to_string(b) + " with at most " +
                              std::to_string(std::min<unsigned>(b, chained_policy::max_warps)) + " warps");
    AGPU_CHECK(
        reinterpret_cast<std::uintptr_t>(in.data()) % 16 == 0 && reinterpret_cast<std::uintptr_t>(out.data()) % 16 == 0,
        "chained_scan: spans must start 16-byte aligned");
    constexpr unsigned width = vec16<T>::width;
    switch (c.items) {
        case 8: return detail::launch_chained<8 / width>(ex, in, out, n, exclusive, c);
        case 16: return detail::launch_chained<16 / width>(ex, in, out, n, exclusive, c);
        case 24: return detail::launch_chained<24 / width>(ex, in, out, n, exclusive, c);
        default: throw input_error("scan/work-efficient: items=" + std::to_string(c.items), "one of 8, 16, 24");
    }
}

// ---- runs ----

template <class T>
check_result compare(const std::vector<T>& got, const std::vector<T>& want) {
    const auto m = first_mismatch(got, want, "out");
    return {m.empty(), m.empty() ? "out: " + std::to_string(want.size()) + " values equal the CPU reference" : m};
}

template <class T, class Exec, class Scan>
check_result run_typed(Exec& ex, std::uint64_t n, bool exclusive, std::uint64_t seed, Scan scan) {
    // The inputs of baseline/cub-scan (same generator, range and seed), so the two are timed on the same data.
    const auto values = random_values<T>(n, seed, T(0), T(1000));
    const auto& h = *values;
    auto in = ex.template alloc<T>(n);
    auto out = ex.template alloc<T>(n);
    ex.upload(in, std::span<const T>(h));
    scan(kl::gspan<const T>(in), out);
    std::vector<T> got(n);
    ex.download(std::span<T>(got), out);
    return compare(got, cpu_scan(h, exclusive));
}

template <class Exec>
check_result run_hillis_steele(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const bool exclusive = p.text("kind") == "exclusive";
    auto go = [&]<class T>(T*) {
        return run_typed<T>(ex, n, exclusive, seed, [&](kl::gspan<const T> in, kl::gspan<T> out) {
            multi_level_scan(ex, in, out, n, exclusive);
        });
    };
    return p.text("type") == "u64" ? go(static_cast<std::uint64_t*>(nullptr))
                                   : go(static_cast<std::uint32_t*>(nullptr));
}

template <class Exec>
check_result run_work_efficient(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const bool exclusive = p.text("kind") == "exclusive";
    const chained_config c = chained_config_of(p, ex.machine().b);
    auto go = [&]<class T>(T*) {
        return run_typed<T>(ex, n, exclusive, seed, [&](kl::gspan<const T> in, kl::gspan<T> out) {
            chained_scan(ex, in, out, n, exclusive, c);
        });
    };
    return p.text("type") == "u64" ? go(static_cast<std::uint64_t*>(nullptr))
                                   : go(static_cast<std::uint32_t*>(nullptr));
}

}  // namespace agpu::kernels::scan
