// Micro-kernels: one access pattern each, to expose one counter at a time in
// the simulator and, on a GPU, to probe the hardware counters (validation).
//
// All run n threads in blocks of micro_policy::block_threads; threads with
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
// conflict-free): every read has the bank pattern of stride s.
AGPU_KERNEL void shared_stride(kl::gspan<std::uint32_t> out, std::uint32_t stride, std::uint32_t repeat,
                               std::uint64_t n) {
    const auto tile = kl::dynamic_shared<std::uint32_t>();
    const unsigned t = kl::thread_rank(), nt = kl::block_dim().x;
    for (unsigned j = t; j < tile.size(); j += nt) tile.store(j, j * 3u + 1u);
    kl::sync_threads();
    const std::uint64_t i = global_index();
    if (i < n) {
        std::uint32_t acc = 0;
        for (std::uint32_t r = 0; r < repeat; ++r) acc += tile.load(((kl::lane_id() + r) * stride) % tile.size());
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
