// The interface between kernels compiled for the simulator (kl_sim.hpp) and the
// simulator (sim/, which implements these functions). Kernels never call it
// directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>

namespace agpu::kl::inline sim_backend {

struct uint3 {
    unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
using lane_mask = std::uint64_t;  // one bit per lane; the simulator's b may be up to 64

namespace hook {

enum class space : std::uint8_t { global, shared };
enum class kind : std::uint8_t { load, store, atomic };
enum class atomic_op : std::uint8_t { add, min, max, exch, cas };
enum class coll_op : std::uint8_t { sync, shfl_idx, shfl_up, shfl_down, shfl_xor, ballot, any, all, reduce_add };

// What a simulated thread knows about itself.
struct thread_info {
    uint3 thread_idx, block_idx;
    dim3 block_dim, grid_dim;
    unsigned rank = 0, lane = 0, warp = 0, warp_size = 0;
    void* dynamic_shared = nullptr;
    std::size_t dynamic_shared_bytes = 0;
};

// The thread running now (set by the simulator before it resumes a thread).
const thread_info& current();

// Records one lane's access of `bytes` bytes at `p` (element `index` of a span
// of `size` elements). An index outside the span stops the run with a
// kernel_error naming kernel, block, thread, index and bound.
void access(space s, kind k, const void* p, std::size_t bytes, std::size_t index, std::size_t size,
            const std::source_location& l);

// A predicated-off access at `l`: takes the site's next occurrence and records
// an access of no bytes (the warp issues the instruction; this lane touches
// nothing).
void skip(space s, kind k, const std::source_location& l);

// Suspends the thread until every thread of its block reaches a barrier.
void barrier(const std::source_location& l);

// Suspends the thread until every lane of `mask` reaches the collective, then
// returns this lane's result (the value bits of a shuffle, the mask of a
// ballot, 0/1 of any/all, the sum of the mask's values mod 2^32 of reduce_add).
// `bytes`: the value's width (a 64-bit shuffle is two instructions on the GPU).
std::uint64_t collective(coll_op op, std::uint64_t value, int arg, lane_mask mask, int width, unsigned bytes,
                         const std::source_location& l);

// n compute instructions declared by the kernel.
void compute(unsigned n, const std::source_location& l);

// The block's static shared array named `name` (the same storage for every
// thread: the i-th static array a thread declares is the block's i-th).
void* static_shared(std::size_t bytes, std::size_t align, const char* name);

}  // namespace hook
}  // namespace agpu::kl::inline sim_backend
