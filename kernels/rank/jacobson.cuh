// rank/jacobson: Jacobson's two-level rank directory (docs/design.md, "The algorithms and their AGPU costs"),
// built on the GPU in one pass, and bulk rank1/rank0/select1 queries.
//
// Structure over n bits (lg = ceil(log2 n)):
//   S = 2^round(log2(lg / 2)) bits per small block, at least 8 (a byte, the
//       smallest unit a GPU addresses): 8 up to n = 2^22, 16 from 2^23 to 2^34;
//   L = 2^round(log2(lg^2)) bits per superblock, at least 128 (one 16-byte
//       chunk per thread: a superblock never splits a chunk): 128 to 1024;
//   LT[j] = ones before superblock j (64-bit, j < n/L + 1);
//   ST[m] = ones before small block m since its superblock began (16-bit:
//       L <= 2^16), m < (n/L + 1) L / S;
//   rank1(i) = LT[i / L] + ST[i / S] + popcount of the bits of small block i/S
//       before i (from the bit vector itself).
// Powers of two make i / L and i / S shifts; the tables cover positions 0..n.
//
// Build, one launch (jacobson_build): a tile of 2048 16-byte chunks per block,
// claimed in launch order; each warp owns 8b consecutive chunks and loads all 8
// of its 16-byte chunks first. Per chunk: the 128/S small-block counts by
// broadword arithmetic (SWAR popcount per field, prefix by multiplication); a
// warp scan of chunk counts gives each chunk's offset in its superblock (a
// superblock is g = L/128 consecutive lanes), so the ST entries are stored at
// once, 16 bytes per lane, coalesced. Superblock counts, relative to the warp,
// wait in shared memory until the warps' totals and the chained prefix of
// earlier tiles (rank_common.cuh) make them absolute; then LT is stored,
// coalesced. Bytes moved: n/8 read, n/8 (S = 16) or n/4 (S = 8) of ST and n/16L
// of LT written, a few atomics per tile.
//
// Queries (jacobson_rank, jacobson_select), one per thread: rank reads LT, ST
// and one word of the bit vector, three independent random accesses; select
// binary-searches LT (ceil(log2 (n/L + 1)) steps), then the L/S ST entries of
// the superblock (log2(L/S) steps), then selects within the small block's word.
// Every lane runs the same instructions (clamped indices instead of branches),
// so instruction counts do not depend on the data.
#pragma once

#include <cmath>
#include <cstdint>

#include "rank/rank_common.cuh"

