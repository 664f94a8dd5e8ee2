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
#pragma once

#include <cstdint>
#include <type_traits>

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

// The heap's dynamic shared memory: a ring of 2C elements for every child
// c = 2..2d-1, then (the merge path's moves) C more where the root's outputs
// are staged for their coalesced write; for key-value sorts the values of all
// of them; then the state of the nodes. The merge path's rings and stage are
// padded by a word per 32 (a lane's C/32 consecutive outputs then fall in
// distinct banks, as in block_sort); the bitonic moves (`bitonic`) read and
// write consecutive slots from any ring position, which padding would make
// two-way conflicts, and write the root's outputs from registers: no padding
// and no stage, so that more heaps fit on an MP.
template <class K, class V, bool Pairs>
struct heap_layout {
    unsigned d, chunk;
    bool bitonic = false;
    AGPU_HOST_DEVICE unsigned ring() const { return bitonic ? 2 * chunk : padded(2 * chunk); }
    AGPU_HOST_DEVICE unsigned stage_at() const { return (2 * d - 2) * ring(); }
    AGPU_HOST_DEVICE std::uint64_t slots() const { return std::uint64_t(stage_at()) + (bitonic ? 0 : padded(chunk)); }
    AGPU_HOST_DEVICE std::uint64_t keys_at() const { return 0; }
    AGPU_HOST_DEVICE std::uint64_t vals_at() const { return align16(slots() * sizeof(K)); }
    AGPU_HOST_DEVICE std::uint64_t pos_at() const { return vals_at() + (Pairs ? align16(slots() * sizeof(V)) : 0); }
    AGPU_HOST_DEVICE std::uint64_t end_at() const { return pos_at() + align16(16 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t last_at() const { return end_at() + align16(16 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t count_at() const { return last_at() + align16(2 * std::uint64_t(d) * sizeof(K)); }
    AGPU_HOST_DEVICE std::uint64_t head_at() const { return count_at() + align16(8 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t dry_at() const { return head_at() + align16(8 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t misc_at() const { return dry_at() + align16(8 * std::uint64_t(d)); }
    AGPU_HOST_DEVICE std::uint64_t bytes() const { return misc_at() + 32; }
};

// The heap's state, as spans into the dynamic shared memory.
template <class K, class V, bool Pairs>
struct heap_view {
    unsigned d, chunk, mask, stage;
    unsigned threads, lanes_log2;  // the block's threads (a power of two) and their log2
    bool pad;                      // ring slots padded by a word per 32 (the merge path's moves; bitonic moves: not)
    kl::sspan<K> keys;
    kl::sspan<V> vals;
    kl::sspan<std::uint64_t> pos, end;  // leaves: the next element and the end of the range (by node index)
    kl::sspan<K> last;                  // every node: the last element it passed up
    kl::sspan<unsigned> count, head;    // ring c (by child index): elements [head, head + count) mod 2C
    kl::sspan<unsigned> dry;            // every node: 1 when its subtree holds nothing more
    kl::sspan<std::uint64_t> misc;      // [0]: where the block's output starts; [1..2]: a move's hand-over

    AGPU_DEVICE explicit heap_view(heap_layout<K, V, Pairs> l)
        : d(l.d), chunk(l.chunk), mask(2 * l.chunk - 1), stage(l.stage_at()),
          threads(kl::block_dim().x), lanes_log2(0), pad(!l.bitonic) {
        while ((1u << lanes_log2) < threads) ++lanes_log2;
        const std::uint64_t s = l.slots();
        keys = kl::dynamic_shared<K>().subspan(l.keys_at() / sizeof(K), s);
        if constexpr (Pairs) vals = kl::dynamic_shared<V>().subspan(l.vals_at() / sizeof(V), s);
        pos = kl::dynamic_shared<std::uint64_t>().subspan(l.pos_at() / 8, 2 * d);
        end = kl::dynamic_shared<std::uint64_t>().subspan(l.end_at() / 8, 2 * d);
        last = kl::dynamic_shared<K>().subspan(l.last_at() / sizeof(K), 2 * d);
        count = kl::dynamic_shared<unsigned>().subspan(l.count_at() / 4, 2 * d);
        head = kl::dynamic_shared<unsigned>().subspan(l.head_at() / 4, 2 * d);
        dry = kl::dynamic_shared<unsigned>().subspan(l.dry_at() / 4, 2 * d);
        misc = kl::dynamic_shared<std::uint64_t>().subspan(l.misc_at() / 8, 4);
    }
    // Ring c's slots are (c - 2)·2C + [0, 2C), each at padded(slot) (or at
    // slot where `pad` is off): element x of ring c (its first at `first`,
    // mod 2C) is at at(c, first, x).
    AGPU_DEVICE unsigned slot_base(unsigned c) const { return (c - 2) * 2 * chunk; }
    AGPU_DEVICE unsigned at(unsigned c, unsigned first, unsigned x) const {
        const unsigned slot = slot_base(c) | ((first + x) & mask);
        return pad ? padded(slot) : slot;
    }
};

// A ring's elements: [head, head + count) mod 2C. Every lane of the heap's
// warp holds the same copy in registers; the shared copy is for the next
// Heapify that passes the ring.
struct held {
    unsigned count, head;
};

// A leaf's next move (min(C, what is left) elements from `from`), read from
// global memory into registers before the moves above it on the path, so the
// read's latency overlaps them. Whole warps over b-aligned positions (a range
// that starts where a pivot fell costs the blocks it touches, not two per
// warp): a warp's pass covers the b elements from a b-aligned position, and
// its lanes outside the move are predicated off. Every lane of a warp reaches
// each access (off or on), so the simulator groups them into one
// warp-instruction per warp, as the GPU issues them; the lanes on touch the
// sectors the GPU's do.
//
// The heap's lanes as the moves of R see them: R > 0 (bitonic moves) one warp
// of sort_policy::bitonic_lanes known at compile time, so that a leaf's
// R + 1 warp-passes unroll, the lead is a mask and the addresses are one base
// plus constants; R = 0 (the merge path) the block's threads and warp width
// at run time.
template <unsigned R>
struct heap_lanes {
    static constexpr unsigned passes = R > 0 ? R + 1 : sort_policy::max_leaf_loads;
    AGPU_DEVICE static unsigned threads() {
        if constexpr (R > 0) return sort_policy::bitonic_lanes;
        else return kl::block_dim().x;
    }
    AGPU_DEVICE static unsigned warp() {
        if constexpr (R > 0) return sort_policy::bitonic_lanes;
        else return kl::warp_size();
    }
    // Where this lane's element of warp-pass q lies past the move's b-aligned
    // start (the move starts `lead` past it).
    AGPU_DEVICE static unsigned place(unsigned q) { return kl::thread_rank() + q * threads(); }
    // Whether the warp's pass starting at p (this lane's place) is past a
    // move ending at `stop` (all its lanes skip it), and whether this lane's
    // element is one of the move's [lead, stop).
    AGPU_DEVICE static bool past(unsigned p, unsigned stop) { return p - kl::lane_id() >= stop; }
    AGPU_DEVICE static bool on(unsigned p, unsigned lead, unsigned stop) { return p >= lead && p < stop; }
};

// Elements [from + t, from + count) of span `s` for thread t of the block (none
// where t >= count): its element of a pass over [from, from + count) by the
// block's threads is at a multiple of them, so each of an unrolled loop's
// accesses is one base address plus a constant.
template <class S>
AGPU_DEVICE S thread_view(const S& s, std::uint64_t from, unsigned count) {
    const unsigned t = kl::min(kl::thread_rank(), count);
    return s.subspan(from + t, count - t);
}

template <class K, class V, bool Pairs>
struct leaf_read {
    std::uint64_t from = 0, end = 0;
    unsigned count = 0, lead = 0;  // lead: from's place past a b-aligned position
    K keys[sort_policy::max_leaf_loads];
    V vals[sort_policy::max_leaf_loads];
};

// A whole move of C = R·W elements over the warp's passes from a W-aligned
// position, the move `lead` past it: pass 0 has its lanes from lead on,
// passes 1..R−1 every lane, pass R (only where lead > 0) its lanes before
// lead. edge(q, on) makes pass q's access for the lanes `on`, inner(q) pass
// q's for all; the same accesses and lanes as the general loop's passes
// (heap_lanes), without its per-pass tests and address arithmetic.
template <unsigned R, class Edge, class Inner>
AGPU_DEVICE void full_passes(unsigned lead, Edge edge, Inner inner) {
    const unsigned lane = kl::thread_rank();
    edge(0, lane >= lead);
    for (unsigned q = 1; q < R; ++q) inner(q);
    if (lead > 0) edge(R, lane < lead);
}

template <unsigned R, class K, class V, bool Pairs>
AGPU_DEVICE void leaf_load(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys, kl::gspan<const V> in_vals,
                           unsigned leaf, leaf_read<K, V, Pairs>& lr) {
    using lanes = heap_lanes<R>;
    lr.from = h.pos.load(leaf);
    lr.end = h.end.load(leaf);
    lr.count = unsigned(kl::min<std::uint64_t>(h.chunk, lr.end - lr.from));
    lr.lead = unsigned(lr.from % lanes::warp());
    const unsigned stop = lr.lead + lr.count;
    if constexpr (R > 0 && !Pairs) {
        if (lr.count == R * lanes::threads()) {  // a whole move (every move but a range's last): see full_passes
            const unsigned lane = kl::thread_rank();
            const auto keys = in_keys.subspan(lr.from - lr.lead + lane, stop - lane);
            full_passes<R>(lr.lead, [&](unsigned q, bool on) { lr.keys[q] = keys.load_if(on, q * lanes::threads(), K{}); },
                           [&](unsigned q) { lr.keys[q] = keys.load(q * lanes::threads()); });
            return;
        }
    }
    const auto keys = thread_view(in_keys, lr.from - lr.lead, stop);
    const auto vals = Pairs ? thread_view(in_vals, lr.from - lr.lead, stop) : in_vals;
    for (unsigned q = 0; q < lanes::passes; ++q) {
        const unsigned p = lanes::place(q);
        if (lanes::past(p, stop)) continue;
        const bool on = lanes::on(p, lr.lead, stop);
        lr.keys[q] = keys.load_if(on, q * lanes::threads(), K{});
        if constexpr (Pairs) lr.vals[q] = vals.load_if(on, q * lanes::threads(), V{});
    }
}

// The leaf's state after its move appended lr to ring c (`to` before it).
template <class K, class V, bool Pairs>
AGPU_DEVICE void leaf_state(const heap_view<K, V, Pairs>& h, const leaf_read<K, V, Pairs>& lr, unsigned c, held to) {
    if (kl::thread_rank() == 0) {
        h.count.store(c, to.count + lr.count);
        h.pos.store(c, lr.from + lr.count);
        h.dry.store(c, lr.from + lr.count == lr.end ? 1u : 0u);
    }
}

// A leaf's move: its registers appended to its ring (the same lanes and
// positions as the read; the lane of the last element stores the leaf's key).
// No barrier of its own: the ring's tail was emptied, and the leaf's state
// read by every lane, before the path's previous barrier (heap_descend adds
// one where the leaf's move is the path's first).
template <unsigned R, class K, class V, bool Pairs>
AGPU_DEVICE void leaf_move(const heap_view<K, V, Pairs>& h, const leaf_read<K, V, Pairs>& lr, unsigned c, held to) {
    using lanes = heap_lanes<R>;
    const unsigned stop = lr.lead + lr.count, tail = to.head + to.count - lr.lead;
    const unsigned room = (to.head + to.count) & h.mask;  // the ring's first free slot
    if constexpr (R > 0 && !Pairs) {
        if (lr.count == h.chunk && (room & (h.chunk - 1)) == 0) {
            // A whole move into a ring whose free half starts at slot 0 or C:
            // its C slots from there do not wrap, so pass q's are one base plus
            // q·W, and the last element (lead + C − 1) is in lane lead − 1 of
            // pass R, or lane W − 1 of pass R − 1 where lead is 0.
            const unsigned lane = kl::thread_rank(), at = h.slot_base(c) + room - lr.lead + lane;
            full_passes<R>(lr.lead, [&](unsigned q, bool on) { h.keys.store_if(on, at + q * lanes::threads(), lr.keys[q]); },
                           [&](unsigned q) { h.keys.store(at + q * lanes::threads(), lr.keys[q]); });
            const unsigned last_lane = (lr.lead + lanes::threads() - 1) % lanes::threads();
            // Copies, then a select (a select of the two elements compiled to a
            // select of their addresses: lr in local memory).
            const K in_r = lr.keys[R], in_r1 = lr.keys[R - 1];
            h.last.store_if(lane == last_lane, c, lr.lead > 0 ? in_r : in_r1);
            leaf_state(h, lr, c, to);
            return;
        }
    }
    for (unsigned q = 0; q < lanes::passes; ++q) {
        const unsigned p = lanes::place(q);
        if (lanes::past(p, stop)) continue;
        const bool on = lanes::on(p, lr.lead, stop);
        const unsigned at = h.at(c, tail, p);
        h.keys.store_if(on, at, lr.keys[q]);
        if constexpr (Pairs) h.vals.store_if(on, at, lr.vals[q]);
        h.last.store_if(p == stop - 1, c, lr.keys[q]);
    }
    leaf_state(h, lr, c, to);
}

// After node c's move took m elements, from_a of them from its ring 2c (a)
// and the rest from 2c + 1 (b): both rings' state in every lane's registers
// and in shared memory (thread 0), and c dry where `path_end` and nothing is
// left.
template <class K, class V, bool Pairs>
AGPU_DEVICE void rings_taken(const heap_view<K, V, Pairs>& h, unsigned c, held& a_ring, held& b_ring, unsigned from_a,
                             unsigned m, bool path_end) {
    a_ring = {a_ring.count - from_a, (a_ring.head + from_a) & h.mask};
    b_ring = {b_ring.count - (m - from_a), (b_ring.head + m - from_a) & h.mask};
    if (kl::thread_rank() == 0) {
        h.count.store(2 * c, a_ring.count);
        h.head.store(2 * c, a_ring.head);
        h.count.store(2 * c + 1, b_ring.count);
        h.head.store(2 * c + 1, b_ring.head);
        h.dry.store(c, path_end && a_ring.count + b_ring.count == 0 ? 1u : 0u);
    }
}

// merge_move for keys alone on a heap of one warp of W lanes, C = R·W (R a
// power of two; W a constant, so that the network unrolls): the C smallest
// of the two rings' heads without a search. Lane l takes elements i = qW + l
// (q < R) of ring a and C − 1 − i of ring b, absent ones (past a ring's
// count) the largest key: the smaller of each pair are the C smallest of
// both (the first half-cleaner of a bitonic merge of a with b reversed), and
// those from a are a's first k, where k counts the pairs whose a element is
// at most its b element (a first on equal keys, so the k taken are a prefix:
// the merge path's cut at diagonal C). What the pairs kept is bitonic (a's
// ascending, then b's descending), so log2 C half-cleaners sort it:
// distances C/2..W between a lane's registers, W/2..1 between lanes
// (shuffles). Output e = qW + l is left in lane l's x[q], so the warp's
// loads and stores are of consecutive slots (the rings need no padding).
// Keys alone: equal keys are equal bit patterns, so which of two equal keys
// leaves first does not show (pairs keep merge_move's stable merge path).
// Every lane knows k (a warp sum of the lanes' counts), so no hand-over and no barrier
// between loads and stores: every lane's loads feed the shuffles before any
// lane stores. Stores c's key and the rings' state; returns m.
template <unsigned R, unsigned W, class K, class V, bool Pairs>
AGPU_DEVICE unsigned bitonic_merge(const heap_view<K, V, Pairs>& h, unsigned c, held& a_ring, held& b_ring,
                                   bool path_end, K (&x)[R]) {
    constexpr unsigned chunk = R * W;
    const unsigned lane = kl::lane_id();
    const unsigned ca = 2 * c, cb = ca + 1, na = a_ring.count, nb = b_ring.count;
    const unsigned m = kl::min(chunk, na + nb);
    // i < na and j < nb, and the rings' slots, as one value per lane and a
    // constant per q.
    const int room_a = int(na) - int(lane), room_b = int(nb + lane) - int(chunk - 1);
    const unsigned first_a = a_ring.head + lane, first_b = b_ring.head + chunk - 1 - lane;
    // A ring holding C or more needs no test of i < na (j < nb): after a refill
    // a node holds 2C, so one of its rings at least. The loop for what the
    // rings hold is picked once (the same in every lane); each lane counts its
    // pairs whose a element is at most its b element, and the warp sums them.
    unsigned own = 0;
    auto pair_up = [&](auto full_a, auto full_b) {
        for (unsigned q = 0; q < R; ++q) {
            const unsigned at_a = h.at(ca, first_a, q * W), at_b = h.at(cb, first_b, 0u - q * W);
            K xa, xb;
            if constexpr (decltype(full_a)::value) xa = h.keys.load(at_a);
            else xa = h.keys.load_if(room_a > int(q * W), at_a, key_order<K>::largest());
            if constexpr (decltype(full_b)::value) xb = h.keys.load(at_b);
            else xb = h.keys.load_if(room_b > -int(q * W), at_b, key_order<K>::largest());
            kl::compute(1);
            own += key_order<K>::less(xb, xa) ? 0u : 1u;
            x[q] = key_min(xa, xb);
        }
    };
    using full = std::true_type;
    using part = std::false_type;
    if (na >= chunk && nb >= chunk) pair_up(full{}, full{});
    else if (na >= chunk) pair_up(full{}, part{});
    else if (nb >= chunk) pair_up(part{}, full{});
    else pair_up(part{}, part{});
    const unsigned taken = kl::reduce_add(own);
    // The pairs whose a element is at most its b element are the first
    // `taken`; those past na pair an absent a with a b element that is the
    // largest key (or absent), so a's first min(taken, na) elements and b's
    // first m minus that are the same keys.
    const unsigned from_a = kl::min(taken, na);
    for (unsigned r = R / 2; r > 0; r /= 2)
        for (unsigned q = 0; q < R; ++q)
            if ((q & r) == 0) {
                kl::compute(1);
                const K lo = key_min(x[q], x[q + r]), hi = key_max(x[q], x[q + r]);
                x[q] = lo;
                x[q + r] = hi;
            }
    for (unsigned j = W / 2; j > 0; j /= 2) {
        const bool upper = (lane & j) != 0;
        for (unsigned q = 0; q < R; ++q) {
            const K y = kl::shfl_xor(x[q], int(j));
            kl::compute(1);
            x[q] = key_pick(key_order<K>::less(y, x[q]) != upper, y, x[q]);  // the larger in the upper lane
        }
    }
    K last = x[R - 1];  // the node's new key: output m - 1, in lane (m - 1) mod W (a full move: the last lane's last)
    if (m < chunk)
        for (unsigned q = 0; q + 1 < R; ++q)
            if (q == (m - 1) / W) last = x[q];
    h.last.store_if(m > 0 && lane == (m - 1) % W, c, last);
    rings_taken(h, c, a_ring, b_ring, from_a, m, path_end);
    kl::sync_warp();
    return m;
}

// The root's m outputs (output e in lane e mod W's x[e / W]) written from
// registers to out + [0, m): whole warps over W-aligned positions, as the
// leaves read, each lane fetching its element from the lane and register it
// is in (where out is not aligned: a whole move shuffles each register once,
// a shorter one two registers a warp-store); lanes outside the move store
// nothing.
template <unsigned R, unsigned W, class K>
AGPU_DEVICE void root_write(const K (&x)[R], unsigned m, std::uint64_t out, kl::gspan<K> out_keys) {
    const unsigned lane = kl::lane_id(), lead = unsigned(out % W);
    const unsigned from = (lane - lead) & (W - 1);  // the lane holding this lane's element
    if (m == R * W) {  // a whole move (every one but a range's last): each register shuffled once
        K y[R];
        for (unsigned q = 0; q < R; ++q) y[q] = lead > 0 ? kl::shfl(x[q], int(from)) : x[q];
        const auto to = out_keys.subspan(out - lead + lane, lead + m - lane);
        full_passes<R>(
            lead, [&](unsigned g, bool on) { to.store_if(on, g * W, y[g < R ? g : R - 1]); },
            [&](unsigned g) {
                K v = y[g];
                if (lane < lead) v = y[g - 1];
                to.store(g * W, v);
            });
        return;
    }
    const auto to = thread_view(out_keys, out - lead, lead + m);
    for (unsigned g = 0; g <= R; ++g) {
        if (g * W >= lead + m) break;
        const K mine = x[g < R ? g : 0];
        K v = mine;
        if (lead > 0) {  // elements from registers g - 1 (lanes before lead) and g (the rest)
            const K hi = g < R ? kl::shfl(mine, int(from)) : K{};
            const K lo = g > 0 ? kl::shfl(x[g > 0 ? g - 1 : 0], int(from)) : K{};
            v = lane < lead ? lo : hi;
        }
        const unsigned p = g * W + lane;  // past out - lead
        to.store_if(p >= lead && p < lead + m, g * W, v);
    }
}

// An internal node c's move: the first m = min(C, what c holds) elements of
// its rings 2c and 2c + 1 (a, b), merged (ring 2c's first on equal keys),
// stored from element `to_at` of `to(x)` (ring c's tail, or the root's
// stage). Each lane finds its first output on the merge path by binary search
// and merges its outputs in registers; one barrier between the merge's loads
// and its stores (every state store follows it, so no lane changes what
// another lane of the path still reads); the lane of the last output hands
// over how many came from ring 2c before it (misc[1 + hand], alternating
// between consecutive moves so that no lane overwrites one another still
// reads) and stores c's key after it. Updates a and b to what
// the rings hold after; returns m. `path_end`: c's children are both dry
// (else c is refilled next and stays not dry).
template <unsigned R, class K, class V, bool Pairs, class To>
AGPU_DEVICE unsigned merge_move(const heap_view<K, V, Pairs>& h, unsigned c, held& a_ring, held& b_ring, To to,
                                bool path_end, unsigned hand) {
    if constexpr (R > 0) {
        K x[R];
        const unsigned m = bitonic_merge<R, sort_policy::bitonic_lanes>(h, c, a_ring, b_ring, path_end, x);
        // `to` is a ring's free part (2C slots from a multiple of 2C, taken mod
        // 2C): a whole move into a ring whose free half starts at slot 0 or C
        // does not wrap, so output e is at to(0) + e.
        constexpr unsigned chunk = R * sort_policy::bitonic_lanes;
        const unsigned at = to(0);
        if (m == chunk && (at & (chunk - 1)) == 0) {
            for (unsigned q = 0; q < R; ++q) h.keys.store(at + q * sort_policy::bitonic_lanes + kl::lane_id(), x[q]);
            return m;
        }
        for (unsigned q = 0; q < R; ++q) {
            const unsigned e = q * sort_policy::bitonic_lanes + kl::lane_id();
            if (e < m) h.keys.store(to(e), x[q]);
        }
        return m;
    }
    const unsigned t = kl::thread_rank();
    const unsigned ca = 2 * c, cb = ca + 1, na = a_ring.count, nb = b_ring.count;
    const unsigned m = kl::min(h.chunk, na + nb);
    const unsigned per = (m + h.threads - 1) >> h.lanes_log2;
    const unsigned begin = kl::min(t * per, m), stop = kl::min(begin + per, m);
    // Element x of a ring is in slot base | ((head + x) mod 2C), at padded(slot).
    const unsigned base_a = h.slot_base(ca), base_b = h.slot_base(cb);
    auto slot_a = [&](unsigned x) { return base_a | ((a_ring.head + x) & h.mask); };
    auto slot_b = [&](unsigned y) { return base_b | ((b_ring.head + y) & h.mask); };
    unsigned a = co_rank(begin, na, nb, [&](unsigned y, unsigned x) {
        return key_order<K>::less(h.keys.load(padded(slot_b(y))), h.keys.load(padded(slot_a(x))));
    });
    unsigned b = begin - a;
    // The next element of each side (past a side's end: the slot after it in
    // its ring, never taken) and where it is. One load per output, from
    // whichever side moved: a warp issues one load instruction per step
    // whatever its lanes chose.
    unsigned sa = slot_a(a), sb = slot_b(b);
    K xa = h.keys.load(padded(sa)), xb = h.keys.load(padded(sb)), last{};
    K rk[sort_policy::max_items];
    V rv[sort_policy::max_items];
    for (unsigned q = 0; q < sort_policy::max_items; ++q) {
        if (begin + q >= stop) break;
        kl::compute(1);
        const bool from_b = b < nb && (a >= na || key_order<K>::less(xb, xa));
        const unsigned took = from_b ? sb : sa, next = (took & ~h.mask) | ((took + 1) & h.mask);
        rk[q] = last = from_b ? xb : xa;
        if constexpr (Pairs) rv[q] = h.vals.load(padded(took));
        const K x = h.keys.load(padded(next));
        if (from_b) {
            ++b;
            sb = next;
            xb = x;
        } else {
            ++a;
            sa = next;
            xa = x;
        }
    }
    const bool ends = begin < stop && stop == m;  // the lane of the last output
    h.misc.store_if(ends, 1 + hand, a);
    kl::sync_threads();
    for (unsigned q = 0; q < sort_policy::max_items; ++q) {
        if (begin + q >= stop) break;
        const unsigned at = to(begin + q);
        h.keys.store(at, rk[q]);
        if constexpr (Pairs) h.vals.store(at, rv[q]);
    }
    h.last.store_if(ends, c, last);
    const unsigned from_a = unsigned(h.misc.load(1 + hand));
    rings_taken(h, c, a_ring, b_ring, from_a, m, path_end);
    return m;
}

// Moves from child c into its ring (holding `to`), then from c's child with
// the smaller key (the left one on ties) into c, and so on down to a leaf or
// a node whose children are both dry. A move changes only the moving child's
// state, never the keys its own choice below depends on, so the whole path is
// known before the first move: the leaf at its end (if it reaches one) is
// read first, and its latency overlaps the moves above it. Ends with a
// barrier (the next Heapify reads the state stored here). `hand` alternates
// the moves' hand-over words across calls.
template <unsigned R, class K, class V, bool Pairs>
AGPU_DEVICE void heap_descend(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys,
                              kl::gspan<const V> in_vals, unsigned c, held to, unsigned& hand) {
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
    if (v >= h.d) leaf_load<R>(h, in_keys, in_vals, v, lr);
    for (unsigned q = 0;; ++q) {
        if (c >= h.d) {
            if (q == 0) kl::sync_threads();  // every lane has read the leaf's state before it changes
            leaf_move<R>(h, lr, c, to);
            break;
        }
        held rings[2] = {{h.count.load(2 * c), h.head.load(2 * c)}, {h.count.load(2 * c + 1), h.head.load(2 * c + 1)}};
        const unsigned tail = to.head + to.count;
        const unsigned m = merge_move<R>(h, c, rings[0], rings[1], [&](unsigned x) { return h.at(c, tail, x); },
                                      q == depth, hand);
        hand ^= 1u;
        if (kl::thread_rank() == 0) h.count.store(c, to.count + m);
        if (q == depth) break;
        const unsigned right = (turns >> q) & 1u;
        to = right ? rings[1] : rings[0];  // a select: indexing the array at run time would put it in local memory
        c = 2 * c + right;
    }
    kl::sync_threads();
}

// Heapify(node) after `node` passed elements up: refills it from the child
// with the smaller key, then that child, down the path. `rings`: what node's
// rings hold now.
template <unsigned R, class K, class V, bool Pairs>
AGPU_DEVICE void heap_refill(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys, kl::gspan<const V> in_vals,
                             unsigned node, const held (&rings)[2], unsigned& hand) {
    const unsigned l = 2 * node, r = l + 1;
    const bool dry_l = h.dry.load(l) != 0, dry_r = h.dry.load(r) != 0;
    if (dry_l && dry_r) return;
    const bool right = dry_l || (!dry_r && key_order<K>::less(h.last.load(r), h.last.load(l)));
    heap_descend<R>(h, in_keys, in_vals, l + unsigned(right), right ? rings[1] : rings[0], hand);
}

// The root's stage copied out by whole warps (the merge path's moves): the
// element of the move this lane stores in the warp's pass from j0 (the move's
// `count` elements lie `lead` past a b-aligned position): its own, or outside
// the move the nearest one's again (the same sector and word: no cost).
AGPU_DEVICE unsigned warp_move_element(unsigned j0, unsigned lead, unsigned count) {
    return kl::min(kl::max(j0 + kl::lane_id(), lead), lead + count - 1) - lead;
}

// The first element of run r of group g (clamped to n).
AGPU_HOST_DEVICE std::uint64_t run_start(const merge_shape& s, std::uint64_t g, std::uint64_t r) {
    const std::uint64_t x = (g * s.d + r) * s.run_len;
    return x < s.n ? x : s.n;
}

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
AGPU_KERNEL AGPU_BOUNDS(256, sizeof(K) == 4 && !Pairs && R == 0 ? 3 : 1) void multiway_merge(
    kl::gspan<const K> in_keys, kl::gspan<const V> in_vals, kl::gspan<K> out_keys, kl::gspan<V> out_vals,
    kl::gspan<const std::uint64_t> splits, merge_shape s) {
    const unsigned t = kl::thread_rank(), threads = kl::block_dim().x;
    const unsigned d = D > 0 ? D : s.d;
    const heap_view<K, V, Pairs> h(heap_layout<K, V, Pairs>{d, R > 0 ? R * sort_policy::bitonic_lanes : s.chunk, R > 0});
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
        h.dry.store_if(t == 0, i,
                       h.count.load(2 * i) + h.count.load(2 * i + 1) == 0 && h.dry.load(2 * i) != 0 &&
                               h.dry.load(2 * i + 1) != 0
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
            m = merge_move<R>(h, 1, root[0], root[1], [&](unsigned x) { return h.stage + padded(x); }, false, hand);
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

// Where sample j of a run's per_run = 2^per_run_log2 evenly spaced samples
// lies: the run's element j·len/per_run, the run at [lo, lo + len); per_run is
// a power of two (sort_plan's merge_pass::per_run), so the division is a
// shift. select_pivots, split_search and the sampled mode's host copy of them
// (sim/estimators/sort_sampled.hpp) all take the samples here. (A 64-bit division by a
// run-time value is a routine of about 70 instructions on the GPU: with
// select_pivots' 15 probes in each of d - 1 runs it was most of the kernel's
// work; validate/data/h100/bench/sort-session16.)
AGPU_HOST_DEVICE std::uint64_t sample_at(std::uint64_t lo, std::uint64_t len, std::uint64_t j, unsigned per_run_log2) {
    return lo + ((j * len) >> per_run_log2);
}
// log2 of a power of two below 2^32 (a sample count).
AGPU_DEVICE unsigned log2_pow2(unsigned x) { return 31u - unsigned(kl::clz(x)); }

// The runs of group g with elements: they come first (only the last group can
// have fewer than d, and empty ones after them).
AGPU_HOST_DEVICE std::uint64_t nonempty_runs(const merge_shape& s, std::uint64_t g) {
    const std::uint64_t first = run_start(s, g, 0), runs = (s.n - first + s.run_len - 1) / s.run_len;
    return runs < s.d ? runs : s.d;
}

// Whether element y of run y_run goes before key of run key_run in the
// merge's (key, run, position) order: keys at most key's in earlier runs,
// keys below it in later ones (the same run: by position, not asked here).
template <class K>
AGPU_HOST_DEVICE bool before_in_order(K y, unsigned y_run, K key, unsigned key_run) {
    return y_run < key_run ? !key_order<K>::less(key, y) : key_order<K>::less(y, key);
}

// Which pivots the sample of rank `rank` among a group's `present` samples
// is: pivot q (1..P-1) is the sample of rank floor(q·present/P), so the q
// with rank·P <= q·present < (rank + 1)·P, as [first, end): none where no q
// falls on the rank, several where present < P (a pivot repeated, the ranges
// between its copies empty).
struct pivot_span {
    std::uint64_t first, end;
};
AGPU_HOST_DEVICE pivot_span pivots_of_rank(std::uint64_t rank, std::uint64_t present, std::uint64_t parts) {
    const std::uint64_t first = (rank * parts + present - 1) / present;
    const std::uint64_t end = ((rank + 1) * parts + present - 1) / present;
    return {first > 1 ? first : 1, end < parts ? end : parts};
}

// How many of `count` candidates in order (candidate i is keys[at(i)], a
// sorted sequence) satisfy `before`, which holds for a prefix of them: by
// bisection. Every lane makes the same bit-width-of-`most` probes (enough
// for any count <= most), predicated off once its interval is empty, so a
// warp's lanes stay in step and each probe is one warp-instruction, as the
// GPU issues it. A search of data-dependent length lets the lanes drift
// apart (lanes searching runs of different lengths, or none): the simulator
// then grouped one lane's probes with another's (select_pivots' load sectors
// 16% above the GPU's on the sort dataset, split_search's 14 sectors above).
// Bisection, not halving steps from the top power of two: the same probe
// count, but split_search took 0.13 ms instead of 0.10 at 2^26 with halving
// steps (validate/data/h100/bench/sort-session15).
template <class K, class At, class Before>
AGPU_DEVICE std::uint64_t bisect_prefix(kl::gspan<const K> keys, std::uint64_t count, std::uint64_t most, At at, Before before) {
    std::uint64_t a = 0, b = count;
    for (std::uint64_t left = most; left > 0; left /= 2) {
        const bool on = a < b;
        const std::uint64_t mid = a + (b - a) / 2;
        const K y = keys.load_if(on, at(mid), K{});
        kl::compute(1);
        if (on) {
            if (before(y)) a = mid + 1;
            else b = mid;
        }
    }
    return a;
}

// Distribution, first step: a thread per sample (sample x = (g·d + r)·per_run
// + j of `samples` = groups·d·per_run: sample j of run r of group g, the
// element at lo + j·len/per_run of the run's [lo, lo + len)) finds its rank
// among its group's samples in (key, run, sample) order: j, plus for every
// other run with elements how many of its samples precede it (a key at most
// its own in earlier runs, below it in later ones), each by a binary search
// over that run's samples read from global memory (a run's samples are in
// order: it is sorted). The sample whose rank is pivot q's (pivots_of_rank)
// writes pivot q of group g, pivots[g(P - 1) + q - 1], and its tag,
// tags[...] = r·per_run + j. An empty run's samples are absent (runs with
// elements come first in a group). No shared memory and no barrier: the
// searches' latency chains overlap across the whole grid.
template <class K>
AGPU_KERNEL void select_pivots(kl::gspan<const K> keys, kl::gspan<K> pivots, kl::gspan<unsigned> tags, merge_shape s,
                               unsigned per_run, std::uint64_t samples) {
    const std::uint64_t x = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_rank();
    if (x >= samples) return;
    const unsigned d = s.d, r = unsigned(x / per_run % d), j = unsigned(x % per_run), shift = log2_pow2(per_run);
    const std::uint64_t g = x / per_run / d;
    const std::uint64_t lo = run_start(s, g, r), len = run_start(s, g, r + 1) - lo;
    if (len == 0) return;
    const K key = keys.load(sample_at(lo, len, j, shift));
    // Its rank: j, plus each other run's samples before it (a prefix of
    // them; none in its own run and in empty ones, whose searches are
    // predicated off: every lane searches every run, bisect_prefix).
    std::uint64_t rank = j;
    for (unsigned o = 0; o < d; ++o) {
        const std::uint64_t o_lo = run_start(s, g, o), o_len = run_start(s, g, o + 1) - o_lo;
        rank += bisect_prefix(
            keys, o_len > 0 && o != r ? per_run : 0, per_run,
            [&](std::uint64_t i) { return sample_at(o_lo, o_len, i, shift); },
            [&](const K& y) { return before_in_order(y, o, key, r); });
    }
    const pivot_span at = pivots_of_rank(rank, nonempty_runs(s, g) * per_run, s.parts);
    for (std::uint64_t q = at.first; q < at.end; ++q) {
        pivots.store(g * (s.parts - 1) + q - 1, key);
        tags.store(g * (s.parts - 1) + q - 1, r * per_run + j);
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
    const std::uint64_t lo = run_start(s, g, r), len = run_start(s, g, r + 1) - lo;
    const bool inner = q > 0 && q < s.parts;
    K pivot{};
    unsigned pr = 0, pj = 0;
    if (inner) {
        pivot = pivots.load(g * (s.parts - 1) + q - 1);
        const unsigned tag = tags.load(g * (s.parts - 1) + q - 1);
        pr = tag / per_run;
        pj = tag % per_run;
    }
    // Run r's elements before the pivot (<= it for earlier runs, < it for
    // later ones): a prefix of the run (no search at the ends and in the
    // pivot's own run: predicated off, every lane searches, bisect_prefix).
    const std::uint64_t a = bisect_prefix(
        keys, inner && r != pr ? len : 0, s.run_len, [&](std::uint64_t i) { return lo + i; },
        [&](const K& y) { return before_in_order(y, r, pivot, pr); });
    const std::uint64_t split = q == 0 ? lo : !inner ? lo + len : r == pr ? sample_at(lo, len, pj, log2_pow2(per_run)) : lo + a;
    splits.store(x, split);
}

}  // namespace agpu::kernels::sort
