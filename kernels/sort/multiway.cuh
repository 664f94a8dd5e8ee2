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
// d - 1 internal nodes (1..d-1) buffer the elements their children passed up.
// Every node's key is the last (largest) element it passed to its parent.
// Heapify(i) moves C = `chunk` elements from the child with the smaller key
// (the left one on ties) into node i, then Heapify(that child), down to a
// leaf; a leaf's move reads the next C elements of its range (whole warps,
// coalesced). Initialisation fills every internal node from both children,
// from the highest index down; then the root repeatedly writes C elements to
// the output (coalesced) and is refilled. A node holds 2C elements after
// every refill until its subtree runs dry, and only its smallest C leave,
// which are never larger than what its subtree still holds (every element
// still below a child is at least that child's key); so a run leaves in order.
//
// Node i's buffer is kept as the two sorted runs it received, one per child:
// a ring of 2C slots for each child c (ring c, at node c/2), appended to by
// c's moves and merged only when i passes its smallest C up (a merge path of
// the two rings' heads, each lane finding its place by binary search and
// merging C/32 outputs in registers). So an element is merged once per level
// of the tree: merging each move into one sorted buffer instead (DESIGN.md's
// wording) re-merges the C elements a node keeps with the C it receives,
// two merge outputs per element and level, and needs a leaf's elements staged
// before they are merged. The heap's order, keys, Heapify path, moves and
// global accesses are the same; the shared memory per node is 4C words
// instead of 2C (sort_plan::heap_bytes), which d = auto reads as the heap
// condition. A leaf's move stores C elements into its ring, at a ring
// position that is a multiple of C (a ring's tail only moves by whole moves
// while its subtree has more than C), so its stores' banks are those of a
// store from slot position 0.
//
// Heapify's path is fixed before its first move (a move changes only the
// moving child's key and state), so the leaf's global read is issued first,
// into registers, and its latency overlaps the merges above it; the moves go
// top-down, each emptying room in the ring the next one appends to.
//
// Why a warp per heap: a move is a chain of dependent shared loads (the
// search, the register merge) and a Heapify a chain of log2(d) moves, so one
// heap keeps an SM mostly idle. With a warp each, an SM holds as many heaps as
// its shared memory allows (d and C are chosen so that about 16 fit: the AGPU
// heap condition read with M/16 words per heap) and their chains overlap.
//
// Stability (key-value sorts): the merge of a node's two rings takes the left
// one's element first on equal keys, and the left subtree holds the earlier
// runs, so equal keys leave in input order. Pivots order (key, run,
// position): also stable.
//
// AGPU cost of a pass over n elements: every element is read once by a leaf
// and written once by a root, in C-element coalesced moves (I/O about
// 2·n·s/(4b) blocks, plus the misaligned ends of split ranges); the time per
// C output elements is log2(d) merges of O(C/32 + log C) steps per lane.
// Passes: ceil(log_d(n/tile)): the I/O is (n/b) log_d(n/tile) blocks, which
// meets the Aggarwal-Vitter bound (n/b) log_{M/b}(n/b) up to the constant
// log(M/b)/log(d), d = Theta(M/(32C)) and C = Theta(b).
//
// The pieces: multiway_heap.cuh (the heap), multiway_split.cuh (the
// distribution's kernels); here, the merge kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "sort/multiway_heap.cuh"
#include "sort/multiway_split.cuh"
#include "sort/sort_common.cuh"

