// sort/multiway and sort/pairwise in the simulator's sampled mode on random
// keys: every launch's inputs synthesized, only sampled blocks run, and the
// heavy merge blocks of the late passes probed on shortened work.
//
// Why: a sampled run that runs its unrecorded blocks (to feed later launches
// the right data) costs about as much as an exact one, and a 2^28-key sort's
// last passes have blocks that merge a million keys each, so even one
// recorded block per launch takes far longer than the seconds a prediction
// should. With random keys the state each launch reads is known in
// distribution (sort_synth.hpp), so it is synthesized, where a kernel touches
// it, instead of computed:
//   - block_sort reads i.i.d. keys; every merge pass reads runs of L sorted
//     i.i.d. keys (L the pass's run length); outputs go to memory no one
//     reads. Launches are declared synthesized and skip their unrecorded
//     blocks; select_splits runs every block (the merge blocks read its
//     splits), on the synthesized runs.
//   - A merge launch whose blocks merge many keys is "heavy": a sample of its
//     blocks (sampled_policy::probes, stratified as the engine samples) is
//     run twice on the first x1 and x2 keys of its range (split on the host
//     by a d-way selection over the same synthesized runs), and the launch is
//     estimated with every block's counters linear in its keys
//     (executor::record_linear_launch): each block's work is known, from the
//     splits or the plan. Light launches are sampled by strata, fewer of
//     them where blocks are larger (sampled_policy::light_keys).
// The error is measured against exact runs in sim/README.md.
//
// Applies to u32 and float keys with input=random (every bit pattern equally
// likely, so the order values are uniform); other inputs and u64 keys take the
// ordinary sampled mode. Values (values=1) are not synthesized: no count
// depends on them (they move with their keys), so they read zeros.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <cstdint>
#include <string>
#include <vector>

#include "agpu/model/closed_form.hpp"
#include "agpu/sim/executor.hpp"
#include "sort/sort_runs.hpp"
#include "sort/sort_synth.hpp"

namespace agpu::kernels::sort {

// The sampled driver's choices (measured: sim/README.md, "Sampled sorts").
struct sampled_policy {
    // Probes merge x1 and x2 = 2·x1 keys of a block's range, x1 the larger of
    // min_probe keys and probe_heaps·d·chunk: a block's cost per key rises
    // over its first tens of thousands of keys (the heap settles) and is
    // steady after; the slope between x1 and x2 then is within about 0.1% of
    // a whole block's (d = 16 and 64, 1 M-key blocks).
    static constexpr std::uint64_t min_probe = std::uint64_t(1) << 16;
    static constexpr std::uint64_t probe_heaps = 4;
    // Probed blocks of a heavy launch (Student's t widens the error of so few).
    static constexpr std::uint64_t probes = 3;
    // Light launches record about this many keys' worth of blocks: the first,
    // the last and one from each of light_keys / (keys per block) strata, at
    // least min_strata, at most the engine's default.
    static constexpr std::uint64_t light_keys = std::uint64_t(1) << 17;
    static constexpr std::uint64_t min_strata = 2;
    // select_splits runs every group (the merges read its splits) and records
    // those of this many strata (its groups differ little).
    static constexpr std::uint64_t split_strata = 8;
    // Synthesize only runs whose exact simulation would record more lane
    // accesses than this (about 4 s): below, the ordinary sampled run is
    // cheap, and it sees the run's own data, where a launch of few blocks has a
    // makespan (their maximum) that a synthesized sample of them misses by a
    // few percent (sort/multiway at 2^17: 4%).
    static constexpr double synthesize_lanes = double(std::uint64_t(1) << 27);

