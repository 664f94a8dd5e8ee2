// The kernel layer costs nothing under nvcc: the same kernel through the layer
// and hand-written in plain CUDA compile to the same SASS (sass_compare.cmake
// checks it). A block sum: global loads, a warp shuffle reduction, a shared
// array, a barrier, a global store. And a flag handshake between blocks:
// volatile stores and loads, a fence, a spin wait.
#include <cstdint>

#include "agpu/kl/kl.hpp"

namespace kl = agpu::kl;

AGPU_KERNEL void through_layer(kl::gspan<const float> in, kl::gspan<float> out) {
    AGPU_SHARED(float, partial, 32);
    const unsigned t = kl::thread_idx().x;
    const std::uint64_t i = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + t;
    float v = i < in.size() ? in.load(i) : 0.0f;
    for (unsigned d = kl::warp_size() / 2; d > 0; d /= 2) v += kl::shfl_down(v, d);
    if (t % kl::warp_size() == 0) partial.store(t / kl::warp_size(), v);
    kl::sync_threads();
    if (t == 0) {
        float s = 0;
        for (unsigned w = 0; w < kl::block_dim().x / kl::warp_size(); ++w) s += partial.load(w);
        out.store(kl::block_idx().x, s);
    }
}

// The same, as one writes it without the layer (a span is a pointer and a size).
struct fspan_c {
    const float* p;
    std::size_t n;
};
struct fspan {
    float* p;
    std::size_t n;
};

__global__ void hand_written(fspan_c in, fspan out) {
    __shared__ float partial[32];
    const unsigned t = threadIdx.x;
    const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + t;
    float v = i < in.n ? in.p[i] : 0.0f;
    for (unsigned d = unsigned(warpSize) / 2; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d, 32);
    if (t % warpSize == 0) partial[t / warpSize] = v;
    __syncthreads();
    if (t == 0) {
        float s = 0;
        for (unsigned w = 0; w < blockDim.x / warpSize; ++w) s += partial[w];
        out.p[blockIdx.x] = s;
    }
}

// Block 0 publishes a value (word 1), then its flag (word 0); every other
// block waits for the flag, reads the value into its own word and counts
// itself in word 2 (a 64-bit atomic on std::uint64_t, which is unsigned long).
AGPU_KERNEL void through_layer_flag(kl::gspan<std::uint64_t> words) {
    if (kl::block_idx().x == 0) {
        if (kl::thread_idx().x == 0) {
            words.store_volatile(1, 42u);
            kl::thread_fence();
            words.store_volatile(0, 1u);
        }
        return;
    }
    while (words.load_volatile(0) == 0) kl::spin_wait(100);
    kl::thread_fence();
    const std::uint64_t v = words.load_volatile(1);
    words.store(2 + kl::block_idx().x, v);
    if (kl::thread_idx().x == 0) words.atomic_add(2, 1u);
}

struct u64span {
    std::uint64_t* p;
    std::size_t n;
};

__global__ void hand_written_flag(u64span words) {
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) {
            static_cast<volatile std::uint64_t*>(words.p)[1] = 42u;
            __threadfence();
            static_cast<volatile std::uint64_t*>(words.p)[0] = 1u;
        }
        return;
    }
    while (static_cast<volatile std::uint64_t*>(words.p)[0] == 0) __nanosleep(100);
    __threadfence();
    const std::uint64_t v = static_cast<volatile std::uint64_t*>(words.p)[1];
    words.p[2 + blockIdx.x] = v;
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(words.p + 2), 1ull);
}
