// sort/multiway (and sort/pairwise, its d = 2 case): the I/O-optimal multiway
// merge sort of DESIGN.md section 6 (Koike and Sadakane).
//
// Phases (the driver is multiway_sort in sort_runs.hpp):
//   1. block_sort (sort_common.cuh): basic blocks of `tile` elements sorted on
//      chip, written once.
//   2. Merge passes while more than one sorted run remains: groups of d
//      consecutive runs are merged into one run each. While groups are many
//      (at least k, the MPs) each thread block merges one whole group ("first
//      half": independent merges). When they are few, select_splits first
//      cuts each group's output into P ranges by pivots ("distribution"), and
//      P thread blocks per group merge one range each ("second half"), so
//      every MP stays busy.
//
// multiway_merge, one thread block = one MP merging d input ranges with a
// heap: a complete binary tree whose d leaves (heap indices d..2d-1, d a power
// of two, leaf d + r reading run r) point into the ranges in global memory,
// and whose d - 1 internal nodes (1..d-1) hold sorted buffers of 2C elements in
// shared memory, C = `chunk`. Every node's key is the last (largest) element
// it passed to its parent. A move from child c to node i takes the first
// min(C, what c holds) elements of c (a leaf: the next C of its range, read
// coalesced into a staging buffer) and merges them into i's buffer, all
// threads in parallel: each thread finds its place on the merge path by binary
// search (co-rank), merges its ceil(2C/T) outputs in registers, and writes
// them after a barrier. Heapify(i) (heap_refill) moves from the child with the
// smaller key, then refills that child, down to a leaf. Initialisation fills
// every internal node from both children, from the highest index down; then
// the root repeatedly writes its first C elements to the output (coalesced)
// and is refilled. A node holds 2C elements after every refill until its
// subtree runs dry, and only its smallest C leave, which are never larger
// than what its subtree still holds (every element still below a child is at
// least that child's key); so a run leaves in order.
//
// Stability (key-value sorts): each buffered element carries the side it came
// from (0 left, 1 right); a node orders (key, side), and a right child's key
// must be strictly smaller than the left's to be chosen, so equal keys leave in
// input order. Pivots order (key, run, position): also stable.
//
// AGPU cost of a pass over n elements: every element is read once by a leaf
// and written once by a root, in C-element coalesced moves (I/O about
// 2·n·s/(4b) blocks, plus the misaligned ends of split ranges); the time per
// C output elements is log2(d) moves of O(2C/T + log 2C) steps per thread.
// Passes: ceil(log_d(n/tile)); d the largest power of two whose heap fits in
// M (2C·(d - 1) buffered elements plus one staging buffer and d leaves'
// state): the I/O meets the Aggarwal-Vitter bound (n/b) log_{M/b}(n/b).
#pragma once

#include <cstdint>

#include "sort/sort_common.cuh"

