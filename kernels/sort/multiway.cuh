// sort/multiway (and sort/pairwise, its d = 2 case): the I/O-optimal multiway
// merge sort of DESIGN.md section 6 (Koike and Sadakane).
//
// Phases (the driver is multiway_sort in sort_runs.hpp):
//   1. block_sort (sort_common.cuh): basic blocks of `tile` elements sorted on
//      chip, written once.
//   2. Merge passes while more than one sorted run remains: groups of d
//      consecutive runs are merged into one run each. While groups are many
//      (at least 4x the heaps the MPs hold at once) each heap merges one whole group ("first
//      half": independent merges). When they are few, select_pivots and
//      split_search first cut each group's output into P ranges by pivots
//      ("distribution"), and P heaps per group merge one range each ("second
//      half"), so every MP stays busy.
//
// multiway_merge, one warp (a block of sort_plan::merge_threads, 32 on the
// GPU) = one MP of the model merging d input ranges with a heap: a complete
// binary tree whose d leaves (heap indices d..2d-1, d a power of two, leaf
// d + r reading run r) point into the ranges in global memory, and whose
// d - 1 internal nodes (1..d-1) hold sorted buffers of 2C elements in shared
// memory, C = `chunk`. Every node's key is the last (largest) element it
// passed to its parent. A move from child c to node i takes the first
// min(C, what c holds) elements of c (a leaf: the next C of its range, read
// coalesced into a staging buffer) and merges them into i's buffer, all lanes
// in parallel: each finds its place on the merge path by binary search
// (co-rank) and merges its 2C/32 outputs in registers. Heapify(i)
// (heap_refill) moves from the child with the smaller key, then refills that
// child, down to a leaf; the path is fixed before its first move (a move
// changes only the moving child's key), so the leaf's global read is issued
// first and its latency overlaps the moves above it. Initialisation fills
// every internal node from both children, from the highest index down; then
// the root repeatedly writes its first C elements to the output (coalesced)
// and is refilled. A node holds 2C elements after every refill until its
// subtree runs dry, and only its smallest C leave, which are never larger
// than what its subtree still holds (every element still below a child is at
// least that child's key); so a run leaves in order.
//
// Why a warp per heap: a move is a chain of dependent shared loads (the
// search, the register merge) and a Heapify a chain of log2(d) moves, so one
// heap keeps an SM mostly idle. With a warp each, an SM holds as many heaps as
// its shared memory allows (d and C are chosen so that about 16 fit: the AGPU
// heap condition 2C(d - 1) <= M read with M/16 words per heap) and their
// chains overlap.
//
// Stability (key-value sorts): each buffered element carries the side it came
// from (0 left, 1 right); a node orders (key, side), and a right child's key
// must be strictly smaller than the left's to be chosen, so equal keys leave in
// input order. Pivots order (key, run, position): also stable.
//
// AGPU cost of a pass over n elements: every element is read once by a leaf
// and written once by a root, in C-element coalesced moves (I/O about
// 2·n·s/(4b) blocks, plus the misaligned ends of split ranges); the time per
// C output elements is log2(d) moves of O(2C/32 + log 2C) steps per lane.
// Passes: ceil(log_d(n/tile)): the I/O is (n/b) log_d(n/tile) blocks, which
// meets the Aggarwal-Vitter bound (n/b) log_{M/b}(n/b) up to the constant
// log(M/b)/log(d), d = Theta(M/(16C)) and C = Theta(b).
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

