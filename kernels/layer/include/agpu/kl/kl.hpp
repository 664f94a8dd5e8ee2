// The kernel layer: what a kernel may use. A kernel is written once against it.
//
// Under nvcc it is plain CUDA at zero cost (kl_cuda.hpp: every call is a
// force-inlined one-liner; tests/sass_test compares the SASS of a kernel
// through the layer with the hand-written one). Under the host compiler the
// same source runs inside the AGPU simulator (kl_sim.hpp): each simulated
// thread runs on a fiber, and every global/shared access, barrier and warp
// collective is recorded, with its source location, for the simulator to group
// into warp-instructions.
//
// The vocabulary (namespace agpu::kl):
//   indices      thread_idx() block_idx() block_dim() grid_dim() thread_rank()
//                warp_size() lane_id() warp_id()
//   memory       gspan<T> (global), sspan<T> (shared): load(i), store(i, v),
//                load_if(on, i, otherwise), store_if(on, i, v) (predicated: lanes
//                where `on` is false join the warp-instruction without an access),
//                load_volatile(i), store_volatile(i, v) (flags other blocks poll),
//                atomic_add/min/max/exch/cas(i, ...) (32- and 64-bit integers, float);
//                AGPU_SHARED(T, name, n);
//                dynamic_shared<T>()
//   sync         sync_threads(), sync_warp(mask), thread_fence() (__threadfence),
//                spin_wait(ns) (one pause of a spin loop; the simulator, which runs
//                blocks in order, stops the run instead: the wait would never end)
//   collectives  shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all, reduce_add (u32 sum
//                of the mask's lanes) (lane_mask, full_mask())
//   intrinsics   popc, clz, min, max, add_min, add_max (sm_90 DPX), add_min_s16x2, add_max_s16x2
//   registers    opaque(v): v, but nvcc recomputes what depends on it (no register kept)
//   selects      fma_pick(p, a, b, fma_one()): p ? a : b for 32-bit words on the FMA pipe
//                (kernels with dynamic shared memory)
//   cost notes   compute(n): n compute instructions; free on the GPU, counted by the simulator
//   kernels      AGPU_KERNEL void name(args...) {...}; AGPU_DEVICE for helpers
//   launching    executors (kl::cuda_executor, sim::executor) share one interface:
//                alloc<T>(n), upload, download, launch(name, kernel, grid, block, smem, args...)
//
// Kernels never hard-code 32: warp_size() is the machine's b in the simulator
// and the hardware warp on the GPU.
#pragma once

// The one place that chooses the backend (STYLE.md 8).
#if defined(__CUDACC__)
#include "agpu/kl/kl_cuda.hpp"
#else
#include "agpu/kl/kl_sim.hpp"
#endif
