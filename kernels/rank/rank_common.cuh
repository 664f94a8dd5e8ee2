// What the rank family's kernels share: the bit vector's 16-byte chunks, the
// policy, warp scans and sums, broadword popcount and select helpers, and the
// chained (decoupled look-back) prefix that lets one pass of thread blocks
// write absolute counts.
//
// Bit order: bit j of 64-bit word w is position 64w + j (little-endian, as the
// CPU reference and the host generator lay it out). rank1(i) counts the ones at
// positions [0, i), 0 <= i <= n; select1(k) is the position of the k-th one,
// 1 <= k <= ones, and n for any other k.
#pragma once

#include <cstdint>

#include "agpu/kl/kl.hpp"

namespace agpu::kernels::rank {

namespace kl = agpu::kl;

// Two 64-bit words that move as one 16-byte load or store (LDG.128/STG.128 on
// the GPU): `lo` is the lower-addressed word.
struct alignas(16) u64x2 {
    std::uint64_t lo, hi;
};

struct rank_policy {
    // 256 threads: 8 warps of 32 (16 of 16, 4 of 64), within every preset's
    // block limit (512 on compute capability 1.x).
    static constexpr unsigned block_threads = 256;
    // Chunks (jacobson) or line pieces (interleaved) per thread per tile: 8
    // independent 16-byte accesses in flight per thread hide DRAM latency
    // (8 x 16 B x 2048 threads = 256 KiB per SM, far above the ~20 KiB per SM
    // that Little's law asks of an H100 at 3.35 TB/s), and 8 keeps a tile's
    // staged superblock counts (tile_chunks x 4 bytes at L = 128) at 8 KiB, under
    // the 16 KiB of compute capability 1.x.
    static constexpr unsigned items = 8;
    // Bulk queries: one query per thread, blocks of 256.
    static constexpr unsigned query_threads = 256;
    // Pause before polling a predecessor's status again: short against the
    // ~1 us a tile takes, long enough to keep spinning warps off the L2
    // (CUB's look-back backs off likewise).
    static constexpr unsigned poll_ns = 64;
    // The most warps a block has: b >= 16 on every preset.
    static constexpr unsigned max_warps = block_threads / 16;
};

// ---- tile status words of the chained prefix ----
// One 64-bit word per tile: bits 62-63 say what the rest holds, so a tile's
// flag and value change together in one atomic exchange and no memory fence is
// needed between them.
inline constexpr unsigned long long status_none = 0;                // nothing published yet
inline constexpr unsigned long long status_aggregate = 1ull << 62;  // the tile's own count
inline constexpr unsigned long long status_prefix = 2ull << 62;     // count of this tile and all before it
inline constexpr unsigned long long status_value = (1ull << 62) - 1;

// ---- warp-level helpers (every lane of the warp calls them) ----

// Inclusive prefix sum over the warp's lanes (log2 b shuffles).
template <class T>
AGPU_DEVICE T warp_inclusive_scan(T v) {
    for (unsigned d = 1; d < kl::warp_size(); d *= 2) {
        const T u = kl::shfl_up(v, d);
        if (kl::lane_id() >= d) v += u;
    }
    return v;
}

// Sum over the warp's lanes, in every lane (log2 b shuffles).
template <class T>
AGPU_DEVICE T warp_sum(T v) {
    for (unsigned d = kl::warp_size() / 2; d >= 1; d /= 2) v += kl::shfl_xor(v, int(d));
    return v;
}

// Index of the lowest set bit of a non-zero lane mask.
AGPU_DEVICE unsigned lowest_lane(kl::lane_mask m) { return unsigned(kl::popc((m & (~m + 1)) - 1)); }

// ---- broadword helpers ----

// Bits of w below position `bits` (0..63) within the word.
AGPU_HOST_DEVICE std::uint64_t low_bits(std::uint64_t w, unsigned bits) {
    return bits == 0 ? 0 : w & (~std::uint64_t(0) >> (64 - bits));
}

// Word `x` of a vector of n bits with the positions >= n cleared.
AGPU_HOST_DEVICE std::uint64_t clip_word(std::uint64_t w, std::uint64_t x, std::uint64_t n) {
    const std::uint64_t first = x * 64;
    if (first + 64 <= n) return w;
    return first >= n ? 0 : low_bits(w, unsigned(n - first));
}

// Position (0..63) of the r-th one (1 <= r <= popcount) of w: six halvings.
AGPU_DEVICE unsigned select_in_word(std::uint64_t w, unsigned r) {
    unsigned pos = 0;
    for (unsigned half = 32; half >= 1; half /= 2) {
        const unsigned c = unsigned(kl::popc(low_bits(w, half)));
        const bool upper = r > c;
        r = upper ? r - c : r;
        w = upper ? w >> half : w;
        pos += upper ? half : 0;
    }
    return pos;
}

// ---- chained prefix across tiles ----

// Publishes tile `tile`'s count `aggregate` and returns the count of all tiles
// before it. Called by every lane of one warp per block, tiles claimed in
// order (tile_claim). The warp reads b predecessors' status words at once
// (atomics read at L2, where every block's exchanges land), waits until those
// up to the nearest prefix are published (tiles beyond it are not waited
// for), and sums the aggregates after it; a window with no prefix adds its b
// aggregates and moves back. On the GPU a poll may find words
// not yet published and repeats after a pause; in the simulator blocks run in
// order, every predecessor is finished, and the first window ends the walk
// (were one unpublished, spin_wait would stop the run rather than hang).
// Status words are read and written with atomics only: flag and value share
// one word, so no fence or volatile load is needed.
AGPU_DEVICE unsigned long long chained_prefix(kl::gspan<unsigned long long> status, unsigned long long tile,
                                              unsigned long long aggregate) {
    const unsigned lane = kl::lane_id();
    if (tile == 0) {
        if (lane == 0) status.atomic_exch(0, status_prefix | aggregate);
        return 0;
    }
    if (lane == 0) status.atomic_exch(tile, status_aggregate | aggregate);
    unsigned long long exclusive = 0;
    long long window = static_cast<long long>(tile);  // this pass reads tiles window-1-lane
    while (true) {
        const long long pred = window - 1 - static_cast<long long>(lane);
        unsigned long long s = status_prefix;  // before tile 0: a prefix of 0
        if (pred >= 0) s = status.atomic_add(std::size_t(pred), 0ull);
        kl::lane_mask prefixes;
        while (true) {  // until every lane up to the nearest prefix (all, if none) is published
            prefixes = kl::ballot((s & ~status_value) == status_prefix);
            const kl::lane_mask needed = prefixes != 0 ? (prefixes & (~prefixes + 1)) * 2 - 1 : ~kl::lane_mask(0);
            const kl::lane_mask waiting = kl::ballot((s & ~status_value) == status_none) & needed;
            if (waiting == 0) break;
            if (waiting >> lane & 1) {
                kl::spin_wait(rank_policy::poll_ns);
                s = status.atomic_add(std::size_t(pred), 0ull);
            }
        }
        if (prefixes != 0) {
            const unsigned nearest = lowest_lane(prefixes);
            exclusive += warp_sum(lane <= nearest ? (s & status_value) : 0ull);
            break;
        }
        exclusive += warp_sum(s & status_value);
        window -= static_cast<long long>(kl::warp_size());
    }
    if (lane == 0) status.atomic_exch(std::size_t(tile), status_prefix | (exclusive + aggregate));
    return exclusive;
}
// A build tile's ones before each of its warps: each warp's `running` total
// goes to shared memory; warp 0 scans them, takes the tile's prefix by the
// look-back (chained_prefix) and leaves warp w's base in warp_base[w]. Every
// thread of the block calls it (two barriers).
AGPU_DEVICE void tile_warp_bases(kl::sspan<std::uint32_t> warp_total, kl::sspan<unsigned long long> warp_base,
                                 kl::gspan<unsigned long long> status, unsigned long long tile, std::uint32_t running) {
    const unsigned lane = kl::lane_id(), warp = kl::warp_id(), b = kl::warp_size();
    if (lane == 0) warp_total.store(warp, running);
    kl::sync_threads();
    if (warp == 0) {
        const unsigned warps = rank_policy::block_threads / b;
        const std::uint32_t own = lane < warps ? warp_total.load(lane) : 0;
        const std::uint32_t incl = warp_inclusive_scan(own);
        const std::uint32_t tile_ones = kl::shfl(incl, int(warps - 1));
        const unsigned long long before = chained_prefix(status, tile, tile_ones);
        if (lane < warps) warp_base.store(lane, before + (incl - own));
    }
    kl::sync_threads();
}

// The block's tile, claimed in launch order from the counter `status[tiles]`
// (uploaded as 0), so that every tile before it belongs to a block already
// running and the look-back always ends. One atomic and one barrier.
AGPU_DEVICE unsigned long long tile_claim(kl::gspan<unsigned long long> status, std::uint64_t tiles,
                                          kl::sspan<unsigned long long> slot) {
    if (kl::thread_rank() == 0) slot.store(0, status.atomic_add(tiles, 1ull));
    kl::sync_threads();
    return slot.load(0);
}

}  // namespace agpu::kernels::rank
