// The calibrated time model's measured errors, per device and family
// (model/scores/calibrated.json, compiled in): what `agpu score
// --errors-out` wrote from the test data of docs/time-model-test.md, and
// what `agpu predict` quotes as its trust line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace agpu::model {

inline constexpr const char* model_errors_schema = "agpu.model-errors/1";

struct measured_error {
    std::uint64_t runs = 0;
    double mape = 0, median = 0, p90 = 0;  // absolute percentage errors, as fractions
    double mape_low = 0, mape_high = 0;    // the MAPE's 95% cluster-bootstrap interval
};

struct device_errors {
    std::string data;                                // the datasets scored ("validate/data/h100/test")
    std::string command;                             // the command that scored them
    std::string date;                                // when
    std::string commit;                              // agpu's commit that scored them
    std::map<std::string, measured_error> families;  // family, and "all"
};

struct model_errors {
    std::map<std::string, device_errors> devices;  // device id
};

// Parses an agpu.model-errors/1 document; throws input_error naming `where`
// and the field.
model_errors model_errors_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json to_json(const model_errors& e);

// The committed errors (compiled in).
const model_errors& calibrated_errors();

}  // namespace agpu::model
