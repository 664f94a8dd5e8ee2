// A sweep spec: a small JSON or TOML file naming devices (presets, device
// files, and device parameters over lists or ranges), algorithms with
// parameter lists and sizes, and how to count (docs/sweep.md has the format
// and an example). Reading it checks every field (an unknown key at any depth
// is rejected) and expands it into points: one per device, algorithm,
// parameter values, n, seed and counts mode, in the spec's order (lists in
// theirs, the keys of an object by name), each distinct point once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agpu/model/derivation.hpp"
#include "agpu/model/device.hpp"
#include "agpu/model/time_model.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sweep/prediction.hpp"

namespace agpu::sweep {

inline constexpr const char* spec_schema = "agpu.sweep-spec/1";

// The most points one spec may expand to.
inline constexpr std::size_t max_points = 1'000'000;

struct point {
    model::device device;
    std::string device_base;                      // the device as the spec names it ("h100", "devices/my.json")
    std::vector<model::device_setting> settings;  // the device parameters set, in the spec's order
    const sim::algorithm* algo = nullptr;
    model::param_values params;
    std::uint64_t n = 0;
    std::uint64_t seed = 1;
    counts_mode counts = counts_mode::automatic;
    double max_sim_seconds = 60;  // a simulation estimated longer is skipped (0: no limit)
};

struct spec {
    std::string path;  // as given
    std::string name;  // the spec's "name", or the file's stem
    model::time_fit fit;
    std::vector<point> points;
    // The device parameters the spec varies ("b", "bandwidth"; JSON objects
    // and TOML tables are read in the order of their keys' names).
    std::vector<std::string> device_axes;
};

// Reads `path`: TOML where it ends in ".toml", else JSON. Device files and the
// fit are resolved relative to the spec's directory. Throws input_error
// "<path>: field <path.to.field>: <rule>" (or "<path>:LINE[:COL]: not valid
// JSON|TOML (...)").
spec load_spec(const std::string& path);
// The same from parsed JSON; `where` names the file, `dir` resolves relative paths.
spec parse_spec(const nlohmann::json& j, const std::string& where, const std::filesystem::path& dir);
// TOML text as JSON (tables as objects, arrays, strings, integers, floats,
// booleans; a date or time is rejected). Throws input_error "where:LINE:COL: not valid TOML (...)".
nlohmann::json toml_to_json(const std::string& text, const std::string& where);

}  // namespace agpu::sweep