namespace agpu::kernels::sort {

// One block merges range `part` of group `group` (block = group·P + part).
// Registers: 32-bit keys alone fit in 80 without spilling (96 unbounded), so
// an SM's registers hold 25 heaps, not 21 (its shared memory holds 32 at
// chunk 128; measured on the H100 at 2^26: chunk 128 9.08 -> 8.02 ms, chunk
// 256, where shared memory held 15, unchanged; kernels/sort/README.md);
// pairs, 64-bit keys and the bitonic moves (R > 0: outputs per lane of
// bitonic_merge; 0: the merge path's moves) take what they need. D: d where
// the kernel takes it as a constant (merge_kernel: 4 with bitonic moves), 0
// where it reads s.d; with R > 0 the chunk is R times the warp, a constant too.
template <class K, class V, bool Pairs, unsigned R = 0, unsigned D = 0>
// (clang-format 14 reads AGPU_BOUNDS(...) as a call)
// clang-format off
AGPU_KERNEL AGPU_BOUNDS(256, sizeof(K) == 4 && !Pairs && R == 0 ? 3 : 1) void multiway_merge(
    kl::gspan<const K> in_keys, kl::gspan<const V> in_vals, kl::gspan<K> out_keys, kl::gspan<V> out_vals,
    kl::gspan<const std::uint64_t> splits, merge_shape s) {
    // clang-format on
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const unsigned d = D > 0 ? D : s.d;
    const heap_view<K, V, Pairs> h(
        heap_layout<K, V, Pairs>{d, R > 0 ? R * sort_policy::bitonic_lanes : s.chunk, R > 0});
    const std::uint64_t group = kl::block_idx().x / s.parts, part = kl::block_idx().x % s.parts;
    for (unsigned r = t; r < d; r += threads) {
        std::uint64_t lo = run_start(s, group, r), hi = run_start(s, group, r + 1);
        if (s.parts > 1) {
            lo = splits.load((group * (s.parts + 1) + part) * d + r);
            hi = splits.load((group * (s.parts + 1) + part + 1) * d + r);
        }
        h.pos.store(d + r, lo);
        h.end.store(d + r, hi);
        h.dry.store(d + r, lo == hi ? 1u : 0u);
        h.count.store(d + r, 0);
        h.head.store(d + r, 0);
        if (r > 0) {  // rings of children 2..d-1 (internal)
            h.count.store(r, 0);
            h.head.store(r, 0);
            h.dry.store(r, 0);
        }
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
    unsigned hand = 0;
    for (unsigned i = d - 1; i >= 1; --i) {
        for (unsigned c = 2 * i; c <= 2 * i + 1; ++c)
            if (h.dry.load(c) == 0) heap_descend<R>(h, in_keys, in_vals, c, held{0, 0}, hand);
        h.dry.store_if(
            t == 0, i,
            h.count.load(2 * i) + h.count.load(2 * i + 1) == 0 && h.dry.load(2 * i) != 0 && h.dry.load(2 * i + 1) != 0
                ? 1u
                : 0u);
        kl::sync_threads();
    }
    held root[2] = {{h.count.load(2), h.head.load(2)}, {h.count.load(3), h.head.load(3)}};
    while (root[0].count + root[1].count > 0) {
        unsigned m = 0;
        if constexpr (R > 0) {  // from registers
            K x[R];
            m = bitonic_merge<R, sort_policy::bitonic_lanes>(h, 1, root[0], root[1], false, x);
            root_write<R, sort_policy::bitonic_lanes>(x, m, out, out_keys);
        } else {  // through the stage
            m = merge_move<R>(
                h, 1, root[0], root[1], [&](unsigned x) { return h.stage + padded(x); }, false, hand);
            hand ^= 1u;
            kl::sync_threads();
            // Whole warps over b-aligned positions, as the leaves read (lanes
            // outside the move store the nearest element's value again).
            const unsigned lead = unsigned(out % kl::warp_size());
            for (unsigned j0 = t - kl::lane_id(); j0 < lead + m; j0 += threads) {
                const unsigned j = warp_move_element(j0, lead, m);
                const unsigned at = h.stage + padded(j);
                out_keys.store(out + j, h.keys.load(at));
                if constexpr (Pairs) out_vals.store(out + j, h.vals.load(at));
            }
        }
        out += m;
        heap_refill<R>(h, in_keys, in_vals, 1, root, hand);
        root[0] = {h.count.load(2), h.head.load(2)};
        root[1] = {h.count.load(3), h.head.load(3)};
    }
}

// The merge kernel whose moves take `items` outputs per lane by the bitonic
// network (sort_plan::bitonic_items: 2, 4 or 8), or by the merge path (0).
// The bitonic moves' chunk is R times the warp, a constant of the kernel, and
// at d = 4 (the tuned and default shapes on the H100) so is d: the heap's
// loops over its levels and children unroll, and its slot arithmetic folds.
template <class K, class V, bool Pairs, unsigned D>
auto merge_kernel_of(std::uint64_t items) {
    if constexpr (!Pairs) {
        if (items == 8) return multiway_merge<K, V, Pairs, 8, D>;
        if (items == 4) return multiway_merge<K, V, Pairs, 4, D>;
        if (items == 2) return multiway_merge<K, V, Pairs, 2, D>;
    }
    return multiway_merge<K, V, Pairs, 0>;
}
template <class K, class V, bool Pairs>
auto merge_kernel(std::uint64_t items, unsigned d) {
    return d == 4 ? merge_kernel_of<K, V, Pairs, 4>(items) : merge_kernel_of<K, V, Pairs, 0>(items);
}

}  // namespace agpu::kernels::sort
