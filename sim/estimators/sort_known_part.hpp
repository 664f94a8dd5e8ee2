// The part of a merge block's counters the sort estimator knows without the
// keys (sort_sampled.hpp): where a block's ranges fall fixes its global moves
// and their staging in shared memory, costed by the model's rules
// (model/costing.hpp) as the simulator costs them, per block; where a range
// starts at a searched split, in expectation over the places it could start.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "agpu/model/costing.hpp"
#include "agpu/sim/estimator.hpp"
#include "sort/sort_runs.hpp"

namespace agpu::sim::sort_estimator {

// The sort's kernels, plan and runs (kernels/sort/), which this estimator drives.
using namespace ::agpu::kernels;
using namespace ::agpu::kernels::sort;

namespace detail {

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
    std::uint64_t
        items;  // > 0: bitonic moves of items·b (multiway.cuh's bitonic_merge): unpadded rings, the root writes from registers
    moves_memo& memo;
    sim::block_sample part{};
    moments mean{}, var{};

    // A warp-instruction of `lanes` lanes on elements [a, z] of `e` bytes.
    void global(bool load, std::uint64_t a, std::uint64_t z, std::uint64_t e, std::uint64_t lanes) {
        auto& c = part.c;
        const std::uint64_t sectors = model::units(a * e, (z - a + 1) * e, model::sector_bytes);
        const std::uint64_t blocks = model::units(a * e, (z - a + 1) * e, m.block_bytes());
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
        model::add_shared(c, load ? model::shared_op::load : model::shared_op::store, 1, cost);
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

}  // namespace detail
}  // namespace agpu::sim::sort_estimator
