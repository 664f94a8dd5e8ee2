// What every calibration probe's GPU code shares (probes.gpu.cu,
// dependent.gpu.cu): the types, device helpers (clocks, patterns, warp sums)
// and host helpers (grids, fetches, checks). Opens the probes' anonymous
// namespace, which each including file closes.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <unordered_set>

#include "agpu/validate/calibrate.hpp"
#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "common/host_util.hpp"
#include "probes/probe_specs.hpp"

namespace agpu::kernels::probes {
namespace {

using model::check_result;
using model::param_values;
using model::run_value;
using validate::cuda_executor;
namespace shape = model::probe_shape;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// ---- device helpers ----

__device__ __forceinline__ u64 clock_now() {
    u64 t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ u64 ns_now() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

// Block 0's thread 0 times the loop between begin() and end() in SM clocks
// and in nanoseconds: the SM clock while the probe ran.
struct run_clock {
    bool on;
    u64 cycles = 0, ns = 0;
    __device__ run_clock() : on(blockIdx.x == 0 && threadIdx.x == 0) {}
    __device__ void begin() {
        if (on) {
            cycles = clock_now();
            ns = ns_now();
        }
    }
    __device__ void end(u64* out) {
        if (on) {
            const u64 c = clock_now(), t = ns_now();
            out[0] = c - cycles;
            out[1] = t - ns;
        }
    }
};

// The input words: distinct, from the seed, and summable in closed form.
constexpr u32 pattern_step = 0x9E3779B1u;
__host__ __device__ constexpr u32 pattern(u64 i, u32 salt) { return u32(i) * pattern_step + salt; }

// Sum of pattern(i) over i < m, mod 2^32.
u32 pattern_sum(u64 m, u32 salt) {
    const u64 tri = m % 2 == 0 ? (m / 2) * (m - 1) : m * ((m - 1) / 2);  // m(m-1)/2 mod 2^64
    return u32(tri) * pattern_step + u32(m) * salt;
}

u32 salt_of(u64 seed) { return u32(seed * 0x2545F4914F6CDD1Dull >> 32) | 1u; }

__global__ void fill(u32* out, u64 n, u32 salt) {
    const u64 stride = u64(gridDim.x) * blockDim.x;
    for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = pattern(i, salt);
}

__device__ __forceinline__ u32 sum4(uint4 v) { return v.x + v.y + v.z + v.w; }

// Adds a thread's partial sum into *sum: one atomic a warp.
__device__ __forceinline__ void warp_add(u32* sum, u32 acc) {
    acc = __reduce_add_sync(0xffffffffu, acc);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}

// ---- host helpers ----

int attribute(cudaDeviceAttr what) {
    int dev = 0, v = 0;
    AGPU_CUDA_CHECK(cudaGetDevice(&dev));
    AGPU_CUDA_CHECK(cudaDeviceGetAttribute(&v, what, dev));
    return v;
}
unsigned sm_count() { return unsigned(attribute(cudaDevAttrMultiProcessorCount)); }
u64 l2_bytes() { return u64(attribute(cudaDevAttrL2CacheSize)); }

// Grid of a grid-stride probe: stream_blocks_per_sm blocks for every SM.
dim3 stream_grid() { return dim3(sm_count() * shape::stream_blocks_per_sm); }
// Grid of a one-wave probe: blocks_per_sm blocks for every SM.
dim3 wave_grid() { return dim3(sm_count() * shape::blocks_per_sm); }
// Dynamic shared memory (unused) that lets no more than blocks_per_sm blocks
// share an SM: the wave's blocks then spread evenly, blocks_per_sm to every SM,
// where a kernel of few registers could otherwise pile more onto some.
std::size_t wave_shared_bytes() {
    return std::size_t(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor)) / (shape::blocks_per_sm + 1) + 1;
}

template <class T>
T fetch_one(cuda_executor& ex, kl::gspan<T> s, std::size_t i = 0) {
    T v{};
    ex.download(std::span<T>(&v, 1), s.subspan(i, 1));
    return v;
}

kl::gspan<u32> zeroed_word(cuda_executor& ex) {
    auto w = ex.alloc<u32>(1);
    const u32 zero = 0;
    ex.upload(w, std::span<const u32>(&zero, 1));
    return w;
}

// The run's SM clock from a run_clock's two words ({} when the timer did not advance).
std::vector<run_value> clock_value(cuda_executor& ex, kl::gspan<u64> clk) {
    const auto c = fetch(ex, clk, 2);
    if (c[1] == 0) return {};
    return {{"sm_clock_mhz", double(c[0]) / double(c[1]) * 1e3, "MHz"}};
}

check_result with_values(check_result r, std::vector<run_value> v) {
    r.values = std::move(v);
    return r;
}