    static std::uint64_t x1(std::uint64_t d, std::uint64_t chunk) { return std::max(min_probe, probe_heaps * d * chunk); }
    static std::uint64_t light_strata(std::uint64_t mean_keys, std::uint64_t most) {
        return std::clamp<std::uint64_t>(light_keys / std::max<std::uint64_t>(1, mean_keys), min_strata, most);
    }
    // Blocks of at most 2·x1 keys are sampled whole (a group's first range
    // can be nearly empty: its pivot falls among the runs' first samples).
    static bool small(std::uint64_t keys, std::uint64_t x1) { return keys <= 2 * x1; }
};

// The exact simulator's lane accesses for a merge sort, estimated.
inline double exact_lanes(const plan_ns::plan& pl, const plan_ns::sort_shape& shape) {
    double per_key = plan_ns::block_sort_lanes_per_element(shape);
    for (const auto& ps : pl.passes) per_key += plan_ns::merge_lanes_per_key(ps, shape);
    return double(pl.n) * per_key;
}

// Whether a run of this sort can be synthesized: random 32-bit keys of a merge sort.
inline bool synthesizable(const std::string& key, const param_values& p) {
    return key != "sort/bitonic" && p.text("input") == "random" && p.text("type") != "u64";
}

// The lane accesses the synthesized sampled run records, estimated from the
// plan and the policy above (sim::algorithm::sampled_lanes); 0 where the run
// is not synthesized.
inline double synthesized_lanes(const model::machine& m, const std::string& key, std::uint64_t n,
                                const param_values& p, std::uint64_t most_strata = 48) {
    using P = sampled_policy;
    if (!synthesizable(key, p) || n == 0) return 0;
    const auto shape = plan_ns::shape_of(key, p);
    const auto pl = plan_ns::make_plan(m, n, shape);
    if (exact_lanes(pl, shape) <= P::synthesize_lanes) return 0;
    double lanes = double(std::min<std::uint64_t>(pl.tiles, 2 * most_strata + 2) * shape.tile) *
                   plan_ns::block_sort_lanes_per_element(shape);
    for (const auto& ps : pl.passes) {
        const std::uint64_t blocks = ps.groups * ps.parts, mean = std::max<std::uint64_t>(1, n / blocks);
        const std::uint64_t strata = P::light_strata(mean, most_strata);
        const std::uint64_t whole = blocks <= 2 * strata + 2 ? blocks : strata + 2;
        double keys = double(whole) * double(mean);
        if (!P::small(mean, P::x1(ps.d, shape.chunk)))
            keys = std::min(keys, double(std::min(P::probes, blocks) * 3 * P::x1(ps.d, shape.chunk)));
        lanes += keys * plan_ns::merge_lanes_per_key(ps, shape);
        if (ps.parts > 1) {  // select_splits: every group's samples sorted on chip
            const double samples = double(ps.d * ps.per_run), levels = std::log2(std::max(2.0, samples));
            lanes += double(ps.groups) * samples * 2 * levels * (levels + 1);
        }
    }
    return lanes;
}

namespace detail {

template <class K>
std::uint32_t order_value(K k) {
    if constexpr (std::is_same_v<K, float>) return key_order<float>::ordered(k);
    else return static_cast<std::uint32_t>(k);
}

// The launches that follow run on synthesized inputs and skip their unrecorded blocks.
class synthesized_scope {
public:
    explicit synthesized_scope(sim::executor& ex) : m_ex(ex) {
        ex.set_synthesized(true);
        ex.set_skip_unrecorded(true);
    }
    ~synthesized_scope() {
        m_ex.set_synthesized(false);
        m_ex.set_skip_unrecorded(false);
        m_ex.set_sample_strata(0);
    }
    synthesized_scope(const synthesized_scope&) = delete;
    synthesized_scope& operator=(const synthesized_scope&) = delete;

private:
    sim::executor& m_ex;
};

// Where block `block` of a merge pass reads each run: [lo[r], hi[r]).
struct block_ranges {
    std::vector<std::uint64_t> lo, hi;
    std::uint64_t keys() const {
        std::uint64_t x = 0;
        for (std::size_t r = 0; r < lo.size(); ++r) x += hi[r] - lo[r];
        return x;
    }
};

inline block_ranges ranges_of(const merge_shape& s, const std::vector<std::uint64_t>& splits, std::uint64_t block) {
    const std::uint64_t g = block / s.parts, q = block % s.parts;
    block_ranges b;
    for (unsigned r = 0; r < s.d; ++r) {
        if (s.parts > 1) {
            b.lo.push_back(splits[(g * (s.parts + 1) + q) * s.d + r]);
            b.hi.push_back(splits[(g * (s.parts + 1) + q + 1) * s.d + r]);
        } else {
            b.lo.push_back(run_start(s, g, r));
            b.hi.push_back(run_start(s, g, r + 1));
        }
    }
    return b;
}

// The part of a merge block's counters that its ranges and its output's
// position fix, whatever the keys: its global accesses (the leaves' reads of
// each range in chunk-element moves, the root's writes from `out`, the splits
// it reads when parts > 1) and the staging access in shared memory beside
// each read and write. multiway.cuh moves whole warps over b-aligned
// positions, so a move's warp-instructions and sectors depend on where it
// falls against b-word blocks: a block of aligned ranges costs fewer than
// another, which a line in the keys alone cannot tell. Costed as the
// simulator costs them (sim/README.md).
struct moves_tally {
    const model::machine& m;
    std::uint64_t threads, key_bytes;
    bool pairs;
    sim::block_sample part{};

