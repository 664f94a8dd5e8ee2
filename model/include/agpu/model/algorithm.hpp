// An algorithm's description: its key ("sort/multiway"), what n means, and its
// parameters with defaults and rules. The simulator, the closed forms, the GPU
// runners and the command line all read parameters through this, so one
// `--set name=value` means the same everywhere.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace agpu::model {

struct param_spec {
    std::string name;
    std::string description;
    std::string default_value;
    std::vector<std::string> choices;  // non-empty: the value must be one of these
    std::int64_t min = 0, max = 0;     // choices empty: an integer in [min, max]
};

struct algo_spec {
    std::string key;      // "family/name"
    std::string summary;  // one line
    std::string n_means;  // "elements", "vertices", "bits", ...
    std::uint64_t default_n = 0, min_n = 0, max_n = 0;
    std::vector<param_spec> params;
};

// A quantity a run measures itself, beside the CUDA-event times (a probe's
// clock64 cycles per load): kept in the dataset as a row of the run, the
// median of the timed repetitions.
struct run_value {
    std::string name;  // the row's counter name: "clocks_per_load"
    double value = 0;
    std::string unit;
};

// Whether a run's outputs equal the CPU reference (simulator or GPU).
struct check_result {
    bool passed = false;
    std::string detail;  // what was compared, or the first mismatch
    std::vector<run_value> values = {};
};

// Checked parameter values of one algorithm (defaults filled in).
class param_values {
public:
    param_values() = default;
    std::int64_t integer(const std::string& name) const;
    const std::string& text(const std::string& name) const;
    const std::map<std::string, std::string>& all() const { return m_values; }
    friend bool operator==(const param_values&, const param_values&) = default;

private:
    friend param_values parse_params(const algo_spec&, const std::vector<std::string>&);
    std::map<std::string, std::string> m_values;
};

// Parses "name=value" settings against the spec. Throws input_error naming the
// option (--set NAME), the algorithm and the rule.
param_values parse_params(const algo_spec& spec, const std::vector<std::string>& settings);

// Parses a whole string as a non-negative integer (no sign, no spaces, no
// trailing text); false if it is not one or does not fit in 64 bits.
bool parse_unsigned(const std::string& s, std::uint64_t& out);

// Checks n against the spec's range; throws input_error.
void check_n(const algo_spec& spec, std::uint64_t n);

}  // namespace agpu::model
