// `agpu bench`: a dataset's timings as throughput, and the suite's
// performance goals (bench_target) checked on them. Reads only the dataset and
// the suite's registration: works without a GPU, on committed data.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace agpu::validate {

inline constexpr const char* bench_schema = "agpu.bench/1";

struct bench_row {
    std::string label;  // the suite entry: "algo name=value;..."
    std::string algo, params;
    std::uint64_t n = 0;
    bool passed = false;                       // the run's check
    std::optional<double> ms, ms_min, ms_max;  // median and spread of the run's time
    std::optional<double> bytes_per_s, items_per_s;
    // Global load + store sectors summed over the run's launches (CUPTI);
    // nullopt when the dataset was measured without counters.
    std::optional<double> global_sectors;
};

struct bench_goal {
    std::string subject, baseline, measure, what;
    std::uint64_t n = 0;
    std::optional<double> value;  // nullopt: a run it needs is missing or failed
    double at_least = 0;
    bool met = false;
};

struct bench_report {
    std::string suite, gpu_name, dataset;
    std::vector<bench_row> rows;
    std::vector<bench_goal> goals;
};

bench_report bench_dataset(const std::filesystem::path& dir);
nlohmann::json to_json(const bench_report& r);

}  // namespace agpu::validate
