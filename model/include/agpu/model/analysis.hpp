// An algorithm's own reading of a device, registered beside its closed form
// (e.g. apsp's tile-size analysis: N_b/N_c against the device's
// bandwidth/compute ratio). `agpu predict` prints it under its table and puts
// it in its JSON; reports can show it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agpu/model/algorithm.hpp"
#include "agpu/model/device.hpp"

namespace agpu::model {

struct analysis {
    std::string title;
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
    std::string conclusion;  // one line: the answer
};

struct analysis_entry {
    std::string key;  // algorithm key
    std::function<analysis(const device&, std::uint64_t n, const param_values&)> analyze;
};

// The analysis of `key`, or nullptr.
const analysis_entry* find_analysis(const std::string& key);

nlohmann::json to_json(const analysis& a);

struct analysis_registrar {
    explicit analysis_registrar(analysis_entry e);
};

// The device's arithmetic rate in operations per second: SMs x cores per SM x
// SM clock (one operation per core per cycle), or p x clock where the
// hardware figures are missing (hypothetical devices without them).
double ops_per_second(const device& d);

}  // namespace agpu::model

#define AGPU_ANALYSIS_CAT2(a, b) a##b
#define AGPU_ANALYSIS_CAT(a, b) AGPU_ANALYSIS_CAT2(a, b)
// AGPU_REGISTER_ANALYSIS({key, analyze}): registers at start-up.
#define AGPU_REGISTER_ANALYSIS(...) \
    static const ::agpu::model::analysis_registrar AGPU_ANALYSIS_CAT(agpu_analysis_, __LINE__) { __VA_ARGS__ }
