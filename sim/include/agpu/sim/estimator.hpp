// The estimators of launches the simulator does not record whole. Each takes
// what was recorded of a launch and fills its launch_record: every counter
// (summed counters extrapolated, the largest-of counters the largest seen),
// the variance of each, the time (blocks placed on the MPs as in an exact
// run) and the chains.
//
// - Stratified (sampled mode, the engine's own): the first and the last block
//   and one drawn from each stratum of the blocks between are recorded; each
//   stands for its stratum.
// - Linear in the work (a driver's, executor::record_work_launch): blocks
//   sampled whole or run on shortened work give points (work, counters), and
//   each class of blocks takes the line fitted through its points. The sort's
//   synthesized runs (sim/estimators/) estimate their merge launches so.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "agpu/model/machine.hpp"
#include "agpu/sim/record.hpp"

namespace agpu::sim {

// One block's counters and steps (executor::run_blocks).
struct block_sample {
    std::uint64_t block = 0;
    counts c;
    std::uint64_t steps = 0;
};

// A block's counters and steps after `work` units of its work (keys merged,
// say): all of it, or a shortened run of it; `known`: the part of them the
// caller knows without the data (0 if none).
struct work_sample {
    std::uint64_t block = 0;
    std::uint64_t work = 0;
    block_sample at;
    block_sample known{};
};

// ---------------------------------------------------------------- stratified

// Which blocks of a sampled launch are recorded: the first, the last, and one
// drawn from each of `strata` equal strata of the blocks between.
struct stratified_sample {
    std::vector<std::uint64_t> recorded;  // ascending block ids
    std::uint64_t strata = 0;             // 0: every block recorded (exact)
    std::uint64_t interior = 0;           // blocks between the first and the last
    // The stratum of interior block `bid` (1 <= bid <= interior).
    std::uint64_t stratum_of(std::uint64_t bid) const;
    std::uint64_t stratum_begin(std::uint64_t h) const { return 1 + h * interior / strata; }
    bool is_recorded(std::uint64_t bid) const;
};
// The sample of a launch of nblocks (its index in the run and the seed
// choose the block of each stratum); every block when nblocks <= 2·strata + 2.
stratified_sample plan_stratified(std::uint64_t nblocks, std::uint64_t strata, std::uint64_t seed,
                                  std::uint64_t launch_index);
// `count` of nblocks blocks, one drawn from each of `count` equal strata
// (seeded as plan_stratified's), so that every block is as likely; every
// block when count >= nblocks.
std::vector<std::uint64_t> plan_probes(std::uint64_t nblocks, std::uint64_t count, std::uint64_t seed,
                                       std::uint64_t launch_index);

// What the blocks of a launch that ran gave: per block its steps, waits and
// warp collectives (0 where not recorded), and each recorded block's
// counters (in the sample's order; every block's where all were recorded).
struct recorded_blocks {
    std::vector<std::uint64_t> steps, waits, collectives;
    std::vector<counts> c;
};

// A stratified launch: an edge block counts for itself, stratum h's recorded
// block for the blocks of its stratum. A summed counter's variance is
// N²(1 ∓ S/N)·s²/S over the N interior blocks and S strata (s² from the
// successive differences of the strata's samples: robust to a smooth trend
// across the grid), widened by Student's t for S - 1 degrees of freedom;
// 1 - S/N where the blocks are a sample of the run's own, 1 + S/N on
// synthesized data, from which the run's own blocks deviate too. Time: each
// unrecorded block takes its stratum's recorded steps (blocks.steps is
// filled in), placed on the MPs as in an exact run; its variance, the steps
// sum's scaled by (makespan / sum)². Chains: the recorded blocks' heaviest,
// with their spread as its variance.
void estimate_stratified(const model::machine& m, const stratified_sample& plan, recorded_blocks& blocks,
                         std::uint64_t block_threads, bool synthesized, launch_record& rec);

// An exact launch on synthesized data (every block recorded, blocks.c holds
// each block's counters): the run's own blocks deviate from their
// expectation as much as these, so a total's variance is 2·N·s² (s² over
// the blocks, in order); the makespan's, twice its spread under the blocks'
// noise.
void add_synthesized_variance(const model::machine& m, const recorded_blocks& blocks, launch_record& rec);

// ---------------------------------------------------------------- linear in the work

// A launch estimated from samples of its blocks, each block's counters taken
// as linear in its work: block b does work[b] units (keys merged, say; one
// entry per block) and costs A + B·work[b], A and B of its class (klass[b],
// or one class when empty). `samples` are points (block, work done,
// counters): whole blocks, or blocks run on shortened work (two lengths
// each). Blocks in `themselves` (sampled whole) count as themselves; every
// other block by its class's line, fitted by least squares over the class's
// other samples' points (B = 0 where they all did the same work). A total's
// variance: a jackknife over each class's sampled blocks (Student's t for
// their number less one; factor 1 - S/N, or 1 + S/N on synthesized data).
// Time: every modeled block's steps from its line at its work, with noise of
// the class's spread about it, placed on the MPs as in an exact run: the
// mean over replications. On synthesized data, where typical_work is given
// (a block's expected work, say its place's mean over the groups), each
// replication also draws a block's work as typical plus a deviation drawn
// from the launch's: the run's own blocks deviate otherwise. The linear
// model is the caller's claim about its kernel, to be measured
// (sim/README.md). `known` (one per block, or empty): the part of each
// block's counters and steps the caller computes without the data (the
// global accesses that its ranges fix, say): the model takes the rest
// (samples less their own known part), and each block's known part is added
// as it is, a block counted as itself included (its sample less the
// sample's own known part, plus known[b]). known[b] may be an expectation
// over what the run's data would give (where its ranges fall, say):
// `known_variance` (one per counter, time_steps for the steps; or empty) is
// then the variance of the run's known parts' total about it, added to each
// total's.
struct work_launch {
    std::string_view name = {};
    kl::dim3 grid = {}, block = {};
    std::size_t dynamic_shared_bytes = 0;
    std::span<const std::uint64_t> work = {};   // one per block
    std::span<const std::uint8_t> klass = {};   // one per block, or empty: one class
    std::span<const double> typical_work = {};  // one per block, or empty
    std::span<const block_sample> known = {};   // one per block, or empty
    std::span<const work_sample> samples = {};
    std::span<const std::uint64_t> themselves = {};
    std::span<const double> known_variance = {};  // one per counter, or empty
};

// The counters, variances, time and chains of such a launch into rec (its
// kernel, grid and shared bytes are the caller's).
void estimate_linear(const model::machine& m, const work_launch& w, bool synthesized, launch_record& rec);

}  // namespace agpu::sim
