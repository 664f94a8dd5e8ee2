// The time model (DESIGN.md section 5): predicted seconds from AGPU counts and
// a device's parameters, through dimensionless efficiency constants that
// carry from one device to another.
//
//   t = c_launch  * launches * launch_overhead
//     + max(memory: c_dram   * DRAM sectors * 32 B / bandwidth
//                 + c_l2     * L2-served blocks / (k * clock),
//           issue:  c_step   * (time_steps - bank-conflict wavefronts / k) / clock
//                 + c_shared * bank-conflict wavefronts / (k * clock),
//           dispatch: c_blocks * thread blocks / (k * clock))
//     + (c_latency * time_steps + c_dram_latency * DRAM atoms
//        + c_l2_latency * (first-touch sectors - DRAM atoms)) * max(0, 1 - threads per launch / b) / clock
//     + c_atomic  * global atomic sectors / clock
//
// Each term is a count the simulator or a closed form gives, turned into
// seconds by the device's own figures; its constant says how the hardware
// does against that figure (c_dram = 1.25: 80% of peak bandwidth; c_step =
// clocks per AGPU step). Memory, issue and the blocks' dispatch overlap on a
// GPU, so the bounds combine as a roofline (max); within a bound the terms add (they use
// the same pipeline); the other terms add. A max is not linear in the
// constants, so the fit is per bound: every run is charged the bound that
// dominates it under the current constants, NNLS (nnls.hpp) refits the
// constants on those charges, and this repeats until no run changes bound
// (fit_constants in validate/fit.hpp). On the H100 data the max lowers the
// held-out errors by 4 to 5 points against a plain sum. Since session 8 the
// fit minimises absolute relative errors (NNLS reweighted, from the
// least-squares constants): runs whose launches were 30-60% slower in their
// measurement session no longer pull every constant, which lowered the
// held-out errors by 2 points by decade and 1.4 by algorithm.
//
// The blocks term. An SM spends about 150 clocks on each thread block it
// starts and retires, whatever the block does: on the H100, micro/barriers
// in blocks of 32, 64, 128 and 256 threads took 0.61-0.65 ns a block at 2^24
// threads, that is 159-170 clocks per block per SM, where blocks of 512 and
// 1024 threads stored the same 64 MB at 2.8 TB/s, bound by the memory
// (validate/data/h100/bench/blocks-s24). It is neither per warp (a block of
// one warp costs what a block of four does) nor per wave of resident blocks
// (blocks of 32 threads, 32 an SM, and of 64 threads, 32 an SM, cost the
// same per block). The fit's data until session 23 had every micro kernel at
// two sizes and could not see it (the launch constant took it in: 5.2 us a
// launch, where a launch of one small block takes 3.4); with the micro suite
// at 10^5 to 2^24 and these blocks fitted it is about 150 clocks. It is a
// bound of its own in the max, not a term of the issue bound: four barriers
// a thread (32 barrier warp-instructions a block of 256) added 0.4% to those
// blocks' time (0.04% for blocks of one warp), where the issue bound's sum
// would add the steps' 12%; and a block's own steps hide it when they are
// many (APSP's tiles).
//
// The chain terms. A warp waits at each barrier, load and atomic before it
// goes on, and at each level of a warp reduction or scan for the shuffle and
// then for the arithmetic on what it brought; in a launch of few blocks
// nothing else runs meanwhile, and in a launch of many the waits of one
// block overlap the others' issue only in part. Each launch adds its
// heaviest block's waits per warp (chain_waits, counters.hpp) and its warp
// collectives per warp (chain_collectives), each priced by its own
// constant: on the H100 fit (session 25) 24 clocks a wait (a barrier in a
// one-block chain costs 15 clocks plus 2 a warp, bench/chains-s24) and 131
// a collective (stats' merges, the scans' and the rank builds' warp scans:
// the shuffle's latency and the dependent arithmetic the kernels do not
// declare). Added, not in the max: as the issue bound's term, or counted
// only for launches of at most one block per MP, the fit was worse; one
// constant for both took 34 clocks, priced the collectives low and the
// barriers high; as steps (compute included) it took 2.6 clocks a step
// (model/README.md, "Session 25").
//
// The L2 terms. Global sectors (loads, stores, atomics) all pass through the
// L2; which of them also cross the DRAM interface depends on whether the
// run's working set stays in the L2. The working set is the run's device
// footprint (the bytes its arrays occupy: the algorithm's registered
// device_bytes, sim/algorithms.hpp). When it is at most the device's L2
// (hardware.l2_bytes), each of its bytes crosses DRAM about once (the first
// read after the L2 flush that every timed run starts from, or the write-back
// of what it wrote) and every other sector is an L2 hit: DRAM sectors =
// min(sectors, footprint / 32 B). A larger working set is streamed: every
// sector is DRAM traffic (re-reads of a working set above the L2 mostly miss
// under LRU), and loads move whole 64-byte DRAM atoms: a streamed run's
// DRAM sectors are sectors + max(0, 2 * load blocks - load sectors), but at
// most launches * footprint / 32 B: what a launch touches again while it runs
// is served by the L2, so a launch streams its working set once (since
// session 9; on the H100 the interleaved rank build, two 8-byte loads per
// lane on the same sectors, counted 1.6x its footprint from DRAM and was
// predicted 55% high at 2^32 bits, the naive APSP at n = 8192, whose blocks
// all read row k, 1.6x and 22% high; model/README.md has the errors). The
// atoms count at least one atom per global block a load touches (blocks of b
// words; on the H100 micro/global-stride loads at stride 33, one sector per
// 128-byte block, read 2.0x their sectors' bytes from DRAM by the hardware's
// own counter, at stride 8, the same sectors four to a block, 1.0x; stores are
// written back by the sector, 1.04x for stride-8 stores). Stride 33 was 50%
// fast and is 22-25% fast now (what remains, perhaps DRAM row misses of
// scattered atoms, is in no count); model/README.md has what it did to each
// error. What
// the L2 serves alone costs c_l2 SM clocks per global block per SM (L2
// bandwidth grows with the SMs and their clock): the blocks (b-word lines,
// 128 bytes on the H100) the requests touch, io_blocks, less DRAM's sectors
// over the sectors a block holds. Since session 15 (agpu.fit/6) the L2
// term counts blocks, not sectors: a request that wants one sector of a
// line costs the L2 about as much as one that wants all four (micro/divergent,
// the rank queries, stats/pairwise's L2-resident launches; model/README.md
// has the errors). Fitted on blocks, c_l2 is 1.43 clocks a block; with
// four sectors a block a streaming run's L2 share is small, and streams
// that miss are priced by the DRAM term. Until session 14, sectors at 1.29
// clocks each. Without
// it c_dram came out at 0.91, i.e. 110% of the DRAM peak, because runs such
// as the pairwise statistics at 10^6 (12 MB rewritten 120 times) ran from
// the L2; with it c_dram is a plausible fraction of the peak and the H200,
// whose 60 MB L2 and 4.8 TB/s are its own, is priced by its own figures.
//
// The shared term. time_steps charges a shared instruction its wavefronts on
// the busiest MP, like any other step, but an SM's shared-memory pipeline
// takes one wavefront per clock while its four schedulers issue up to four
// other instructions: the wavefronts a bank conflict replays (bank_conflicts:
// those beyond the fewest the distinct words need, per MP the run's total
// over k) cost the pipeline's clock each, within the issue bound, and are
// taken out of the steps (time_steps - bank_conflicts / k: a replay is the
// pipeline's, not an issued step). It is what separates a bank-conflicted
// kernel (micro/shared-stride stride 32: 33 wavefronts per load) from one
// that issues the same steps without conflicts. c_shared is the hardware's
// rate, one wavefront a clock per SM (32 banks of 4 bytes: 128 bytes a
// clock), set to 1 and not fitted (time_term_info::fixed): fitted, it comes
// out at 1.035 on the H100 data, but only micro/shared-stride and a few APSP
// runs conflict, so a fit without micro/shared-stride (held out, or in the
// decade of 10^6) set it to 0 and predicted stride 32 50% fast. Since
// session 14 (agpu.fit/5); in sample 12.9% either way, held out by decade
// 15.1% -> 13.8%, by algorithm 16.8% -> 15.4% (micro/shared-stride held out
// 25.6% -> 12.2%), the H200 13.1% -> 13.3% (model/README.md). Until
// session 14 a replayed wavefront cost c_step + c_shared, both fitted (0.47
// and 0.56 clocks). Until session 12 (agpu.fit/3) the term
// priced every wavefront, conflict-free ones too, which are steps like any
// other instruction: the APSP tiles, the largest conflict-free users, paid
// it twice (apsp/dpx 12.2% in sample, 6.6% on conflicts alone; the step
// constant 0.43 -> 0.47). In sample 13.3% -> 12.9%, held out by decade
// 16.5% -> 15.1%, by algorithm 17.7% -> 16.8%, the H200 13.4% -> 13.1%
// (model/README.md). Only micro/shared-stride and a few apsp/dpx and
// apsp/blocked runs conflict, so with micro/shared-stride held out the
// constant still falls to 0 (stride 32 then 50% fast, as before). Counting
// every wavefront beyond one per shared instruction (wide words as well as
// conflicts) gave 13.4 / 16.1 / 17.5 / 13.8.
//
// The atomic term. The L2 applies the updates of one line one at a time:
// global_atomic_sectors counts, per atomic instruction, for each sector the
// most lanes updating one address in it, and each costs a clock. c_atomic is
// that rate, one update a clock (NVIDIA's figure for same-address atomics
// since Kepler), set to 1 and not fitted (time_term_info::fixed), like
// c_shared and for the same reason: only micro/atomics waits on its atomics
// (the scans' and rank builds' tile claims hide under their streams), so a
// fit without it (held out, or in the decade of 10^6) priced them from the
// tile claims alone, 0.64 clocks, and predicted micro/atomics 41-59% fast.
// Fitted on all runs it came out at 1.15-1.17 (agpu.fit/6); at 1,
// micro/atomics with every lane on one word is 31% fast (an update takes
// 1.45 clocks there on the H100), with 32 words 12-13%. Since session 22 (agpu.fit/7), with
// the datasets measured again by the harness that times only the launches
// (validate/data/h100/bench/launch-s21): in sample 10.7% -> 10.8%, held out
// by decade 11.9% -> 11.0%, by algorithm 13.3% -> 12.4% (micro/atomics held
// out 28% -> 12%), the H200 10.3% -> 10.6% (model/README.md, "Session 22").
// Since session 23 the committed fit is on the datasets timed with the stream
// held again after every copy or allocation (bench/launch-s22): 10.5 / 11.8 /
// 13.0 / 10.4; on launch-s21 stats/pairwise's later passes had run host-bound,
// which inflated the launch constant (model/README.md, "Session 23").
//
// A cost the terms miss (session 23, bench/timing-s23): kernels of one item a
// thread take about 157 SM clocks per thread block per SM whatever they do
// (micro at 4*10^6 and 2^24), which data with micro at one size cannot fit;
// a clock per block in the issue bound, fitted with those sizes, took 131
// clocks but worsened APSP held out (model/README.md).
//
// The latency terms are the one case the AGPU steps cannot price by
// throughput: a launch of less than one warp (a one-thread kernel) has no
// other warp to hide each step's memory or pipeline latency, so it waits for
// each: a step (about 30 clocks on the H100), each DRAM atom it misses (64
// bytes: the DRAM sectors over two; about 670 clocks) and each sector that an
// atom brought into the L2 beside the one missed, first read later (the
// first-touch sectors, min(sectors, footprint / 32 B), less the atoms; about
// 265 clocks). They are fitted on micro/chase (the `latency` suite: links 4
// to 128 bytes apart, each stride the same per load at every n). Until
// session 10 one constant per step stood for all three (87.6 clocks): it
// priced stats/serial's float and double runs alike, 43% short on double,
// and held out (no other one-thread run) it fell to 0: 90% error. From a
// run's totals the threads per launch are the average launch's (closed forms
// give totals only).
//
// Terms tried on the H100 data and left out because NNLS gave them no weight
// or they did not lower the held-out error: AGPU blocks moved, store sectors
// on their own, global requests, barriers on their own (in time_steps),
// steps divided by the resident warps per MP (also in the form of a latency
// bound, time_steps over the warps the average launch puts on an MP, capped
// at 8 to 64: it took the step term's place at 2.5 clocks and raised the
// held-out errors), a block-dispatch cost per thread block per MP (weight 0),
// every recorded warp-instruction per MP (weight 0; raised the held-out
// error by size), a fixed cost per run for its first launch (weight 0), load
// sectors priced again on their own (took weight from the DRAM and L2 terms,
// raised the held-out errors by 1 point), and the unused sectors of the lines
// a request touches (4 * io_blocks - sectors, for DRAM's 64-byte atoms: it
// fits global-stride 33 but took most of the L2 term's weight, c_l2 1.32 ->
// 0.19, and moved the held-out errors by 0.2 points; the DRAM atoms above
// count the same waste as DRAM traffic instead). Tried in session 8 with the
// absolute-error fit (model/README.md has each one's errors): atomics as a
// third bound of the max (the 2^32 rank builds' look-back atomics overlap
// the stream; micro/atomics held out went 8% -> 49%), a share of each
// launch's work hidden under its launch overhead (a third bound: the H200
// better, both held-out errors worse), memory and issue partly overlapped
// (max + 0.15 min: worse), the latency term for launches of up to 16 warps
// (worse), and the hardware's undeclared instructions (measured
// inst_executed over recorded warp-instructions, as an oracle for kernels
// declaring them): as AGPU steps much worse (the step constant fell to
// 0.08), as an issue term of their own better in sample and on the H200 but
// worse held out by decade. Tried in session 10: the shared pipeline as a
// third bound of the max (max(memory, issue, shared) instead of shared
// wavefronts added to the issue bound). It fits c_shared at 1.01 clocks a
// wavefront per SM, the hardware's one wavefront a clock (0.55 in the sum,
// where a conflicted load's steps are also charged), in sample 13.3% ->
// 12.6%, by algorithm 17.7% -> 16.8%, the H200 13.4% -> 12.7%; but by decade
// 16.5% -> 18.7%: with n = 10^3..8192 held out, the APSP runs at 8192 are
// predicted 76% off from the small ones. Not kept. Tried in session 14, on
// launch shapes (threads and blocks per launch, threads per block, shared
// words per block; registers are unknown): memory-level parallelism
// (Little's law: bytes in flight per resident warp over a DRAM latency, as
// a bound or as a fitted memory term), tail waves on either bound, a cost
// per thread block: none lowered both held-out errors (model/README.md).
//
// Not modelled, and why (model/README.md has the numbers): instructions the
// kernels do not declare (address arithmetic, loops, software division; the
// hardware runs 1.2x to 40x the recorded warp-instructions depending on the
// kernel), the per-launch shape of a run (closed forms give totals, so the
// max and the latency term see a run's average launch; on eight runs
// simulated with their launches it moves predictions by 0-5%), blocks of one
// launch waiting for another's flag (apsp/dpx lookahead=2 in one partial
// wave: the simulator and the closed forms place blocks as if none waited),
// and launch overhead that varies between measurement sessions (on the GPU's
// side: it stays with the host's submission taken out of the timing,
// validate/data/h100/bench/timing-session9-hold).
//
// The fitted constants are a file (schema agpu.fit/10) with the provenance of
// the fit; the committed H100 fit is compiled in (default_fit()).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agpu/model/counters.hpp"
#include "agpu/model/device.hpp"

