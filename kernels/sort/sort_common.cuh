// What the sort family's kernels share: the key orders, the on-chip bitonic
// networks (in shared memory, and a warp's in registers), the merge path
// (co-rank search and serial merge), and the basic-block sort (phase 1 of
// sort/multiway, sort/pairwise and sort/bitonic).
//
// Key order: unsigned integers by value; float by IEEE 754 totalOrder, i.e. by
// its bit pattern mapped to an unsigned integer (sign bit set: all bits
// flipped; clear: the sign bit set), so
//   -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN
// and NaNs of different payloads are ordered by payload. Equal keys keep their
// input order wherever values travel with them (key-value sorts are stable).
//
// block_sort: each thread block loads one tile of `tile` elements (a power of
// two; positions past n are padded with the largest key, which a stable sort
// leaves after every real one), each of its T threads (256; keys alone on
// warps of 32 in tiles above 4096: tile/16, up to 1024, sort_plan::
// block_threads) takes E = tile/T consecutive elements into registers, and
// rounds merge pairs of sorted runs in shared memory, each thread finding its
// E outputs on the merge path (co-rank binary search) and merging them in
// registers. Keys alone on warps
// of W = 32 lanes: each warp first sorts its W·E consecutive elements by a
// bitonic network in registers and shuffles (warp_bitonic_sort), so log2(T/W)
// rounds remain; pairs (stable) and other machines: each thread sorts its E
// by odd-even transposition (stable), then log2(T) rounds, keys carrying their
// positions (the values are gathered through them at the end). AGPU cost per
// tile: one coalesced read and write of the tile (I/O 2·tile·s/(4b) blocks
// for s-byte keys); steps per thread O(E·log²(W·E) + log2(T/W)·(E + log2
// tile)) with the network, O(E² + log2(T)·(E + log2 tile)) without; shared
// about tile·s bytes for keys alone, tile·(s + 4 + 4) for pairs (positions
// and values).
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
    // A merge block (multiway.cuh) is one warp of at least 32 threads, one
    // heap: its barriers are a warp's, and an SM holds many heaps whose
    // latency chains overlap (sort_plan::merge_threads, sort_plan::make_plan).
    // Register items per thread: a heap move's 2·chunk/32 outputs (chunk <=
    // 256), block_sort's tile/threads (tile <= 4096 at 256 threads; keys alone
    // on warps of 32 take up to 1024 threads, tile <= 16384:
    // sort_plan::block_threads).
    static constexpr unsigned max_items = 16;
    // A leaf's read, held in registers while the moves above it run: at most
    // ceil((b - 1 + chunk)/max(32, b)) elements per thread.
    static constexpr unsigned max_leaf_loads = max_items / 2 + 2;
    // The warp of a heap whose moves are bitonic networks (multiway.cuh's
    // bitonic_merge; sort_plan::bitonic_items): a constant, so that the
    // network unrolls. Every NVIDIA GPU's; a machine of another b merges by
    // the merge path.
    static constexpr unsigned bitonic_lanes = 32;
};

template <class K>
struct key_order {
    AGPU_HOST_DEVICE static bool less(K a, K b) { return a < b; }
    AGPU_HOST_DEVICE static K largest() { return ~K{0}; }
};

template <>
struct key_order<float> {
    AGPU_HOST_DEVICE static std::uint32_t ordered(float x) {
        const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
        return u ^ ((u >> 31) != 0 ? 0xffffffffu : 0x80000000u);
    }
    AGPU_HOST_DEVICE static bool less(float a, float b) { return ordered(a) < ordered(b); }
    AGPU_HOST_DEVICE static float largest() {
        return std::bit_cast<float>(0x7fffffffu);
    }  // +NaN, every payload bit set
};

// The smaller and the larger of two keys in key_order (integer keys: one
// min or max instruction each).
template <class K>
AGPU_DEVICE K key_min(K x, K y) {
    return key_order<K>::less(y, x) ? y : x;
}
template <class K>
AGPU_DEVICE K key_max(K x, K y) {
    return key_order<K>::less(y, x) ? x : y;
}

