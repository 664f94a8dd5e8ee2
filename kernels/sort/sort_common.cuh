// What the sort family's kernels share: the key orders, the on-chip bitonic
// network, and the basic-block sort (phase 1 of sort/multiway, sort/pairwise
// and sort/bitonic).
//
// Key order: unsigned integers by value; float by IEEE 754 totalOrder, i.e. by
// its bit pattern mapped to an unsigned integer (sign bit set: all bits
// flipped; clear: the sign bit set), so
//   -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN
// and NaNs of different payloads are ordered by payload. Equal keys keep their
// input order wherever values travel with them (key-value sorts are stable).
//
// block_sort: each thread block loads one tile of `tile` elements (a power of
// two; positions past n are "absent" and sort last), sorts (key, position)
// pairs with a bitonic network in shared memory (log2(tile)(log2(tile)+1)/2
// steps, each thread compare-exchanging tile/(2T) pairs per step, both
// elements stored back whether or not they swap, so the access pattern is
// independent of the data), then writes the keys and, for key-value sorts,
// the values gathered through the sorted positions. AGPU cost per tile: one
// coalesced read and write of the tile (I/O 2·tile·s/(4b) blocks for s-byte
// keys), O((tile/T) log² tile) time per thread; shared tile·(s + 4 (+ 4)) bytes.
#pragma once

#include <bit>
#include <cstdint>

#include "agpu/kl/kl.hpp"

namespace agpu::kernels::sort {

namespace kl = agpu::kl;

struct sort_policy {
    // Threads of every sort kernel's block: 8 warps of 32 on the GPU (enough
    // warps per SM to cover shared-memory latency at one or two blocks per SM);
    // a multiple of every preset's b (16, 32, 64) and within every preset's
    // block limit.
    static constexpr unsigned threads = 256;
    // Register items per thread in one merge step of the heap: 2·chunk/threads,
    // so chunk <= 4·threads = 1024.
    static constexpr unsigned max_items = 8;
};

template <class K>
struct key_order {
    AGPU_HOST_DEVICE static bool less(K a, K b) { return a < b; }
};

template <>
struct key_order<float> {
    AGPU_HOST_DEVICE static std::uint32_t ordered(float x) {
        const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
        return u ^ ((u >> 31) != 0 ? 0xffffffffu : 0x80000000u);
    }
    AGPU_HOST_DEVICE static bool less(float a, float b) { return ordered(a) < ordered(b); }
};

// (key a, tag ta) before (key b, tag tb): tags >= absent_from are absent and go last.
template <class K>
AGPU_DEVICE bool tagged_before(K a, unsigned ta, K b, unsigned tb, unsigned absent_from) {
    const bool va = ta < absent_from, vb = tb < absent_from;
    if (va != vb) return va;
    if (va) {
        if (key_order<K>::less(a, b)) return true;
        if (key_order<K>::less(b, a)) return false;
    }
    return ta < tb;
}

// One compare-exchange of positions i < l of (keys, tags): the smaller to i.
// Both are stored back, swapped or not (a data-independent access pattern).
template <class K>
AGPU_DEVICE void compare_exchange(kl::sspan<K> keys, kl::sspan<unsigned> tags, unsigned i, unsigned l,
                                  unsigned absent_from) {
    const K ki = keys.load(i), kl_ = keys.load(l);
    const unsigned ti = tags.load(i), tl = tags.load(l);
    kl::compute(1);
    const bool swap = tagged_before(kl_, tl, ki, ti, absent_from);
    keys.store(i, swap ? kl_ : ki);
    keys.store(l, swap ? ki : kl_);
    tags.store(i, swap ? tl : ti);
    tags.store(l, swap ? ti : tl);
}

// The lower index of pair p in a step of distance j (a power of two): bit j cleared in.
AGPU_HOST_DEVICE std::uint64_t pair_low(std::uint64_t p, std::uint64_t j) { return ((p & ~(j - 1)) << 1) | (p & (j - 1)); }

// Sorts (keys, tags)[0, size) by tagged_before; size a power of two. Every
// thread of the block calls it; barriers before every step and at the end.
template <class K>
AGPU_DEVICE void bitonic_sort_shared(kl::sspan<K> keys, kl::sspan<unsigned> tags, unsigned size, unsigned absent_from) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    for (unsigned k = 2; k <= size; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            kl::sync_threads();
            for (unsigned p = t; p < size / 2; p += threads) {
                const unsigned i = unsigned(pair_low(p, j));
                compare_exchange(keys, tags, i, j == k >> 1 ? (i ^ (k - 1)) : i + j, absent_from);
            }
        }
    kl::sync_threads();
}