namespace agpu::model {

enum class time_term : std::uint8_t {
    launch,
    dram,
    l2,
    step,
    shared,
    latency,
    dram_latency,
    l2_latency,
    atomic,
    blocks,
    chain,
    collective,
    count_
};
inline constexpr std::size_t time_term_count = static_cast<std::size_t>(time_term::count_);

// The roofline's bounds: a term in one is summed with the other terms of its
// bound, and only the largest bound counts; a term in none is added. The
// dispatch bound is the SMs' starting and retiring of thread blocks (the
// blocks term), which overlaps both the memory and the issue.
enum class time_bound : std::uint8_t { none, memory, issue, dispatch };
std::string_view name(time_bound b);

struct time_term_info {
    time_term id;
    std::string_view name;          // JSON key of the constant
    std::string_view constant;      // what the constant means
    std::string_view feature;       // what it multiplies, in seconds
    time_bound bound;               // the roofline bound it belongs to (none: added)
    std::optional<double> fixed{};  // a hardware rate the fit sets instead of fitting (none: fitted)
};

inline constexpr std::array<time_term_info, time_term_count> time_term_table{{
    {time_term::launch, "launch", "launch overheads per launch (1: the device's launch_overhead_us)",
     "launches * hardware.launch_overhead_us", time_bound::none},
    {time_term::dram, "dram", "peak bandwidth / achieved (1: every byte at peak)",
     "DRAM sectors * 32 B / hardware.mem_bandwidth_gbs; DRAM sectors = global + atomic sectors + max(0, 2 * global "
     "load "
     "blocks - global load sectors), at most launches * footprint / 32 B, or at most footprint / 32 B when the "
     "footprint fits "
     "in hardware.l2_bytes",
     time_bound::memory},
    {time_term::l2, "l2", "SM clocks per global block per SM served by the L2 alone",
     "max(0, io_blocks - DRAM sectors * 32 B / block bytes) / (sm_count * hardware.sm_clock_mhz)", time_bound::memory},
    {time_term::step, "step", "SM clocks per AGPU step of the busiest MP (issue throughput)",
     "max(0, time_steps - bank_conflicts / sm_count) / hardware.sm_clock_mhz", time_bound::issue},
    {time_term::shared, "shared",
     "SM clocks per bank-conflict wavefront per SM (the shared pipeline's replays: the hardware's one wavefront a "
     "clock, "
     "not fitted)",
     "bank_conflicts / (sm_count * hardware.sm_clock_mhz)", time_bound::issue, 1.0},
    {time_term::latency, "latency", "SM clocks per step of a launch of less than one warp (nothing hides latency)",
     "time_steps * max(0, 1 - threads per launch / b) / hardware.sm_clock_mhz", time_bound::none},
    {time_term::dram_latency, "dram_latency",
     "SM clocks per DRAM atom a launch of less than one warp waits for (nothing hides the miss)",
     "DRAM sectors * 32 B / min(64 B, block bytes) * max(0, 1 - threads per launch / b) / hardware.sm_clock_mhz",
     time_bound::none},
    {time_term::l2_latency, "l2_latency",
     "SM clocks per sector such a launch first reads from the L2 (what a DRAM atom brought in beside the sector "
     "missed)",
     "max(0, first-touch sectors - DRAM atoms) * max(0, 1 - threads per launch / b) / hardware.sm_clock_mhz; "
     "first-touch sectors = min(global + atomic sectors, footprint / 32 B)",
     time_bound::none},
    {time_term::atomic, "atomic",
     "SM clocks per global atomic sector (serialised in L2: the hardware's one update of a line a clock, not fitted)",
     "global_atomic_sectors / hardware.sm_clock_mhz", time_bound::none, 1.0},
    {time_term::blocks, "blocks", "SM clocks per thread block per SM (starting a block and retiring it)",
     "thread_blocks / (sm_count * hardware.sm_clock_mhz)", time_bound::dispatch},
    {time_term::chain, "chain",
     "SM clocks per wait of each launch's chain (its heaviest block's waits per warp: barriers, loads and atomics a "
     "warp waits for in turn)",
     "chain_waits / hardware.sm_clock_mhz", time_bound::none},
    {time_term::collective, "collective",
     "SM clocks per warp collective of each launch's chain (a level of a warp reduction or scan: the shuffle and the "
     "arithmetic that waits for it)",
     "chain_collectives / hardware.sm_clock_mhz", time_bound::none},
}};

constexpr const time_term_info& info(time_term t) { return time_term_table[static_cast<std::size_t>(t)]; }

using time_vector = std::array<double, time_term_count>;

// Seconds each term contributes per unit of its constant, for counts `c`
// (one launch, or a run's totals) on device `d`, of a run whose arrays
// occupy `footprint_bytes` of device memory (0: unknown, priced as a working
// set larger than the L2).
time_vector time_features(const counts& c, const device& d, std::uint64_t footprint_bytes);
// Every counter time_features reads. A closed form that leaves one out
// prices it as 0 (sim::time_model_counters lists those it must give).
const std::vector<counter>& time_model_inputs();
// The sectors of `c` that cross the DRAM interface (the dram term's count):
// at most the footprint per launch (per run when it fits in the L2), none
// bounded where the footprint is unknown (0) or the device has no L2.
double dram_sectors(const counts& c, const device& d, std::uint64_t footprint_bytes);

// Each term's bound: the model's (time_term_table's, model_bounds()), or
// another assignment (the fit's first search puts the dispatch bound's terms
// in the issue bound: validate/src/fit.cpp).
using term_bounds = std::array<time_bound, time_term_count>;
term_bounds model_bounds();
// The sum of constant * feature over the terms that `bounds` puts in bound b.
double bound_sum(const time_vector& features, const time_vector& constants, time_bound b,
                 const term_bounds& bounds = model_bounds());

// The additive terms' constant * feature plus the largest bound's sum.
double predict_seconds(const time_vector& features, const time_vector& constants);
double predict_seconds(const time_vector& features, const time_vector& constants, const term_bounds& bounds);
// The bound (memory, issue or dispatch) whose sum is the largest under these
// constants (ties: memory, then issue).
time_bound dominant_group(const time_vector& features, const time_vector& constants);
time_bound dominant_group(const time_vector& features, const time_vector& constants, const term_bounds& bounds);
// The largest term of the dominant bound (dram, l2, step, shared or blocks): what limits the run.
time_term dominant_bound(const time_vector& features, const time_vector& constants);

// Version 2 added the L2 and shared terms (version 1's dram term charged
// every sector to DRAM). Version 3: the DRAM and L2 latency terms. Version 4:
// the shared term prices bank-conflict wavefronts, where versions 2 and 3
// priced every shared wavefront. Version 5: the step term leaves the replays
// out and the shared constant is the pipeline's rate (1), where version 4
// charged a replay a step and a fitted shared constant. An older file's
// constants do not carry over (its step and shared constants price other
// counts), so it is refused: refit. Version 6: the L2 term prices the global
// blocks (b-word lines) the L2 serves, where version 5 priced sectors.
// Version 7: the atomic constant is the hardware's rate (1), where version 6
// fitted it. Version 8: the blocks term, a cost per thread block, the
// dispatch bound of the max (a version 7 file has none, and its launch
// constant took that cost into each launch). Version 9: the chain term, each
// launch's heaviest block's waits per warp (a version 8 file has none).
// Version 10: the collective term; the chain's waits leave the warp
// collectives to it (a version 9 file's chain constant priced both).
inline constexpr const char* fit_schema = "agpu.fit/10";
inline constexpr int fit_schema_version = 10;

// A fit: the constants and where they came from.
struct time_fit {
    time_vector constants{};
    std::string device;  // the device the data was measured on
    std::string date;    // ISO 8601, when the fit was made
    std::string commit;  // agpu's commit that made it
    std::vector<std::string> datasets;
    // The datasets of another device it was checked on (agpu fit --check with
    // --data): the report's default cross-device check. Optional in the file.
    std::vector<std::string> check_datasets;
    nlohmann::json quality = nlohmann::json::object();  // errors of the fit (validate/fit.hpp), kept as written
    std::string source;                                 // where it was read from ("" if made here)
};

// JSON in and out. Reading checks the schema ("agpu.fit/N": N other than this
// agpu's is rejected, newer or older) and every constant (present, finite, >= 0, no
// unknown ones); errors are input_error("<where>: field <f>", rule).
nlohmann::json fit_to_json(const time_fit& f);
time_fit fit_from_json(const nlohmann::json& j, const std::string& where);
time_fit load_fit_file(const std::string& path);
// The same from a fit file's text; `where` names it in errors.
time_fit parse_fit_text(const std::string& text, const std::string& where);
// The committed H100 fit (model/fits/h100.json, compiled in).
const time_fit& default_fit();

// The keys of a fit's quality record (`agpu fit` writes it, errors_for reads
// it): each holds error statistics with "mape", "worst_ape" and "samples";
// the two cross-validations hold {"overall": ..., "folds": {name: ...}}.
namespace quality_key {
inline constexpr std::string_view in_sample = "in_sample";
inline constexpr std::string_view in_sample_per_algorithm = "in_sample_per_algorithm";
inline constexpr std::string_view algorithm_held_out = "leave-one-algorithm-out";
inline constexpr std::string_view size_range_held_out = "leave-one-size-range-out";
}  // namespace quality_key

// How far a fit's seconds were off, from its own quality record (what `agpu
// fit` wrote): the mean absolute percentage errors, as fractions, of one
// algorithm's runs in sample and with that algorithm held out, and of every
// run in sample, with each decade of n held out and with each algorithm held
// out. Empty where the record has no such entry (an algorithm the fit had no
// runs of, a fit file written without quality).
struct fit_errors {
    std::optional<double> algorithm_in_sample, algorithm_held_out, algorithm_worst_in_sample;
    std::optional<std::size_t> algorithm_runs;
    std::optional<double> in_sample, size_range_held_out, algorithm_held_out_overall;
};
fit_errors errors_for(const time_fit& f, std::string_view algo);

}  // namespace agpu::model
