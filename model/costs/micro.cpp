// Closed-form AGPU costs of the micro-kernels (kernels/micro/micro.cuh).
//
// Every kernel runs n threads in blocks of 256; a warp is b consecutive threads
// of a block; a thread with global index >= n touches no memory. Per warp with
// L live lanes:
//   global-stride  1 request; lanes 4s bytes apart from a block-aligned base:
//                  min(4s, 32)·L/32-ish sectors, exactly strided_units(L, 4s, 4, 32),
//                  and strided_units(L, 4s, 4, 4b) AGPU blocks (min(s, b) for a full warp)
//   shared-stride  words l·s for l < L: the most of them in one bank (gcd(s, b) for a full warp)
//   broadcast      1 wavefront, 1 sector, 1 block
//   barriers       count barrier instructions per warp, dead warps included
//                  (blocks of `threads`, 256 by default)
//   divergent      min(ways, L) store instructions; `ways` warp syncs per warp
//   atomics        1 atomic instruction per live warp; global atomic sectors:
//                  per sector touched, the most lanes updating one address in it
//   chase          one thread: n loads and 1 store of one lane (1 sector,
//                  1 block each), n + 1 steps
// Time: each block's steps are its warps' instructions; blocks go in order to
// the least-loaded of k MPs (the simulator's placement), so time_steps is
// given here for global-stride, where every instruction costs one step.
#include <numeric>
#include <queue>
#include <map>
#include <set>

#include "agpu/model/closed_form.hpp"

