// The fitted time model (docs/model.md): predicted seconds from AGPU counts
// and a device's parameters, through dimensionless efficiency constants that
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
//     + (c_chain * chain_waits + c_collective * chain_collectives) / clock
//     + c_atomic  * global atomic sectors / clock
//
// Each term is a count the simulator or a closed form gives, turned into
// seconds by the device's own figures; its constant says how the hardware
// does against that figure (c_dram = 1.25: 80% of peak bandwidth; c_step =
// clocks per AGPU step). Memory, issue and the blocks' dispatch overlap on a
// GPU, so those bounds combine as a roofline (max); within a bound the terms
// add (they use the same pipeline); the other terms add. A max is not linear
// in the constants, so the fit is per bound: every run is charged the bound
// that dominates it under the current constants, NNLS (nnls.hpp) refits the
// constants on those charges, and this repeats until no run changes bound
// (fit_constants in validate/fit.hpp). The fit minimises absolute relative
// errors (NNLS reweighted from the least-squares constants), so that a few
// runs measured slow do not pull every constant.
//
// - dispatch: an SM spends about 150 clocks starting and retiring each thread
//   block, whatever the block does, per block (not per warp or per wave of
//   resident blocks); a block's own steps hide it when they are many.
// - chain: a warp waits at each barrier, load and atomic, and at each level of
//   a warp reduction or scan; each launch adds its heaviest block's waits per
//   warp (chain_waits, counters.hpp) and collectives per warp
//   (chain_collectives), each with its own constant. The collective constant
//   also carries the arithmetic between shuffles that the kernels do not
//   declare.
// - DRAM and L2: every global sector passes through the L2; a run whose
//   footprint (the algorithm's registered device_bytes) fits in the L2 crosses
//   DRAM once per byte (DRAM sectors = min(sectors, footprint / 32 B)); a larger
//   one streams, loads moving whole 64-byte DRAM atoms (sectors + max(0,
//   2 * load blocks - load sectors)), at most launches * footprint / 32 B. What
//   the L2 serves alone costs c_l2 SM clocks per global block (io_blocks less
//   DRAM's sectors over the sectors a block holds): a request for one sector of
//   a line costs the L2 about as much as one for all four.
// - shared: an SM's shared pipeline takes one wavefront a clock while its
//   schedulers issue other instructions, so the wavefronts a bank conflict
//   replays cost a clock each within the issue bound and leave the steps.
//   c_shared is the hardware's rate, 1, not fitted (time_term_info::fixed):
//   few runs conflict, and a fit without them would set it to 0.
// - atomic: the L2 applies the updates of one line one at a time;
//   global_atomic_sectors counts, per atomic instruction and sector, the most
//   lanes updating one address, each a clock (c_atomic = 1, not fitted, for
//   the same reason as c_shared).
// - latency: a launch of less than one warp has no other warp to hide its
//   latencies, so it waits for each step, each DRAM atom it misses and each
//   sector an atom brought in beside the one missed, first read later; fitted
//   on micro/chase (the latency suite). From a run's totals the threads per
//   launch are the average launch's.
//
// Not modelled: instructions the kernels do not declare (address arithmetic,
// loops, software division), the per-launch shape of a run where a closed
// form gives totals only, blocks of one launch waiting for another's flag
// (apsp/dpx lookahead=2 in one partial wave), and launch overhead that varies
// between measurement sessions. docs/model.md gives the current errors and
// the commands that show them.
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
