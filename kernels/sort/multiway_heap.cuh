// sort/multiway's heap (multiway.cuh): one merge pass's shape, the heap's
// layout in shared memory, a leaf's read of its range, the merge of a node's
// two rings (by the merge path, or by the bitonic network in registers), the
// root's write, and Heapify (heap_descend, heap_refill).
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
        : d(l.d), chunk(l.chunk), mask(2 * l.chunk - 1), stage(l.stage_at()), threads(kl::block_dim().x), lanes_log2(0),
          pad(!l.bitonic) {
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
            full_passes<R>(
                lr.lead, [&](unsigned q, bool on) { lr.keys[q] = keys.load_if(on, q * lanes::threads(), K{}); },
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
            full_passes<R>(
                lr.lead, [&](unsigned q, bool on) { h.keys.store_if(on, at + q * lanes::threads(), lr.keys[q]); },
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
AGPU_DEVICE void heap_descend(const heap_view<K, V, Pairs>& h, kl::gspan<const K> in_keys, kl::gspan<const V> in_vals,
                              unsigned c, held to, unsigned& hand) {
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
        const unsigned m = merge_move<R>(
            h, c, rings[0], rings[1], [&](unsigned x) { return h.at(c, tail, x); }, q == depth, hand);
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

}  // namespace agpu::kernels::sort
