// Micro-kernels: one access pattern each, to expose one counter at a time in
// the simulator and, on a GPU, to probe the hardware counters (validation).
//
// All run n threads in blocks of micro_policy::block_threads (micro/barriers
// in blocks of its `threads` parameter); threads with
// global index >= n take part in barriers and warp syncs but touch no memory.
// Their exact AGPU costs are in model/costs/micro.cpp.
#pragma once

#include <cstdint>

#include "agpu/kl/kl.hpp"

namespace agpu::kernels::micro {

namespace kl = agpu::kl;

struct micro_policy {
    // 256 threads: 8 warps of 32 (4 of 64, 16 of 16), the common choice for
    // streaming kernels; small enough for every preset's block limit.
    static constexpr unsigned block_threads = 256;
};

AGPU_DEVICE std::uint64_t global_index() {
    return std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_idx().x;
}

// micro/global-stride, op=load: thread i reads in[i * stride].
AGPU_KERNEL void global_stride_load(kl::gspan<const std::uint32_t> in, kl::gspan<std::uint32_t> out,
                                    std::uint32_t stride, std::uint64_t n) {
    const std::uint64_t i = global_index();
    if (i < n) out.store(i, in.load(i * stride) + 1u);
}

// micro/global-stride, op=store: thread i writes out[i * stride].
AGPU_KERNEL void global_stride_store(kl::gspan<std::uint32_t> out, std::uint32_t stride, std::uint64_t n) {
    const std::uint64_t i = global_index();
    if (i < n) out.store(i * stride, static_cast<std::uint32_t>(i * 2654435761u));
}

// micro/shared-stride: `repeat` times, lane l reads word ((l + r) * stride)
// mod (b * stride) of a shared array of b * stride words (filled first,
// conflict-free): every read has the bank pattern of stride s. The word
// steps by `stride` and wraps by one compare and subtract: a modulo by the
// run-time size is a software division on the GPU (about ten instructions
// the counters do not see; with it, repeat=32 at stride 1 ran 2.4x the
// model's time on the H100), and the micro-kernel is meant to
// show the shared pipeline, not the division. A read's three statements of
// arithmetic (accumulate, advance, wrap) are declared: compute(3) a read.
// Undeclared, a conflict-free read cost the model one step where the H100
// spent about two clocks an SM (repeat=32 at 2^24: 166 us measured, about
// 45 predicted).
AGPU_KERNEL void shared_stride(kl::gspan<std::uint32_t> out, std::uint32_t stride, std::uint32_t repeat,
                               std::uint64_t n) {
    const auto tile = kl::dynamic_shared<std::uint32_t>();
    const unsigned t = kl::thread_rank(), nt = kl::block_dim().x, size = unsigned(tile.size());
    for (unsigned j = t; j < size; j += nt) tile.store(j, j * 3u + 1u);
    kl::sync_threads();
    const std::uint64_t i = global_index();
    if (i < n) {
        std::uint32_t acc = 0, word = kl::lane_id() * stride;  // < size: lane_id < b
        for (std::uint32_t r = 0; r < repeat; ++r) {
            acc += tile.load(word);
            word += stride;
            if (word >= size) word -= size;
            kl::compute(3);
        }
        out.store(i, acc);
    }
}

// micro/broadcast: every lane reads the same shared word and the same global word.
AGPU_KERNEL void broadcast(kl::gspan<const std::uint32_t> in, kl::gspan<std::uint32_t> out, std::uint64_t n) {
    AGPU_SHARED(std::uint32_t, word, 1);
    if (kl::thread_rank() == 0) word.store(0, in.load(1));
    kl::sync_threads();
    const std::uint64_t i = global_index();
    if (i < n) out.store(i, word.load(0) + in.load(0));
}

// micro/barriers: `count` block barriers, then one store.
AGPU_KERNEL void barriers(kl::gspan<std::uint32_t> out, std::uint32_t count, std::uint64_t n) {
    for (std::uint32_t k = 0; k < count; ++k) kl::sync_threads();
    const std::uint64_t i = global_index();
    if (i < n) out.store(i, count);
}

// micro/divergent: the lanes of a warp split into `ways` paths (lane mod ways);
// each path stores on its own, a warp sync closing every path.
AGPU_KERNEL void divergent(kl::gspan<std::uint32_t> out, std::uint32_t ways, std::uint64_t n) {
    const std::uint64_t i = global_index();
    for (std::uint32_t w = 0; w < ways; ++w) {
        if (kl::lane_id() % ways == w && i < n) out.store(i, w);
        kl::sync_warp();
    }
}

// micro/chase: one thread follows a chain of n dependent loads, the address
// of each read from the one before (next[j] = j + stride, the last pointing
// at itself), then stores where it ended. The classic latency probe (a
// pointer chase): nothing overlaps a load with the next, so a step costs the
// latency of the level that serves it (the L1 while a sector is reused, the
// L2 or DRAM for each new sector), which is what the time model's latency
// terms price for launches of less than one warp.
AGPU_KERNEL void chase(kl::gspan<const std::uint32_t> next, kl::gspan<std::uint32_t> out, std::uint64_t n) {
    std::uint32_t j = 0;
    for (std::uint64_t s = 0; s < n; ++s) j = next.load(j);
    out.store(0, j);
}

// micro/atomics, space=global: thread i adds 1 to counter (i mod distinct).
AGPU_KERNEL void atomics_global(kl::gspan<std::uint32_t> counters, std::uint32_t distinct, std::uint64_t n) {
    const std::uint64_t i = global_index();
    if (i < n) counters.atomic_add(i % distinct, 1u);
}

// micro/atomics, space=shared: the same on a per-block shared array, then each
// block writes its counters to out[block * distinct + j].
AGPU_KERNEL void atomics_shared(kl::gspan<std::uint32_t> out, std::uint32_t distinct, std::uint64_t n) {
    const auto counters = kl::dynamic_shared<std::uint32_t>();
    const unsigned t = kl::thread_rank();
    if (t < distinct) counters.store(t, 0u);
    kl::sync_threads();
    const std::uint64_t i = global_index();
    if (i < n) counters.atomic_add(i % distinct, 1u);
    kl::sync_threads();
    if (t < distinct) out.store(std::uint64_t(kl::block_idx().x) * distinct + t, counters.load(t));
}

}  // namespace agpu::kernels::micro
