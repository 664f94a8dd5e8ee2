// The kernel layer under nvcc: plain CUDA, every call a force-inlined one-liner.
// Include agpu/kl/kl.hpp, not this file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#define AGPU_KERNEL __global__
// Between AGPU_KERNEL and the return type: at most `threads` per block, and
// registers for `blocks` resident blocks per SM (__launch_bounds__).
#define AGPU_BOUNDS(threads, blocks) __launch_bounds__(threads, blocks)
// Before a loop that nvcc must not unroll (registers: a loop's unrolled
// copies keep their loads in flight at once).
#define AGPU_NO_UNROLL _Pragma("unroll 1")
#define AGPU_DEVICE __device__ __forceinline__
#define AGPU_HOST_DEVICE __host__ __device__ __forceinline__

// The CUDA backend's own inline namespace (see kl_sim.hpp).
namespace agpu::kl::inline cuda_backend {

using ::dim3;
using ::uint3;
using lane_mask = unsigned;  // one bit per lane of a 32-lane warp

AGPU_DEVICE uint3 thread_idx() { return threadIdx; }
AGPU_DEVICE uint3 block_idx() { return blockIdx; }
AGPU_DEVICE dim3 block_dim() { return blockDim; }
AGPU_DEVICE dim3 grid_dim() { return gridDim; }
AGPU_DEVICE unsigned thread_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
AGPU_DEVICE unsigned warp_size() { return warpSize; }
// warpSize is 32 on every NVIDIA GPU, and not a compile-time constant in CUDA
// 13: `% warpSize` compiled to a division of about 13 instructions.
AGPU_DEVICE unsigned lane_id() { return thread_rank() & 31u; }
AGPU_DEVICE unsigned warp_id() { return thread_rank() >> 5; }
AGPU_DEVICE lane_mask full_mask() { return 0xffffffffu; }

namespace detail {

// The operand type of CUDA's atomics for T: (unsigned) long long where T is a
// 64-bit integer, which std::(u)int64_t on Linux is not (it is (unsigned)
// long). Bitwise operations (add, exch, cas) go through the unsigned type,
// ordered ones (min, max) through the type of T's signedness.
template <class T>
using atomic_bits = std::conditional_t<std::is_integral_v<T> && sizeof(T) == 8, unsigned long long, T>;
template <class T>
using atomic_ordered = std::conditional_t<std::is_integral_v<T> && sizeof(T) == 8,
                                          std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>, T>;

// What gspan and sspan share: a pointer and a size, and plain accesses.
template <class T>
class span_base {
public:
    using value_type = std::remove_const_t<T>;
    span_base() = default;  // defaulted: host and device alike (an annotation here draws warning 20012)
    AGPU_HOST_DEVICE span_base(T* data, std::size_t size) : m_data(data), m_size(size) {}
    AGPU_HOST_DEVICE std::size_t size() const { return m_size; }
    AGPU_HOST_DEVICE T* data() const { return m_data; }