    static std::uint64_t units(std::uint64_t first, std::uint64_t bytes, std::uint64_t unit) {
        return (first + bytes - 1) / unit - first / unit + 1;
    }
    // A warp-instruction on elements [a, z] of `e` bytes (global) beside the shared one on [sa, sa + z - a].
    void global(bool load, std::uint64_t a, std::uint64_t z, std::uint64_t e, std::uint64_t lanes) {
        auto& c = part.c;
        const std::uint64_t sectors = units(a * e, (z - a + 1) * e, 32), blocks = units(a * e, (z - a + 1) * e, m.block_bytes());
        model::add_global(c, load, 1, sectors, blocks);
        c[model::counter::io_blocks] += blocks;
        c[model::counter::lane_accesses] += lanes;
        c[model::counter::warp_instructions] += 1;
        part.steps += 1;
    }
    void shared(bool load, std::uint64_t words) {
        auto& c = part.c;
        const std::uint64_t wf = (words + m.b - 1) / m.b;  // consecutive words: ceil(words / b) wavefronts, no conflict
        c[load ? model::counter::shared_load_instructions : model::counter::shared_store_instructions] += 1;
        c[load ? model::counter::shared_load_wavefronts : model::counter::shared_store_wavefronts] += wf;
        c[model::counter::shared_wavefronts] += wf;
        c[model::counter::lane_accesses] += m.b;
        c[model::counter::warp_instructions] += 1;
        part.steps += wf;
    }
    // len elements at element p moved in chunk-element moves: a leaf's reads
    // or the root's writes. A move's counts depend only on how it falls
    // against b-element blocks and its length: each distinct one is costed once.
    void moves(bool read, std::uint64_t p, std::uint64_t len, std::uint64_t chunk) {
        for (std::uint64_t at = 0; at < len; at += chunk) {
            const std::uint64_t n = std::min(chunk, len - at), lead = (p + at) % m.b;
            // Moves of the same length and lead that follow (a chunk a multiple of b keeps the lead).
            std::uint64_t same = 1;
            if (chunk % m.b == 0 && n == chunk) same = (len - at) / chunk;
            const auto key = std::tuple{read, lead, n};
            auto it = std::find_if(memo.begin(), memo.end(), [&](const auto& e) { return e.first == key; });
            if (it == memo.end()) {
                const sim::block_sample before = part;
                part = {};
                move(read, p + at, n);
                memo.emplace_back(key, part);
                it = std::prev(memo.end());
                part = before;
            }
            for (std::size_t i = 0; i < model::counter_count; ++i) part.c.v[i] += same * it->second.c.v[i];
            part.steps += same * it->second.steps;
            at += (same - 1) * chunk;
        }
    }
    std::vector<std::pair<std::tuple<bool, std::uint64_t, std::uint64_t>, sim::block_sample>> memo = {};

