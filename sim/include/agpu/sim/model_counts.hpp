// A run's AGPU counts for prediction and fitting: from the algorithm's closed
// form where it gives every counter the time model reads, from the simulator
// otherwise. Closed forms are instant at any n (a 8192-vertex APSP, a 2^32-bit
// rank build); the simulator runs every thread and so grows with n.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/model/counters.hpp"
#include "agpu/model/device.hpp"
#include "agpu/sim/algorithms.hpp"

namespace agpu::sim {

enum class count_source { closed_form, simulator };
std::string to_string(count_source s);

struct model_counts {
    model::counts totals;
    count_source source = count_source::closed_form;
    sim_mode mode = sim_mode::exact;                               // the simulator's (closed forms: exact)
    std::array<double, model::counter_count> relative_error_95{};  // sampled: per counter (run_record)
    std::vector<launch_record> launches;  // per launch: the simulator's only (closed forms give totals)
    check_result check;                   // the simulator's check; closed forms: passed, "not run"
    // The bytes of device memory the run's arrays occupy (the algorithm's
    // registered device_bytes; 0 where it registers none): the working set
    // the time model compares with the L2 (model/time_model.hpp).
    std::uint64_t footprint_bytes = 0;
};

// The counters the time model reads (model/time_model.hpp). A closed form
// serves when it gives all of them; one that gives no global atomic counter
// at all has no atomics (its sectors are 0).
const std::vector<model::counter>& time_model_counters();
// Whether closed-form counts `p` give all of them (count_run uses the form then).
bool serves_time_model(const model::partial_counts& p);
// --mode: exact, sampled, or auto (exact where the exact simulator's time is
// estimated at most auto_exact_seconds, sampled otherwise).
enum class mode_request : std::uint8_t { exact, sampled, automatic };
inline constexpr double auto_exact_seconds = 2.0;
// Parses exact|sampled|auto; throws input_error naming `option` and the rule.
mode_request parse_mode(const std::string& text, const std::string& option = "option --mode");

// The exact simulator's estimated seconds for a run (from the closed form's
// lane accesses, or its estimate of them, and threads; 0 when there is no
// closed form).
double exact_simulation_estimate(const algorithm& algo, const model::device& dev, std::uint64_t n,
                                 const model::param_values& params);
// The sampled simulator's: the algorithm's own estimate of its sampled run's
// lane accesses where it has one, else a share of the exact estimate.
double sampled_simulation_estimate(const algorithm& algo, const model::device& dev, std::uint64_t n,
                                   const model::param_values& params);
sim_mode resolve_mode(mode_request r, const algorithm& algo, const model::device& dev, std::uint64_t n,
                      const model::param_values& params);

struct count_options {
    bool force_simulator = false;
    // Refuse (simulation_too_long) to simulate when the estimate exceeds this; 0: no limit.
    double max_simulation_s = 0;
    // Also stop a simulation whose own pace, measured 3 s in, says it will
    // exceed max_simulation_s. Off where the runs counted must not depend on
    // the host's load (the fit's samples): then the estimate alone decides.
    bool stop_on_measured_pace = true;
    mode_request mode = mode_request::automatic;
    unsigned threads = 0;                         // engine_options::threads
    std::function<void(std::uint64_t)> progress;  // engine_options::progress
};

// Thrown instead of starting a simulation estimated to take longer than
// allowed. An input_error: the run asked for is too large to simulate here.
class simulation_too_long : public input_error {
public:
    simulation_too_long(std::string where, std::string rule, double estimate_s)
        : input_error(std::move(where), std::move(rule)), m_estimate_s(estimate_s) {}
    double estimate_s() const noexcept { return m_estimate_s; }

private:
    double m_estimate_s;
};

// Seconds the exact simulator needs for a run of these counts at n, inputs
// and CPU reference included: 3e-8 s per lane access and per thread, 2e-8 s
// per unit of n (within 30% on stats/pairwise at 2^20, micro/shared-stride
// at 2^20 and rank/interleaved rank1 at 2^28 bits, one core).
double simulation_seconds_estimate(const model::counts& c, std::uint64_t n);

// The counts of one run: the closed form's when it gives every counter the
// time model reads (unless force_simulator); else simulated, with the same
// inputs as a dataset's run of the same seed. When the closed form exists
// but does not serve, its lane accesses and threads estimate the simulator's
// time, checked against max_simulation_s.
model_counts count_run(const algorithm& algo, const model::device& dev, std::uint64_t n,
                       const model::param_values& params, std::uint64_t seed = 1, const count_options& opt = {});

}  // namespace agpu::sim