// p ? a : b: 4-byte keys by kl::fma_pick (on the FMA pipe: the networks'
// selects, where the ALU pipe binds), others by a select.
template <class K>
AGPU_DEVICE K key_pick(bool p, K a, K b) {
    if constexpr (sizeof(K) == 4) {
        const std::uint32_t u =
            kl::fma_pick(p, std::bit_cast<std::uint32_t>(a), std::bit_cast<std::uint32_t>(b), kl::fma_one());
        return std::bit_cast<K>(u);
    } else {
        return p ? a : b;
    }
}

// Merge path (co-rank): how many of A's elements are among the first `diag`
// outputs of the stable merge of A[0, a_len) and B[0, b_len), where
// b_first(j, i) says B[j] goes before A[i]. A binary search: about
// log2(min(a_len, b_len)) dependent steps.
template <class BFirst>
AGPU_DEVICE unsigned co_rank(unsigned diag, unsigned a_len, unsigned b_len, BFirst b_first) {
    unsigned lo = diag > b_len ? diag - b_len : 0, hi = kl::min(diag, a_len);
    const std::uint32_t one = kl::fma_one();  // picks: the FMA pipe (kernels with dynamic shared memory)
    while (lo < hi) {
        const unsigned mid = (lo + hi) / 2;
        kl::compute(1);
        const bool left = b_first(diag - 1 - mid, mid);
        hi = kl::fma_pick(left, mid, hi, one);
        lo = kl::fma_pick(left, lo, mid + 1, one);
    }
    return lo;
}

