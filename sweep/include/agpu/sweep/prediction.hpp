// One run's counts and predicted seconds on a device: the rule `agpu
// predict` and `agpu sweep` share. Counts come from the closed form or the
// simulator (sim/model_counts.hpp) as the counts mode asks; seconds from the
// calibrated time model (model/launch_time.hpp: the device's own time
// constants, nothing fitted), per launch, each bound with its quantity and
// rate; the fitted model's seconds (model/time_model.hpp) beside them as a
// diagnostic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agpu/model/launch_time.hpp"
#include "agpu/model/time_model.hpp"
#include "agpu/sim/model_counts.hpp"

namespace agpu::sweep {

// Where a run's counts come from.
enum class counts_mode : std::uint8_t {
    automatic,  // "auto": the closed form where it gives every counter the time model reads, else the simulator (--mode auto)
    closed_form,  // "closed-form": the closed form only; unpriced where it leaves a time-model counter out
    exact,        // "exact": the simulator, every thread block recorded
    sampled,      // "sampled": the simulator, a stratified sample of thread blocks recorded
};
std::string to_string(counts_mode m);
// Parses auto|closed-form|exact|sampled; throws input_error naming `where`.
counts_mode parse_counts_mode(const std::string& text, const std::string& where);

struct prediction {
    sim::model_counts counts;
    // counts_mode closed-form: the counters the form gives (the others are
    // unknown, 0 in counts.totals); empty otherwise (every counter counted).
    std::vector<model::counter> given;
    // Whether the counts give every counter the time model reads; the
    // seconds, terms and bounds below are meaningful only then.
    bool priced = false;
    model::run_time run;             // the calibrated model's time of each launch
    model::run_summary summary;      // its bounds over the run: quantities, rates, what each adds
    double seconds = 0;              // summary.seconds
    std::string bound;               // the bound that adds the most seconds (model::name(summary.winner))
    double floor_s = 0;              // the device's physical floor (model::floor_seconds)
    model::time_vector fit_terms{};  // the fit's constant * feature per term (seconds): a diagnostic
    double fit_seconds = 0;          // the fit's total
};

// Counts `algo` at n on `dev` (params checked, seed for the inputs) as `mode`
// asks, with `opt`'s limits (`mode` exact or sampled sets opt.mode and
// opt.force_simulator; auto keeps opt.mode for the runs the simulator
// counts), and prices them with the calibrated model (the fit beside it): predict_closed_form, then, where it
// has no answer, predict_simulated. Throws what those throw.
prediction predict(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                   const model::param_values& params, std::uint64_t seed, counts_mode mode, sim::count_options opt,
                   const model::time_fit& fit);

// The closed form's answer where it gives one: always for closed-form (an
// input_error where the algorithm has none), for auto where the form gives
// every counter the time model reads (sim::serves_time_model); else nothing,
// and the simulator is to count the run. Throws the closed form's
// input_error for inputs it refuses.
std::optional<prediction> predict_closed_form(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                                              const model::param_values& params, counts_mode mode,
                                              const model::time_fit& fit);

// The simulator's counts (sim::count_run; for auto, the closed form where it
// serves, as count_run decides), priced. Throws what count_run throws
// (simulation_too_long, host memory, kernel_error, input_error), and an
// internal_error when the simulated outputs differ from the CPU reference.
prediction predict_simulated(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                             const model::param_values& params, std::uint64_t seed, counts_mode mode,
                             sim::count_options opt, const model::time_fit& fit);

// The seconds the simulation of a run predict_closed_form does not answer is
// estimated to take on one host thread (the exact or the sampled simulator's,
// as `mode` and --mode auto's rule choose).
double simulation_estimate(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                           const model::param_values& params, counts_mode mode);

// {term name: seconds} for every term of the fit.
nlohmann::json terms_to_json(const model::time_vector& terms);
// The calibrated model's account of a run: launches, overhead, the winning
// bound and its margin, and every bound's quantity, rate and seconds.
nlohmann::json summary_to_json(const model::run_summary& s);

// The fit as predictions name it: its file, or the committed one's name.
std::string fit_source(const model::time_fit& fit);

}  // namespace agpu::sweep
