// The time model (DESIGN.md section 5): predicted seconds from AGPU counts and
// a device's parameters, through dimensionless efficiency constants that
// carry from one device to another.
//
//   t = c_launch  * launches * launch_overhead
//     + max(c_dram * (global + atomic sectors) * 32 B / bandwidth,
//           c_step * time_steps / clock)
//     + c_latency * time_steps * max(0, 1 - threads per launch / b) / clock
//     + c_atomic  * global atomic sectors / clock
//
// Each term is a count the simulator or a closed form gives, turned into
// seconds by the device's own figures; its constant says how the hardware
// does against that figure (c_dram = 1.25: 80% of peak bandwidth; c_step =
// clocks per AGPU step). Memory and issue overlap on a GPU, so the two
// bounds combine as a roofline (max); the other terms add. A max is not
// linear in the constants, so the fit is per term: every run is charged the
// bound that dominates it under the current constants, NNLS (nnls.hpp)
// refits the constants on those charges, and this repeats until no run
// changes bound (fit_constants in validate/fit.hpp). On the H100 data the
// max lowers the held-out errors by 4 to 5 points against a plain sum.
//
// The latency term is the one case the AGPU steps cannot price by
// throughput: a launch of less than one warp (a one-thread kernel) has no
// other warp to hide each step's memory or pipeline latency, so its steps
// cost the latency itself (about 90 clocks on the H100) rather than an issue
// slot. From a run's totals the threads per launch are the average launch's
// (closed forms give totals only).
//
// Terms tried on the H100 data and left out because NNLS gave them no weight
// or they did not lower the held-out error: AGPU blocks moved, store sectors
// on their own, global requests, shared wavefronts and barriers on their own
// (both are in time_steps), and steps divided by the resident warps per MP.
//
// The fitted constants are a file (schema agpu.fit/1) with the provenance of
// the fit; the committed H100 fit is compiled in (default_fit()).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agpu/model/counters.hpp"
#include "agpu/model/device.hpp"

namespace agpu::model {

enum class time_term : std::uint8_t { launch, dram, step, latency, atomic, count_ };
inline constexpr std::size_t time_term_count = static_cast<std::size_t>(time_term::count_);

struct time_term_info {
    time_term id;
    std::string_view name;         // JSON key of the constant
    std::string_view constant;     // what the constant means
    std::string_view feature;      // what it multiplies, in seconds
    bool bound;                    // combined with the other bounds by max (a roofline); else added
};

inline constexpr std::array<time_term_info, time_term_count> time_term_table{{
    {time_term::launch, "launch", "launch overheads per launch (1: the device's launch_overhead_us)",
     "launches * hardware.launch_overhead_us", false},
    {time_term::dram, "dram", "peak bandwidth / achieved (1: every byte at peak)",
     "(global_sectors + global_atomic_sectors) * 32 B / hardware.mem_bandwidth_gbs", true},
    {time_term::step, "step", "SM clocks per AGPU step of the busiest MP (issue throughput)",
     "time_steps / hardware.sm_clock_mhz", true},
    {time_term::latency, "latency", "SM clocks per step of a launch of less than one warp (nothing hides latency)",
     "time_steps * max(0, 1 - threads per launch / b) / hardware.sm_clock_mhz", false},
    {time_term::atomic, "atomic", "SM clocks per global atomic sector (serialised in L2)",
     "global_atomic_sectors / hardware.sm_clock_mhz", false},
}};

constexpr const time_term_info& info(time_term t) { return time_term_table[static_cast<std::size_t>(t)]; }

using time_vector = std::array<double, time_term_count>;

// Seconds each term contributes per unit of its constant, for counts `c`
// (one launch, or a run's totals) on device `d`.
time_vector time_features(const counts& c, const device& d);

// The additive terms' constant * feature plus the largest bound's.
double predict_seconds(const time_vector& features, const time_vector& constants);
// The bound term (dram or step) that dominates these features.
time_term dominant_bound(const time_vector& features, const time_vector& constants);

inline constexpr const char* fit_schema = "agpu.fit/1";
inline constexpr int fit_schema_version = 1;

// A fit: the constants and where they came from.
struct time_fit {
    time_vector constants{};
    std::string device;            // the device the data was measured on
    std::string date;              // ISO 8601, when the fit was made
    std::string commit;            // agpu's commit that made it
    std::vector<std::string> datasets;
    nlohmann::json quality = nlohmann::json::object();  // errors of the fit (validate/fit.hpp), kept as written
    std::string source;            // where it was read from ("" if made here)
};

// JSON in and out. Reading checks the schema ("agpu.fit/N": N newer than this
// agpu reads is rejected) and every constant (present, finite, >= 0, no
// unknown ones); errors are input_error("<where>: field <f>", rule).
nlohmann::json fit_to_json(const time_fit& f);
time_fit fit_from_json(const nlohmann::json& j, const std::string& where);
time_fit load_fit_file(const std::string& path);
// The same from a fit file's text; `where` names it in errors.
time_fit parse_fit_text(const std::string& text, const std::string& where);
// The committed H100 fit (model/fits/h100.json, compiled in).
const time_fit& default_fit();

}  // namespace agpu::model
