// `agpu calibrate`: a device's time constants, each a physical quantity with a
// unit, derived from a dataset of the `calibrate` suite (the probes of
// kernels/probes/, measured by `agpu validate`). Pure host code: it reads the
// dataset and its provenance and needs no GPU.
//
// The probes' shapes are declared once, in model/probe_shape.hpp: the probes
// launch them and the derivation counts their work from them.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agpu/model/probe_shape.hpp"
#include "agpu/validate/dataset.hpp"

namespace agpu::validate {

inline constexpr const char* device_timing_schema = "agpu.device-timing/1";

// One constant of a device's timing section.
struct timing_constant {
    std::string name;  // "dram_read_gbs"
    double value = 0;
    std::string unit;    // "GB/s"
    std::string source;  // the probe, its sizes, how it was derived, the dataset
    std::string date;    // when it was measured (YYYY-MM-DD)
};

// What each constant is, in the order a device file lists them.
struct timing_constant_info {
    std::string_view name, unit, probe, meaning;
};
extern const std::array<timing_constant_info, 20> timing_constants;

struct device_timing {
    std::string device;                   // the preset the dataset was measured as ("h100")
    std::string gpu;                      // the GPU's name
    nlohmann::json provenance;            // GPU, driver, clocks, dates, commands, dataset
    std::vector<timing_constant> timing;  // every constant of timing_constants, in its order
    std::vector<std::string> notes;       // what the derivation fell back on, and why
    std::vector<std::string> missing;     // partial: the constants not derived, each with why
};

// Derives every constant from a calibrate dataset. `dataset_name` names it in
// the constants' sources (its path, as the user gave it). Throws input_error
// with one line naming the constant and the probe it needs when a probe's
// runs are missing or all failed their check, and naming the field when the
// provenance lacks what a constant needs (the SM count, the SM clock).
// `partial`: derive the constants whose probes the dataset has and name the
// others in `missing` (a calibration cut short), instead of failing.
device_timing derive_timing(const dataset& data, const std::string& dataset_name, bool partial = false);
// The same from a dataset directory (read_dataset).
device_timing derive_timing(const std::filesystem::path& dir, bool partial = false);

// {"schema": "agpu.device-timing/1", "device", "gpu", "provenance", "timing": {name: {value, unit, source, date}}, "notes"}
nlohmann::json to_json(const device_timing& t);

}  // namespace agpu::validate