// `count` (at most sort_policy::max_items) outputs of that merge from (a, b)
// on, in registers: index_a(i) / index_b(j) give where A's and B's elements
// lie, load(from_b, index) fetches one, b_first(y, x) says B's y goes before
// A's x, and emit(q, from_b, index, element) takes output q. One load per
// output, from whichever side moved (a side past its end re-reads its last
// element, never taken), so a warp issues one load instruction per step
// whatever its lanes chose; the loop's trip count is a constant, so the
// outputs' registers are indexed statically.
template <class IndexA, class IndexB, class Load, class BFirst, class Emit>
AGPU_DEVICE void serial_merge(unsigned a, unsigned b, unsigned a_len, unsigned b_len, unsigned count, IndexA index_a,
                              IndexB index_b, Load load, BFirst b_first, Emit emit) {
    if (count == 0) return;
    auto xa = load(false, index_a(kl::min(a, a_len - 1))), xb = load(true, index_b(kl::min(b, b_len - 1)));
    for (unsigned q = 0; q < sort_policy::max_items; ++q) {
        if (q >= count) break;
        kl::compute(1);
        const bool from_b = b < b_len && (a >= a_len || b_first(xb, xa));
        emit(q, from_b, from_b ? b : a, from_b ? xb : xa);
        if (from_b) ++b;
        else ++a;
        const auto x = load(from_b, from_b ? index_b(kl::min(b, b_len - 1)) : index_a(kl::min(a, a_len - 1)));
        if (from_b) xb = x;
        else xa = x;
    }
}

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
AGPU_HOST_DEVICE std::uint64_t pair_low(std::uint64_t p, std::uint64_t j) {
    return ((p & ~(j - 1)) << 1) | (p & (j - 1));
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

// Bytes of block_sort's (and bitonic_tile_merge's) dynamic shared memory:
// the keys (one word of padding per 32, so that a thread's E consecutive
// elements fall in distinct banks), the positions where Tags (pairs, whose
// values are gathered through them; bitonic_tile_merge's absent elements),
// and for pairs the values. Keys alone need no positions: a tile of 16384
// u32 keys takes 66 kB, so an H100 SM holds three.
AGPU_HOST_DEVICE std::uint64_t align16(std::uint64_t x) { return (x + 15) / 16 * 16; }
AGPU_HOST_DEVICE unsigned padded(unsigned i) { return i + i / 32; }
template <class K, class V, bool Pairs, bool Tags = Pairs>
AGPU_HOST_DEVICE std::uint64_t tile_shared_bytes(unsigned tile) {
    const std::uint64_t slots = padded(tile);
    return align16(slots * sizeof(K)) + (Tags ? align16(slots * 4) : 0) +
           (Pairs ? align16(std::uint64_t(tile) * sizeof(V)) : 0);
}

// An element on its way through block_sort: the key and its position in the tile.
template <class K>
struct tagged_key {
    K key;
    unsigned tag;
};

// Keys alone: sorts the W·R elements of a warp of W lanes, element e = lane·R
// + q in x[q] of its lane (each thread's R consecutive elements), by Batcher's
// bitonic network in the form whose compare-exchanges all put the smaller at
// the lower position: stage k = 2, 4, ..., W·R merges sorted runs of k/2 into
// runs of k, pairing e first with e ^ (k − 1) (the mirror: the two runs become
// one bitonic sequence), then with e ^ j for j = k/4, ..., 1 (half-cleaners).
// A distance below R pairs two registers of a lane (a min and a max); from R
// on it pairs lane l with lane l ^ (j/R) (the mirror: l ^ (k/R − 1), register
// q with R − 1 − q), one shuffle a register, the lower lane keeping the
// smaller. A distance 2^i takes part in every stage above i, so giving the
// lane bits of e the highest positions makes the fewest steps cross lanes:
// 5 + 4 + 3 + 2 + 1 = 15 steps of R shuffles, and log2 R·(log2 R + 1)/2 +
// 5·log2 R steps of R/2 compare-exchanges (R = 16: 240 shuffles and 240
// compare-exchanges a lane). Not stable: equal keys are equal bit patterns,
// so their order does not show (the heap's bitonic moves rely on the same).
// One step per instantiation (stage Stage, distance J; called as
// warp_bitonic_sort<R, W>(x)), so every register index is a constant and x
// stays in registers; x may hold more than R registers (the first R are
// sorted).
template <unsigned R, unsigned W, unsigned Stage = 2, unsigned J = 1, class K, unsigned N>
AGPU_DEVICE void warp_bitonic_sort(K (&x)[N]) {
    static_assert(R > 0 && R <= N && (R & (R - 1)) == 0, "R registers of x, a power of two");
    constexpr bool mirror = J == Stage / 2;
    if constexpr (J >= R) {
        constexpr unsigned partner = mirror ? Stage / R - 1 : J / R;
        const bool upper = (kl::lane_id() & (J / R)) != 0;
        K y[R];
        for (unsigned q = 0; q < R; ++q) y[q] = kl::shfl_xor(x[mirror ? R - 1 - q : q], int(partner));
        for (unsigned q = 0; q < R; ++q) {  // the smaller in the lower lane, the larger in the upper one
            kl::compute(1);
            x[q] = key_pick(key_order<K>::less(y[q], x[q]) != upper, y[q], x[q]);
        }
    } else {
        for (unsigned q = 0; q < R; ++q)
            if ((q & J) == 0) {
                const unsigned p = mirror ? q ^ (Stage - 1) : q + J;
                kl::compute(1);
                const K lo = key_min(x[q], x[p]), hi = key_max(x[q], x[p]);
                x[q] = lo;
                x[p] = hi;
            }
    }
    if constexpr (J > 1) warp_bitonic_sort<R, W, Stage, J / 2>(x);
    else if constexpr (Stage < R * W) warp_bitonic_sort<R, W, 2 * Stage, Stage>(x);
}

// block_sort's round for keys alone: `count` outputs of the merge of A and B
// (`len` elements each, at padded(a_first + i) and padded(b_first + j) of
// `keys`) from (a, b) on, into out. A side past its end reads as the largest
// key instead of being tested at every output: an output is the smaller head
// (A's on equal keys), which is the key itself (equal keys are equal bit
// patterns, and an exhausted side's stand-in equals any largest key still on
// the other side), and only the side it came from loads its next element,
// predicated off past its end (no clamp). serial_merge's general form tests
// both ends and clamps and pads both indices at every output: 18
// instructions an output on sm_90 (cuobjdump -sass of the sort kernels).
template <class K, unsigned N>
AGPU_DEVICE void keys_merge(unsigned a, unsigned b, unsigned len, unsigned count, kl::sspan<K> keys, unsigned a_first,
                            unsigned b_first, K (&out)[N]) {
    const K top = key_order<K>::largest();
    K xa = keys.load_if(a < len, padded(a_first + a), top);
    K xb = keys.load_if(b < len, padded(b_first + b), top);
    const std::uint32_t one = kl::fma_one();
    for (unsigned q = 0; q < N; ++q) {
        if (q >= count) break;
        kl::compute(1);
        // The selects as picks (the FMA pipe; the ALU pipe binds), each of a
        // different value: ptxas would share one multiply between two picks
        // of the same value and select again.
        const bool from_b = key_order<K>::less(xb, xa);
        out[q] = key_min(xa, xb);
        const unsigned next = kl::fma_pick(from_b, b, a, one) + 1;
        b = kl::fma_pick(from_b, next, b, one);
        a = kl::fma_pick(from_b, a, next, one);
        const K x = keys.load_if(next < len, padded(kl::fma_pick(from_b, b_first, a_first, one) + next), top);
        xb = key_pick(from_b, x, xb);
        xa = key_pick(from_b, xa, x);
    }
}

// Phase 1: tile b of in sorted into out. R = 0: stable (key-value pairs; keys
// on machines whose warp is not sort_policy::bitonic_lanes), each thread's E
// elements sorted by odd-even transposition, then log2(T) rounds. R = E
// (keys alone, warps of bitonic_lanes; sort_plan::block_network_items): each
// warp's elements sorted by warp_bitonic_sort, then log2(T/W) rounds. The
// global and shared accesses around the sort are the same either way. The
// network's blocks have up to 1024 threads (tiles of 16384), so they must
// take at most 64 registers a thread: R = 16 takes 32 (u32), 40 (float) and
// 60 (u64) on sm_90 with no spills (u32: two blocks of 1024 per SM; with
// __launch_bounds__(1024, 1) ptxas takes 43, 49 and 63, so it is not given).
template <class K, class V, bool Pairs, unsigned R>
AGPU_KERNEL void block_sort(kl::gspan<const K> in_keys, kl::gspan<const V> in_vals, kl::gspan<K> out_keys,
                            kl::gspan<V> out_vals, std::uint64_t n, unsigned tile) {
    static_assert(R == 0 || !Pairs, "the warp network is not stable: keys alone");
    constexpr unsigned W = sort_policy::bitonic_lanes, unrolled = R > 0 ? R : sort_policy::max_items;
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x, items = R > 0 ? R : tile / threads;
    const std::uint64_t tags_at = align16(std::uint64_t(padded(tile)) * sizeof(K)),
                        vals_at = tags_at + align16(std::uint64_t(padded(tile)) * 4);
    const kl::sspan<K> keys = kl::dynamic_shared<K>().subspan(0, padded(tile));
    // Positions only for pairs (tile_shared_bytes): keys alone leave them empty.
    const kl::sspan<unsigned> tags = kl::dynamic_shared<unsigned>().subspan(tags_at / 4, Pairs ? padded(tile) : 0);
    const std::uint64_t base = std::uint64_t(kl::block_idx().x) * tile;
    const unsigned valid = unsigned(kl::min<std::uint64_t>(tile, n - base));
    // A whole tile of the network's (tile = threads·R): R passes, unrolled, so
    // that their loads are in flight together; the same accesses as the loop.
    // (R > 0 ? R : 1: never 0, which nvcc would warn of; R = 0 is never whole.)
    const bool whole = R > 0 && valid == tile;
    if (whole) {
        for (unsigned q = 0; q < (R > 0 ? R : 1); ++q)
            keys.store(padded(t + q * threads), in_keys.load(base + t + q * threads));
    } else {
        for (unsigned i = t; i < tile; i += threads)
            keys.store(padded(i), i < valid ? in_keys.load(base + i) : key_order<K>::largest());
    }
    if constexpr (Pairs) {
        const kl::sspan<V> vals = kl::dynamic_shared<V>().subspan(vals_at / sizeof(V), tile);
        for (unsigned i = t; i < valid; i += threads) vals.store(i, in_vals.load(base + i));
    }
    kl::sync_threads();
    // This thread's E consecutive elements, sorted in registers: by the warp's
    // network, or on their own (adjacent exchanges only where strictly
    // smaller: stable).
    K rk[sort_policy::max_items];
    unsigned rt[sort_policy::max_items];
    for (unsigned q = 0; q < unrolled; ++q) {
        if (q >= items) continue;
        rk[q] = keys.load(padded(t * items + q));
        rt[q] = t * items + q;
    }
    if constexpr (R > 0) {
        warp_bitonic_sort<R, W>(rk);
    } else {
        for (unsigned round = 0; round < unrolled; ++round)
            for (unsigned q = round % 2; q + 1 < unrolled; q += 2) {
                if (round >= items || q + 1 >= items) continue;
                kl::compute(1);
                if (key_order<K>::less(rk[q + 1], rk[q])) {
                    const K k = rk[q];
                    rk[q] = rk[q + 1];
                    rk[q + 1] = k;
                    const unsigned g = rt[q];
                    rt[q] = rt[q + 1];
                    rt[q + 1] = g;
                }
            }
    }
    // Rounds: runs of `width` elements merged pairwise, each thread taking E
    // outputs; the registers go to shared memory before each round and after
    // the last.
    for (unsigned width = R > 0 ? W * R : items;; width *= 2) {
        kl::sync_threads();
        for (unsigned q = 0; q < unrolled; ++q) {
            if (q >= items) continue;
            keys.store(padded(t * items + q), rk[q]);
            if constexpr (Pairs) tags.store(padded(t * items + q), rt[q]);
        }
        kl::sync_threads();
        if (width >= tile) break;
        const unsigned first = t * items & ~(2 * width - 1), diag = t * items - first;  // width: a power of two
        auto index_a = [&](unsigned i) { return padded(first + i); };
        auto index_b = [&](unsigned j) { return padded(first + width + j); };
        auto load = [&](bool, unsigned at) { return tagged_key<K>{keys.load(at), Pairs ? tags.load(at) : 0u}; };
        const unsigned a = co_rank(diag, width, width, [&](unsigned j, unsigned i) {
            return key_order<K>::less(keys.load(index_b(j)), keys.load(index_a(i)));
        });
        if constexpr (Pairs) {
            serial_merge(
                a, diag - a, width, width, items, index_a, index_b, load,
                [](const tagged_key<K>& y, const tagged_key<K>& x) { return key_order<K>::less(y.key, x.key); },
                [&](unsigned q, bool, unsigned, const tagged_key<K>& e) {
                    rk[q] = e.key;
                    rt[q] = e.tag;
                });
        } else {
            keys_merge(a, diag - a, width, items, keys, first, first + width, rk);
        }
    }
    if (whole) {
        for (unsigned q = 0; q < (R > 0 ? R : 1); ++q)
            out_keys.store(base + t + q * threads, keys.load(padded(t + q * threads)));
    } else {
        for (unsigned i = t; i < valid; i += threads) out_keys.store(base + i, keys.load(padded(i)));
    }
    if constexpr (Pairs) {
        const kl::sspan<V> vals = kl::dynamic_shared<V>().subspan(vals_at / sizeof(V), tile);
        for (unsigned i = t; i < valid; i += threads) out_vals.store(base + i, vals.load(tags.load(padded(i))));
    }
}

// The block_sort kernel whose warps sort `items` elements per thread by the
// network (sort_plan::block_network_items: 1, 2, 4, 8 or 16), or 0: the
// stable one.
template <class K, class V, bool Pairs>
auto block_sort_kernel(std::uint64_t items) {
    if constexpr (!Pairs) {
        if (items == 16) return block_sort<K, V, Pairs, 16>;
        if (items == 8) return block_sort<K, V, Pairs, 8>;
        if (items == 4) return block_sort<K, V, Pairs, 4>;
        if (items == 2) return block_sort<K, V, Pairs, 2>;
        if (items == 1) return block_sort<K, V, Pairs, 1>;
    }
    return block_sort<K, V, Pairs, 0>;
}

}  // namespace agpu::kernels::sort