// The half-cleaners of distance size/2 .. 1 on (keys, tags)[0, size): sorts a
// sequence whose halves at every distance are already split (the last steps
// of a bitonic stage that began in global memory).
template <class K>
AGPU_DEVICE void bitonic_merge_shared(kl::sspan<K> keys, kl::sspan<unsigned> tags, unsigned size,
                                      unsigned absent_from) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    for (unsigned j = size >> 1; j > 0; j >>= 1) {
        kl::sync_threads();
        for (unsigned p = t; p < size / 2; p += threads) {
            const unsigned i = unsigned(pair_low(p, j));
            compare_exchange(keys, tags, i, i + j, absent_from);
        }
    }
    kl::sync_threads();
}

// Bytes of block_sort's (and bitonic_tile_merge's) dynamic shared memory.
AGPU_HOST_DEVICE std::uint64_t align16(std::uint64_t x) { return (x + 15) / 16 * 16; }
template <class K, class V, bool Pairs>
AGPU_HOST_DEVICE std::uint64_t tile_shared_bytes(unsigned tile) {
    return align16(std::uint64_t(tile) * sizeof(K)) + align16(std::uint64_t(tile) * 4) +
           (Pairs ? align16(std::uint64_t(tile) * sizeof(V)) : 0);
}

// Phase 1: tile b of in sorted into out (stable for key-value pairs).
template <class K, class V, bool Pairs>
AGPU_KERNEL void block_sort(kl::gspan<const K> in_keys, kl::gspan<const V> in_vals, kl::gspan<K> out_keys,
                            kl::gspan<V> out_vals, std::uint64_t n, unsigned tile) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const std::uint64_t keys_at = 0, tags_at = align16(std::uint64_t(tile) * sizeof(K)),
                        vals_at = tags_at + align16(std::uint64_t(tile) * 4);
    const kl::sspan<K> keys = kl::dynamic_shared<K>().subspan(keys_at / sizeof(K), tile);
    const kl::sspan<unsigned> tags = kl::dynamic_shared<unsigned>().subspan(tags_at / 4, tile);
    const std::uint64_t base = std::uint64_t(kl::block_idx().x) * tile;
    const unsigned valid = unsigned(kl::min<std::uint64_t>(tile, n - base));
    for (unsigned i = t; i < tile; i += threads) {
        keys.store(i, i < valid ? in_keys.load(base + i) : K{});
        tags.store(i, i);
    }
    if constexpr (Pairs) {
        const kl::sspan<V> vals = kl::dynamic_shared<V>().subspan(vals_at / sizeof(V), tile);
        for (unsigned i = t; i < valid; i += threads) vals.store(i, in_vals.load(base + i));
    }
    bitonic_sort_shared(keys, tags, tile, valid);
    for (unsigned i = t; i < valid; i += threads) out_keys.store(base + i, keys.load(i));
    if constexpr (Pairs) {
        const kl::sspan<V> vals = kl::dynamic_shared<V>().subspan(vals_at / sizeof(V), tile);
        for (unsigned i = t; i < valid; i += threads) out_vals.store(base + i, vals.load(tags.load(i)));
    }
}

}  // namespace agpu::kernels::sort
