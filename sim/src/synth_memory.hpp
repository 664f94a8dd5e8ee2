// Simulated memory that fills itself (executor::alloc_synthesized): the
// regions of an executor and how a touch fills them.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "agpu/sim/executor.hpp"

namespace agpu::sim::detail {

// Simulated memory that fills itself (executor::alloc_synthesized): a unit of
// synth_unit_bytes is filled on its first touch, under one of the region's
// locks (units spread over them, so the threads running blocks fill in
// parallel); a flag per unit (acquire/release) lets later touches skip the
// lock.
struct synth_region {
    static constexpr std::size_t locks = 64;
    std::byte* base = nullptr;
    std::size_t bytes = 0;
    std::function<void(std::uint64_t, std::uint64_t, void*)> fill;
    std::unique_ptr<std::atomic<std::uint8_t>[]> ready;
    std::array<std::mutex, locks> m;

    std::size_t units() const { return (bytes + executor::synth_unit_bytes - 1) / executor::synth_unit_bytes; }
    bool holds(const void* p) const {
        const auto* q = static_cast<const std::byte*>(p);
        return q >= base && q < base + bytes;
    }
    void touch(const void* p, std::size_t n) {
        constexpr std::size_t unit = executor::synth_unit_bytes;
        const std::size_t first = std::size_t(static_cast<const std::byte*>(p) - base);
        const std::size_t last = std::min(bytes, first + std::max<std::size_t>(n, 1)) - 1;
        for (std::size_t u = first / unit; u <= last / unit; ++u) {
            if (ready[u].load(std::memory_order_acquire)) continue;
            std::lock_guard<std::mutex> lock(m[u % locks]);
            if (ready[u].load(std::memory_order_relaxed)) continue;
            fill(u * unit, std::min(unit, bytes - u * unit), base + u * unit);
            ready[u].store(1, std::memory_order_release);
        }
    }
};
using synth_regions = std::vector<std::unique_ptr<synth_region>>;

}  // namespace agpu::sim::detail
