// Running a sweep: the points missing from the cache are computed, spread by
// their estimated cost over --jobs threads, MPI ranks or job-array shards,
// each stored in the cache as it finishes; then the results are assembled
// from the cache, in the spec's order, into points.jsonl and summary.json,
// each written atomically. A sweep killed at any moment loses at most the
// points in flight, and running it again computes only what is missing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agpu/sweep/cluster.hpp"
#include "agpu/sweep/spec.hpp"

namespace agpu::sweep {

inline constexpr const char* summary_schema = "agpu.sweep-summary/1";
inline constexpr const char* results_file = "points.jsonl";
inline constexpr const char* summary_file = "summary.json";

// How far this process is.
struct progress {
    std::size_t total = 0;     // points this process looks after (its rank's or shard's share)
    std::size_t done = 0;      // of them finished: found in the cache or computed
    std::size_t cached = 0;    // found in the cache
    std::size_t computed = 0;  // computed here
    std::size_t skipped = 0;   // finished with a reason instead of a result (cached or computed)
    double elapsed_s = 0;
    double left_s = -1;  // estimated from the points' cost estimates and the pace so far; < 0: unknown
};

struct run_options {
    std::filesystem::path out_dir;    // points.jsonl and summary.json
    std::filesystem::path cache_dir;  // the cache (cache.hpp)
    unsigned jobs = 1;                // points computed at once by this process
    // A job-array shard: this process computes shard_index of shard_count
    // into the cache and writes no results (a later run assembles them).
    unsigned shard_index = 0, shard_count = 1;
    // Assemble the results from the cache without computing; a point missing
    // there is an input_error that says how many are missing.
    bool merge_only = false;
    cluster* world = nullptr;  // the ranks (join_cluster); null: this process alone
    // Called after each point this process finishes, one call at a time.
    std::function<void(const progress&)> on_progress;
};

struct run_result {
    bool wrote_results = false;  // points.jsonl and summary.json written (rank 0 of a run that is not a shard)
    std::filesystem::path results, summary;
    std::size_t points = 0;  // in the spec (the shard's share for a shard)
    std::size_t ok = 0, skipped = 0;
    std::size_t computed = 0;  // computed by this run (every rank)
    std::size_t cached = 0;    // found in the cache
    double wall_s = 0;
    nlohmann::json summary_json;  // what summary.json holds (rank 0)
};

// Runs `s` as `opt` says. Throws input_error for a cache or output that
// cannot be written and for --merge with points missing; internal_error
// when a point's evaluation finds a bug (every rank learns of it, and the
// points finished before it stay in the cache).
run_result run_sweep(const spec& s, const run_options& opt);

// Longest processing time first: each item, largest cost first (ties: the
// lower index), goes to the worker with the least cost so far (ties: the
// lower worker). The worker of each item; the same on every rank and shard.
std::vector<unsigned> assign_lpt(const std::vector<double>& costs, unsigned workers);

}  // namespace agpu::sweep
