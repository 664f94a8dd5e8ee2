// One point of a sweep: what it depends on (its cache key), what it costs to
// compute (the estimate that spreads points over jobs, ranks and shards),
// its evaluation, and its line in the results (agpu.sweep-point/2).
//
// A line is a function of the point and the fit alone: no time, host or
// rank in it, so a sweep run serially, with --jobs, under MPI or in shards
// writes the same bytes.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agpu/sweep/spec.hpp"

namespace agpu::sweep {

inline constexpr const char* point_schema = "agpu.sweep-point/2";
inline constexpr const char* cache_schema = "agpu.sweep-cache/2";

// A point's evaluation: a result, or the reason it was skipped.
struct outcome {
    bool ok = false;
    std::string reason;               // why skipped ("" when ok)
    nlohmann::json result = nullptr;  // counts, prediction (null when skipped)
    friend bool operator==(const outcome&, const outcome&) = default;
};

// The point as its line shows it: device (id, the spec's base, the
// parameters set, every resolved number), algo, params, n, seed, counts.
nlohmann::json point_json(const point& p);

// Everything a point's result depends on: the cache schema, agpu's version
// and commit (the simulator and the closed forms), the fit's constants (the
// time model), the algorithm, its parameters, n, seed, counts mode, the
// simulation limit, and the device's resolved numbers (not its name or
// sources: the same device under two names is one entry).
nlohmann::json key_inputs(const point& p, const model::time_fit& fit);
// The same with the fit's part (time_model_inputs) made once for many points.
nlohmann::json key_inputs(const point& p, const nlohmann::json& time_model);
nlohmann::json time_model_inputs(const model::time_fit& fit);
// SHA-256 of key_inputs' canonical text (sorted keys, no spaces), in hex.
std::string point_key(const point& p, const model::time_fit& fit);
std::string point_key(const point& p, const nlohmann::json& time_model);
std::string sha256_hex(const std::string& text);

// A point's first step, on the closed form alone: its outcome where the
// closed form answers it or refuses its inputs, else the seconds its
// simulation is estimated to take on one host thread (what spreads the
// simulations over jobs, ranks and shards, largest first).
struct planned {
    std::optional<outcome> answer;
    double simulation_s = 0;
};
planned plan(const point& p, const model::time_fit& fit);

// The point's simulation, on one host thread (after plan gave no answer). A
// point that cannot run (a simulation estimated above its limit, a kernel
// the device cannot hold, too little host memory) is skipped with the
// reason; an internal_error (a simulated output that differs from the CPU
// reference) propagates.
outcome simulate_point(const point& p, const model::time_fit& fit);
// plan, then simulate_point where plan has no answer.
outcome evaluate(const point& p, const model::time_fit& fit);

// The fit as the lines name it: time-model schema, source, device, date.
nlohmann::json model_identity(const model::time_fit& fit);
// The point's line (one JSON object, no newline).
std::string point_line(const point& p, const std::string& key, const outcome& o, const model::time_fit& fit);

}  // namespace agpu::sweep