    // One move of n elements at element p: a leaf's read (load) or the root's write.
    void move(bool read, std::uint64_t p, std::uint64_t n) {
        const std::uint64_t b = m.b, lead = p % b;
        for (std::uint64_t w = 0; w < threads / b; ++w)
            for (std::uint64_t j0 = w * b; j0 < lead + n; j0 += threads) {
                const std::uint64_t lo = std::max(j0, lead) - lead, hi = std::min(j0 + b - 1, lead + n - 1) - lead;
                const std::uint64_t kw = ((hi - lo + 1) * key_bytes + 3) / 4, vw = hi - lo + 1;
                if (read) {
                    global(true, p + lo, p + hi, key_bytes, b);
                    shared(false, kw);
                    if (pairs) global(true, p + lo, p + hi, 4, b), shared(false, vw);
                } else {
                    shared(true, kw);
                    global(false, p + lo, p + hi, key_bytes, b);
                    if (pairs) shared(true, vw), global(false, p + lo, p + hi, 4, b);
                }
            }
    }
};

inline sim::block_sample moves_part(const model::machine& m, const merge_shape& s, std::uint64_t block,
                                    const std::vector<std::uint64_t>& lo, const std::vector<std::uint64_t>& hi,
                                    std::uint64_t key_bytes, bool pairs) {
    moves_tally t{m, sort_policy::threads, key_bytes, pairs};
    std::uint64_t out = run_start(s, block / s.parts, 0), keys = 0;
    for (unsigned r = 0; r < s.d; ++r) {
        out += lo[r] - run_start(s, block / s.parts, r);
        keys += hi[r] - lo[r];
        t.moves(true, lo[r], hi[r] - lo[r], s.chunk);
    }
    t.moves(false, out, keys, s.chunk);
    if (s.parts > 1) {  // threads r < d read their run's two splits: a warp-instruction per warp and split
        const std::uint64_t first = (block / s.parts * (s.parts + 1) + block % s.parts) * s.d;
        for (std::uint64_t w = 0; w * m.b < s.d; ++w) {
            const std::uint64_t a = w * m.b, z = std::min<std::uint64_t>(s.d, a + m.b) - 1;
            for (std::uint64_t at : {first, first + s.d}) t.global(true, at + a, at + z, 8, z - a + 1);
        }
    }
    return t.part;
}

// Orders blocks for run_blocks, which runs the first alone and then claims
// the rest in order on its threads: the least work first, then the most
// (the longest first spreads the rest evenly).
template <class T, class Work>
void balance(std::vector<T>& items, Work work) {
    std::sort(items.begin(), items.end(), [&](const T& a, const T& b) { return work(a) > work(b); });
    if (!items.empty()) std::rotate(items.begin(), items.end() - 1, items.end());
}

// The ends of the first x elements of a block's ranges in the merge's order
// (key, then run: a stable merge takes equal keys from the lower run first).
// keys: the block's input, filled on demand (the synthesized memory the kernel reads).
template <class K>
std::vector<std::uint64_t> prefix_ends(sim::executor& ex, kl::gspan<K> keys, const block_ranges& b, std::uint64_t x) {
    const std::size_t d = b.lo.size();
    // Each run's window [lo, lo + w): enough for the prefix unless one run gives far more than its share.
    std::vector<std::uint64_t> w(d);
    const double share = double(x) / double(d);
    for (std::size_t r = 0; r < d; ++r)
        w[r] = std::min(b.hi[r] - b.lo[r], std::uint64_t(share + 8 * std::sqrt(share) + 64));
    auto order = [&](std::size_t r, std::uint64_t i) { return order_value(keys.data()[b.lo[r] + i]); };
    while (true) {
        for (std::size_t r = 0; r < d; ++r) ex.materialize(keys.subspan(b.lo[r], w[r]));
        // count(v) = elements below v over the windows; the x-th element's key is the least v with count(v + 1) > x.
        auto below = [&](std::uint64_t v, std::size_t r) {
            std::uint64_t lo = 0, hi = w[r];
            while (lo < hi) {
                const std::uint64_t mid = (lo + hi) / 2;
                if (std::uint64_t(order(r, mid)) < v) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        };
        auto count = [&](std::uint64_t v) {
            std::uint64_t c = 0;
            for (std::size_t r = 0; r < d; ++r) c += below(v, r);
            return c;
        };
        std::uint64_t lo = 0, hi = std::uint64_t(1) << 32;  // the x-th key's order value lies in [lo, hi)
        while (hi - lo > 1) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            if (count(mid) <= x) lo = mid;
            else hi = mid;
        }
        // A window exhausted below the cut may hide smaller keys further on: widen it and select again.
        bool widen = false;
        for (std::size_t r = 0; r < d; ++r)
            if (below(lo + 1, r) == w[r] && w[r] < b.hi[r] - b.lo[r]) {
                w[r] = std::min(b.hi[r] - b.lo[r], 2 * w[r]);
                widen = true;
            }
        if (widen) continue;
        std::vector<std::uint64_t> ends(d);
        std::uint64_t left = x - count(lo);  // keys equal to lo, taken from the lowest runs first
        for (std::size_t r = 0; r < d; ++r) {
            const std::uint64_t before = below(lo, r), equal = below(lo + 1, r) - before, take = std::min(left, equal);
            ends[r] = b.lo[r] + before + take;
            left -= take;
        }
        return ends;
    }
}

}  // namespace detail

// One merge launch of the synthesized run, estimated from sampled blocks
// with every block's counters linear in its keys (record_work_launch), in two
// classes: blocks of at most 2·x1 keys, sampled whole (the first and the last
// counted as themselves), and longer ones, probed on their first x1 and x2
// keys where that costs less than sampling them whole.
template <class K, class V, bool Pairs, class P = sampled_policy>
void synthesized_merge(sim::executor& ex, const plan_ns::merge_pass& ps, const plan_ns::sort_shape& shape,
                       const merge_shape& s, sorted_spans<K, V> in, sorted_spans<K, V> out,
                       kl::gspan<const std::uint64_t> splits) {
    const std::uint64_t blocks = ps.groups * ps.parts;
    const kl::dim3 grid{static_cast<unsigned>(blocks)}, block{sort_policy::threads};
    std::vector<std::uint64_t> host_splits(splits.size());
    if (!host_splits.empty()) ex.download(std::span<std::uint64_t>(host_splits), splits);
    std::vector<std::uint64_t> work(blocks);
    std::vector<sim::block_sample> known(blocks);
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const auto r = detail::ranges_of(s, host_splits, b);
        work[b] = r.keys();
        known[b] = detail::moves_part(ex.machine(), s, b, r.lo, r.hi, sizeof(K), Pairs);
    }
    const std::uint64_t most = ex.options().sample_strata;
    const std::uint64_t x1 = P::x1(ps.d, shape.chunk), x2 = 2 * x1;
    std::vector<std::uint8_t> klass(blocks);
    std::vector<std::uint64_t> small, big, whole, themselves;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        klass[b] = P::small(work[b], x1) ? 0 : 1;
        (klass[b] == 0 ? small : big).push_back(b);
    }
    auto mean_of = [&](const std::vector<std::uint64_t>& members) {
        std::uint64_t t = 0;
        for (auto b : members) t += work[b];
        return members.empty() ? 0 : t / members.size();
    };
    // A class sampled whole: its first and last block as themselves and one
    // from each stratum between; a class of few blocks, every one (modeled
    // all the same, so that the line's spread gives their deviation from the
    // run's own blocks; one alone counts as itself).
    auto sample_whole = [&](const std::vector<std::uint64_t>& members) {
        const std::uint64_t strata = P::light_strata(mean_of(members), most);
        if (members.size() <= 2 * strata + 2) {
            for (auto b : members) whole.push_back(b);
            if (members.size() == 1) themselves.push_back(members.front());
            return;
        }
        if (s.parts > 1 && s.parts <= strata) {
            // Whole groups, so that every part is sampled as often as it occurs
            // (a group's first range is about half the others, its last larger).
            std::vector<std::uint64_t> groups;
            for (auto b : members)
                if (groups.empty() || groups.back() != b / s.parts) groups.push_back(b / s.parts);
            const std::uint64_t take = std::max<std::uint64_t>(2, strata / s.parts);
            if (take < groups.size()) {
                std::vector<std::uint64_t> picked;
                for (auto i : ex.probe_blocks(groups.size(), take)) picked.push_back(groups[i]);
                for (auto b : members)
                    if (std::find(picked.begin(), picked.end(), b / s.parts) != picked.end()) whole.push_back(b);
                return;
            }
        }
        themselves.push_back(members.front());
        themselves.push_back(members.back());
        whole.push_back(members.front());
        whole.push_back(members.back());
        for (auto i : ex.probe_blocks(members.size() - 2, strata)) whole.push_back(members[i + 1]);
    };
    sample_whole(small);
    const std::uint64_t big_whole = std::min<std::uint64_t>(big.size(), P::light_strata(mean_of(big), most) + 2);
    const bool probe = big.size() >= 2 && std::min<std::uint64_t>(P::probes, big.size()) * 3 * x1 < big_whole * mean_of(big);
    if (!probe) sample_whole(big);
    if (themselves.size() == blocks) {  // one block
        launch_merge<sim::executor, K, V, Pairs>(ex, ps, s, in, out, splits);
        return;
    }
    std::vector<sim::work_sample> samples;
    if (!whole.empty()) {
        detail::balance(whole, [&](std::uint64_t b) { return work[b]; });
        const auto got = ex.run_blocks(std::span<const std::uint64_t>(whole), "multiway_merge", multiway_merge<K, V, Pairs>,
                                       grid, block, ps.heap_bytes, kl::gspan<const K>(in.keys),
                                       kl::gspan<const V>(in.vals), out.keys, out.vals, splits, s);
        for (std::size_t i = 0; i < whole.size(); ++i) samples.push_back({whole[i], work[whole[i]], got[i], known[whole[i]]});
    }
    if (probe) {
        // One launch of four times the parts: block (g, q) probed on its first
        // x1 keys as (g, 4q) and on its first x2 as (g, 4q + 2), each reading
        // its prefix from its own splits.
        std::vector<std::uint64_t> chosen;
        for (auto i : ex.probe_blocks(big.size(), P::probes)) chosen.push_back(big[i]);
        merge_shape probe_shape = s;
        probe_shape.parts = 4 * s.parts;
        const kl::dim3 probe_grid{static_cast<unsigned>(ps.groups * probe_shape.parts)};
        std::vector<std::uint64_t> probe_splits(ps.groups * (probe_shape.parts + 1) * s.d, 0), ids;
        std::vector<sim::work_sample> probes;
        for (const auto b : chosen)
            for (const std::uint64_t x : {x1, x2}) {
                const auto r = detail::ranges_of(s, host_splits, b);
                const auto ends = detail::prefix_ends(ex, in.keys, r, x);
                const std::uint64_t g = b / s.parts, q = 4 * (b % s.parts) + (x == x1 ? 0 : 2);
                ids.push_back(g * probe_shape.parts + q);
                for (unsigned k = 0; k < s.d; ++k) {
                    probe_splits[(g * (probe_shape.parts + 1) + q) * s.d + k] = r.lo[k];
                    probe_splits[(g * (probe_shape.parts + 1) + q + 1) * s.d + k] = ends[k];
                }
                probes.push_back({b, x, {}, detail::moves_part(ex.machine(), probe_shape, ids.back(), r.lo, ends, sizeof(K), Pairs)});
            }
        std::vector<std::size_t> order(ids.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        detail::balance(order, [&](std::size_t i) { return probes[i].work; });
        std::vector<std::uint64_t> ordered_ids;
        for (auto i : order) ordered_ids.push_back(ids[i]);
        auto dev_splits = ex.alloc<std::uint64_t>(probe_splits.size());
        ex.upload(dev_splits, std::span<const std::uint64_t>(probe_splits));
        const auto got = ex.run_blocks(std::span<const std::uint64_t>(ordered_ids), "multiway_merge",
                                       multiway_merge<K, V, Pairs>, probe_grid, block, ps.heap_bytes,
                                       kl::gspan<const K>(in.keys), kl::gspan<const V>(in.vals), out.keys, out.vals,
                                       kl::gspan<const std::uint64_t>(dev_splits), probe_shape);
        for (std::size_t j = 0; j < order.size(); ++j) {
            probes[order[j]].at = got[j];
            samples.push_back(probes[order[j]]);
        }
    }
    // A block's typical keys: its range's mean over the whole groups (a
    // group's first range is about half the others, its last larger); the
    // last group's, when partial, its own.
    std::vector<double> typical(work.begin(), work.end());
    const std::uint64_t whole_groups = std::min<std::uint64_t>(ps.groups, s.n / (std::uint64_t(s.d) * s.run_len));
    if (whole_groups > 1)
        for (std::uint64_t q = 0; q < s.parts; ++q) {
            double mean = 0;
            for (std::uint64_t g = 0; g < whole_groups; ++g) mean += double(work[g * s.parts + q]) / double(whole_groups);
            for (std::uint64_t g = 0; g < whole_groups; ++g) typical[g * s.parts + q] = mean;
        }
    ex.record_work_launch("multiway_merge", grid, block, ps.heap_bytes, work, klass, typical, known, samples,
                          themselves);
}

