// Hardware counters from the GPU through CUPTI's range profiler (CUDA 13 API):
// one range per kernel launch, each metric evaluated per range. The
// implementation (cupti_collector.cpp) or the stub (cupti_none.cpp) is chosen
// by validate/CMakeLists.txt; no #ifdef anywhere else (STYLE.md 8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <vector>
#include "agpu/errors.hpp"

namespace agpu::validate {

// A CUPTI call failed: the message has the call, the CUptiResult name and code,
// and CUPTI's own explanation. code() is the CUptiResult value.
class cupti_error : public device_error {
public:
    using device_error::device_error;
};

struct cupti_status {
    bool available = false;         // range profiling can run on the current device now
    std::string reason;             // why not, when !available
    std::uint32_t api_version = 0;  // CUPTI_API_VERSION of the loaded library (e.g. 130001); 0 if unknown
};

// Never throws. available=false with a reason when this build has no CUPTI,
// there is no driver or GPU, or CUPTI says the current device cannot be
// profiled (architecture, vGPU, MIG, confidential computing...). Whether this
// process may read the counters (root, or NVreg_RestrictProfilingToAdminUsers=0)
// only shows when collection starts: cupti_collect then throws with a hint.
cupti_status cupti_query();

// The metrics a counter-table entry combines ("a+b", "a-b", "a/N": sums,
// differences, a scaled term), each with its factor (1, -1, 1/N...).
std::vector<std::pair<std::string, double>> metric_terms(std::string_view expression);

// The metrics of `names` that `chip` ("GH100") does not offer, each "name:
// why", checked on the host alone (CUPTI's profiler host API needs no GPU).
// Throws unavailable_error when this build has no CUPTI.
std::vector<std::string> cupti_metrics_not_offered(const std::string& chip, const std::vector<std::string>& names);

// One profiled range: in auto-range mode, one kernel launch.
struct cupti_range {
    std::string name;                           // CUPTI's range name ("0", "1", ... in auto-range mode)
    std::vector<std::optional<double>> values;  // values[i] for metrics[i]; nullopt = not offered / not evaluated
};

struct cupti_result {
    std::string chip;                  // e.g. "GH100"
    std::vector<std::string> metrics;  // as requested, in order
    std::vector<std::string> missing;  // requested metrics the GPU does not offer, each "name: reason"
    std::size_t passes = 0;            // passes the configured metric set needed
    std::string mode;                  // "auto-range/kernel-replay" or "auto-range/user-replay"
    std::vector<cupti_range> ranges;   // one per kernel launch, in launch order
};

// Runs `launch_all` on the current device under the range profiler and returns
// the requested metrics for every kernel it launched.
//
// `launch_all` may cudaMalloc, cudaMemcpy and launch any number of kernels
// (library launches such as CUB's count too, one range each), then return; it
// need not synchronize. It must throw on its own failures.
//
// Modes: auto range + kernel replay first (CUPTI replays each kernel once per
// pass, saving and restoring device memory, so launch_all runs once). If that
// fails with a CUPTI error (other than missing privileges), auto range + user
// replay: launch_all is called once per pass, so it must launch the same kernel
// sequence each time from freshly prepared inputs. `mode` says which one ran.
//
// Metrics the GPU does not offer (checked one by one with
// cuptiProfilerHostGetMetricProperties, or refused when the configuration is
// built) are left out of the configuration and listed in `missing`; their
// values are nullopt, never zero. Duplicated names are measured once.
//
// `max_ranges` (>= 1) bounds the counter-data image: at most that many kernel
// launches per call (host memory: about 80 KB per range for nine metrics on
// GH100, measured by the reference probe).
//
// Throws: agpu::input_error for an empty metric list or launch_all, max_ranges = 0 or above
// 2^32-1, or more launches than max_ranges (ranges dropped);
// agpu::unavailable_error when this build has no CUPTI, the device cannot be
// profiled, or none of the metrics is offered; cupti_error when a CUPTI call
// fails (both modes, for the collection); std::runtime_error when a CUDA
// runtime or driver call fails. Whatever it throws, the profiler is stopped,
// disabled and deinitialized. One collection at a time per process.
cupti_result cupti_collect(const std::vector<std::string>& metrics, const std::function<void()>& launch_all,
                           std::size_t max_ranges);

}  // namespace agpu::validate