namespace agpu::kernels::sort {

// One merge pass's shape, the same for every block of the launch.
struct merge_shape {
    std::uint64_t n = 0;        // elements in all
    std::uint64_t run_len = 0;  // L: every input run but the last has L elements
    unsigned d = 2;             // runs per group (a power of two)
    unsigned chunk = 256;       // C: elements per move
    unsigned parts = 1;         // P: output ranges per group (1: no splits read)
};

// The heap's dynamic shared memory: d slots of 2C elements (slot 0 stages a
// leaf's read; slot i is node i's buffer), for key-value sorts values and the
// side bit of each, then the state of the 2d nodes.
template <class K, class V, bool Pairs>
struct heap_layout {
    unsigned d, chunk;
    AGPU_HOST_DEVICE std::uint64_t slots() const { return std::uint64_t(d) * 2 * chunk; }
    AGPU_HOST_DEVICE std::uint64_t keys_at() const { return 0; }
    AGPU_HOST_DEVICE std::uint64_t vals_at() const { return align16(slots() * sizeof(K)); }
    AGPU_HOST_DEVICE std::uint64_t sides_at() const { return vals_at() + (Pairs ? align16(slots() * sizeof(V)) : 0); }
    AGPU_HOST_DEVICE std::uint64_t pos_at() const { return sides_at() + (Pairs ? align16(slots()) : 0); }
    AGPU_HOST_DEVICE std::uint64_t end_at() const { return pos_at() + align16(16 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t last_at() const { return end_at() + align16(16 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t count_at() const { return last_at() + align16(2 * std::uint64_t(d) * sizeof(K)); }
    AGPU_HOST_DEVICE std::uint64_t head_at() const { return count_at() + align16(8 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t dry_at() const { return head_at() + align16(8 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t misc_at() const { return dry_at() + align16(8 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t bytes() const { return misc_at() + 16; }
};

// The heap's state, as spans into the dynamic shared memory.
template <class K, class V, bool Pairs>
struct heap_view {
    unsigned d, chunk;
    kl::sspan<K> keys;
    kl::sspan<V> vals;
    kl::sspan<unsigned char> sides;
    kl::sspan<std::uint64_t> pos, end;  // leaves: the next element and the end of the range (by node index)
    kl::sspan<K> last;                  // every node: the last element it passed up
    kl::sspan<unsigned> count, head;    // internal nodes: buffered elements [head, head + count) of the slot
    kl::sspan<unsigned> dry;            // every node: 1 when its subtree holds nothing more
    kl::sspan<std::uint64_t> misc;      // [0]: where the block's output starts

    AGPU_DEVICE explicit heap_view(heap_layout<K, V, Pairs> l) : d(l.d), chunk(l.chunk) {
        const std::uint64_t s = l.slots();
        keys = kl::dynamic_shared<K>().subspan(l.keys_at() / sizeof(K), s);
        if constexpr (Pairs) {
            vals = kl::dynamic_shared<V>().subspan(l.vals_at() / sizeof(V), s);
            sides = kl::dynamic_shared<unsigned char>().subspan(l.sides_at(), s);
        }
        pos = kl::dynamic_shared<std::uint64_t>().subspan(l.pos_at() / 8, 2 * d);
        end = kl::dynamic_shared<std::uint64_t>().subspan(l.end_at() / 8, 2 * d);
        last = kl::dynamic_shared<K>().subspan(l.last_at() / sizeof(K), 2 * d);
        count = kl::dynamic_shared<unsigned>().subspan(l.count_at() / 4, 2 * d);
        head = kl::dynamic_shared<unsigned>().subspan(l.head_at() / 4, 2 * d);
        dry = kl::dynamic_shared<unsigned>().subspan(l.dry_at() / 4, 2 * d);
        misc = kl::dynamic_shared<std::uint64_t>().subspan(l.misc_at() / 8, 2);
    }
};

// Whether y (from a child on side sy) goes before x (buffered, from side sx).
template <class K, bool Pairs>
AGPU_DEVICE bool incoming_before(K y, unsigned sy, K x, unsigned sx) {
    if (key_order<K>::less(y, x)) return true;
    if constexpr (Pairs) return !key_order<K>::less(x, y) && sy < sx;
    return false;
}

// Moves min(C, what child c holds) elements from c into node i's buffer.
template <class K, class V, bool Pairs>
AGPU_DEVICE void heap_move(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys, kl::gspan<const V> in_vals,
                           unsigned i, unsigned c) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const unsigned slot = 2 * h.chunk;
    const unsigned have = h.count.load(i), a_at = i * slot + h.head.load(i);
    unsigned m = 0, b_at = 0;
    if (c >= h.d) {  // a leaf: the next C elements of its range, coalesced into slot 0
        const std::uint64_t p = h.pos.load(c), e = h.end.load(c);
        m = unsigned(kl::min<std::uint64_t>(h.chunk, e - p));
        // Whole warps over b-aligned positions (a range that starts where a
        // pivot fell costs the blocks it touches, not two per warp): lanes
        // before p or past the end re-read and re-store the nearest element of
        // the move (the same sector and word: no cost on the GPU). So every lane
        // of a warp reaches these accesses equally often, and the simulator
        // groups them into one warp-instruction per warp, as the GPU issues them.
        const unsigned lead = unsigned(p % kl::warp_size());
        for (unsigned j0 = t - kl::lane_id(); j0 < lead + m; j0 += threads) {
            const unsigned j = kl::min(kl::max(j0 + kl::lane_id(), lead), lead + m - 1) - lead;
            h.keys.store(j, in_keys.load(p + j));
            if constexpr (Pairs) h.vals.store(j, in_vals.load(p + j));
        }
        kl::sync_threads();
    } else {
        m = kl::min(h.chunk, h.count.load(c));
        b_at = c * slot + h.head.load(c);
    }
    const unsigned side = c & 1u;
    // This thread's outputs [begin, stop) of the merged have + m; its start on the merge path.
    const unsigned total = have + m, per = (total + threads - 1) / threads;
    const unsigned begin = kl::min(t * per, total), stop = kl::min(begin + per, total);
    unsigned lo = begin > m ? begin - m : 0, hi = kl::min(begin, have);
    while (lo < hi) {
        const unsigned mid = (lo + hi) / 2;
        const K x = h.keys.load(a_at + mid), y = h.keys.load(b_at + begin - 1 - mid);
        unsigned sx = 0;
        if constexpr (Pairs) sx = h.sides.load(a_at + mid);
        kl::compute(1);
        if (!incoming_before<K, Pairs>(y, side, x, sx)) lo = mid + 1;
        else hi = mid;
    }
    unsigned a = lo, b = begin - lo;
    K ka{}, kb{};
    unsigned sa = 0;
    if (begin < stop && a < have) {
        ka = h.keys.load(a_at + a);
        if constexpr (Pairs) sa = h.sides.load(a_at + a);
    }
    if (begin < stop && b < m) kb = h.keys.load(b_at + b);
    K rk[sort_policy::max_items];
    V rv[sort_policy::max_items];
    unsigned char rs[sort_policy::max_items];
    for (unsigned q = 0; q < sort_policy::max_items; ++q) {
        if (begin + q >= stop) continue;
        kl::compute(1);
        if (a >= have || (b < m && incoming_before<K, Pairs>(kb, side, ka, sa))) {
            rk[q] = kb;
            if constexpr (Pairs) {
                rv[q] = h.vals.load(b_at + b);
                rs[q] = static_cast<unsigned char>(side);
            }
            if (++b < m && begin + q + 1 < stop) kb = h.keys.load(b_at + b);
        } else {
            rk[q] = ka;
            if constexpr (Pairs) {
                rv[q] = h.vals.load(a_at + a);
                rs[q] = static_cast<unsigned char>(sa);
            }
            if (++a < have && begin + q + 1 < stop) {
                ka = h.keys.load(a_at + a);
                if constexpr (Pairs) sa = h.sides.load(a_at + a);
            }
        }
    }
    kl::sync_threads();
    for (unsigned q = 0; q < sort_policy::max_items; ++q) {
        if (begin + q >= stop) continue;
        h.keys.store(i * slot + begin + q, rk[q]);
        if constexpr (Pairs) {
            h.vals.store(i * slot + begin + q, rv[q]);
            h.sides.store(i * slot + begin + q, rs[q]);
        }
    }
    if (t == 0) {
        h.last.store(c, h.keys.load(b_at + m - 1));
        h.count.store(i, total);
        h.head.store(i, 0);
        if (c >= h.d) {
            const std::uint64_t p = h.pos.load(c) + m;
            h.pos.store(c, p);
            h.dry.store(c, p == h.end.load(c) ? 1u : 0u);
        } else {
            const unsigned left = h.count.load(c) - m;
            h.count.store(c, left);
            h.head.store(c, h.head.load(c) + m);
            h.dry.store(c, left == 0 && h.dry.load(2 * c) != 0 && h.dry.load(2 * c + 1) != 0 ? 1u : 0u);
        }
    }
    kl::sync_threads();
}

// Heapify(node): refills node from the child with the smaller key, then that
// child, down to a leaf or a node whose children are both dry.
template <class K, class V, bool Pairs>
AGPU_DEVICE void heap_refill(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys, kl::gspan<const V> in_vals,
                             unsigned node) {
    while (node < h.d) {
        const unsigned l = 2 * node, r = l + 1;
        const bool dry_l = h.dry.load(l) != 0, dry_r = h.dry.load(r) != 0;
        if (dry_l && dry_r) return;
        unsigned c = dry_l ? r : l;
        if (!dry_l && !dry_r && key_order<K>::less(h.last.load(r), h.last.load(l))) c = r;
        heap_move(h, in_keys, in_vals, node, c);
        node = c;
    }
}

// The first element of run r of group g (clamped to n).
AGPU_HOST_DEVICE std::uint64_t run_start(const merge_shape& s, std::uint64_t g, std::uint64_t r) {
    const std::uint64_t x = (g * s.d + r) * s.run_len;
    return x < s.n ? x : s.n;
}

// One block merges range `part` of group `group` (block = group·P + part).
template <class K, class V, bool Pairs>
AGPU_KERNEL void multiway_merge(kl::gspan<const K> in_keys, kl::gspan<const V> in_vals, kl::gspan<K> out_keys,
                                kl::gspan<V> out_vals, kl::gspan<const std::uint64_t> splits, merge_shape s) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const heap_view<K, V, Pairs> h(heap_layout<K, V, Pairs>{s.d, s.chunk});
    const std::uint64_t group = kl::block_idx().x / s.parts, part = kl::block_idx().x % s.parts;
    const unsigned d = s.d, slot = 2 * s.chunk;
    for (unsigned r = t; r < d; r += threads) {
        std::uint64_t lo = run_start(s, group, r), hi = run_start(s, group, r + 1);
        if (s.parts > 1) {
            lo = splits.load((group * (s.parts + 1) + part) * d + r);
            hi = splits.load((group * (s.parts + 1) + part + 1) * d + r);
        }
        h.pos.store(d + r, lo);
        h.end.store(d + r, hi);
        h.dry.store(d + r, lo == hi ? 1u : 0u);
        h.count.store(r, 0);
        h.head.store(r, 0);
        h.dry.store(r, 0);
    }
    kl::sync_threads();
    std::uint64_t out = run_start(s, group, 0);
    if (s.parts > 1) {  // the range starts after what precedes it in every run
        if (t == 0) {
            std::uint64_t before = 0;
            for (unsigned r = 0; r < d; ++r) before += h.pos.load(d + r) - run_start(s, group, r);
            h.misc.store(0, before);
        }
        kl::sync_threads();
        out += h.misc.load(0);
    }
    for (unsigned i = d - 1; i >= 1; --i) {
        for (unsigned c = 2 * i; c <= 2 * i + 1; ++c)
            if (h.dry.load(c) == 0) {
                heap_move(h, in_keys, in_vals, i, c);
                heap_refill(h, in_keys, in_vals, c);
            }
        if (t == 0)
            h.dry.store(i, h.count.load(i) == 0 && h.dry.load(2 * i) != 0 && h.dry.load(2 * i + 1) != 0 ? 1u : 0u);
        kl::sync_threads();
    }
    while (h.dry.load(1) == 0) {
        const unsigned have = h.count.load(1), at = slot + h.head.load(1);
        const unsigned m = kl::min(s.chunk, have);
        // Whole warps over b-aligned positions, as the leaves read (lanes
        // outside the move store the nearest element's value again).
        const unsigned lead = unsigned(out % kl::warp_size());
        for (unsigned j0 = t - kl::lane_id(); j0 < lead + m; j0 += threads) {
            const unsigned j = kl::min(kl::max(j0 + kl::lane_id(), lead), lead + m - 1) - lead;
            out_keys.store(out + j, h.keys.load(at + j));
            if constexpr (Pairs) out_vals.store(out + j, h.vals.load(at + j));
        }
        out += m;
        kl::sync_threads();
        if (t == 0) {
            h.count.store(1, have - m);
            h.head.store(1, h.head.load(1) + m);
            h.dry.store(1, have == m && h.dry.load(2) != 0 && h.dry.load(3) != 0 ? 1u : 0u);
        }
        kl::sync_threads();
        heap_refill(h, in_keys, in_vals, 1);
    }
}

// Bytes of select_splits' dynamic shared memory for `samples` (a power of two) samples.
template <class K>
AGPU_HOST_DEVICE std::uint64_t splits_shared_bytes(unsigned samples) {
    return align16(std::uint64_t(samples) * sizeof(K)) + align16(std::uint64_t(samples) * 4);
}

// Distribution: one block per group picks P - 1 pivots from `per_run` evenly
// spaced samples of each of its runs (sorted on chip by (key, run, position))
// and writes, for every boundary q = 0..P and run r, how many elements of run
// r precede boundary q in (key, run, position) order: splits[(g(P + 1) + q)d + r]
// (absolute positions; q = 0 and q = P are the runs' ends). Binary searches in
// global memory, thread per (q, r).
template <class K>
AGPU_KERNEL void select_splits(kl::gspan<const K> keys, kl::gspan<std::uint64_t> splits, merge_shape s,
                               unsigned per_run) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const unsigned d = s.d, samples = d * per_run;
    const std::uint64_t g = kl::block_idx().x;
    const kl::sspan<K> sk = kl::dynamic_shared<K>().subspan(0, samples);
    const kl::sspan<unsigned> st =
        kl::dynamic_shared<unsigned>().subspan(align16(std::uint64_t(samples) * sizeof(K)) / 4, samples);
    for (unsigned x = t; x < samples; x += threads) {
        const unsigned r = x / per_run, j = x % per_run;
        const std::uint64_t lo = run_start(s, g, r), len = run_start(s, g, r + 1) - lo;
        sk.store(x, len > 0 ? keys.load(lo + j * len / per_run) : K{});
        st.store(x, len > 0 ? x : samples + x);  // an empty run's samples are absent
    }
    bitonic_sort_shared(sk, st, samples, samples);
    // Runs with elements come first in the group, each with per_run samples.
    const std::uint64_t first = run_start(s, g, 0);
    const unsigned nonempty = unsigned(kl::min<std::uint64_t>(d, (s.n - first + s.run_len - 1) / s.run_len));
    const unsigned present = nonempty * per_run;
    for (unsigned x = t; x < (s.parts + 1) * d; x += threads) {
        const unsigned q = x / d, r = x % d;
        const std::uint64_t lo = run_start(s, g, r), hi = run_start(s, g, r + 1);
        std::uint64_t split = q == 0 ? lo : hi;
        if (q > 0 && q < s.parts) {
            const unsigned at = unsigned(std::uint64_t(q) * present / s.parts);
            const K pivot = sk.load(at);
            const unsigned tag = st.load(at), pr = tag / per_run, pj = tag % per_run;
            if (r == pr) {
                split = lo + pj * (hi - lo) / per_run;
            } else {  // run r's elements before the pivot: <= it for earlier runs, < it for later ones
                std::uint64_t a = lo, b = hi;
                while (a < b) {
                    const std::uint64_t mid = (a + b) / 2;
                    const K x_mid = keys.load(mid);
                    kl::compute(1);
                    const bool before = r < pr ? !key_order<K>::less(pivot, x_mid) : key_order<K>::less(x_mid, pivot);
                    if (before) a = mid + 1;
                    else b = mid;
                }
                split = a;
            }
        }
        splits.store((g * (s.parts + 1) + q) * d + r, split);
    }
}

}  // namespace agpu::kernels::sort
