// Fitting the time model (model/time_model.hpp) on measured datasets, and
// judging it on data it was not fitted on. Needs no GPU.
//
// A sample is one complete, checked run of a dataset whose algorithm the
// simulator knows (GPU-only baselines are skipped): its measured time is the
// sum of its launches' median time_ms, its counts are the model's for the
// same algorithm, n, parameters and seed on the dataset's device preset (the
// closed form where it gives every counter the time model reads, else the
// simulator), because a prediction has model counts only.
//
// The constants minimise the sum of absolute relative errors (the MAPE the
// fit is judged by) under non-negativity: Lawson-Hanson NNLS on rows divided
// by the measured time (so a 10 µs launch counts as much as a 100 ms run),
// reweighted (IRLS) until the weighted squares are the absolute errors,
// with a ridge of 1e-6 on the unit-scaled terms (fit.cpp: terms the runs
// cannot tell apart share the weight instead of one taking it all).
// Squared errors would let the few runs whose launches
// took 30-60% longer in their measurement session than in another
// (stats/pairwise, the Hillis-Steele scans, the small APSP runs: a small
// launch's cost varies between sessions on the same GPU) pull every constant
// towards them, and in the folds that hold out micro/atomics set the atomic
// constant from the rank builds' and scans' look-back atomics to a third of
// its value. A term whose constant is the hardware's
// (model::time_term_info::fixed: the shared pipeline's one wavefront a
// clock) is not fitted: its share of each run's time is taken as given.
// Errors are |predicted - measured| / measured.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agpu/model/counters.hpp"
#include "agpu/model/time_model.hpp"

namespace agpu::validate {

inline constexpr const char* fit_report_schema = "agpu.fit-report/1";

struct fit_sample {
    std::string dataset, device_id, run_id, algo, params;
    std::uint64_t n = 0, seed = 0;
    model::counts counts;
    std::string count_source;                  // "closed form" or "simulator"
    double measured_s = 0;                     // sum of the launches' median times
    std::uint64_t footprint_bytes = 0;         // the run's device memory (model_counts::footprint_bytes)
    std::vector<model::counts> launch_counts;  // each launch's, where the simulator counted the run
    model::time_vector features{};             // on the dataset's device
    int size_range = 0;                        // floor(log10 n): the fold of leave-one-size-range-out
};

struct skipped_run {
    std::string dataset, run_id, why;
};

struct sample_set {
    std::vector<fit_sample> samples;
    std::vector<skipped_run> skipped;
};

// A dataset row's parameter text ("name=value;name=value") as the
// NAME=VALUE sets model::parse_params takes.
std::vector<std::string> split_params(const std::string& params);

// Reads every dataset (the directories of measurements.csv and
// provenance.json) and makes its samples; a run whose counts need a
// simulation estimated above max_simulation_s (0: no limit) is skipped with
// the reason. `progress` gets a line per dataset.
inline constexpr double default_max_simulation_s = 10;
sample_set load_samples(const std::vector<std::filesystem::path>& dirs,
                        double max_simulation_s = default_max_simulation_s,
                        const std::function<void(const std::string&)>& progress = {});

// The least absolute relative error (IRLS on NNLS) on the samples at `rows`
// (all when empty);
// the bounds' max fitted per bound (model/time_model.hpp): each run charged
// its dominant bound (memory or issue), refitted until no run changes bound.
model::time_vector fit_constants(const std::vector<fit_sample>& samples, const std::vector<std::size_t>& rows = {});

struct error_stats {
    std::size_t count = 0;
    double mape = 0, median_ape = 0, worst_ape = 0;  // fractions (0.1 = 10%)
    std::string worst_run;
    double r2 = 0;  // of log time: 1 - SS_res / SS_tot over the samples' log10 seconds
};
error_stats summarise(const std::vector<double>& predicted, const std::vector<double>& measured,
                      const std::vector<std::string>& run_ids);

// One way of holding data out: the folds by name, each sample predicted by
// constants fitted on the other folds.
struct cross_validation {
    std::string name;                                     // "leave-one-algorithm-out", "leave-one-size-range-out"
    std::vector<double> predicted;                        // per sample, from the fold that held it out
    std::map<std::string, error_stats> per_fold;          // fold name -> errors of its held-out samples
    std::map<std::string, model::time_vector> constants;  // fold name -> constants fitted without it
    error_stats overall;                                  // every sample, each predicted while held out
};

// Folds by key(sample); a fold whose other folds leave no data is skipped.
cross_validation cross_validate(const std::vector<fit_sample>& samples, const std::string& name,
                                const std::function<std::string(const fit_sample&)>& key);

struct evaluation {
    std::vector<double> predicted;  // per sample
    error_stats overall;
    std::map<std::string, error_stats> per_algo;
};
evaluation evaluate(const std::vector<fit_sample>& samples, const model::time_vector& constants);

struct fit_report {
    model::time_fit fit;
    sample_set data;
    evaluation in_sample;
    std::vector<cross_validation> held_out;  // by algorithm, by size range
    sample_set check_data;                   // --check datasets (another device), if any
    evaluation check;
};

// Fits on `data` (all of one device: throws input_error otherwise) and
// cross-validates: leave one algorithm out, leave one decade of n out.
fit_report fit_datasets(const sample_set& data, const std::vector<std::string>& dataset_names,
                        const std::string& command_line);

nlohmann::json to_json(const fit_report& r);
// The quality summary stored in the fit file.
nlohmann::json quality_json(const fit_report& r);

}  // namespace agpu::validate
