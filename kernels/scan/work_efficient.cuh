// scan/work-efficient: a single-pass chained scan with decoupled look-back
// (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", NVIDIA NVR-2016-002).
//
// Computes out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1]
// (exclusive; out[0] = 0) over unsigned integers, wrapping like the GPU does.
//
// Two launches: init_tile_status clears one status word per tile and the tile
// counter; chained_scan runs one thread block per tile of
// threads × items elements (256 × 16 by default), in five phases:
//   1. tile id: thread 0 takes the next id from a global counter (one atomic),
//      so ids follow the order in which blocks start: every tile a block waits
//      for belongs to a block that is already running (no deadlock, whatever
//      order the hardware starts blocks in);
//   2. load: 16-byte vectors (4 u32 or 2 u64), warp-striped: a warp's j-th
//      load reads b consecutive vectors, so each load instruction is fully
//      coalesced (b/2 sectors, 4 AGPU blocks) and every byte is read once;
//   3. in-block scan, work-efficient: each thread scans its vectors serially,
//      then each vector position across the warp's lanes (log2 b shuffle
//      steps), then the block scans its warps' totals (lane-parallel, shuffles);
//   4. look-back (warp 0): publish the tile's aggregate, then read the status
//      of the b preceding tiles in one warp load, wait until none nearer than
//      the nearest inclusive prefix is still unpublished, add the aggregates
//      down to that prefix (a warp reduction), and go back another b tiles if
//      the window held no prefix; publish the tile's inclusive prefix;
//   5. store: each thread adds the tile's and its warp's prefix and writes its
//      vectors back, again warp-striped 16-byte stores.
// The last tile may be partial: whole vectors inside [0, n) still move as
// vectors, the one vector that straddles n element by element, the rest not
// at all (zeros in the scan).
//
// AGPU cost, with s-byte elements, T = ceil(n / tile) tiles, b lanes and W
// warps per block (model/costs/scan.cpp has it exactly): I/O s·n/(4b) blocks
// read plus as many written, plus per tile one atomic, 2 status exchanges and
// a look-back window of min(b, t) words (u64: 2 value stores, 2 flag
// exchanges, 2 loads); 2
// launches; 3 barriers per tile; time per tile: items/width vector loads and
// stores, (items/width)(log2 b + 1) + log2 W + 2 shuffles per warp, and the
// look-back; with k MPs the tiles are spread evenly, so time ≈ T/k × that.
//
// Tile status: u32 packs (flag << 32 | value) into one 64-bit word, published
// with one 64-bit atomic exchange and read with single volatile 64-bit loads,
// so a reader never sees a flag without its value. u64 keeps a 32-bit flag
// array beside separate aggregate and inclusive arrays: a writer stores the
// value, fences (__threadfence), then exchanges the flag; a reader loads the
// flag, fences, then loads the value. Publishing by atomic exchange, which the
// L2 performs at once, instead of a volatile store made the scan 1.29x faster
// at 2^26 u32 on an H200 (0.199 -> 0.154 ms; a copy takes 0.132, CUB's scan
// 0.185) and 1.32x at 2^28 (0.761 -> 0.576 ms): a tile's look-back waits for
// its predecessors' words, and volatile stores reached the pollers late
// (rank's chained_prefix publishes by exchange too, and the rank builds run
// at the copy's rate).
//
// What the GPU does that the simulator does not count: the simulator runs
// blocks one after another, so a look-back finds every earlier tile finished
// with its inclusive prefix in lane 0 of its first window (1 status load per
// tile, plus 1 value load for u64). On the GPU a tile may find its
// predecessors unpublished and poll again (the status load repeated, after a
// __nanosleep of `backoff_ns`), or find only aggregates and go back further
// windows: the status loads (global_load_requests/sectors of the status
// words) exceed the simulated ones by those repeats. Every other global access
// (the data, the status exchanges and stores, the tile atomic) is the same on both.
//
// Assumptions: blockDim.x a multiple of b, at most b warps (the warps' totals
// are scanned in one warp) and at most chained_policy::max_warps; the vector
// spans alias the element spans and start 16-byte aligned.
#pragma once

#include <cstdint>

#include "agpu/kl/kl.hpp"

namespace agpu::kernels::scan {

namespace kl = agpu::kl;

struct chained_policy {
    // 512 threads × 24 items: 48 KiB of u32 per tile, the fastest of the
    // shapes the suite scan-tune timed on the H100 (2^26 u32, exclusive:
    // 0.246 ms against cub::DeviceScan's 0.233; 256 × 16 took 0.280, 128 × 8
    // 0.327; validate/data/h100/scan-tune). Bigger tiles mean fewer tiles, so
    // fewer look-backs and atomics per byte; the per-tile costs (atomic,
    // look-back, 3 barriers) are then a small part of the tile's memory time.
    static constexpr unsigned default_threads = 512;
    static constexpr unsigned default_items = 24;
    // 1024 threads of 32 lanes: the warp-totals array of one block.
    static constexpr unsigned max_warps = 32;
    static constexpr unsigned init_threads = 256;
};

// 16 bytes of T: one vector load or store (LDG.E.128 / STG.E.128 under nvcc).
template <class T>
struct alignas(16) vec16 {
    static constexpr unsigned width = 16 / sizeof(T);
    T v[width];
};

enum tile_flag : std::uint32_t { flag_invalid = 0, flag_aggregate = 1, flag_prefix = 2 };

template <class T>
struct tile_status;

// u32: flag and value in one 64-bit word.
template <>
struct tile_status<std::uint32_t> {
    using flag_word = std::uint64_t;
    kl::gspan<std::uint64_t> words;

