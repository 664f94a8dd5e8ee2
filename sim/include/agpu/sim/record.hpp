// What the simulator records of a run: each launch's counters (exact, or
// estimated with a variance per counter) and the run's totals.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "agpu/kl/kl.hpp"
#include "agpu/model/counters.hpp"

namespace agpu::sim {

using model::aggregation;
using model::counter;
using model::counter_count;
using model::counter_table;
using model::counts;

// How a launch's counters were obtained: every block recorded; a stratified
// sample of blocks extrapolated; or sampled blocks (whole, or run on shortened
// work) with counters taken as linear in each block's work (estimator.hpp).
enum class launch_estimate : std::uint8_t { exact, stratified, linear };
std::string to_string(launch_estimate e);

struct launch_record {
    std::string kernel;
    kl::dim3 grid, block;
    std::size_t dynamic_shared_bytes = 0;
    counts c;  // this launch's counters (launches = 1); extrapolated where sampled
    std::uint64_t mps_used = 0;
    launch_estimate estimate = launch_estimate::exact;
    std::uint64_t blocks_recorded = 0;  // recorded (linear: probed, shortened); the rest ran unrecorded or were skipped
    std::uint64_t blocks_skipped = 0;   // not run (sampled: data-independent launches, synthesized inputs)
    std::uint64_t blocks_shortened = 0;  // of the recorded, run on shortened work only (linear launches' probes)
    // Sampled launches: the estimated variance of each counter's extrapolated
    // value (0 where exact: every counter of an exact launch, and launches,
    // thread blocks, threads, shared words always).
    std::array<double, counter_count> variance{};
    bool sampled() const;
};

struct run_record {
    std::vector<launch_record> launches;
    counts totals() const;  // every launch merged by each counter's aggregation
    bool sampled() const;   // some launch was sampled
    std::uint64_t blocks_skipped() const;
    // Half-width of the 95% confidence interval of each total, relative to the
    // total (0 where exact): 1.96·sqrt(sum of the launches' variances)/total.
    std::array<double, counter_count> relative_error_95() const;
};

}  // namespace agpu::sim
