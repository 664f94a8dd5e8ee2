// The calibrated time model (docs/model.md): a launch's seconds from its
// counts and the device's time constants (device::time: measured by agpu
// calibrate, or cited), with nothing fitted on algorithm runs.
//
//   launch = timing.launch_us + max(issue, dram, l2, shared, dispatch, atomic, latency)
//
// Each bound is a quantity over a rate, both printed with their units:
// - issue: the busiest SM's warp-instructions (the SASS count by pipe where
//   the kernel has one) over the pipes' rates and the schedulers' issue rate,
//   and never less than its AGPU steps at b / cores_per_sm clocks a step;
// - dram: the bytes that cross the DRAM interface (model::dram_sectors) over
//   the achievable bandwidth for their mix of reads and writes;
// - l2: every global sector's bytes over the L2's bandwidth;
// - shared: the busiest SM's shared wavefronts over its wavefronts a clock;
// - dispatch: the busiest SM's thread blocks at block_clocks each;
// - atomic: the serialised same-address updates over the device's rate;
// - latency: the waves of warps the SM holds at once (occupancy: threads,
//   blocks, shared memory and registers per SM) times one warp's chain of
//   waits (each load at the L1's latency where an earlier load brought its
//   sector in, else the L2's or DRAM's; each shared access and
//   shuffle at the shuffle latency, each barrier at the barrier's) and of its
//   instructions at the dependent latency: what resident warps cannot hide.
// The largest bound is the launch's time; the run's is the sum of its launches.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "agpu/model/counters.hpp"
#include "agpu/model/device.hpp"

namespace agpu::model {

// What a launch is beyond its counts; 0: unknown (taken from the counts:
// threads / blocks; no shared memory; 32 registers a thread).
struct launch_shape {
    std::uint64_t registers_per_thread = 0;
};

enum class launch_bound : std::uint8_t { issue, dram, l2, shared, dispatch, atomic, latency, count_ };
inline constexpr std::size_t launch_bound_count = static_cast<std::size_t>(launch_bound::count_);
std::string_view name(launch_bound b);

// One bound: `quantity` (in `quantity_unit`) at `rate` (in `rate_unit`) takes `seconds`.
struct bound_time {
    launch_bound bound{};
    double seconds = 0;
    double quantity = 0;
    std::string quantity_unit;
    double rate = 0;
    std::string rate_unit;
    std::string what;  // one line: what the quantity counts
};

struct launch_time {
    double launch_s = 0;             // the launch overhead
    std::vector<bound_time> bounds;  // every bound, in launch_bound order
    launch_bound winner = launch_bound::issue;
    double margin = 0;          // the winner over the next largest bound (1: a tie)
    double resident_warps = 0;  // warps an SM holds at once for this launch
    double seconds = 0;         // launch_s + the winner's seconds
};

// The time of one launch whose counters are `c` (one launch's, c[launches] = 1),
// of a run whose arrays occupy `footprint_bytes` (0: unknown, priced as larger
// than the L2), of which `dram_sectors` cross the DRAM interface (its share of
// the run's: model::dram_sectors over the run, so that a footprint the L2
// holds crosses once per run, not once per launch). Throws input_error naming
// the field when the device has no usable time constant for a bound the
// launch needs.
launch_time time_launch(const counts& c, const launch_shape& shape, const device& d, std::uint64_t footprint_bytes,
                        double dram_sectors);

// A run from its totals alone (a closed form): `launches` equal launches, each
// the totals over the launch count.
struct run_time {
    std::vector<launch_time> launches;  // one, standing for each of c[launches], or one per launch given
    double seconds = 0;
    std::uint64_t launch_count = 0;
};
run_time time_run(const counts& totals, const launch_shape& shape, const device& d, std::uint64_t footprint_bytes);
// A run from each launch's counts (the simulator).
run_time time_run(const std::vector<counts>& per_launch, const std::vector<launch_shape>& shapes, const device& d,
                  std::uint64_t footprint_bytes);

// A run's bounds summed over its launches (a closed form's one launch counted
// launch_count times): what `agpu predict` explains.
struct bound_summary {
    launch_bound bound{};
    double quantity = 0;  // summed over the launches, in quantity_unit
    std::string quantity_unit;
    double rate = 0;  // quantity / seconds_alone, in rate_unit (the device's rate where it is one)
    std::string rate_unit;
    double seconds_alone = 0;        // the bound's seconds over every launch: the run if it bound them all
    std::uint64_t launches_won = 0;  // launches whose time it sets
    double seconds_added = 0;        // its seconds in the launches it wins: what it adds to the run
    std::string what;                // the first launch's line: what the quantity counts
};
struct run_summary {
    std::uint64_t launches = 0;
    double launch_overhead_s = 0;       // launches x timing.launch_us
    std::vector<bound_summary> bounds;  // every bound, in launch_bound order
    launch_bound winner{};              // the bound that adds the most seconds
    // The winning bounds' seconds over the next largest bounds' of the same
    // launches: how much the run would shrink were the winners free (1: a tie).
    double margin = 0;
    double seconds = 0;  // launch_overhead_s + every bound's seconds_added
};
run_summary summarize(const run_time& r);

// "1.2 GB at 3.0 TB/s = 0.40 ms": a bound's quantity, rate and seconds with
// their units scaled for reading.
std::string describe(const bound_summary& b);
// Seconds for reading: "2.59 s", "0.40 ms", "12.3 us".
std::string seconds_text(double s);

// The device's physical floors for counts `c` (a run's totals): bytes over
// peak DRAM bandwidth (those that cross DRAM), AGPU steps at b / cores_per_sm
// clocks a step, launches at the launch overhead. A prediction is never below
// their largest.
double floor_seconds(const counts& c, const device& d, std::uint64_t footprint_bytes);

}  // namespace agpu::model
