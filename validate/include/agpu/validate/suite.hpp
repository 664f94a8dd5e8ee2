// Validation suites: which algorithms, with which parameters and sizes, a
// `agpu validate --suite NAME` measures. Each algorithm family registers its
// suite beside its kernels (AGPU_REGISTER_SUITE), e.g. kernels/micro/micro.suite.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "agpu/model/device.hpp"

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
    unsigned warmup = 2;    // untimed runs first (module load, first-touch)
    unsigned reps = 10;     // timed runs; the median and the spread are kept
    bool counters = true;   // one more run under the CUPTI range profiler
    std::uint64_t seed = 1;
};

// Measures every run of the suite not already complete in `out` and appends
// its rows as it finishes; `resume` must be true to add to an existing
// dataset. Writes provenance.json. Throws unavailable_error without a GPU.
// `progress` receives one line per run.
void validate_suite(const suite& s, const std::vector<std::uint64_t>& sizes, const std::filesystem::path& out,
                    bool resume, const measure_options& opt, const std::string& device_override,
                    const std::string& command_line, const std::function<void(const std::string&)>& progress);

}  // namespace agpu::validate

#define AGPU_SUITE_CAT2(a, b) a##b
#define AGPU_SUITE_CAT(a, b) AGPU_SUITE_CAT2(a, b)
#define AGPU_REGISTER_SUITE(...) \
    static const ::agpu::validate::suite_registrar AGPU_SUITE_CAT(agpu_suite_, __LINE__) { __VA_ARGS__ }
