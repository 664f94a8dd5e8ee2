// Validation suites: which algorithms, with which parameters and sizes, a
// `agpu validate --suite NAME` measures. Each algorithm family registers its
// suite beside its kernels (AGPU_REGISTER_SUITE), e.g. kernels/micro/micro.suite.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agpu/model/algorithm.hpp"
#include "agpu/model/device.hpp"
#include "agpu/validate/dataset.hpp"

namespace agpu::validate {

struct suite_entry {
    std::string algo;
    std::vector<std::string> sets;  // "name=value"
    // For `agpu bench`: the bytes that define the run's bandwidth (what it
    // must read and write at least once) and the items it processes, at n.
    std::function<double(std::uint64_t n)> bytes = {};
    std::function<double(std::uint64_t n)> items = {};
    // Measured only at sizes up to this (0: every size of the suite), e.g. a
    // one-thread baseline that would take minutes at the largest sizes.
    std::uint64_t max_n = 0;
    // The sizes this entry is measured at instead of the suite's default
    // sizes (empty: the suite's), for suites whose entries' n mean different
    // things (the calibrate probes: launches, words, loop iterations).
    // Sizes given on the command line replace both.
    std::vector<std::uint64_t> sizes = {};
};

// A performance goal checked by `agpu bench` on a dataset of the suite.
//   time:      baseline's time / subject's time at the same n  >= at_least
//   bandwidth: subject's bytes/s at n / the baseline's best bytes/s at any n  >= at_least
//   rate:      subject's items/s at n  >= at_least (no baseline)
//   sectors:   baseline's global load + store sectors / subject's, at the same n
//              >= at_least (a dataset measured with counters)
// Subject and baseline are entry labels: "algo" or "algo name=value;name=value"
// (an entry matches a run of that algorithm whose parameters include those).
struct bench_target {
    std::string subject, baseline, measure;
    double at_least = 0;
    std::uint64_t min_n = 0;  // the goal holds for n >= min_n
    std::string what;         // the goal in words
};

struct suite {
    std::string name;
    std::string description;
    std::vector<std::uint64_t> default_sizes;
    std::vector<suite_entry> entries;
    std::vector<bench_target> targets = {};
};

std::vector<const suite*> suites();
// An entry's label, as bench targets name it: "algo" or "algo name=value;...".
std::string entry_label(const suite_entry& e);
// Throws internal_error unless every bench target names entries of the suite
// by their labels and a known measure.
void check_targets(const suite& s);
// Throws input_error listing the known suites.
const suite& find_suite(const std::string& name);

struct suite_registrar {
    explicit suite_registrar(suite s);
};

struct measure_options {
    unsigned warmup = 2;   // untimed runs first (module load, first-touch)
    unsigned reps = 10;    // timed runs; the median and the spread are kept
    bool counters = true;  // one more run under the CUPTI range profiler
    std::uint64_t seed = 1;
};

// What measures the runs of a suite: the GPU (validate_suite), or a test's
// fake (validate/tests), so the dataset's fault handling runs without a GPU.
class measure_backend {
public:
    virtual ~measure_backend() = default;
    // The GPU's name: a dataset is completed only on the GPU that began it.
    virtual std::string gpu_name() const = 0;
    // The provenance of a new dataset: gpu, driver_version, cuda_runtime_version, cupti_api_version.
    virtual nlohmann::json machine() const = 0;
    // The clocks now ({"known": false, "note": why} when they cannot be read).
    virtual nlohmann::json clocks() const = 0;
    // The rows of one run, ending with its "run/complete" row. Throws
    // device_error (code and message) when the GPU, CUDA or CUPTI fails.
    virtual std::vector<measurement> measure(const model::device& preset, const std::string& algo, std::uint64_t n,
                                             const model::param_values& params, const measure_options& opt) = 0;
    // What the counter collection reported about itself, or null.
    virtual nlohmann::json counters() const = 0;
};

// How a session of measure_suite ended; provenance.json records the same in
// the session (status, reason, runs_measured).
struct suite_outcome {
    std::string status = "complete";  // complete, or interrupted (a signal)
    std::size_t measured = 0;         // runs measured in this session
    std::size_t remaining = 0;        // runs of the plan not complete (--resume measures them)
    int signal = 0;                   // SIGINT or SIGTERM when interrupted
    std::string reason;
};

// Measures every run of the suite not already complete in `out` and appends
// its rows, fsync'd, as it finishes; provenance.json is rewritten atomically
// after each run with the session's runs_measured. `resume` must be true to
// add to an existing dataset. SIGINT or SIGTERM stop it after the run in
// progress (a second one kills at once; finished runs stay on disk): the
// session is "interrupted" and the outcome says so. A run that throws (a GPU,
// CUDA or CUPTI error) gets a "run/error" row (value: the error code, note:
// the message), the session becomes "failed" with the reason, and the error
// is rethrown. `progress` receives one line per run.
// `sizes` empty: each entry at its own sizes, else the suite's default sizes.
suite_outcome measure_suite(measure_backend& backend, const suite& s, const std::vector<std::uint64_t>& sizes,
                            const std::filesystem::path& out, bool resume, const measure_options& opt,
                            const std::string& device_override, const std::string& command_line,
                            const std::function<void(const std::string&)>& progress);

// measure_suite on this machine's GPU. Throws unavailable_error without a GPU
// (or without CUPTI when counters are wanted).
suite_outcome validate_suite(const suite& s, const std::vector<std::uint64_t>& sizes, const std::filesystem::path& out,
                             bool resume, const measure_options& opt, const std::string& device_override,
                             const std::string& command_line, const std::function<void(const std::string&)>& progress);

}  // namespace agpu::validate

#define AGPU_SUITE_CAT2(a, b) a##b
#define AGPU_SUITE_CAT(a, b) AGPU_SUITE_CAT2(a, b)
#define AGPU_REGISTER_SUITE(...) \
    static const ::agpu::validate::suite_registrar AGPU_SUITE_CAT(agpu_suite_, __LINE__) { __VA_ARGS__ }