namespace agpu::model {
namespace {

constexpr std::uint64_t block_threads = 256;  // micro_policy::block_threads
constexpr std::uint64_t sector = 32;

// Calls fn(live lanes, block index, first thread) for every warp of the grid
// (blocks of `block` threads: micro/barriers takes its own, the others 256).
template <class Fn>
void for_each_warp(std::uint64_t n, std::uint64_t b, Fn fn, std::uint64_t block = block_threads) {
    const std::uint64_t blocks = (n + block - 1) / block;
    for (std::uint64_t blk = 0; blk < blocks; ++blk)
        for (std::uint64_t first = 0; first < block; first += b) {
            const std::uint64_t g = blk * block + first;
            const std::uint64_t width = std::min(b, block - first);
            fn(g >= n ? 0 : std::min(width, n - g), blk, g);
        }
}

partial_counts global_stride(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t s = static_cast<std::uint64_t>(p.integer("stride"));
    const bool store = p.text("op") == "store";
    partial_counts c;
    std::vector<std::uint64_t> block_steps((n + block_threads - 1) / block_threads, 0);
    for_each_warp(n, m.b, [&](std::uint64_t L, std::uint64_t blk, std::uint64_t) {
        if (L == 0) return;
        const auto sec = strided_units(L, 4 * s, 4, sector), blocks = strided_units(L, 4 * s, 4, m.block_bytes());
        if (store) {
            c[counter::global_store_instructions] += 1;
            c[counter::global_store_sectors] += sec;
            c[counter::global_store_blocks] += blocks;
            c[counter::io_blocks] += blocks;
            block_steps[blk] += 1;
        } else {
            const auto osec = strided_units(L, 4, 4, sector), oblocks = strided_units(L, 4, 4, m.block_bytes());
            c[counter::global_load_instructions] += 1;
            c[counter::global_load_requests] += 1;
            c[counter::global_load_sectors] += sec;
            c[counter::global_load_blocks] += blocks;
            c[counter::global_store_instructions] += 1;
            c[counter::global_store_sectors] += osec;
            c[counter::global_store_blocks] += oblocks;
            c[counter::io_blocks] += blocks + oblocks;
            block_steps[blk] += 2;
        }
    });
    c[counter::global_store_requests] = c[counter::global_store_instructions];
    if (!store) c[counter::global_load_requests] = c[counter::global_load_instructions];
    c[counter::time_steps] = greedy_makespan(block_steps, m.k());
    c[counter::launches] = 1;
    return c;
}

// The most words of {start + l·step : l < L} in one of b banks (distinct words only).
std::uint64_t most_in_one_bank(std::uint64_t L, std::uint64_t step, std::uint64_t start, std::uint64_t modulo,
                               std::uint64_t b) {
    std::set<std::uint64_t> words;
    for (std::uint64_t l = 0; l < L; ++l) words.insert((start + l * step) % modulo);
    std::vector<std::uint64_t> bank(b, 0);
    std::uint64_t most = 0;
    for (auto w : words) most = std::max(most, ++bank[w % b]);
    return most;
}

partial_counts shared_stride(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t s = static_cast<std::uint64_t>(p.integer("stride"));
    const std::uint64_t repeat = static_cast<std::uint64_t>(p.integer("repeat"));
    const std::uint64_t words = m.b * s;
    partial_counts c;
    for_each_warp(n, m.b, [&](std::uint64_t L, std::uint64_t, std::uint64_t g) {
        const std::uint64_t first = g % block_threads, width = std::min<std::uint64_t>(m.b, block_threads - first);
        for (std::uint64_t base = first; base < words; base += block_threads) {  // fill: one store per iteration
            c[counter::shared_store_instructions] += 1;
            c[counter::shared_store_wavefronts] += most_in_one_bank(std::min(width, words - base), 1, base, words, m.b);
        }
        c[counter::barrier_instructions] += 1;
        if (L == 0) return;
        for (std::uint64_t r = 0; r < repeat; ++r) {
            const auto wf = most_in_one_bank(L, s, r * s, words, m.b);
            c[counter::shared_load_instructions] += 1;
            c[counter::shared_load_wavefronts] += wf;
            c[counter::shared_load_bank_conflicts] += wf - 1;
        }
        c[counter::global_store_sectors] += strided_units(L, 4, 4, sector);
    });
    return c;
}

partial_counts broadcast(const machine& m, std::uint64_t n, const param_values&) {
    partial_counts c;
    const std::uint64_t blocks = (n + block_threads - 1) / block_threads;
    for_each_warp(n, m.b, [&](std::uint64_t L, std::uint64_t, std::uint64_t) {
        c[counter::barrier_instructions] += 1;
        if (L == 0) return;
        c[counter::shared_load_instructions] += 1;
        c[counter::shared_load_wavefronts] += 1;
        c[counter::global_load_instructions] += 1;  // in[0] by every lane
        c[counter::global_load_sectors] += 1;
    });
    c[counter::global_load_instructions] += blocks;  // in[1] by thread 0
    c[counter::global_load_sectors] += blocks;
    c[counter::shared_store_instructions] = blocks;
    c[counter::shared_words_max] = 1;
    return c;
}

partial_counts barriers(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t count = static_cast<std::uint64_t>(p.integer("count"));
    partial_counts c;
    for_each_warp(
        n, m.b,
        [&](std::uint64_t L, std::uint64_t, std::uint64_t) {
            c[counter::barrier_instructions] += count;
            if (L) c[counter::global_store_instructions] += 1;
        },
        static_cast<std::uint64_t>(p.integer("threads")));
    return c;
}

partial_counts divergent(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t ways = static_cast<std::uint64_t>(p.integer("ways"));
    partial_counts c;
    for_each_warp(n, m.b, [&](std::uint64_t L, std::uint64_t, std::uint64_t) {
        c[counter::collective_instructions] += ways;
        for (std::uint64_t w = 0; w < std::min(ways, L); ++w) {
            const std::uint64_t lanes = (L - w + ways - 1) / ways;
            c[counter::global_store_instructions] += 1;
            c[counter::global_store_sectors] += strided_units(lanes, 4 * ways, 4, sector);
        }
    });
    return c;
}

partial_counts atomics(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t d = static_cast<std::uint64_t>(p.integer("distinct"));
    const bool global = p.text("space") == "global";
    partial_counts c;
    for_each_warp(n, m.b, [&](std::uint64_t L, std::uint64_t, std::uint64_t g) {
        if (!global) c[counter::barrier_instructions] += 2;
        if (L == 0) return;
        if (global) {
            // Per sector, the most lanes updating one address in it.
            std::map<std::uint64_t, std::uint64_t> lanes_at;  // address -> lanes
            for (std::uint64_t l = 0; l < L; ++l) ++lanes_at[(g + l) % d * 4];
            std::map<std::uint64_t, std::uint64_t> per_sector;
            for (auto [a, k] : lanes_at) per_sector[a / sector] = std::max(per_sector[a / sector], k);
            c[counter::global_atomic_instructions] += 1;
            for (auto [sec, k] : per_sector) c[counter::global_atomic_sectors] += k;
        } else {
            c[counter::shared_atomic_instructions] += 1;
            c[counter::shared_atomic_wavefronts] += most_in_one_bank(L, 1, g % d, d, m.b);
        }
    });
    return c;
}

partial_counts chase(const machine&, std::uint64_t n, const param_values&) {
    partial_counts c;
    add_global(c, true, n, n, n);
    add_global(c, false, 1, 1, 1);
    c[counter::io_blocks] = c[counter::lane_accesses] = c[counter::warp_instructions] = n + 1;
    c[counter::time_steps] = n + 1;
    c[counter::launches] = c[counter::thread_blocks] = c[counter::threads] = 1;
    return c;
}

AGPU_REGISTER_CLOSED_FORM({"micro/global-stride",
                           "per warp of L lanes: 1 request, strided_units(L, 4s, 4, 32) sectors, "
                           "strided_units(L, 4s, 4, 4b) blocks (min(4s, 32) and min(s, b) for a full warp of 32)",
                           global_stride});
AGPU_REGISTER_CLOSED_FORM({"micro/shared-stride", "per warp: the most words l*s in one bank, gcd(s, b) for a full warp",
                           shared_stride});
AGPU_REGISTER_CLOSED_FORM({"micro/broadcast", "per warp: 1 wavefront, 1 sector, 1 block", broadcast});
AGPU_REGISTER_CLOSED_FORM({"micro/barriers", "count barrier instructions per warp", barriers});
AGPU_REGISTER_CLOSED_FORM({"micro/divergent", "per warp: min(ways, L) store instructions, ways warp syncs", divergent});
AGPU_REGISTER_CLOSED_FORM({"micro/chase", "1 launch of 1 thread: n loads and 1 store of one lane (1 sector, 1 block "
                                           "each); time n + 1 steps", chase});
AGPU_REGISTER_CLOSED_FORM({"micro/atomics", "per warp: 1 atomic instruction; the counters it touches", atomics});

}  // namespace
}  // namespace agpu::model