// The sort of n random keys in sampled mode, on synthesized inputs; the
// outputs are not a sort of anything, so the check is not made.
template <class K, bool Pairs, class P = sampled_policy>
check_result merge_sort_synthesized(sim::executor& ex, std::uint64_t n, const plan_ns::sort_shape& shape,
                                    std::uint64_t seed) {
    using V = std::uint32_t;
    const auto pl = plan_ns::make_plan(ex.machine(), n, shape);
    const detail::synthesized_scope scope(ex);
    if (n > 0) {
        const random_keys_synth<K> input(seed);
        auto keys = ex.alloc_synthesized<K>(n, [input](std::uint64_t f, std::uint64_t c, K* dst) { input.fill(f, c, dst); });
        auto vals = Pairs ? ex.alloc_synthesized<V>(n) : kl::gspan<V>{};
        sorted_spans<K, V> out{ex.alloc_synthesized<K>(n), Pairs ? ex.alloc_synthesized<V>(n) : kl::gspan<V>{}};
        // block_sort's accesses do not depend on the keys (sort_common.cuh): every whole tile costs the same.
        ex.set_sample_strata(P::min_strata);
        launch_block_sort<sim::executor, K, V, Pairs>(ex, pl, shape, kl::gspan<const K>(keys), kl::gspan<const V>(vals),
                                                      out);
        ex.set_sample_strata(0);
        for (std::size_t i = 0; i < pl.passes.size(); ++i) {
            const auto& ps = pl.passes[i];
            const merge_shape s = pass_shape(n, ps, shape);
            const sorted_runs_synth<K> state(n, ps.run_len, mix_seed(seed, i + 1));
            sorted_spans<K, V> in{
                ex.alloc_synthesized<K>(n, [state](std::uint64_t f, std::uint64_t c, K* dst) { state.fill(f, c, dst); }),
                Pairs ? ex.alloc_synthesized<V>(n) : kl::gspan<V>{}};
            kl::gspan<std::uint64_t> splits{};
            if (ps.parts > 1) {
                // Every group's splits: the merge blocks sampled below read them.
                splits = ex.alloc<std::uint64_t>(splits_size(ps));
                ex.set_skip_unrecorded(false);
                ex.set_sample_strata(P::split_strata);
                launch_select_splits(ex, ps, s, kl::gspan<const K>(in.keys), splits);
                ex.set_sample_strata(0);
                ex.set_skip_unrecorded(true);
            }
            synthesized_merge<K, V, Pairs, P>(ex, ps, shape, s, in, out, kl::gspan<const std::uint64_t>(splits));
        }
    }
    return {true, "not checked: sampled mode synthesized every launch's input (runs of sorted i.i.d. uniform keys, "
                  "in distribution what the sort of random keys reads) and ran only sampled blocks"};
}

// The simulator's run of sort/multiway and sort/pairwise: the synthesized
// sampled driver where it applies, the ordinary run otherwise.
inline check_result run_merge_sort_sim(sim::executor& ex, const std::string& key, std::uint64_t n,
                                       const param_values& p, std::uint64_t seed) {
    if (!ex.sampled() || !synthesizable(key, p)) return run_sort(ex, key, n, p, seed);
    const auto shape = plan_ns::shape_of(key, p);
    if (exact_lanes(plan_ns::make_plan(ex.machine(), n, shape), shape) <= sampled_policy::synthesize_lanes)
        return run_sort(ex, key, n, p, seed);
    if (p.text("type") == "float")
        return shape.pairs ? merge_sort_synthesized<float, true>(ex, n, shape, seed)
                           : merge_sort_synthesized<float, false>(ex, n, shape, seed);
    return shape.pairs ? merge_sort_synthesized<std::uint32_t, true>(ex, n, shape, seed)
                       : merge_sort_synthesized<std::uint32_t, false>(ex, n, shape, seed);
}

}  // namespace agpu::kernels::sort