namespace agpu::kernels::rank {

// ---- layout (host) ----

struct jacobson_layout {
    std::uint64_t n = 0;
    unsigned log_s = 0, log_l = 0;   // S = 2^log_s, L = 2^log_l
    std::uint64_t data_chunks = 0;   // 16-byte chunks of the bit vector: ceil(n / 128)
    std::uint64_t superblocks = 0;   // LT entries: n / L + 1
    std::uint64_t chunks = 0;        // chunks the tables cover: superblocks * L / 128
    std::uint64_t small_blocks = 0;  // ST entries: chunks * 128 / S
    std::uint64_t tiles = 0;         // thread blocks of the build
};

inline constexpr std::uint64_t jacobson_tile_chunks = std::uint64_t(rank_policy::block_threads) * rank_policy::items;

// ---- broadword small-block counts ----

// Ones per 16-bit field of w (each <= 16).
AGPU_HOST_DEVICE std::uint64_t field16_counts(std::uint64_t w) {
    w = w - ((w >> 1) & 0x5555555555555555ull);
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (w + (w >> 8)) & 0x00ff00ff00ff00ffull;
}

// The ST entries of word w's four 16-bit small blocks, packed in 16-bit fields:
// base + ones of w below each block (the multiplication sums lower fields).
AGPU_HOST_DEVICE std::uint64_t st_entries16(std::uint64_t w, std::uint32_t base) {
    return field16_counts(w) * 0x0001000100010000ull + std::uint64_t(base) * 0x0001000100010001ull;
}

// The ST entries of word w's eight 8-bit small blocks: two words of four
// 16-bit fields (bytes 0-3, bytes 4-7).
AGPU_HOST_DEVICE u64x2 st_entries8(std::uint64_t w, std::uint32_t base) {
    w = w - ((w >> 1) & 0x5555555555555555ull);
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;  // ones per byte
    w *= 0x0101010101010100ull;                  // ones in the bytes below each byte (<= 56)
    const auto widen = [](std::uint64_t x) {     // 4 bytes -> 4 16-bit fields
        x = (x | (x << 16)) & 0x0000ffff0000ffffull;
        return (x | (x << 8)) & 0x00ff00ff00ff00ffull;
    };
    const std::uint64_t b = std::uint64_t(base) * 0x0001000100010001ull;
    return {widen(w & 0xffffffffull) + b, widen(w >> 32) + b};
}

// ---- build ----

// One tile of 2048 chunks per block (see the file comment). `bits` holds
// ceil(n/128) chunks (positions >= n are ignored); st holds small_blocks * 2
// bytes as u64x2; lt holds `superblocks` entries; status holds tiles + 1 words,
// uploaded as zeros (tile status words, then the tile counter).
template <unsigned S>
AGPU_KERNEL void jacobson_build(kl::gspan<const u64x2> bits, std::uint64_t n, unsigned log_l, kl::gspan<u64x2> st,
                                kl::gspan<std::uint64_t> lt, std::uint64_t superblocks,
                                kl::gspan<unsigned long long> status, std::uint64_t tiles) {
    static_assert(S == 8 || S == 16, "ST entries are packed for S = 8 or 16");
    constexpr unsigned B = rank_policy::block_threads, I = rank_policy::items, tile_chunks = B * I;
    AGPU_SHARED(unsigned long long, slot, 1);
    AGPU_SHARED(std::uint32_t, sb_local, tile_chunks);  // superblock counts, relative to the warp (g >= 1)
    AGPU_SHARED(std::uint32_t, warp_total, rank_policy::max_warps);
    AGPU_SHARED(unsigned long long, warp_base, rank_policy::max_warps);
    const unsigned b = kl::warp_size(), lane = kl::lane_id(), warp = kl::warp_id();
    const unsigned g = 1u << (log_l - 7);  // chunks (lanes) per superblock
    const std::uint64_t chunks = superblocks << (log_l - 7);
    const unsigned long long tile = tile_claim(status, tiles, slot);
    const std::uint64_t first = tile * tile_chunks + std::uint64_t(warp) * I * b;

    u64x2 v[I];
    for (unsigned it = 0; it < I; ++it) {
        const std::uint64_t c = first + std::uint64_t(it) * b + lane;
        v[it] = c < bits.size() ? bits.load(c) : u64x2{0, 0};
    }
    std::uint32_t running = 0;  // ones in this warp's earlier chunks
    for (unsigned it = 0; it < I; ++it) {
        const std::uint64_t c = first + std::uint64_t(it) * b + lane;
        const std::uint64_t lo = clip_word(v[it].lo, 2 * c, n), hi = clip_word(v[it].hi, 2 * c + 1, n);
        const auto ones_lo = static_cast<std::uint32_t>(kl::popc(lo));
        const std::uint32_t t = ones_lo + static_cast<std::uint32_t>(kl::popc(hi));
        const std::uint32_t incl = warp_inclusive_scan(t), excl = incl - t;
        const std::uint32_t sb_excl = kl::shfl(excl, int(lane & ~(g - 1)));  // at the superblock's first lane
        const std::uint32_t rel = excl - sb_excl;                            // ones in the superblock before c
        if (c < chunks) {
            if constexpr (S == 16) {
                st.store(c, u64x2{st_entries16(lo, rel), st_entries16(hi, rel + ones_lo)});
            } else {
                st.store(2 * c, st_entries8(lo, rel));
                st.store(2 * c + 1, st_entries8(hi, rel + ones_lo));
            }
        }
        if (lane % g == 0) sb_local.store((warp * I + it) * (b / g) + lane / g, running + sb_excl);
        running += kl::shfl(incl, int(b - 1));
    }

    tile_warp_bases(warp_total, warp_base, status, tile, running);
    const unsigned sb_per_warp = I * b / g;
    for (unsigned j = kl::thread_rank(); j < tile_chunks / g; j += B) {
        const std::uint64_t sb = tile * (tile_chunks / g) + j;
        if (sb < superblocks) lt.store(sb, warp_base.load(j / sb_per_warp) + sb_local.load(j));
    }
}

// ---- queries ----

AGPU_DEVICE std::uint64_t query_index() {
    return std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_idx().x;
}

// out[q] = rank1(pos[q]) (or rank0 when `zeros`), 0 <= pos[q] <= n.
template <unsigned S>
AGPU_KERNEL void jacobson_rank(kl::gspan<const std::uint64_t> words, kl::gspan<const std::uint16_t> st,
                               kl::gspan<const std::uint64_t> lt, unsigned log_l, kl::gspan<const std::uint64_t> pos,
                               kl::gspan<std::uint64_t> out, bool zeros) {
    const std::uint64_t q = query_index();
    if (q >= pos.size()) return;
    const std::uint64_t i = pos.load(q);
    const std::uint64_t big = lt.load(i >> log_l);
    const std::uint64_t small = st.load(i / S);
    // i = n on a 128-bit boundary lies past the last word; its small block has no bits before i.
    const std::uint64_t w = words.load(kl::min<std::uint64_t>(i / 64, words.size() - 1));
    const std::uint64_t r = big + small + std::uint64_t(kl::popc(low_bits(w >> (i % 64 / S * S), unsigned(i % S))));
    out.store(q, zeros ? i - r : r);
}

// Largest power of two <= x (x >= 1).
AGPU_HOST_DEVICE std::uint64_t pow2_floor(std::uint64_t x) {
    std::uint64_t p = 1;
    while (p <= x / 2) p *= 2;
    return p;
}

// out[q] = select1(pos[q]): the position of the pos[q]-th one, or n when there
// is none. `status[tiles - 1]` holds the prefix of the last tile: the ones.
template <unsigned S>
AGPU_KERNEL void jacobson_select(kl::gspan<const std::uint64_t> words, kl::gspan<const std::uint16_t> st,
                                 kl::gspan<const std::uint64_t> lt, unsigned log_l,
                                 kl::gspan<const unsigned long long> status, std::uint64_t tiles, std::uint64_t n,
                                 kl::gspan<const std::uint64_t> pos, kl::gspan<std::uint64_t> out) {
    const std::uint64_t q = query_index();
    if (q >= pos.size()) return;
    const std::uint64_t k = pos.load(q);
    const std::uint64_t ones = status.load(tiles - 1) & status_value;
    const bool valid = k >= 1 && k <= ones;
    const std::uint64_t kk = valid ? k : 1;
    // The last superblock with LT < kk (LT[0] = 0 < kk): fixed steps, clamped reads.
    const std::uint64_t superblocks = lt.size();
    std::uint64_t sb = 0, below = 0;
    for (std::uint64_t step = pow2_floor(superblocks); step >= 1; step /= 2) {
        const std::uint64_t probe = sb + step;
        const std::uint64_t v = lt.load(kl::min(probe, superblocks - 1));
        if (probe < superblocks && v < kk) {
            sb = probe;
            below = v;
        }
    }
    // The last small block of the superblock with ST < kk - below (its first has 0).
    const std::uint64_t per_sb = std::uint64_t(1) << (log_l - (S == 8 ? 3 : 4));
    std::uint64_t m = sb * per_sb, inside = 0;
    for (std::uint64_t step = per_sb / 2; step >= 1; step /= 2) {
        const std::uint64_t v = st.load(m + step);
        if (below + v < kk) {
            m += step;
            inside = v;
        }
    }
    const std::uint64_t w = words.load(kl::min<std::uint64_t>(m * S / 64, words.size() - 1));
    const std::uint64_t block_bits = low_bits(w >> (m * S % 64), S);
    const unsigned r = unsigned(kk - below - inside);
    out.store(q, valid ? m * S + select_in_word(block_bits, r) : n);
}

}  // namespace agpu::kernels::rank
