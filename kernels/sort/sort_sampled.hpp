// sort/multiway and sort/pairwise in the simulator's sampled mode on random
// keys: every launch's inputs synthesized, only sampled blocks run, and the
// heavy merge blocks probed on shortened work.
//
// Why: a sampled run that runs its unrecorded blocks (to feed later launches
// the right data) costs about as much as an exact one, and a 2^28-key sort's
// merge launches have thousands of heaps of tens of thousands of keys each
// (some of far more), so even a few recorded blocks per launch of a run that
// computes its data take far longer than the seconds a prediction should.
// With random keys the state each launch reads is known in distribution
// (sort_synth.hpp), so it is synthesized, where a kernel touches it, instead
// of computed:
//   - block_sort reads i.i.d. keys; every merge pass reads runs of L sorted
//     i.i.d. keys (L the pass's run length); outputs go to memory no one
//     reads. Launches are declared synthesized and skip their unrecorded
//     blocks (block_sort's merge-path searches depend on the keys: sampled by
//     the engine's strata).
//   - The distribution's launches (select_pivots, split_search) record a few
//     blocks and skip the rest; every group's pivots and splits, which the
//     merges' sampled blocks read and every block's work comes from, are made
//     on the host by the kernels' rules (synthesized_distribution: a split is
//     one descent of a run's tree, no memory touched) and checked against
//     what the recorded blocks wrote.
//   - A merge launch's blocks are estimated with every block's counters
//     linear in its keys (executor::record_work_launch): blocks of up to 2·x1
//     keys sampled whole by strata, fewer where blocks are larger
//     (sampled_policy::light_keys); longer ones probed (sampled_policy::probes,
//     stratified as the engine samples) twice, on the first x1 and x2 keys of
//     their range (split on the host by a d-way selection over the same
//     synthesized runs). The part of a block's counters its ranges fix (its
//     global moves and their staging) is costed per block (moves_tally), in
//     expectation over where a range falls against b-word blocks where it
//     starts at a searched split (moves_near).
// The error is measured against exact runs in sim/README.md.
//
// Applies to u32 and float keys with input=random (every bit pattern equally
// likely, so the order values are uniform); other inputs and u64 keys take the
// ordinary sampled mode. Values (values=1) are not synthesized: no count
// depends on them (they move with their keys), so they read zeros.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
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
    // a whole block's (d = 16 and 64, 1 M-key blocks of the 256-thread heaps;
    // on the warp heaps the probed rows of sim/README's table check it).
    static constexpr std::uint64_t min_probe = std::uint64_t(1) << 16;
    static constexpr std::uint64_t probe_heaps = 4;
    // Probed blocks of a heavy launch (Student's t widens the error of so few).
    static constexpr std::uint64_t probes = 3;
    // Light launches record about this many keys' worth of blocks: the first,
    // the last and one from each of light_keys / (keys per block) strata, at
    // least min_strata, at most the engine's default.
    static constexpr std::uint64_t light_keys = std::uint64_t(1) << 17;
    static constexpr std::uint64_t min_strata = 2;
    // select_pivots and split_search record this many strata and skip the
    // rest (their outputs come from the host: synthesized_distribution).
    static constexpr std::uint64_t split_strata = 8;
    // Synthesize only runs whose exact simulation would record more lane
    // accesses than this (about 4 s): below, the ordinary sampled run is
    // cheap, and it sees the run's own data, where a launch of few blocks has a
    // makespan (their maximum) that a synthesized sample of them misses by a
    // few percent (sort/multiway at 2^17 on the 256-thread heaps: 4%).
    static constexpr double synthesize_lanes = double(std::uint64_t(1) << 27);

    static std::uint64_t x1(std::uint64_t d, std::uint64_t chunk) { return std::max(min_probe, probe_heaps * d * chunk); }
    static std::uint64_t light_strata(std::uint64_t mean_keys, std::uint64_t most) {
        return std::clamp<std::uint64_t>(light_keys / std::max<std::uint64_t>(1, mean_keys), min_strata, most);
    }
    // Blocks of at most 2·x1 keys are sampled whole (a group's first range
    // can be nearly empty: its pivot falls among the runs' first samples).
    static bool small(std::uint64_t keys, std::uint64_t x1) { return keys <= 2 * x1; }
};

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
    if (plan_ns::merge_sort_lanes(m, pl, shape) <= P::synthesize_lanes) return 0;
    double lanes = double(std::min<std::uint64_t>(pl.tiles, 2 * most_strata + 2) * shape.tile) *
                   plan_ns::block_sort_lanes_per_element(m, shape);
    for (const auto& ps : pl.passes) {
        const std::uint64_t blocks = ps.groups * ps.parts, mean = std::max<std::uint64_t>(1, n / blocks);
        const std::uint64_t strata = P::light_strata(mean, most_strata);
        const std::uint64_t whole = blocks <= 2 * strata + 2 ? blocks : strata + 2;
        double keys = double(whole) * double(mean);
        if (!P::small(mean, P::x1(ps.d, shape.chunk)))
            keys = std::min(keys, double(std::min(P::probes, blocks) * 3 * P::x1(ps.d, shape.chunk)));
        lanes += keys * plan_ns::merge_lanes_per_key(m, ps, shape);
        if (ps.parts > 1) {
            // select_pivots (a thread per sample, d - 1 binary searches over
            // per_run samples) and split_search (a thread per split, one over
            // the run) on the blocks of split_strata strata; the host's
            // distribution, a descent of a run's tree per sample and per
            // split, costs about 3 lane accesses per level and 30 per unit made.
            const std::uint64_t most = (2 * P::split_strata + 2) * sort_policy::threads;
            const double samples = double(plan_ns::pivot_samples(ps)), levels = std::log2(double(ps.per_run)) + 1;
            const double searches = double(splits_size(ps)), depth = std::log2(std::max(2.0, double(ps.run_len) / 32));
            lanes += std::min(samples, double(most)) * 2 * (double(ps.d - 1) * levels + 5);
            lanes += std::min(searches, double(most)) * 2 * (depth + 5);
            lanes += (samples + double(ps.groups * (ps.parts - 1) * (ps.d - 1))) * (3 * depth + 30);
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
// each read and write (a leaf's registers stored into slot 0, the root's
// elements loaded for its write). multiway.cuh moves whole warps over
// b-aligned positions, so a move's warp-instructions, sectors and (the slots
// padded by a word per 32) bank conflicts depend on where it falls against
// b-word blocks: a block of aligned ranges costs fewer than another, which a
// line in the keys alone cannot tell. Costed as the simulator costs them
// (sim/README.md), for 32-bit keys and values.
//
// Where a range starts at a split that a search found (inside its run, not
// the pivot's own run), the place in its b-element block is the synthesized
// data's draw, and the run's own data puts it elsewhere: in a launch of few
// heavy blocks an aligned range, a 1/b chance, saves about a bank conflict
// per warp-instruction of its staging stores (sort/multiway parts=4 at 2^22:
// 5% of the last launch's), which made the estimate one more draw of the
// run's. There the counts are averaged over the b starts of that block, the
// range's end where it fell (so its last move's length moves with the start),
// with their variance; so are the root's writes after such a range. That is
// the expectation where a split's spread is several b-blocks wide, so that
// its density is flat across one (synthesized_merge says where).

// Counts as reals (time_steps: the steps): an expectation, a variance.
using moments = std::array<double, model::counter_count>;

inline moments moments_of(const sim::block_sample& s) {
    moments x{};
    for (std::size_t i = 0; i < model::counter_count; ++i) x[i] = double(s.c.v[i]);
    x[std::size_t(model::counter::time_steps)] = double(s.steps);
    return x;
}

// Over the b starts of a block of b elements, a range ending h elements
// past a multiple of the chunk from that block's first: the mean and variance
// of one full move at the start (`full`), of the rest of the range (`rest`:
// its partial last move, less a full move where the start passes h) and their
// covariance. The range's counts are A·full + rest, A its full moves from the
// block's first element (a chunk a multiple of b: every move of the range
// starts at the same place in its block).
struct place_moments {
    moments full_mean{}, full_var{}, rest_mean{}, rest_var{}, cov{};
};

// Shared by a launch's blocks (one chunk): a move's counts by (read, lead,
// length), and the moments over the places by (read, h).
struct moves_memo {
    std::map<std::tuple<bool, std::uint64_t, std::uint64_t>, sim::block_sample> move;
    std::map<std::pair<bool, std::uint64_t>, place_moments> places;
};

// A block's known part: the counts where its ranges fall as given (`fixed`),
// plus the expectation and variance of those taken over the places.
struct known_part {
    sim::block_sample fixed{};
    moments mean{}, var{};
};

struct moves_tally {
    const model::machine& m;
    std::uint64_t threads;  // the merge block's
    bool pairs;
    std::uint64_t items;  // > 0: bitonic moves of items·b (multiway.cuh's bitonic_merge): unpadded rings, the root writes from registers
    moves_memo& memo;
    sim::block_sample part{};
    moments mean{}, var{};

    static std::uint64_t units(std::uint64_t first, std::uint64_t bytes, std::uint64_t unit) {
        return (first + bytes - 1) / unit - first / unit + 1;
    }
    // A warp-instruction of `lanes` lanes on elements [a, z] of `e` bytes.
    void global(bool load, std::uint64_t a, std::uint64_t z, std::uint64_t e, std::uint64_t lanes) {
        auto& c = part.c;
        const std::uint64_t sectors = units(a * e, (z - a + 1) * e, 32), blocks = units(a * e, (z - a + 1) * e, m.block_bytes());
        model::add_global(c, load, 1, sectors, blocks);
        c[model::counter::io_blocks] += blocks;
        c[model::counter::lane_accesses] += lanes;
        c[model::counter::warp_instructions] += 1;
        part.steps += 1;
    }
    // A warp-instruction of one lane per word of `words` (repeats included).
    void shared(bool load, const std::vector<std::uint64_t>& words) {
        using model::counter;
        auto& c = part.c;
        const auto cost = model::shared_bank_cost(words, m.b);
        c[load ? counter::shared_load_instructions : counter::shared_store_instructions] += 1;
        c[load ? counter::shared_load_wavefronts : counter::shared_store_wavefronts] += cost.wf;
        c[load ? counter::shared_load_bank_conflicts : counter::shared_store_bank_conflicts] += cost.wf - cost.ideal;
        c[counter::shared_wavefronts] += cost.wf;
        c[counter::bank_conflicts] += cost.wf - cost.ideal;
        c[counter::lane_accesses] += words.size();
        c[counter::warp_instructions] += 1;
        part.steps += cost.wf;
    }
    // k warp collectives (shuffles).
    void collectives(std::uint64_t k) {
        part.c[model::counter::collective_instructions] += k;
        part.c[model::counter::warp_instructions] += k;
        part.steps += k;
    }
    // One move of n elements at a place `lead` elements past a b-element
    // block's start. A move's counts depend only on that and its length:
    // each distinct one is costed once.
    const sim::block_sample& one(bool read, std::uint64_t lead, std::uint64_t n) {
        const auto key = std::tuple{read, lead, n};
        auto it = memo.move.find(key);
        if (it == memo.move.end()) {
            const sim::block_sample before = part;
            part = {};
            move(read, lead, n);
            it = memo.move.emplace(key, part).first;
            part = before;
        }
        return it->second;
    }
    // len elements at element p moved in chunk-element moves: a leaf's reads
    // or the root's writes.
    void moves(bool read, std::uint64_t p, std::uint64_t len, std::uint64_t chunk) {
        for (std::uint64_t at = 0; at < len; at += chunk) {
            const std::uint64_t n = std::min(chunk, len - at), lead = (p + at) % m.b;
            // Moves of the same length and lead that follow (a chunk a multiple of b keeps the lead).
            std::uint64_t same = 1;
            if (chunk % m.b == 0 && n == chunk) same = (len - at) / chunk;
            const sim::block_sample& x = one(read, lead, n);
            for (std::size_t i = 0; i < model::counter_count; ++i) part.c.v[i] += same * x.c.v[i];
            part.steps += same * x.steps;
            at += (same - 1) * chunk;
        }
    }
    // The same moves averaged over the b starts of the b-element block that
    // p falls in, the end p + len where it is: their counts' mean and
    // variance. Where the chunk is not a multiple of b a range's moves fall
    // at different places, and where the range is shorter than b a start
    // could pass its end: p is kept.
    void moves_near(bool read, std::uint64_t p, std::uint64_t len, std::uint64_t chunk) {
        if (chunk % m.b != 0 || len < m.b) return moves(read, p, len, chunk);
        const std::uint64_t from_block = len + p % m.b;
        const place_moments& pm = places(read, chunk, from_block % chunk);
        const double a = double(from_block / chunk);
        for (std::size_t i = 0; i < model::counter_count; ++i) {
            mean[i] += a * pm.full_mean[i] + pm.rest_mean[i];
            var[i] += a * a * pm.full_var[i] + 2 * a * pm.cov[i] + pm.rest_var[i];
        }
    }
    const place_moments& places(bool read, std::uint64_t chunk, std::uint64_t h) {
        const auto key = std::pair{read, h};
        auto it = memo.places.find(key);
        if (it != memo.places.end()) return it->second;
        std::vector<moments> x(m.b), z(m.b);
        for (std::uint64_t lead = 0; lead < m.b; ++lead) {
            // From this start: A full moves (A - 1 where it passes h), then a partial one of `last`.
            x[lead] = moments_of(one(read, lead, chunk));
            const std::uint64_t last = lead <= h ? h - lead : chunk + h - lead;
            if (last > 0) z[lead] = moments_of(one(read, lead, last));
            if (lead > h)
                for (std::size_t i = 0; i < model::counter_count; ++i) z[lead][i] -= x[lead][i];
        }
        place_moments pm;
        const double nb = double(m.b);
        for (std::size_t i = 0; i < model::counter_count; ++i) {
            for (std::uint64_t l = 0; l < m.b; ++l) {
                pm.full_mean[i] += x[l][i] / nb;
                pm.rest_mean[i] += z[l][i] / nb;
            }
            for (std::uint64_t l = 0; l < m.b; ++l) {
                const double dx = x[l][i] - pm.full_mean[i], dz = z[l][i] - pm.rest_mean[i];
                pm.full_var[i] += dx * dx / nb;
                pm.rest_var[i] += dz * dz / nb;
                pm.cov[i] += dx * dz / nb;
            }
        }
        return memo.places.emplace(key, pm).first->second;
    }

    // One move of n elements at element p: a leaf's read (global loads, then
    // the stores into slot 0, by the lanes on the move's elements only) or the
    // root's write (the merge path: loads from its stage, then global stores,
    // a lane outside the move taking its nearest element; bitonic moves: from
    // registers, by the lanes on the move's elements).
    void move(bool read, std::uint64_t p, std::uint64_t n) {
        const std::uint64_t b = m.b, lead = p % b;
        std::vector<std::uint64_t> words(b), on;
        for (std::uint64_t w = 0; w < threads / b; ++w)
            for (std::uint64_t j0 = w * b; j0 < lead + n; j0 += threads) {
                const std::uint64_t lo = std::max(j0, lead) - lead, hi = std::min(j0 + b - 1, lead + n - 1) - lead;
                on.clear();
                for (std::uint64_t l = 0; l < b; ++l) {
                    const auto word = unsigned(std::clamp(j0 + l, lead, lead + n - 1) - lead);
                    words[l] = items > 0 ? word : padded(word);
                    if (j0 + l >= lead && j0 + l < lead + n) on.push_back(words[l]);
                }
                for (int k = 0; k < (pairs ? 2 : 1); ++k) {
                    if (read) {
                        global(true, p + lo, p + hi, 4, hi - lo + 1);
                        shared(false, on);
                    } else if (items > 0) {
                        // From registers, misaligned: a whole move shuffles each
                        // register once (before its first warp-store), a shorter one
                        // each register a warp-store spans.
                        if (lead > 0 && n == items * b) collectives(j0 == 0 ? items : 0);
                        else if (lead > 0) collectives((j0 / b < items ? 1 : 0) + (j0 > 0 ? 1 : 0));
                        global(false, p + lo, p + hi, 4, hi - lo + 1);
                    } else {
                        shared(true, words);
                        global(false, p + lo, p + hi, 4, b);
                    }
                }
            }
    }
};

// anywhere (empty: none): which ranges start at a split a search found, taken
// over the starts near it (above); the root's writes then too.
inline known_part moves_part(const model::machine& m, const merge_shape& s, std::uint64_t threads, std::uint64_t items,
                             std::uint64_t block, const std::vector<std::uint64_t>& lo,
                             const std::vector<std::uint64_t>& hi, bool pairs, moves_memo& memo,
                             const std::vector<bool>& anywhere = {}) {
    moves_tally t{m, threads, pairs, items, memo};
    std::uint64_t out = run_start(s, block / s.parts, 0), keys = 0;
    bool out_anywhere = false;
    for (unsigned r = 0; r < s.d; ++r) {
        out += lo[r] - run_start(s, block / s.parts, r);
        keys += hi[r] - lo[r];
        if (!anywhere.empty() && anywhere[r]) {
            t.moves_near(true, lo[r], hi[r] - lo[r], s.chunk);
            out_anywhere = true;
        } else {
            t.moves(true, lo[r], hi[r] - lo[r], s.chunk);
        }
    }
    if (out_anywhere) t.moves_near(false, out, keys, s.chunk);
    else t.moves(false, out, keys, s.chunk);
    if (s.parts > 1) {  // lanes r < d read their run's two splits: a warp-instruction per b runs and split
        const std::uint64_t first = (block / s.parts * (s.parts + 1) + block % s.parts) * s.d;
        for (std::uint64_t w = 0; w * m.b < s.d; ++w) {
            const std::uint64_t a = w * m.b, z = std::min<std::uint64_t>(s.d, a + m.b) - 1;
            for (std::uint64_t at : {first, first + s.d}) t.global(true, at + a, at + z, 8, z - a + 1);
        }
    }
    return {t.part, t.mean, t.var};
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

// What select_pivots and split_search write for a pass over the synthesized
// runs, made on the host by the kernels' rules (multiway.cuh): each present
// sample's rank among its group's samples in (key, run, sample) order, its
// sample index plus, for every other run with elements, how many of that
// run's samples precede it (a binary search over them), and the pivots at
// the ranks pivots_of_rank names; each split the count of a run's elements
// before its pivot (at most it in earlier runs, below it in later ones)
// found by one descent of the run's tree (sorted_runs_synth::rank) instead
// of a binary search through memory: no page of the input is touched.
template <class K>
struct distribution {
    std::vector<K> pivot_keys;
    std::vector<std::uint32_t> pivot_tags;
    std::vector<std::uint64_t> splits;
    std::vector<bool> searched;  // per split: found by a search, strictly inside its run
};

template <class K>
distribution<K> synthesized_distribution(const sorted_runs_synth<K>& state, const plan_ns::merge_pass& ps,
                                         const merge_shape& s) {
    const std::uint64_t d = s.d, P = s.parts, per_run = ps.per_run;
    const unsigned shift = unsigned(std::bit_width(per_run) - 1);  // per_run is a power of two (sort_plan)
    distribution<K> out;
    out.pivot_keys.resize(ps.groups * (P - 1));
    out.pivot_tags.resize(ps.groups * (P - 1));
    out.splits.resize(ps.groups * (P + 1) * d);
    out.searched.resize(out.splits.size());
    std::vector<typename sorted_runs_synth<K>::split_cache> caches(d);
    std::vector<std::vector<std::uint32_t>> samples(d, std::vector<std::uint32_t>(per_run));  // order values, by run
    for (std::uint64_t g = 0; g < ps.groups; ++g) {
        for (auto& c : caches) c.clear();
        const std::uint64_t nonempty = nonempty_runs(s, g);
        for (std::uint64_t r = 0; r < nonempty; ++r) {
            const std::uint64_t lo = run_start(s, g, r), len = run_start(s, g, r + 1) - lo;
            for (std::uint64_t j = 0; j < per_run; ++j) samples[r][j] = state.order_at(sample_at(lo, len, j, shift), &caches[r]);
        }
        for (std::uint64_t r = 0; r < nonempty; ++r)
            for (std::uint64_t j = 0; j < per_run; ++j) {
                const std::uint32_t v = samples[r][j];
                std::uint64_t rank = j;
                for (std::uint64_t o = 0; o < nonempty; ++o) {
                    const auto& other = samples[o];
                    if (o < r) rank += std::uint64_t(std::upper_bound(other.begin(), other.end(), v) - other.begin());
                    if (o > r) rank += std::uint64_t(std::lower_bound(other.begin(), other.end(), v) - other.begin());
                }
                const pivot_span at = pivots_of_rank(rank, nonempty * per_run, P);
                for (std::uint64_t q = at.first; q < at.end; ++q) {
                    out.pivot_keys[g * (P - 1) + q - 1] = key_from_order<K>(v);
                    out.pivot_tags[g * (P - 1) + q - 1] = std::uint32_t(r * per_run + j);
                }
            }
        for (std::uint64_t q = 0; q <= P; ++q)
            for (std::uint64_t r = 0; r < d; ++r) {
                const std::uint64_t lo = run_start(s, g, r), hi = run_start(s, g, r + 1);
                std::uint64_t split = q == 0 ? lo : hi;
                if (q > 0 && q < P && hi > lo) {
                    const std::uint64_t at = g * (P - 1) + q - 1, pr = out.pivot_tags[at] / per_run;
                    const std::uint32_t v = order_value(out.pivot_keys[at]);
                    split = r == pr ? sample_at(lo, hi - lo, out.pivot_tags[at] % per_run, shift)
                                    : lo + state.rank(lo / s.run_len, v, r < pr, &caches[r]);
                    out.searched[(g * (P + 1) + q) * d + r] = r != pr && lo < split && split < hi;
                }
                out.splits[(g * (P + 1) + q) * d + r] = split;
            }
    }
    return out;
}

// Marks a launch's output unwritten (all bits set), so that take_host can tell what its recorded blocks wrote.
template <class T>
void unset(sim::executor& ex, kl::gspan<T> dev) {
    const std::vector<T> none(dev.size(), static_cast<T>(~T(0)));
    ex.upload(dev, std::span<const T>(none));
}

// The host's values into `dev`, after checking those the launch's recorded
// blocks wrote (the others skipped) against them: the host's rules are the kernel's.
template <class T>
void take_host(sim::executor& ex, kl::gspan<T> dev, const std::vector<T>& host, const char* what) {
    std::vector<T> got(dev.size());
    ex.download(std::span<T>(got), kl::gspan<const T>(dev));
    for (std::size_t i = 0; i < got.size(); ++i)
        AGPU_CHECK(got[i] == static_cast<T>(~T(0)) || got[i] == host[i],
                   std::string("synthesized sort: ") + what + " differ from the host's at " + std::to_string(i));
    ex.upload(dev, std::span<const T>(host));
}

template <class K>
void take_host(sim::executor& ex, pivot_spans<K> dev, const distribution<K>& host) {
    std::vector<std::uint32_t> tags(dev.tags.size());
    std::vector<K> keys(dev.keys.size());
    ex.download(std::span<std::uint32_t>(tags), kl::gspan<const std::uint32_t>(dev.tags));
    ex.download(std::span<K>(keys), kl::gspan<const K>(dev.keys));
    for (std::size_t i = 0; i < tags.size(); ++i)
        if (tags[i] != ~0u)
            AGPU_CHECK(tags[i] == host.pivot_tags[i] && order_value(keys[i]) == order_value(host.pivot_keys[i]),
                       "synthesized sort: select_pivots' pivots differ from the host's at " + std::to_string(i));
    ex.upload(dev.keys, std::span<const K>(host.pivot_keys));
    ex.upload(dev.tags, std::span<const std::uint32_t>(host.pivot_tags));
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
                       kl::gspan<const std::uint64_t> splits, const std::vector<bool>& searched) {
    const std::uint64_t blocks = ps.groups * ps.parts;
    const std::uint64_t threads = plan_ns::merge_threads(ex.machine(), shape.warps);
    const std::uint64_t items = plan_ns::bitonic_items(ex.machine(), shape);
    const kl::dim3 grid{static_cast<unsigned>(blocks)}, block{static_cast<unsigned>(threads)};
    std::vector<std::uint64_t> host_splits(splits.size());
    if (!host_splits.empty()) ex.download(std::span<std::uint64_t>(host_splits), splits);
    std::vector<std::uint64_t> work(blocks);
    // Every block's known part, in expectation over where its searched
    // splits fall (detail::moves_tally::moves_near; its fractions carried
    // from block to block, so that the launch's total is the expectations'
    // sum), and the variance of the run's about it. Only where a split's
    // spread is at least b elements (the binomial one of the first pivot's
    // rank in a run, sqrt(L(1/P)(1 - 1/P))): on narrower ones the places in a
    // b-block are not equally likely (sort/multiway parts=4 at 2^22, its
    // first pass, L = 1024: starts 1 to 10 words into a block up to 40%
    // rarer than 17 to 31), and the synthesized draw is kept.
    const std::uint64_t b_words = ex.machine().b;
    const bool spread = s.parts > 1 && s.run_len * (s.parts - 1) >= b_words * b_words * s.parts * s.parts;
    std::vector<sim::block_sample> known(blocks);
    std::vector<double> known_variance(model::counter_count, 0.0);
    detail::moves_memo memo;
    {
        detail::moments sum{}, given{};
        std::vector<bool> anywhere(spread && !searched.empty() ? s.d : 0);
        for (std::uint64_t b = 0; b < blocks; ++b) {
            const auto r = detail::ranges_of(s, host_splits, b);
            work[b] = r.keys();
            for (unsigned k = 0; k < anywhere.size(); ++k)
                anywhere[k] = searched[(b / s.parts * (s.parts + 1) + b % s.parts) * s.d + k];
            const auto part = detail::moves_part(ex.machine(), s, threads, items, b, r.lo, r.hi, Pairs, memo, anywhere);
            known[b] = part.fixed;
            for (std::size_t i = 0; i < model::counter_count; ++i) {
                sum[i] += part.mean[i];
                const double add = std::max(0.0, std::round(sum[i]) - given[i]);
                given[i] += add;
                if (i == std::size_t(model::counter::time_steps)) known[b].steps += std::uint64_t(add);
                else known[b].c.v[i] += std::uint64_t(add);
                known_variance[i] += part.var[i];
            }
        }
    }
    // A sampled block's own known part: its splits where they fell.
    auto own_known = [&](std::uint64_t b) {
        const auto r = detail::ranges_of(s, host_splits, b);
        return detail::moves_part(ex.machine(), s, threads, items, b, r.lo, r.hi, Pairs, memo).fixed;
    };
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
        launch_merge<sim::executor, K, V, Pairs>(ex, ps, shape, s, in, out, splits);
        return;
    }
    std::vector<sim::work_sample> samples;
    if (!whole.empty()) {
        detail::balance(whole, [&](std::uint64_t b) { return work[b]; });
        const auto got = ex.run_blocks(std::span<const std::uint64_t>(whole), "multiway_merge", merge_kernel<K, V, Pairs>(items, s.d),
                                       grid, block, ps.heap_bytes, kl::gspan<const K>(in.keys),
                                       kl::gspan<const V>(in.vals), out.keys, out.vals, splits, s);
        for (std::size_t i = 0; i < whole.size(); ++i) samples.push_back({whole[i], work[whole[i]], got[i], own_known(whole[i])});
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
                probes.push_back({b, x, {}, detail::moves_part(ex.machine(), probe_shape, threads, items, ids.back(), r.lo, ends, Pairs, memo).fixed});
            }
        std::vector<std::size_t> order(ids.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        detail::balance(order, [&](std::size_t i) { return probes[i].work; });
        std::vector<std::uint64_t> ordered_ids;
        for (auto i : order) ordered_ids.push_back(ids[i]);
        auto dev_splits = ex.alloc<std::uint64_t>(probe_splits.size());
        ex.upload(dev_splits, std::span<const std::uint64_t>(probe_splits));
        const auto got = ex.run_blocks(std::span<const std::uint64_t>(ordered_ids), "multiway_merge",
                                       merge_kernel<K, V, Pairs>(items, probe_shape.d), probe_grid, block, ps.heap_bytes,
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
    sim::work_launch launch;
    launch.name = "multiway_merge";
    launch.grid = grid;
    launch.block = block;
    launch.dynamic_shared_bytes = ps.heap_bytes;
    launch.work = work;
    launch.klass = klass;
    launch.typical_work = typical;
    launch.known = known;
    launch.samples = samples;
    launch.themselves = themselves;
    launch.known_variance = known_variance;
    ex.record_work_launch(launch);
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
        // One input region, refilled for each launch (block_sort's i.i.d.
        // keys, then each pass's runs): its pages are cleared once.
        const random_keys_synth<K> input(seed);
        sorted_spans<K, V> in{
            ex.alloc_synthesized<K>(n, [input](std::uint64_t f, std::uint64_t c, K* dst) { input.fill(f, c, dst); }),
            Pairs ? ex.alloc_synthesized<V>(n) : kl::gspan<V>{}};
        sorted_spans<K, V> out{ex.alloc_synthesized<K>(n), Pairs ? ex.alloc_synthesized<V>(n) : kl::gspan<V>{}};
        // block_sort's merge-path searches go where the keys say: sampled by the engine's strata.
        launch_block_sort<sim::executor, K, V, Pairs>(ex, pl, shape, kl::gspan<const K>(in.keys),
                                                      kl::gspan<const V>(in.vals), out);
        for (std::size_t i = 0; i < pl.passes.size(); ++i) {
            const auto& ps = pl.passes[i];
            const merge_shape s = pass_shape(n, ps, shape);
            const sorted_runs_synth<K> state(n, ps.run_len, mix_seed(seed, i + 1));
            ex.refill_synthesized(in.keys, [state](std::uint64_t f, std::uint64_t c, K* dst) { state.fill(f, c, dst); });
            kl::gspan<std::uint64_t> splits{};
            std::vector<bool> searched;
            if (ps.parts > 1) {
                // The distribution's launches record a few blocks and skip the
                // rest; every group's pivots and splits (the merges' ranges)
                // come from the host, checked against what the recorded blocks wrote.
                auto host = detail::synthesized_distribution(state, ps, s);
                const auto pivots = alloc_pivots<sim::executor, K>(ex, ps);
                splits = ex.alloc<std::uint64_t>(splits_size(ps));
                ex.set_sample_strata(P::split_strata);
                detail::unset(ex, pivots.tags);
                launch_select_pivots(ex, ps, s, kl::gspan<const K>(in.keys), pivots);
                detail::take_host(ex, pivots, host);
                detail::unset(ex, splits);
                launch_split_search(ex, ps, s, kl::gspan<const K>(in.keys), pivots, splits);
                detail::take_host(ex, splits, host.splits, "split_search's splits");
                ex.set_sample_strata(0);
                searched = std::move(host.searched);
            }
            synthesized_merge<K, V, Pairs, P>(ex, ps, shape, s, in, out, kl::gspan<const std::uint64_t>(splits),
                                              searched);
        }
        for (auto keys : {in.keys, out.keys}) ex.release_synthesized(keys);
        for (auto vals : {in.vals, out.vals}) ex.release_synthesized(vals);
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
    if (plan_ns::merge_sort_lanes(ex.machine(), plan_ns::make_plan(ex.machine(), n, shape), shape) <=
        sampled_policy::synthesize_lanes)
        return run_sort(ex, key, n, p, seed);
    if (p.text("type") == "float")
        return shape.pairs ? merge_sort_synthesized<float, true>(ex, n, shape, seed)
                           : merge_sort_synthesized<float, false>(ex, n, shape, seed);
    return shape.pairs ? merge_sort_synthesized<std::uint32_t, true>(ex, n, shape, seed)
                       : merge_sort_synthesized<std::uint32_t, false>(ex, n, shape, seed);
}

}  // namespace agpu::kernels::sort