// The heap's dynamic shared memory: d slots of 2C elements, padded (slot 0 stages a
// leaf's read; slot i is node i's buffer), for key-value sorts values and the
// side bit of each, then the state of the 2d nodes.
template <class K, class V, bool Pairs>
struct heap_layout {
    unsigned d, chunk;
    // A slot: 2C elements plus one of padding per 32 (a lane's 2C/32
    // consecutive outputs then fall in distinct banks, as in block_sort).
    AGPU_HOST_DEVICE unsigned slot() const { return padded(2 * chunk); }
    AGPU_HOST_DEVICE std::uint64_t slots() const { return std::uint64_t(d) * slot(); }
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

// A buffered element as the merge compares it: the key and the side it came from.
template <class K>
struct sided_key {
    K key;
    unsigned side;
};

// A leaf's next move (min(C, what is left) elements from `from`), read from
// global memory into registers before the moves above it on the path, so the
// read's latency overlaps them. Whole warps over b-aligned positions (a range
// that starts where a pivot fell costs the blocks it touches, not two per
// warp): lanes before the move's start or past its end read the nearest
// element of the move again (the same sector and word: no cost on the GPU).
// So every lane of a warp reaches these accesses equally often, and the
// simulator groups them into one warp-instruction per warp, as the GPU issues
// them.
template <class K, class V, bool Pairs>
struct leaf_read {
    std::uint64_t from = 0, end = 0;
    unsigned count = 0;
    K keys[sort_policy::max_leaf_loads];
    V vals[sort_policy::max_leaf_loads];
};

template <class K, class V, bool Pairs>
AGPU_DEVICE void leaf_load(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys, kl::gspan<const V> in_vals,
                           unsigned leaf, leaf_read<K, V, Pairs>& lr) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    lr.from = h.pos.load(leaf);
    lr.end = h.end.load(leaf);
    lr.count = unsigned(kl::min<std::uint64_t>(h.chunk, lr.end - lr.from));
    const unsigned lead = unsigned(lr.from % kl::warp_size());
    for (unsigned q = 0; q < sort_policy::max_leaf_loads; ++q) {
        const unsigned j0 = t - kl::lane_id() + q * threads;
        if (j0 >= lead + lr.count) continue;
        const unsigned j = kl::min(kl::max(j0 + kl::lane_id(), lead), lead + lr.count - 1) - lead;
        lr.keys[q] = in_keys.load(lr.from + j);
        if constexpr (Pairs) lr.vals[q] = in_vals.load(lr.from + j);
    }
}

// The leaf's registers into slot 0 (the same lanes and positions as the read).
template <class K, class V, bool Pairs>
AGPU_DEVICE void leaf_stage(const heap_view<K, V, Pairs>& h, const leaf_read<K, V, Pairs>& lr) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const unsigned lead = unsigned(lr.from % kl::warp_size());
    for (unsigned q = 0; q < sort_policy::max_leaf_loads; ++q) {
        const unsigned j0 = t - kl::lane_id() + q * threads;
        if (j0 >= lead + lr.count) continue;
        const unsigned j = kl::min(kl::max(j0 + kl::lane_id(), lead), lead + lr.count - 1) - lead;
        h.keys.store(padded(j), lr.keys[q]);
        if constexpr (Pairs) h.vals.store(padded(j), lr.vals[q]);
    }
    kl::sync_threads();
}

// Where an internal node's elements are: [head, head + count) of its slot.
// Every lane of the heap's warp holds the same copy in registers; the shared
// copy (count, head) is for the next Heapify that passes the node.
struct held {
    unsigned count, head;
};
struct move_result {
    held parent, child;
};

