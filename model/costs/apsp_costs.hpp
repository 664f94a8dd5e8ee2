// The apsp closed forms' building blocks (apsp.cpp plans the launches,
// apsp_kernels.cpp costs each kernel's launch): the checked tally of
// warp-instructions and launches, and the shapes of the min-plus regions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "agpu/model/checked.hpp"
#include "agpu/model/closed_form.hpp"

namespace agpu::model::apsp_costs {

constexpr std::uint32_t naive_bx = 64, naive_by = 4;
constexpr std::uint32_t region_threads = 256;

// The waits and warp collectives (model::block_waits, block_collectives) among counts `c`.
inline std::uint64_t waits_of(const partial_counts& c) { return block_waits(as_counts(c)); }
inline std::uint64_t collectives_of(const partial_counts& c) { return block_collectives(as_counts(c)); }

// Counters of warp-instructions, scaled by `times`. A launch's per-warp cost
// times its warps and launches is where a count grows as n^3: every product
// and sum here is checked (model/checked.hpp), so a count that would wrap
// throws count_overflow instead.
struct tally {
    partial_counts c;
    static std::uint64_t mul(std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "apsp closed form"); }
    void add_to(counter k, std::uint64_t v) {
        std::uint64_t& x = c[k];  // one map lookup
        x = checked_add(x, v, "apsp closed form");
    }
    // c with a checked +=, for add_global.
    struct checked_view {
        partial_counts& c;
        struct ref {
            std::uint64_t& v;
            ref& operator+=(std::uint64_t x) {
                v = checked_add(v, x, "apsp closed form");
                return *this;
            }
        };
        ref operator[](counter k) { return {c[k]}; }
    };
    void gload(std::uint64_t sectors, std::uint64_t blocks, std::uint64_t times = 1) {
        global(true, sectors, blocks, times);
    }
    void gstore(std::uint64_t sectors, std::uint64_t blocks, std::uint64_t times = 1) {
        global(false, sectors, blocks, times);
    }
    void global(bool load, std::uint64_t sectors, std::uint64_t blocks, std::uint64_t times) {
        checked_view view{c};
        add_global(view, load, times, mul(sectors, times), mul(blocks, times));
        add_to(counter::io_blocks, mul(blocks, times));
        add_to(counter::warp_instructions, times);
    }
    // A shared load of `x.wf` wavefronts, `times` times (a scalar word per lane: {1, 1}).
    void sload(bank_cost x, std::uint64_t times = 1) {
        checked_view view{c};
        add_shared(view, shared_op::load, times, {mul(x.wf, times), mul(x.ideal, times)});
        add_to(counter::warp_instructions, times);
    }
    void sstore(bank_cost x, std::uint64_t times = 1) { sstores(times, {mul(x.wf, times), mul(x.ideal, times)}); }
    // `instructions` shared stores costing `x` in all.
    void sstores(std::uint64_t instructions, bank_cost x) {
        checked_view view{c};
        add_shared(view, shared_op::store, instructions, x);
        add_to(counter::warp_instructions, instructions);
    }
    // A predicated access with every lane off: the warp issues it, nothing moves.
    void null_access(counter instructions, std::uint64_t times = 1) {
        add_to(instructions, times);
        add_to(counter::warp_instructions, times);
    }
    void barrier(std::uint64_t times = 1) {
        add_to(counter::barrier_instructions, times);
        add_to(counter::warp_instructions, times);
    }
    void compute(std::uint64_t n) {
        add_to(counter::compute_instructions, n);
        add_to(counter::warp_instructions, n);
    }
    // One launch: its busiest MP's steps (`time`) and its heaviest block's waits.
    void launch(std::uint64_t blocks, std::uint64_t threads, std::uint64_t time, std::uint64_t heaviest,
                std::uint64_t shared_words, const machine& m, std::uint64_t heaviest_collectives = 0) {
        add_to(counter::chain_collectives, launch_chain(heaviest_collectives, threads, m.b));
        add_to(counter::launches, 1);
        add_to(counter::thread_blocks, blocks);
        add_to(counter::threads, mul(blocks, threads));
        add_to(counter::time_steps, time);
        add_to(counter::chain_waits, launch_chain(heaviest, threads, m.b));
        c[counter::shared_words_max] = std::max(c[counter::shared_words_max], shared_words);
    }
    void add(const partial_counts& o, std::uint64_t times = 1) {
        for (const auto& [k, v] : o)
            if (k == counter::shared_words_max) c[k] = std::max(c[k], v);
            else add_to(k, mul(v, times));
    }
};

inline std::uint64_t pad(std::uint64_t n, std::uint64_t unit) { return (n + unit - 1) / unit * unit; }

struct job {
    std::uint64_t row0, rows, col0, cols;
    std::uint64_t skip_row0 = 0, skip_rows = 0, skip_col0 = 0, skip_cols = 0;
    std::uint64_t a_col0, b_row0, inner;
};

// region_policy<F>: 256 threads, regions of 64F rows x 16F vectors; shared
// row pitches 64F + 4 (A^T) and 64F + 8 (B) words; warps of 4 ty x 8 tx.
struct region_geometry {
    std::uint64_t F, rows, vectors, a_pitch, b_pitch;
    explicit region_geometry(std::uint64_t f)
        : F(f), rows(64 * f), vectors(16 * f), a_pitch(64 * f + 4), b_pitch(64 * f + 8) {}
    static std::uint64_t ty(std::uint64_t tid) { return tid / 64 * 4 + tid % 32 / 8; }
    static std::uint64_t tx(std::uint64_t tid) { return tid / 32 % 2 * 8 + tid % 8; }
    std::uint64_t shared_words(std::uint64_t kc) const { return kc * (a_pitch + b_pitch); }
};

// A lookahead launch (region_ahead): job 0 is step K's other tiles, jobs 1
// and 2 the next pivot row and column; a = K + 1, tiles per side.
struct ahead_info {
    std::uint64_t next = 0, tiles = 0;
};

// The kernels' costs: naive's whole run; the others one launch each, added to t.
partial_counts naive(const machine& m, std::uint64_t n, const param_values&);
// tile_fw on a tile of side `tile` at (origin, origin) of an np-wide matrix, elements of es bytes.
void tile_fw(tally& t, const machine& m, std::uint64_t tile, std::uint64_t es, std::uint64_t origin, std::uint64_t np);
// minplus_strips (method B) over `blocks` tiles.
void strips(tally& t, const machine& m, std::uint64_t tile, std::uint64_t sub, std::uint64_t blocks);
// minplus_regions<F> on jobs: chunk kc, column runs gv, epw distances per
// word; pipe: the double-buffered staging; ahead: a lookahead launch.
void regions(tally& t, const machine& m, const std::vector<job>& jobs, std::uint64_t F, std::uint64_t kc,
             std::uint64_t gv, std::uint64_t epw, bool pipe, const ahead_info* ahead);

}  // namespace agpu::model::apsp_costs
