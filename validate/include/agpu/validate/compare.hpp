// Simulated against measured, kernel by kernel and counter by counter: each
// run of a dataset is simulated again (same algorithm, n, parameters and seed,
// so the same inputs) on the preset of the dataset's GPU. Needs no GPU.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace agpu::validate {

inline constexpr const char* compare_schema = "agpu.compare/1";

struct compare_row {
    std::string algo, params, kernel, launch, counter, cupti_metric;
    std::uint64_t n = 0;
    double simulated = 0;
    std::optional<double> measured;  // nullopt: the GPU did not offer the metric
    std::optional<double> rel_diff;  // (measured - simulated) / max(simulated, 1)
};

struct counter_summary {
    std::string counter;
    std::size_t rows = 0, exact = 0, missing = 0;
    double max_abs_rel_diff = 0;
    double simulated_total = 0, measured_total = 0;
};

struct comparison {
    std::string device_id, gpu_name, dataset;
    std::size_t runs = 0;
    std::vector<compare_row> rows;
    std::vector<counter_summary> counters;  // in counter-table order
    std::set<std::string> not_simulated;    // GPU-only baselines in the dataset
};

comparison compare_dataset(const std::filesystem::path& dir, const std::string& device_override = "");
nlohmann::json to_json(const comparison& c);

}  // namespace agpu::validate
