// The report's sections, each a function from records to a section
// (document.hpp): tables, Vega-Lite charts and sentences with the numbers in
// them. The builders compute nothing from the simulator or the datasets
// themselves (report.hpp gathers the records), so each is tested on a small
// record set.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agpu/model/device.hpp"
#include "agpu/model/time_model.hpp"
#include "agpu/reports/document.hpp"
#include "agpu/validate/fit.hpp"

namespace agpu::reports {

// Significant-digit formatting for tables: 3 digits, grouped thousands off,
// scientific beyond 1e7 or below 1e-3.
std::string fmt(double v, int digits = 3);
std::string pct(double fraction);  // 0.123 -> "12.3%"

// ---------------------------------------------------------------- devices

// Every device's AGPU parameters and the figures the time model reads, and
// each one's bytes of bandwidth per core operation (what Floyd-Warshall's
// tile size answers to).
section devices_section(const std::vector<model::device>& devices);
// Peak bytes per second over core operations per second (cores x clock).
double bytes_per_op(const model::device& d);

// ---------------------------------------------------------------- one algorithm family

struct scaling_point {
    std::string algo, device;
    std::string source;  // "closed form" or "simulator"
    std::uint64_t n = 0;
    std::string metric;  // "time_steps", "io_blocks"
    double value = 0;
};

struct seconds_point {
    std::string algo, device, run_id;
    std::uint64_t n = 0;
    double measured_s = 0, predicted_s = 0;
};

// A run's counter summed over its launches, simulated and measured.
struct counter_point {
    std::string algo, run_id, counter;
    std::uint64_t n = 0;
    double simulated = 0, measured = 0;
};

struct family_records {
    std::string family;                           // "stats"
    std::map<std::string, std::string> formulas;  // algo -> closed-form formula ("" where none)
    std::vector<scaling_point> scaling;
    std::vector<seconds_point> seconds;  // measured runs, predicted from the fit on their own device
    std::vector<counter_point> counters;
    std::vector<std::string> notes;  // what was left out, and why
};
// Time and I/O against n across devices (closed-form lines, simulator dots),
// measured against predicted seconds, simulated against measured counters.
section family_section(const family_records& r);

// ---------------------------------------------------------------- fit

// The constants used for every prediction (`used`, the committed fit) and the
// errors of fitting on the datasets, in sample and held out.
section fit_section(const model::time_fit& used, const validate::fit_report& refit);

// ---------------------------------------------------------------- cross-device

// The other device's runs predicted from the fit's constants and that
// device's preset alone, beside the fit device's own runs.
section cross_device_section(const std::string& fit_device, const std::vector<seconds_point>& fit_device_runs,
                             const std::vector<seconds_point>& other_runs);

// ---------------------------------------------------------------- hypothetical devices

struct sweep_point {
    std::string algo;
    std::uint64_t n = 0;
    std::string param;                 // a sweep parameter (model/sweep.hpp), or "preset" for a hypothetical preset
    std::string device;                // the swept device's id
    double value = 0, base_value = 0;  // the parameter's value, and the base device's
    double seconds = 0, base_seconds = 0;
    std::string bound;  // "dram" or "step"
};
section sweeps_section(const std::string& base_device, const std::vector<sweep_point>& points,
                       const std::vector<std::string>& notes);

// ---------------------------------------------------------------- the source papers' questions

struct pairwise_row {
    std::uint64_t n = 0;
    double launches = 0, io_blocks = 0, array_blocks = 0;  // array_blocks: n values in b-word blocks
    double predicted_s = 0;
    std::optional<double> measured_pairwise_s, measured_fused_s;
};
// Why stats/pairwise is not O(log N): each round moves the whole array.
section pairwise_question(const std::string& device, const std::vector<pairwise_row>& rows);

// Floyd-Warshall's tile size per device: N_b / N_c (bytes per operation,
// model::floyd_warshall_bytes and _operations) at each t against the device's
// bandwidth / compute ratio; the smallest t with N_b / N_c below it, and
// whether three t x t tiles fit in a block's shared memory.
section tile_question(const std::vector<model::device>& devices, std::uint64_t n, const std::vector<int>& tiles,
                      int element_bytes);

// b-word blocks; where a pass splits its groups into ranges the closed form
// bounds the data-dependent part, so each sort has a low and a high (equal
// where exact).
struct sort_io_row {
    std::uint64_t n = 0;
    double multiway_low = 0, multiway_high = 0, pairwise_low = 0, pairwise_high = 0, lower_bound = 0;
};
// The multiway sort's I/O against the pairwise sort's and Omega((n/b)
// log_{M/b}(n/b)) (model::sort_io_lower_bound).
section sort_question(const model::device& d, const std::vector<sort_io_row>& rows);

// ---------------------------------------------------------------- sampled simulation against exact

// One counter of one row of the sampled-against-exact table
// (validate/data/host/sampled/sampled.csv, made by
// validate/scripts/sampled-table.py): the totals of `agpu simulate --mode
// exact` and `--mode sampled` for the same algorithm, n and parameters.
struct sampled_counter {
    std::string algo, params, note;  // params: the --set ones; note: how the sampled run went ("synthesized", ...)
    std::uint64_t n = 0;
    double exact_s = 0, sampled_s = 0;  // wall seconds of each run
    std::uint64_t blocks_recorded = 0, blocks_total = 0;
    std::string counter;
    double exact = 0, sampled = 0;
    double relative_error = 0;          // (sampled - exact) / exact; where exact is 0, the sampled value
    std::optional<double> reported_95;  // the sampled run's 95% error (a fraction)
};

struct sampled_records {
    std::string source;      // where the rows came from, as shown
    std::string missing;     // why there are no rows ("" where they were read)
    std::string provenance;  // one sentence: when, where and how they were measured
    std::vector<sampled_counter> counters;
};

// The tolerance the table is held to (issue 9: every algorithm and counter within 1% of exact at mid sizes).
inline constexpr double sampled_tolerance = 0.01;

// The sampled-against-exact table (one row per algorithm row: its times,
// blocks recorded, time_steps error, worst counter, and whether every counter
// is within sampled_tolerance), the worst error of each counter over the
// rows, and the count of rows and counter values within the tolerance. With
// no rows it says why (`missing`) and has no table.
section sampled_section(const sampled_records& r);

}  // namespace agpu::reports