    AGPU_DEVICE value_type load(std::size_t i) const { return m_data[i]; }
    AGPU_DEVICE void store(std::size_t i, const value_type& v) const { m_data[i] = v; }
    AGPU_DEVICE value_type load_if(bool on, std::size_t i, const value_type& otherwise) const {
        return on ? m_data[i] : otherwise;
    }
    AGPU_DEVICE void store_if(bool on, std::size_t i, const value_type& v) const {
        if (on) m_data[i] = v;
    }
    AGPU_DEVICE value_type load_volatile(std::size_t i) const { return static_cast<const volatile T*>(m_data)[i]; }
    AGPU_DEVICE void store_volatile(std::size_t i, const value_type& v) const {
        static_cast<volatile T*>(m_data)[i] = v;
    }
    AGPU_DEVICE value_type atomic_add(std::size_t i, value_type v) const {
        return value_type(atomicAdd(bits(i), atomic_bits<T>(v)));
    }
    AGPU_DEVICE value_type atomic_min(std::size_t i, value_type v) const {
        return value_type(atomicMin(ordered(i), atomic_ordered<T>(v)));
    }
    AGPU_DEVICE value_type atomic_max(std::size_t i, value_type v) const {
        return value_type(atomicMax(ordered(i), atomic_ordered<T>(v)));
    }
    AGPU_DEVICE value_type atomic_exch(std::size_t i, value_type v) const {
        return value_type(atomicExch(bits(i), atomic_bits<T>(v)));
    }
    AGPU_DEVICE value_type atomic_cas(std::size_t i, value_type expected, value_type v) const {
        return value_type(atomicCAS(bits(i), atomic_bits<T>(expected), atomic_bits<T>(v)));
    }

protected:
    AGPU_DEVICE atomic_bits<T>* bits(std::size_t i) const { return reinterpret_cast<atomic_bits<T>*>(m_data + i); }
    AGPU_DEVICE atomic_ordered<T>* ordered(std::size_t i) const {
        return reinterpret_cast<atomic_ordered<T>*>(m_data + i);
    }
    T* m_data = nullptr;
    std::size_t m_size = 0;
};

}  // namespace detail

// Global memory: a span of T in device memory.
template <class T>
class gspan : public detail::span_base<T> {
public:
    using detail::span_base<T>::span_base;
    // gspan<T> converts to gspan<const T>.
    // (clang-format 14 misplaces a requires clause)
    // clang-format off
    template <class U>
        requires std::is_same_v<const U, T>
    AGPU_HOST_DEVICE gspan(const gspan<U>& o) : detail::span_base<T>(o.data(), o.size()) {}
    // clang-format on
    AGPU_HOST_DEVICE gspan subspan(std::size_t offset, std::size_t count) const {
        return {this->m_data + offset, count};
    }
};

// Shared memory: a span of T in the block's shared memory. Same interface.
template <class T>
class sspan : public detail::span_base<T> {
public:
    using detail::span_base<T>::span_base;
    AGPU_HOST_DEVICE sspan subspan(std::size_t offset, std::size_t count) const {
        return {this->m_data + offset, count};
    }
};

// Static shared array: AGPU_SHARED(float, tile, 256); then tile.load(i) ...
#define AGPU_SHARED(T, name, count)                   \
    __shared__ T agpu_shared_storage_##name[(count)]; \
    const ::agpu::kl::sspan<T> name { agpu_shared_storage_##name, (count) }

AGPU_DEVICE unsigned dynamic_shared_bytes() {
    unsigned r;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r;
}

// The dynamic shared memory given at launch, as a span of T.
template <class T>
AGPU_DEVICE sspan<T> dynamic_shared() {
    extern __shared__ __align__(16) unsigned char agpu_dynamic_shared[];
    return {reinterpret_cast<T*>(agpu_dynamic_shared), dynamic_shared_bytes() / sizeof(T)};
}

AGPU_DEVICE void sync_threads() { __syncthreads(); }
AGPU_DEVICE void thread_fence() { __threadfence(); }
AGPU_DEVICE void spin_wait(unsigned ns) { __nanosleep(ns); }
AGPU_DEVICE void sync_warp(lane_mask mask = 0xffffffffu) { __syncwarp(mask); }

template <class T>
AGPU_DEVICE T shfl(T v, int src_lane, lane_mask mask = 0xffffffffu, int width = 32) {
    return __shfl_sync(mask, v, src_lane, width);
}
template <class T>
AGPU_DEVICE T shfl_up(T v, unsigned delta, lane_mask mask = 0xffffffffu, int width = 32) {
    return __shfl_up_sync(mask, v, delta, width);
}
template <class T>
AGPU_DEVICE T shfl_down(T v, unsigned delta, lane_mask mask = 0xffffffffu, int width = 32) {
    return __shfl_down_sync(mask, v, delta, width);
}
template <class T>
AGPU_DEVICE T shfl_xor(T v, int lane_bits, lane_mask mask = 0xffffffffu, int width = 32) {
    return __shfl_xor_sync(mask, v, lane_bits, width);
}
AGPU_DEVICE lane_mask ballot(bool pred, lane_mask mask = 0xffffffffu) { return __ballot_sync(mask, pred); }
AGPU_DEVICE bool any(bool pred, lane_mask mask = 0xffffffffu) { return __any_sync(mask, pred); }
AGPU_DEVICE bool all(bool pred, lane_mask mask = 0xffffffffu) { return __all_sync(mask, pred); }
AGPU_DEVICE std::uint32_t reduce_add(std::uint32_t v, lane_mask mask = 0xffffffffu) {
    return __reduce_add_sync(mask, v);
}  // sm_80 on: one REDUX

// v, hidden from the optimiser: an address computed from it is computed
// again rather than kept in a register since its first use.
AGPU_DEVICE std::uint32_t opaque(std::uint32_t v) {
    asm volatile("" : "+r"(v));
    return v;
}
// A 1 that the compiler cannot see (the launch's dynamic shared bytes,
// clamped): for kernels that have dynamic shared memory (0 otherwise).
AGPU_DEVICE std::uint32_t fma_one() {
    std::uint32_t r;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r < 1u ? r : 1u;
}
// p ? a : b for 32-bit words, as a multiply of a by `one` (fma_one()) predicated
// on p: one IMAD on the FMA pipe where the select is a SEL on the ALU pipe
// (ptxas turns a predicated move or add back into a SEL; not a multiply by a
// value it cannot see). For kernels whose ALU pipe binds.
AGPU_DEVICE std::uint32_t fma_pick(bool p, std::uint32_t a, std::uint32_t b, std::uint32_t one) {
    asm("{ .reg .pred q; setp.ne.u32 q, %1, 0; @q mul.lo.u32 %0, %2, %3; }"
        : "+r"(b)
        : "r"(std::uint32_t(p)), "r"(a), "r"(one));
    return b;
}
AGPU_DEVICE int popc(unsigned x) { return __popc(x); }
AGPU_DEVICE int popc(unsigned long long x) { return __popcll(x); }
AGPU_DEVICE int popc(unsigned long x) { return __popcll(x); }
AGPU_DEVICE int clz(unsigned x) { return __clz(x); }
AGPU_DEVICE int clz(unsigned long long x) { return __clzll(x); }
template <class T>
AGPU_HOST_DEVICE T min(T a, T b) {
    return b < a ? b : a;
}
template <class T>
AGPU_HOST_DEVICE T max(T a, T b) {
    return a < b ? b : a;
}
// min(a + b, c) and max(a + b, c): one VIADDMNMX on sm_90 (DPX).
AGPU_DEVICE int add_min(int a, int b, int c) { return __viaddmin_s32(a, b, c); }
AGPU_DEVICE int add_max(int a, int b, int c) { return __viaddmax_s32(a, b, c); }
AGPU_DEVICE unsigned add_min(unsigned a, unsigned b, unsigned c) { return __viaddmin_u32(a, b, c); }
AGPU_DEVICE unsigned add_max(unsigned a, unsigned b, unsigned c) { return __viaddmax_u32(a, b, c); }
// Two signed 16-bit lanes per 32-bit word, each min(a + b, c) / max(a + b, c).
AGPU_DEVICE unsigned add_min_s16x2(unsigned a, unsigned b, unsigned c) { return __viaddmin_s16x2(a, b, c); }
AGPU_DEVICE unsigned add_max_s16x2(unsigned a, unsigned b, unsigned c) { return __viaddmax_s16x2(a, b, c); }

// n compute instructions, for the simulator's count; free on the GPU.
AGPU_DEVICE void compute(unsigned = 1) {}

}  // namespace agpu::kl::inline cuda_backend
