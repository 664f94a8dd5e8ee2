// The kernel layer under the host compiler: the same vocabulary as kl_cuda.hpp,
// run inside the AGPU simulator. Every access, barrier, collective and compute
// note calls a hook (sim_hooks.hpp) that the simulator implements; the hook
// records it with its source location so that the lanes of a warp executing
// the same access form one warp-instruction. Include agpu/kl/kl.hpp, not this.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "agpu/kl/sim_hooks.hpp"

#define AGPU_KERNEL inline
#define AGPU_BOUNDS(threads, blocks)  // a register budget: nothing to simulate
#define AGPU_NO_UNROLL                // an nvcc unrolling hint
#define AGPU_DEVICE inline
#define AGPU_HOST_DEVICE inline

// Each backend's types live in their own inline namespace, so a kernel
// compiled for the simulator and the same kernel compiled by nvcc have
// different mangled names and can be linked into one program.
namespace agpu::kl::inline sim_backend {

using loc = std::source_location;

inline uint3 thread_idx() { return hook::current().thread_idx; }
inline uint3 block_idx() { return hook::current().block_idx; }
inline dim3 block_dim() { return hook::current().block_dim; }
inline dim3 grid_dim() { return hook::current().grid_dim; }
inline unsigned thread_rank() { return hook::current().rank; }
inline unsigned warp_size() { return hook::current().warp_size; }
inline unsigned lane_id() { return hook::current().lane; }
inline unsigned warp_id() { return hook::current().warp; }
inline lane_mask full_mask() {
    const unsigned b = hook::current().warp_size;
    return b >= 64 ? ~lane_mask{0} : (lane_mask{1} << b) - 1;
}

namespace detail {

template <class T>
T atomic_apply(T* p, hook::atomic_op op, T v, T expected) {
    std::atomic_ref<T> a(*p);
    switch (op) {
        case hook::atomic_op::add:
            if constexpr (std::is_integral_v<T>) return a.fetch_add(v);
            else {  // floating point: compare-exchange loop
                T old = a.load();
                while (!a.compare_exchange_weak(old, old + v)) {}
                return old;
            }
        case hook::atomic_op::min: {
            T old = a.load();
            while (v < old && !a.compare_exchange_weak(old, v)) {}
            return old;
        }
        case hook::atomic_op::max: {
            T old = a.load();
            while (old < v && !a.compare_exchange_weak(old, v)) {}
            return old;
        }
        case hook::atomic_op::exch: return a.exchange(v);
        case hook::atomic_op::cas: {
            T old = expected;
            a.compare_exchange_strong(old, v);
            return old;
        }
    }
    return T{};
}

// Shared implementation of gspan and sspan: Space says which memory.
template <class T, hook::space Space>
class span_base {
public:
    using value_type = std::remove_const_t<T>;
    span_base() = default;
    span_base(T* data, std::size_t size) : m_data(data), m_size(size) {}
    std::size_t size() const { return m_size; }