// Moves min(C, what child c holds) elements from c (holding at_c; a leaf: the
// elements `lr` read) into node i (holding at_i). `path_end`: c's children
// are both dry (else c is refilled next, and stays not dry). One barrier,
// between the merge's loads and its stores: the next move on the path reads
// and writes other buffers.
template <class K, class V, bool Pairs>
AGPU_DEVICE move_result heap_move(const heap_view<K, V, Pairs>& h, const leaf_read<K, V, Pairs>& lr, unsigned i,
                                  held at_i, unsigned c, held at_c, bool path_end) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const unsigned slot = padded(2 * h.chunk);
    // Element x of node i's buffer, of c's (a leaf: of the staging slot 0), and of i's new buffer.
    const unsigned have = at_i.count, a_at = i * slot, a_head = at_i.head;
    unsigned m = 0, b_at = 0, b_head = 0;
    if (c >= h.d) {
        m = lr.count;
        leaf_stage(h, lr);
    } else {
        m = kl::min(h.chunk, at_c.count);
        b_at = c * slot;
        b_head = at_c.head;
    }
    auto a_index = [&](unsigned x) { return a_at + padded(a_head + x); };
    auto b_index = [&](unsigned y) { return b_at + padded(b_head + y); };
    const K last = h.keys.load(b_index(m - 1));
    const unsigned side = c & 1u;
    // This thread's outputs [begin, stop) of the merged have + m: its start on
    // the merge path, then the outputs in registers.
    const unsigned total = have + m, per = (total + threads - 1) / threads;
    const unsigned begin = kl::min(t * per, total), stop = kl::min(begin + per, total);
    // An element as the merge compares it: B's carry c's side.
    auto load = [&](bool from_b, unsigned at) {
        return sided_key<K>{h.keys.load(at), Pairs ? unsigned(h.sides.load_if(!from_b, at, static_cast<unsigned char>(side))) : 0u};
    };
    const unsigned a = co_rank(begin, have, m, [&](unsigned y, unsigned x) {
        const sided_key<K> e = load(false, a_index(x));
        return incoming_before<K, Pairs>(h.keys.load(b_index(y)), side, e.key, e.side);
    });
    K rk[sort_policy::max_items];
    V rv[sort_policy::max_items];
    unsigned char rs[sort_policy::max_items];
    serial_merge(a, begin - a, have, m, stop - begin, a_index, b_index, load,
                 [&](const sided_key<K>& y, const sided_key<K>& x) {
                     return incoming_before<K, Pairs>(y.key, y.side, x.key, x.side);
                 },
                 [&](unsigned q, bool from_b, unsigned at, const sided_key<K>& e) {
                     rk[q] = e.key;
                     if constexpr (Pairs) {
                         rv[q] = h.vals.load(from_b ? b_index(at) : a_index(at));
                         rs[q] = static_cast<unsigned char>(e.side);
                     }
                     (void)from_b;
                     (void)at;
                 });
    kl::sync_threads();
    for (unsigned q = 0; q < sort_policy::max_items; ++q) {
        if (begin + q >= stop) continue;
        const unsigned at = a_at + padded(begin + q);
        h.keys.store(at, rk[q]);
        if constexpr (Pairs) {
            h.vals.store(at, rv[q]);
            h.sides.store(at, rs[q]);
        }
    }
    // The new state: every lane computed it; the first stores it.
    const bool first = t == 0;
    move_result r{{total, 0}, {0, 0}};
    h.last.store_if(first, c, last);
    h.count.store_if(first, i, total);
    h.head.store_if(first, i, 0);
    if (c >= h.d) {
        h.pos.store_if(first, c, lr.from + m);
        h.dry.store_if(first, c, lr.from + m == lr.end ? 1u : 0u);
    } else {
        r.child = {at_c.count - m, at_c.head + m};
        h.count.store_if(first, c, r.child.count);
        h.head.store_if(first, c, r.child.head);
        h.dry.store_if(first, c, path_end && r.child.count == 0 ? 1u : 0u);
    }
    return r;
}

// Moves into `node` (holding at_node) from its child c, then into c from its
// child with the smaller key (the left one on ties), and so on down to a leaf
// or a node whose children are both dry. A move changes only the moving
// child's state, never the keys its own choice below depends on, so the whole
// path is known before the first move: the leaf at its end (if it reaches
// one) is read first, and its latency overlaps the moves above it. Returns
// what `node` holds after its move; ends with a barrier (the next Heapify
// reads the state stored here).
template <class K, class V, bool Pairs>
AGPU_DEVICE held heap_descend(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys, kl::gspan<const V> in_vals,
                              unsigned node, held at_node, unsigned c) {
    unsigned turns = 0, depth = 0, v = c;  // bit q of turns: the q-th choice below c was the right child
    while (v < h.d) {
        const unsigned l = 2 * v, r = l + 1;
        const bool dry_l = h.dry.load(l) != 0, dry_r = h.dry.load(r) != 0;
        if (dry_l && dry_r) break;
        const bool right = dry_l || (!dry_r && key_order<K>::less(h.last.load(r), h.last.load(l)));
        turns |= unsigned(right) << depth++;
        v = l + unsigned(right);
    }
    leaf_read<K, V, Pairs> lr;
    if (v >= h.d) leaf_load(h, in_keys, in_vals, v, lr);
    held at_i = at_node, result{};
    for (unsigned q = 0;; ++q) {
        const held at_c = c < h.d ? held{h.count.load(c), h.head.load(c)} : held{0, 0};
        const move_result r = heap_move(h, lr, node, at_i, c, at_c, q == depth);
        if (q == 0) result = r.parent;
        if (q == depth) break;
        node = c;
        at_i = r.child;
        c = 2 * c + ((turns >> q) & 1u);
    }
    kl::sync_threads();
    return result;
}