    AGPU_DEVICE void publish(std::uint64_t tile, std::uint32_t flag, std::uint32_t value) const {
        words.atomic_exch(tile, std::uint64_t(flag) << 32 | value);
    }
    // The flag of `tile`; its value into `value` when the word carries it.
    AGPU_DEVICE std::uint32_t poll(std::uint64_t tile, std::uint32_t& value) const {
        const std::uint64_t w = words.load_volatile(tile);
        value = static_cast<std::uint32_t>(w);
        return static_cast<std::uint32_t>(w >> 32);
    }
    // The value of a published tile (called by every lane; `wanted` says whose value counts).
    AGPU_DEVICE std::uint32_t value(std::uint64_t, std::uint32_t, std::uint32_t polled, bool wanted) const {
        return wanted ? polled : 0u;
    }
};

// u64: a flag array beside the aggregates and the inclusive prefixes.
template <>
struct tile_status<std::uint64_t> {
    using flag_word = std::uint32_t;
    kl::gspan<std::uint32_t> flags;
    kl::gspan<std::uint64_t> aggregates, inclusives;

    AGPU_DEVICE void publish(std::uint64_t tile, std::uint32_t flag, std::uint64_t value) const {
        (flag == flag_prefix ? inclusives : aggregates).store_volatile(tile, value);
        kl::thread_fence();  // the value before the flag, as every block sees them
        flags.atomic_exch(tile, flag);
    }
    AGPU_DEVICE std::uint32_t poll(std::uint64_t tile, std::uint64_t& value) const {
        value = 0;
        return flags.load_volatile(tile);
    }
    AGPU_DEVICE std::uint64_t value(std::uint64_t tile, std::uint32_t flag, std::uint64_t, bool wanted) const {
        kl::thread_fence();  // the flag before the value
        return wanted ? (flag == flag_prefix ? inclusives : aggregates).load_volatile(tile) : std::uint64_t(0);
    }
};

namespace detail {

AGPU_DEVICE kl::lane_mask lowest_bit(kl::lane_mask m) { return m & (~m + 1); }

// The sum over the warp, in every lane.
template <class T>
AGPU_DEVICE T warp_sum(T v) {
    for (unsigned d = kl::warp_size() / 2; d > 0; d /= 2) v += kl::shfl_xor(v, int(d));
    return v;
}

// Warp 0's look-back: the sum of every element before `tile` (tile >= 1).
// Lane l reads tile window_end - 1 - l; the window is settled once no tile
// nearer than its nearest inclusive prefix is unpublished.
template <class T>
AGPU_DEVICE T look_back(const tile_status<T>& status, std::uint64_t tile, unsigned backoff_ns) {
    const unsigned lane = kl::lane_id(), b = kl::warp_size();
    T before = 0;
    for (std::uint64_t window_end = tile;; window_end -= b) {
        const bool exists = window_end > lane;
        const std::uint64_t pred = window_end - 1 - lane;
        std::uint32_t flag = flag_prefix;  // before tile 0: an empty prefix
        T polled = 0;
        kl::lane_mask prefixes = 0;
        while (true) {
            if (exists) flag = status.poll(pred, polled);
            prefixes = kl::ballot(flag == flag_prefix);
            const kl::lane_mask unpublished = kl::ballot(flag == flag_invalid);
            if (unpublished == 0 || (prefixes != 0 && lowest_bit(prefixes) < lowest_bit(unpublished))) break;
            kl::spin_wait(backoff_ns);
        }
        const unsigned last = prefixes ? unsigned(kl::popc(lowest_bit(prefixes) - 1)) : b - 1;
        before += warp_sum(status.value(pred, flag, polled, exists && lane <= last));
        if (prefixes) return before;
    }
}

}  // namespace detail

// Clears the tile flags and the tile counter (one thread per flag word).
template <class Flag>
AGPU_KERNEL void init_tile_status(kl::gspan<Flag> flags, kl::gspan<std::uint32_t> tile_counter) {
    const std::uint64_t i = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_idx().x;
    if (i < flags.size()) flags.store(i, Flag(0));
    if (i == 0) tile_counter.store(0, 0u);
}

// One tile per block; `in_vec`/`out_vec` are `in`/`out` seen as 16-byte vectors.
template <class T, unsigned Vectors>
AGPU_KERNEL void chained_scan(kl::gspan<const vec16<T>> in_vec, kl::gspan<const T> in, kl::gspan<vec16<T>> out_vec,
                              kl::gspan<T> out, tile_status<T> status, kl::gspan<std::uint32_t> tile_counter,
                              std::uint64_t n, bool exclusive, unsigned backoff_ns) {
    constexpr unsigned width = vec16<T>::width;
    AGPU_SHARED(std::uint32_t, tile_id, 1);
    AGPU_SHARED(T, warp_totals, chained_policy::max_warps);
    AGPU_SHARED(T, tile_before, 1);
    const unsigned t = kl::thread_rank(), lane = kl::lane_id(), warp = kl::warp_id(), b = kl::warp_size();
    const unsigned warps = kl::block_dim().x / b;

    // 1. The tile.
    if (t == 0) tile_id.store(0, tile_counter.atomic_add(0, 1u));
    kl::sync_threads();
    const std::uint64_t tile = tile_id.load(0);

    // 2. Load: this lane's j-th vector is first + j·b.
    const std::uint64_t tile_vectors = std::uint64_t(kl::block_dim().x) * Vectors;
    const std::uint64_t first = tile * tile_vectors + std::uint64_t(warp) * b * Vectors + lane;
    const std::uint64_t whole = n / width;  // vectors wholly inside [0, n)
    T x[Vectors][width];
    if ((tile + 1) * tile_vectors <= whole) {
        for (unsigned j = 0; j < Vectors; ++j) {
            const vec16<T> v = in_vec.load(first + std::uint64_t(j) * b);
            for (unsigned e = 0; e < width; ++e) x[j][e] = v.v[e];
        }
    } else {
        for (unsigned j = 0; j < Vectors; ++j) {
            const std::uint64_t vi = first + std::uint64_t(j) * b;
            if (vi < whole) {
                const vec16<T> v = in_vec.load(vi);
                for (unsigned e = 0; e < width; ++e) x[j][e] = v.v[e];
            } else {
                for (unsigned e = 0; e < width; ++e) x[j][e] = vi * width + e < n ? in.load(vi * width + e) : T(0);
            }
        }
    }

    // 3. Scan. Each vector serially (x becomes inclusive within its vector) ...
    T lanes_inclusive[Vectors];
    for (unsigned j = 0; j < Vectors; ++j) {
        for (unsigned e = 1; e < width; ++e) x[j][e] += x[j][e - 1];
        lanes_inclusive[j] = x[j][width - 1];
    }
    kl::compute(Vectors * (width - 1));
    // ... vector position j across the lanes (the warp's elements run j-major) ...
    for (unsigned d = 1; d < b; d *= 2)
        for (unsigned j = 0; j < Vectors; ++j) {
            const T y = kl::shfl_up(lanes_inclusive[j], d);
            if (lane >= d) lanes_inclusive[j] += y;
        }
    T vector_before[Vectors];  // the warp's elements before vector j of this lane
    T warp_total = 0;
    for (unsigned j = 0; j < Vectors; ++j) {
        const T position_total = kl::shfl(lanes_inclusive[j], int(b - 1));
        vector_before[j] = warp_total + lanes_inclusive[j] - x[j][width - 1];
        warp_total += position_total;
    }
    kl::compute(2 * Vectors);
    // ... and the warps' totals across the block.
    if (lane == 0) warp_totals.store(warp, warp_total);
    kl::sync_threads();
    T warps_inclusive = lane < warps ? warp_totals.load(lane) : T(0);
    for (unsigned d = 1; d < warps; d *= 2) {
        const T y = kl::shfl_up(warps_inclusive, d);
        if (lane >= d) warps_inclusive += y;
    }
    const T previous_warps = kl::shfl(warps_inclusive, int(warp > 0 ? warp - 1 : 0));
    const T aggregate = kl::shfl(warps_inclusive, int(warps - 1));
    const T warp_before = warp > 0 ? previous_warps : T(0);

    // 4. Look-back.
    if (warp == 0) {
        T before = 0;
        if (tile == 0) {
            if (lane == 0) status.publish(0, flag_prefix, aggregate);
        } else {
            if (lane == 0) status.publish(tile, flag_aggregate, aggregate);
            before = detail::look_back<T>(status, tile, backoff_ns);
            if (lane == 0) status.publish(tile, flag_prefix, before + aggregate);
        }
        if (lane == 0) tile_before.store(0, before);
    }
    kl::sync_threads();
    const T base = tile_before.load(0) + warp_before;

    // 5. Store.
    const bool whole_tile = (tile + 1) * tile_vectors <= whole;
    for (unsigned j = 0; j < Vectors; ++j) {
        const T p = base + vector_before[j];
        vec16<T> o;
        for (unsigned e = 0; e < width; ++e) o.v[e] = p + (exclusive ? (e > 0 ? x[j][e - 1] : T(0)) : x[j][e]);
        const std::uint64_t vi = first + std::uint64_t(j) * b;
        if (whole_tile || vi < whole) {
            out_vec.store(vi, o);
        } else {
            for (unsigned e = 0; e < width; ++e)
                if (vi * width + e < n) out.store(vi * width + e, o.v[e]);
        }
    }
    kl::compute(Vectors * width);
}

}  // namespace agpu::kernels::scan