    value_type load(std::size_t i, loc l = loc::current()) const {
        hook::access(Space, hook::kind::load, m_data + i, sizeof(T), i, m_size, l);
        return m_data[i];
    }
    // (clang-format 14 misplaces a requires clause)
    // clang-format off
    void store(std::size_t i, const value_type& v, loc l = loc::current()) const
        requires(!std::is_const_v<T>)
    {
        hook::access(Space, hook::kind::store, m_data + i, sizeof(T), i, m_size, l);
        m_data[i] = v;
    }
    // clang-format on
    // Predicated accesses: the lanes where `on` is false take part in the
    // warp-instruction without touching memory (SIMT predication), so the
    // instructions of an unrolled loop stay one per iteration whichever lanes
    // are off.
    value_type load_if(bool on, std::size_t i, const value_type& otherwise, loc l = loc::current()) const {
        if (on) return load(i, l);
        hook::skip(Space, hook::kind::load, l);
        return otherwise;
    }
    // (clang-format 14 misplaces a requires clause)
    // clang-format off
    void store_if(bool on, std::size_t i, const value_type& v, loc l = loc::current()) const
        requires(!std::is_const_v<T>)
    {
        if (on)
            store(i, v, l);
        else
            hook::skip(Space, hook::kind::store, l);
    }
    // clang-format on
    // Volatile accesses: on the GPU they bypass the L1 and are never merged or
    // hoisted (flags polled across blocks); here a load and a store like any other.
    value_type load_volatile(std::size_t i, loc l = loc::current()) const { return load(i, l); }
    // (clang-format 14 misplaces a requires clause)
    // clang-format off
    void store_volatile(std::size_t i, const value_type& v, loc l = loc::current()) const
        requires(!std::is_const_v<T>)
    {
        store(i, v, l);
    }
    // clang-format on
    value_type atomic_add(std::size_t i, value_type v, loc l = loc::current()) const {
        return atomic(i, hook::atomic_op::add, v, {}, l);
    }
    value_type atomic_min(std::size_t i, value_type v, loc l = loc::current()) const {
        return atomic(i, hook::atomic_op::min, v, {}, l);
    }
    value_type atomic_max(std::size_t i, value_type v, loc l = loc::current()) const {
        return atomic(i, hook::atomic_op::max, v, {}, l);
    }
    value_type atomic_exch(std::size_t i, value_type v, loc l = loc::current()) const {
        return atomic(i, hook::atomic_op::exch, v, {}, l);
    }
    value_type atomic_cas(std::size_t i, value_type expected, value_type v, loc l = loc::current()) const {
        return atomic(i, hook::atomic_op::cas, v, expected, l);
    }

protected:
    // (clang-format 14 misplaces a requires clause)
    // clang-format off
    value_type atomic(std::size_t i, hook::atomic_op op, value_type v, value_type expected, loc l) const
        requires(!std::is_const_v<T>)
    {
        hook::access(Space, hook::kind::atomic, m_data + i, sizeof(T), i, m_size, l);
        return atomic_apply(m_data + i, op, v, expected);
    }
    // clang-format on
    T* m_data = nullptr;
    std::size_t m_size = 0;
};

}  // namespace detail

// Global memory: a span of T in (simulated) device memory.
template <class T>
class gspan : public detail::span_base<T, hook::space::global> {
    using base = detail::span_base<T, hook::space::global>;

public:
    using base::base;
    // gspan<T> converts to gspan<const T>.
    // (clang-format 14 misplaces a requires clause)
    // clang-format off
    template <class U>
        requires std::is_same_v<const U, T>
    gspan(const gspan<U>& o) : base(o.data(), o.size()) {}
    // clang-format on
    // Host-side use only (drivers, tests); kernels go through load/store.
    T* data() const { return this->m_data; }
    gspan subspan(std::size_t offset, std::size_t count) const { return {this->m_data + offset, count}; }
};

// Shared memory: a span of T in the block's shared memory.
template <class T>
class sspan : public detail::span_base<T, hook::space::shared> {
    using base = detail::span_base<T, hook::space::shared>;

public:
    using base::base;
    sspan subspan(std::size_t offset, std::size_t count) const { return {this->m_data + offset, count}; }
};

// Static shared array: every thread of the block gets the same storage.
#define AGPU_SHARED(T, name, count)                                                                       \
    const ::agpu::kl::sspan<T> name {                                                                     \
        static_cast<T*>(::agpu::kl::hook::static_shared(sizeof(T) * (count), alignof(T), #name)), (count) \
    }

inline unsigned dynamic_shared_bytes() { return static_cast<unsigned>(hook::current().dynamic_shared_bytes); }

template <class T>
sspan<T> dynamic_shared() {
    return {static_cast<T*>(hook::current().dynamic_shared), hook::current().dynamic_shared_bytes / sizeof(T)};
}

inline void sync_threads(loc l = loc::current()) { hook::barrier(l); }
// A memory fence (__threadfence): orders this thread's global accesses as every
// other block sees them. The simulator runs blocks one after another, so every
// block sees all of an earlier block's writes: nothing to order, nothing counted.
inline void thread_fence() {}
// One pause of a spin loop that polls what another block writes (__nanosleep on
// the GPU). Blocks run one after another here, so a poll that failed once
// would fail forever: the run stops with the place and the thread.
[[noreturn]] inline void spin_wait(unsigned /*ns*/, loc l = loc::current()) {
    const auto& c = hook::current();
    throw std::runtime_error(std::string("spin_wait at ") + l.file_name() + ":" + std::to_string(l.line()) +
                             " in block (" + std::to_string(c.block_idx.x) + "," + std::to_string(c.block_idx.y) + "," +
                             std::to_string(c.block_idx.z) + ") thread " + std::to_string(c.rank) +
                             ": a poll failed, and the simulator runs blocks one after another and a thread until it "
                             "yields, so no other thread can write what it waits for");
}
inline void sync_warp(lane_mask mask = ~lane_mask{0}, loc l = loc::current()) {
    hook::collective(hook::coll_op::sync, 0, 0, mask, 0, 0, l);
}

namespace detail {
template <class T>
std::uint64_t to_bits(T v) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "warp collectives move values of at most 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}
template <class T>
T from_bits(std::uint64_t bits) {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}
}  // namespace detail

// Collectives: `mask` defaults to every lane of the warp (full_mask()); width
// splits the warp into segments as in CUDA (0 = the whole warp).
template <class T>
T shfl(T v, int src_lane, lane_mask mask = ~lane_mask{0}, int width = 0, loc l = loc::current()) {
    return detail::from_bits<T>(
        hook::collective(hook::coll_op::shfl_idx, detail::to_bits(v), src_lane, mask, width, unsigned(sizeof(T)), l));
}
template <class T>
T shfl_up(T v, unsigned delta, lane_mask mask = ~lane_mask{0}, int width = 0, loc l = loc::current()) {
    return detail::from_bits<T>(
        hook::collective(hook::coll_op::shfl_up, detail::to_bits(v), int(delta), mask, width, unsigned(sizeof(T)), l));
}
template <class T>
T shfl_down(T v, unsigned delta, lane_mask mask = ~lane_mask{0}, int width = 0, loc l = loc::current()) {
    return detail::from_bits<T>(hook::collective(hook::coll_op::shfl_down, detail::to_bits(v), int(delta), mask, width,
                                                 unsigned(sizeof(T)), l));
}
template <class T>
T shfl_xor(T v, int lane_bits, lane_mask mask = ~lane_mask{0}, int width = 0, loc l = loc::current()) {
    return detail::from_bits<T>(
        hook::collective(hook::coll_op::shfl_xor, detail::to_bits(v), lane_bits, mask, width, unsigned(sizeof(T)), l));
}
inline lane_mask ballot(bool pred, lane_mask mask = ~lane_mask{0}, loc l = loc::current()) {
    return hook::collective(hook::coll_op::ballot, pred, 0, mask, 0, 4, l);
}
inline bool any(bool pred, lane_mask mask = ~lane_mask{0}, loc l = loc::current()) {
    return hook::collective(hook::coll_op::any, pred, 0, mask, 0, 4, l) != 0;
}
inline bool all(bool pred, lane_mask mask = ~lane_mask{0}, loc l = loc::current()) {
    return hook::collective(hook::coll_op::all, pred, 0, mask, 0, 4, l) != 0;
}
inline std::uint32_t reduce_add(std::uint32_t v, lane_mask mask = ~lane_mask{0}, loc l = loc::current()) {
    return std::uint32_t(hook::collective(hook::coll_op::reduce_add, v, 0, mask, 0, 4, l));
}

inline std::uint32_t opaque(std::uint32_t v) { return v; }  // a register hint for nvcc only
// The GPU's fma_one reads the launch's dynamic shared bytes (1 where there
// are any, 0 otherwise): the same here.
inline std::uint32_t fma_one() { return hook::current().dynamic_shared_bytes > 0 ? 1u : 0u; }
inline std::uint32_t fma_pick(bool p, std::uint32_t a, std::uint32_t b, std::uint32_t one) { return p ? a * one : b; }
inline int popc(unsigned x) { return std::popcount(x); }
inline int popc(unsigned long x) { return std::popcount(x); }
inline int popc(unsigned long long x) { return std::popcount(x); }
inline int clz(unsigned x) { return std::countl_zero(x); }
inline int clz(unsigned long long x) { return std::countl_zero(x); }
template <class T>
T min(T a, T b) {
    return b < a ? b : a;
}
template <class T>
T max(T a, T b) {
    return a < b ? b : a;
}

// DPX: min(a + b, c) and max(a + b, c), with the GPU's wrap-around addition.
inline int add_min(int a, int b, int c) { return std::min(int(unsigned(a) + unsigned(b)), c); }
inline int add_max(int a, int b, int c) { return std::max(int(unsigned(a) + unsigned(b)), c); }
inline unsigned add_min(unsigned a, unsigned b, unsigned c) { return std::min(a + b, c); }
inline unsigned add_max(unsigned a, unsigned b, unsigned c) { return std::max(a + b, c); }
namespace detail {
template <class Op>
unsigned s16x2(unsigned a, unsigned b, unsigned c, Op op) {
    unsigned r = 0;
    for (int h = 0; h < 2; ++h) {
        const auto lo = [h](unsigned x) { return std::int16_t(std::uint16_t(x >> (16 * h))); };
        const std::int16_t s = std::int16_t(std::uint16_t(lo(a) + lo(b)));
        r |= unsigned(std::uint16_t(op(s, lo(c)))) << (16 * h);
    }
    return r;
}
}  // namespace detail
inline unsigned add_min_s16x2(unsigned a, unsigned b, unsigned c) {
    return detail::s16x2(a, b, c, [](std::int16_t x, std::int16_t y) { return std::min(x, y); });
}
inline unsigned add_max_s16x2(unsigned a, unsigned b, unsigned c) {
    return detail::s16x2(a, b, c, [](std::int16_t x, std::int16_t y) { return std::max(x, y); });
}

// n compute instructions, for the simulator's count; free on the GPU.
inline void compute(unsigned n = 1, loc l = loc::current()) { hook::compute(n, l); }

}  // namespace agpu::kl::inline sim_backend