// Heapify(node), node holding at_node: refills it from the child with the
// smaller key, then that child, down the path. Returns what node holds then.
template <class K, class V, bool Pairs>
AGPU_DEVICE held heap_refill(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys, kl::gspan<const V> in_vals,
                             unsigned node, held at_node) {
    const unsigned l = 2 * node, r = l + 1;
    const bool dry_l = h.dry.load(l) != 0, dry_r = h.dry.load(r) != 0;
    if (dry_l && dry_r) return at_node;
    const bool right = dry_l || (!dry_r && key_order<K>::less(h.last.load(r), h.last.load(l)));
    return heap_descend(h, in_keys, in_vals, node, at_node, l + unsigned(right));
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
    const unsigned d = s.d, slot = padded(2 * s.chunk);
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
            if (h.dry.load(c) == 0) heap_descend(h, in_keys, in_vals, i, held{h.count.load(i), h.head.load(i)}, c);
        h.dry.store_if(t == 0, i,
                       h.count.load(i) == 0 && h.dry.load(2 * i) != 0 && h.dry.load(2 * i + 1) != 0 ? 1u : 0u);
        kl::sync_threads();
    }
    held root{h.count.load(1), h.head.load(1)};
    while (root.count > 0) {
        const unsigned m = kl::min(s.chunk, root.count);
        // Whole warps over b-aligned positions, as the leaves read (lanes
        // outside the move store the nearest element's value again).
        const unsigned lead = unsigned(out % kl::warp_size());
        for (unsigned j0 = t - kl::lane_id(); j0 < lead + m; j0 += threads) {
            const unsigned j = kl::min(kl::max(j0 + kl::lane_id(), lead), lead + m - 1) - lead;
            const unsigned at = slot + padded(root.head + j);
            out_keys.store(out + j, h.keys.load(at));
            if constexpr (Pairs) out_vals.store(out + j, h.vals.load(at));
        }
        out += m;
        root = heap_refill(h, in_keys, in_vals, 1, held{root.count - m, root.head + m});
    }
}

// Bytes of select_pivots' dynamic shared memory for `samples` (a power of two) samples.
template <class K>
AGPU_HOST_DEVICE std::uint64_t splits_shared_bytes(unsigned samples) {
    return align16(std::uint64_t(samples) * sizeof(K)) + align16(std::uint64_t(samples) * 4);
}

// Distribution, first step: one block per group sorts `per_run` evenly spaced
// samples of each of its runs on chip by (key, run, position) (bitonic merges
// of the runs' samples, which are in order already) and takes P - 1
// of them, evenly spaced, as pivots: pivot q (1..P-1) of group g is
// pivots[g(P - 1) + q - 1], with tags[...] = run·per_run + sample.
template <class K>
AGPU_KERNEL void select_pivots(kl::gspan<const K> keys, kl::gspan<K> pivots, kl::gspan<unsigned> tags, merge_shape s,
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
    // A run's samples are in (key, position) order already: only the merges.
    bitonic_sort_shared(sk, st, samples, samples, per_run);
    // Runs with elements come first in the group, each with per_run samples.
    const std::uint64_t first = run_start(s, g, 0);
    const unsigned nonempty = unsigned(kl::min<std::uint64_t>(d, (s.n - first + s.run_len - 1) / s.run_len));
    const unsigned present = nonempty * per_run;
    for (unsigned q = 1 + t; q < s.parts; q += threads) {
        const unsigned at = unsigned(std::uint64_t(q) * present / s.parts);
        pivots.store(g * (s.parts - 1) + q - 1, sk.load(at));
        tags.store(g * (s.parts - 1) + q - 1, st.load(at));
    }
}

// Distribution, second step: a thread per (group g, boundary q = 0..P, run r)
// writes how many elements of run r precede boundary q in (key, run, position)
// order: splits[(g(P + 1) + q)d + r] (absolute positions; q = 0 and q = P are
// the runs' ends), by binary search in global memory. Spread over the whole
// grid: the searches' latency chains overlap.
template <class K>
AGPU_KERNEL void split_search(kl::gspan<const K> keys, kl::gspan<const K> pivots, kl::gspan<const unsigned> tags,
                              kl::gspan<std::uint64_t> splits, merge_shape s, unsigned per_run, std::uint64_t searches) {
    const std::uint64_t x = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_rank();
    if (x >= searches) return;
    const unsigned d = s.d, r = unsigned(x % d);
    const std::uint64_t g = x / d / (s.parts + 1);
    const unsigned q = unsigned(x / d % (s.parts + 1));
    const std::uint64_t lo = run_start(s, g, r), hi = run_start(s, g, r + 1);
    std::uint64_t split = q == 0 ? lo : hi;
    if (q > 0 && q < s.parts) {
        const K pivot = pivots.load(g * (s.parts - 1) + q - 1);
        const unsigned tag = tags.load(g * (s.parts - 1) + q - 1), pr = tag / per_run, pj = tag % per_run;
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
    splits.store(x, split);
}

}  // namespace agpu::kernels::sort
