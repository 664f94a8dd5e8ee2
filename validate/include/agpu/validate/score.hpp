// Scoring time models on measured runs (docs/time-model-test.md): each run's
// seconds predicted by the calibrated model (model/launch_time.hpp), the plain
// roofline and a fit file, against the measured seconds; absolute percentage
// errors summarised per family and overall, with 95% intervals from a
// bootstrap that resamples whole configurations (an algorithm with its
// parameters, every size of it together), and the measurement's own noise.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agpu/model/time_model.hpp"
#include "agpu/validate/fit.hpp"

namespace agpu::validate {

inline constexpr const char* score_schema = "agpu.score/1";

// The models a score compares.
enum class time_model_kind { calibrated, roofline, fit };
std::string_view name(time_model_kind k);

struct scored_run {
    std::string dataset, device_id, run_id, algo, family, configuration;
    std::uint64_t n = 0;
    double measured_s = 0;
    double noise = 0;  // the repetitions' (max - min) / median
    std::map<time_model_kind, double> predicted_s;
    std::string winner;  // the calibrated model's deciding bound (the most time over the launches)
    double floor_s = 0;  // the device's physical floor for the run's counts (model::floor_seconds)
};

struct error_summary {
    std::size_t runs = 0;
    double mape = 0, median_ape = 0, p90_ape = 0;
    double mape_low = 0, mape_high = 0;  // 95% cluster-bootstrap interval of the MAPE
};

struct score_report {
    std::vector<scored_run> runs;
    std::vector<skipped_run> skipped;
    // [device][family or "all"][model]
    std::map<std::string, std::map<std::string, std::map<time_model_kind, error_summary>>> errors;
    std::map<std::string, double> median_noise;  // per device
    std::string fit_source;                      // the fit file scored beside
};

// The runs of `dirs` (their counts from the closed forms or the simulator, as
// agpu fit takes them), predicted by each model on their dataset's device.
score_report score_datasets(const std::vector<std::filesystem::path>& dirs, const model::time_fit& fit,
                            double max_simulation_s = default_max_simulation_s, unsigned bootstrap_samples = 2000,
                            const std::function<void(const std::string&)>& progress = {});

// A summary's numbers from absolute percentage errors grouped by configuration
// (the bootstrap's clusters); `seed` fixes the resampling.
error_summary summarise_errors(const std::vector<std::pair<std::string, double>>& configuration_and_ape,
                               unsigned bootstrap_samples, std::uint64_t seed);

nlohmann::json to_json(const score_report& r);

}  // namespace agpu::validate
