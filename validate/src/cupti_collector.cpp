// Hardware counters through CUPTI's range profiler (CUDA 13 API:
// cupti_range_profiler.h for the target side, cupti_profiler_host.h for
// configuration and evaluation). The sequence:
//   profiler initialize -> device support, chip name, counter availability
//   -> host object: check each metric, add the offered ones, config image
//   -> enable the range profiler on the runtime's primary context
//   -> counter-data image, set config (auto range; kernel replay, else user replay)
//   -> start / launch_all / stop until CUPTI has every pass -> decode
//   -> evaluate each range -> disable, deinitialize.
// Every CUPTI call goes through AGPU_CUPTI_CHECK, every CUDA runtime or driver
// call through AGPU_CUDA_CHECK or AGPU_CU_DRIVER_CHECK; each resource is an RAII object, so the profiler
// is stopped, disabled and deinitialized on every path.
//
// Driver functions are looked up through the runtime
// (cudaGetDriverEntryPointByVersion) instead of being linked from libcuda, so
// a binary with this file starts, and cupti_query() answers, on a machine
// without the NVIDIA driver.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/validate/cuda_check.hpp"
#include "agpu/validate/cupti.hpp"

namespace agpu::validate {
namespace {

// "CUPTI_ERROR_NAME (code): CUPTI's explanation". The two lookups are not
// checked: they describe an error that is already being reported.
std::string cupti_text(int code) {
    const auto r = static_cast<CUptiResult>(code);
    const char* name = nullptr;
    const char* message = nullptr;
    std::string text = cuptiGetResultString(r, &name) == CUPTI_SUCCESS && name ? name : "unknown CUptiResult";
    text += " (" + std::to_string(code) + ")";
    if (cuptiGetErrorMessage(r, &message) == CUPTI_SUCCESS && message) {
        std::string m = message;
        while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
        if (!m.empty() && (!name || m != name)) text += ": " + m;
    }
    return text;
}

bool is_privilege_error(int code) {
    return code == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
           code == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES;
}

void cupti_check(CUptiResult r, const char* call, const char* file, int line) {
    if (r == CUPTI_SUCCESS) return;
    std::string what = cuda_call_site(call, file, line) + cupti_text(r);
    if (is_privilege_error(r))
        what +=
            " [run as root (in a container: --cap-add SYS_ADMIN), or load the NVIDIA driver with "
            "NVreg_RestrictProfilingToAdminUsers=0]";
    throw cupti_error(int(r), what);
}

// The driver functions used here, with the ABI they have had since CUDA 12.0.
struct driver_api {
    PFN_cuInit_v2000 cuInit = nullptr;
    PFN_cuDeviceGet_v2000 cuDeviceGet = nullptr;
    PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent = nullptr;
    PFN_cuGetErrorName_v6000 cuGetErrorName = nullptr;
    PFN_cuGetErrorString_v6000 cuGetErrorString = nullptr;
};

const driver_api& driver();

void cu_driver_check(CUresult r, const char* call, const char* file, int line) {
    if (r == CUDA_SUCCESS) return;
    // Not checked: they describe an error that is already being reported.
    const char* name = nullptr;
    const char* text = nullptr;
    driver().cuGetErrorName(r, &name);
    driver().cuGetErrorString(r, &text);
    throw cuda_error(int(r), cuda_call_site(call, file, line) + (name ? name : "unknown CUresult") + " (" +
                                 std::to_string(int(r)) + "): " + (text ? text : ""));
}

}  // namespace
}  // namespace agpu::validate

// Every CUPTI call in this file goes through this (STYLE.md 6); it throws cupti_error.
#define AGPU_CUPTI_CHECK(call) ::agpu::validate::cupti_check((call), #call, __FILE__, __LINE__)
// CUDA runtime calls go through AGPU_CUDA_CHECK (cuda_check.hpp); the driver
// calls, which only this file makes (through the runtime's entry points), go
// through this. Both throw cuda_error.
#define AGPU_CU_DRIVER_CHECK(call) ::agpu::validate::cu_driver_check((call), #call, __FILE__, __LINE__)

namespace agpu::validate {
namespace {

template <class F>
F driver_entry_point(const char* symbol) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    AGPU_CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &fn, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || fn == nullptr)
        throw std::runtime_error(std::string("the CUDA driver does not provide ") + symbol + " (CUDA 12.0 ABI)");
    return reinterpret_cast<F>(fn);
}

const driver_api& driver() {
    static const driver_api api = [] {
        driver_api a;
        a.cuInit = driver_entry_point<PFN_cuInit_v2000>("cuInit");
        a.cuDeviceGet = driver_entry_point<PFN_cuDeviceGet_v2000>("cuDeviceGet");
        a.cuCtxGetCurrent = driver_entry_point<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent");
        a.cuGetErrorName = driver_entry_point<PFN_cuGetErrorName_v6000>("cuGetErrorName");
        a.cuGetErrorString = driver_entry_point<PFN_cuGetErrorString_v6000>("cuGetErrorString");
        return a;
    }();
    return api;
}

// CUPTI parameter structs: zeroed (pPriv = NULL), structSize from the header,
// which is how CUPTI tells which fields this build knows.
template <class P>
P cupti_params(std::size_t struct_size) {
    P p{};
    p.structSize = struct_size;
    return p;
}
#define AGPU_CUPTI_PARAMS(T) cupti_params<T>(T##_STRUCT_SIZE)

// CUPTI takes name lists as `const char**` but only reads them.
std::vector<const char*> c_strings(const std::vector<std::string>& names) {
    std::vector<const char*> out;
    out.reserve(names.size());
    for (const auto& n : names) out.push_back(n.c_str());
    return out;
}

// Destructors release without throwing: on an exception path the error that
// is unwinding is the one worth reporting, and a release failure adds nothing.
template <class T>
void close_quietly(T& resource) noexcept {
    try {
        resource.close();
    } catch (...) {}
}

// cuptiProfilerInitialize ... cuptiProfilerDeInitialize.
class profiler_library {
public:
    profiler_library() {
        auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
        AGPU_CUPTI_CHECK(cuptiProfilerInitialize(&p));
        m_open = true;
    }
    ~profiler_library() { close_quietly(*this); }
    profiler_library(const profiler_library&) = delete;
    profiler_library& operator=(const profiler_library&) = delete;

    void close() {
        if (!std::exchange(m_open, false)) return;
        auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
        AGPU_CUPTI_CHECK(cuptiProfilerDeInitialize(&p));
    }

private:
    bool m_open = false;
};

// The host side: metric checks, configuration, evaluation for one chip.
class host_object {
public:
    host_object(const std::string& chip, const std::vector<std::uint8_t>& availability) {
        auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
        p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = chip.c_str();
        p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
        AGPU_CUPTI_CHECK(cuptiProfilerHostInitialize(&p));
        m_host = p.pHostObject;
    }
    ~host_object() { close_quietly(*this); }
    host_object(const host_object&) = delete;
    host_object& operator=(const host_object&) = delete;

    CUpti_Profiler_Host_Object* get() const { return m_host; }

    void close() {
        if (!m_host) return;
        auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
        p.pHostObject = std::exchange(m_host, nullptr);
        AGPU_CUPTI_CHECK(cuptiProfilerHostDeinitialize(&p));
    }

private:
    CUpti_Profiler_Host_Object* m_host = nullptr;
};

// The target side on one context: enabled from construction to close().
class range_profiler {
public:
    explicit range_profiler(CUcontext ctx) {
        auto p = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
        p.ctx = ctx;
        AGPU_CUPTI_CHECK(cuptiRangeProfilerEnable(&p));
        m_object = p.pRangeProfilerObject;
    }
    ~range_profiler() { close_quietly(*this); }
    range_profiler(const range_profiler&) = delete;
    range_profiler& operator=(const range_profiler&) = delete;

    // Sizes and initializes the counter-data image for `max_ranges` ranges of
    // `names`, then gives CUPTI the image and the config: auto range (one range
    // per kernel launch, so one nesting level), `replay` mode.
    void configure(std::vector<std::uint8_t>& config, const std::vector<const char*>& names, std::size_t max_ranges,
                   CUpti_ProfilerReplayMode replay) {
        auto size = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
        size.pRangeProfilerObject = m_object;
        size.pMetricNames = const_cast<const char**>(names.data());
        size.numMetrics = names.size();
        size.maxNumOfRanges = max_ranges;
        size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);  // flat ranges: one node each
        AGPU_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
        m_counter_data.assign(size.counterDataSize, 0);

        auto init = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
        init.pRangeProfilerObject = m_object;
        init.counterDataSize = m_counter_data.size();
        init.pCounterData = m_counter_data.data();
        AGPU_CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&init));

        auto set = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
        set.pRangeProfilerObject = m_object;
        set.configSize = config.size();
        set.pConfig = config.data();
        set.counterDataImageSize = m_counter_data.size();
        set.pCounterDataImage = m_counter_data.data();
        set.range = CUPTI_AutoRange;
        set.replayMode = replay;
        set.maxRangesPerPass = max_ranges;
        set.numNestingLevels = 1;
        set.minNestingLevel = 1;
        set.passIndex = 0;
        set.targetNestingLevel = 1;
        AGPU_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&set));
    }

    void start() {
        auto p = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
        p.pRangeProfilerObject = m_object;
        AGPU_CUPTI_CHECK(cuptiRangeProfilerStart(&p));
        m_started = true;
    }

    // True when CUPTI has every pass of the configuration.
    bool stop() {
        m_started = false;
        return stop_object(m_object);
    }

    // Moves the collected data into the counter-data image; returns the number
    // of ranges that did not fit.
    std::size_t decode() {
        auto p = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
        p.pRangeProfilerObject = m_object;
        AGPU_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&p));
        return p.numOfRangeDropped;
    }

    const std::vector<std::uint8_t>& counter_data() const { return m_counter_data; }

    // Stops a pass left open by an exception, then disables; Disable runs even
    // when that Stop fails, and the Stop error is reported after it.
    void close() {
        if (!m_object) return;
        CUpti_RangeProfiler_Object* object = std::exchange(m_object, nullptr);
        std::optional<cupti_error> stop_error;
        if (std::exchange(m_started, false)) {
            try {
                stop_object(object);
            } catch (const cupti_error& e) {
                stop_error = e;
            }
        }
        auto p = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
        p.pRangeProfilerObject = object;
        AGPU_CUPTI_CHECK(cuptiRangeProfilerDisable(&p));
        if (stop_error) throw *stop_error;
    }

private:
    static bool stop_object(CUpti_RangeProfiler_Object* object) {
        auto p = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
        p.pRangeProfilerObject = object;
        AGPU_CUPTI_CHECK(cuptiRangeProfilerStop(&p));
        return p.isAllPassSubmitted != 0;
    }

    CUpti_RangeProfiler_Object* m_object = nullptr;
    bool m_started = false;
    std::vector<std::uint8_t> m_counter_data;
};

struct current_gpu {
    int ordinal = 0;  // the runtime's device number, which CUPTI's deviceIndex also uses
    CUdevice device{};
};

current_gpu find_current_gpu() {
    current_gpu g;
    AGPU_CUDA_CHECK(cudaGetDevice(&g.ordinal));
    AGPU_CU_DRIVER_CHECK(driver().cuInit(0));
    AGPU_CU_DRIVER_CHECK(driver().cuDeviceGet(&g.device, g.ordinal));
    return g;
}

const char* level_name(CUpti_Profiler_Support_Level level) {
    switch (level) {
        case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
        case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
        case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
        default: return "unknown";
    }
}

// Empty when CUPTI can range-profile `g`, otherwise why not.
std::string unsupported_reason(const current_gpu& g) {
    auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
    p.cuDevice = g.device;
    p.api = CUPTI_PROFILER_RANGE_PROFILING;
    AGPU_CUPTI_CHECK(cuptiProfilerDeviceSupported(&p));
    if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return {};
    const std::pair<const char*, CUpti_Profiler_Support_Level> parts[] = {
        {"architecture (needs compute capability 7.0 or later)", p.architecture},
        {"SLI", p.sli},
        {"vGPU", p.vGpu},
        {"confidential computing", p.confidentialCompute},
        {"CMP (mining) device", p.cmp},
        {"WSL", p.wsl},
    };
    std::string why;
    for (const auto& [what, level] : parts)
        if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
            why += (why.empty() ? "" : ", ") + std::string(what) + ": " + level_name(level);
    return "CUPTI cannot range-profile GPU " + std::to_string(g.ordinal) + " (" +
           (why.empty() ? std::string("overall: ") + level_name(p.isSupported) : why) + ")";
}

std::string chip_name(const current_gpu& g) {
    auto p = AGPU_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    p.deviceIndex = static_cast<std::size_t>(g.ordinal);
    AGPU_CUPTI_CHECK(cuptiDeviceGetChipName(&p));
    return p.pChipName ? p.pChipName : "";
}

// Which counters this context can read now (another profiling session, MIG or
// the driver can take some away); the host object uses it to refuse the rest.
// Must be taken before the range profiler is enabled.
std::vector<std::uint8_t> counter_availability(CUcontext ctx) {
    auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    p.ctx = ctx;
    AGPU_CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&p));  // size only
    std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
    p.pCounterAvailabilityImage = image.data();
    AGPU_CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&p));
    image.resize(std::min(image.size(), p.counterAvailabilityImageSize));
    return image;
}

// Empty when the chip offers `name`, otherwise why not. A refusal is an
// answer here, not a failure.
std::string metric_refusal(const host_object& host, const std::string& name, const std::string& chip) {
    auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
    p.pHostObject = host.get();
    p.pMetricName = name.c_str();
    try {
        AGPU_CUPTI_CHECK(cuptiProfilerHostGetMetricProperties(&p));
    } catch (const cupti_error& e) {
        return "not offered by " + chip + " (" + cupti_text(e.code()) + ")";
    }
    return {};
}

void add_metrics(const host_object& host, const std::vector<std::string>& names) {
    auto ptrs = c_strings(names);
    auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    p.pHostObject = host.get();
    p.ppMetricNames = ptrs.data();
    p.numMetrics = ptrs.size();
    AGPU_CUPTI_CHECK(cuptiProfilerHostConfigAddMetrics(&p));
}

// Adds `offered` to `host`. When CUPTI refuses the set although each name
// passed the property check, finds the refused names one at a time, each on a
// fresh host object (a refused add may leave the object unusable), moves them
// to `missing`, and adds the rest to a fresh host object.
void add_metrics_dropping_refused(std::optional<host_object>& host, const std::string& chip,
                                  const std::vector<std::uint8_t>& availability, std::vector<std::string>& offered,
                                  std::vector<std::string>& missing) {
    try {
        add_metrics(*host, offered);
        return;
    } catch (const cupti_error&) {}
    auto fresh_host = [&] {
        host->close();
        host.reset();
        host.emplace(chip, availability);
    };
    std::vector<std::string> kept;
    for (const auto& name : offered) {
        fresh_host();
        try {
            add_metrics(*host, {name});
            kept.push_back(name);
        } catch (const cupti_error& e) {
            missing.push_back(name + ": refused by the " + chip + " configuration (" + cupti_text(e.code()) + ")");
        }
    }
    offered = std::move(kept);
    fresh_host();
    if (!offered.empty()) add_metrics(*host, offered);
}

std::vector<std::uint8_t> config_image(const host_object& host) {
    auto size = AGPU_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    size.pHostObject = host.get();
    AGPU_CUPTI_CHECK(cuptiProfilerHostGetConfigImageSize(&size));
    std::vector<std::uint8_t> image(size.configImageSize);
    auto get = AGPU_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    get.pHostObject = host.get();
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    AGPU_CUPTI_CHECK(cuptiProfilerHostGetConfigImage(&get));
    return image;
}

std::size_t pass_count(std::vector<std::uint8_t>& config) {
    auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
    p.configImageSize = config.size();
    p.pConfigImage = config.data();
    AGPU_CUPTI_CHECK(cuptiProfilerHostGetNumOfPasses(&p));
    return p.numOfPasses;
}

// One collection in `replay` mode. On return `profiler` is still enabled and
// holds the decoded counter data (evaluation reads it before Disable, the order
// NVIDIA's range-profiling sample uses).
void collect_once(std::optional<range_profiler>& profiler, CUcontext ctx, CUpti_ProfilerReplayMode replay,
                  std::vector<std::uint8_t>& config, const std::vector<const char*>& names, std::size_t max_ranges,
                  std::size_t passes, const std::function<void()>& launch_all) {
    if (profiler) close_quietly(*profiler);  // a failed attempt's cleanup error adds nothing
    profiler.reset();
    profiler.emplace(ctx);
    profiler->configure(config, names, max_ranges, replay);
    // Kernel replay submits every pass in one run of launch_all; user replay
    // needs one run per pass.
    const std::size_t max_runs = std::max<std::size_t>(passes, 1);
    for (std::size_t run = 1;; ++run) {
        profiler->start();
        launch_all();
        AGPU_CUDA_CHECK(cudaDeviceSynchronize());  // the pass's kernels end, and their errors surface, inside it
        if (profiler->stop()) break;
        if (run >= max_runs)
            throw std::runtime_error("CUPTI still wanted passes after " + std::to_string(run) +
                                     " runs of launch_all (the configuration needs " + std::to_string(passes) + ")");
    }
    const std::size_t dropped = profiler->decode();
    if (dropped > 0)
        throw input_error("max_ranges",
                          "launch_all launched more kernels than max_ranges = " + std::to_string(max_ranges) + " (" +
                              std::to_string(dropped) + " range(s) dropped); raise max_ranges");
}

std::size_t range_count(const std::vector<std::uint8_t>& image) {
    auto p = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    AGPU_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&p));
    return p.numTotalRanges;
}

std::string range_name(const std::vector<std::uint8_t>& image, std::size_t index) {
    auto p = AGPU_CUPTI_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    p.rangeIndex = index;
    p.rangeDelimiter = "/";
    AGPU_CUPTI_CHECK(cuptiRangeProfilerCounterDataGetRangeInfo(&p));
    return p.rangeName ? p.rangeName : "";
}

// Values of `names` for one range. If CUPTI cannot evaluate the set, each
// metric is evaluated alone so that one bad metric does not hide the others;
// those that still fail stay nullopt and are listed once in `missing`.
std::vector<std::optional<double>> evaluate_range(const host_object& host, const std::vector<std::uint8_t>& image,
                                                  std::size_t index, const std::vector<const char*>& names,
                                                  std::set<std::string>& failed, std::vector<std::string>& missing) {
    std::vector<double> values(names.size());
    auto p = AGPU_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    p.pHostObject = host.get();
    p.pCounterDataImage = image.data();
    p.counterDataImageSize = image.size();
    p.rangeIndex = index;
    p.ppMetricNames = const_cast<const char**>(names.data());
    p.numMetrics = names.size();
    p.pMetricValues = values.data();
    std::vector<std::optional<double>> out(names.size());
    try {
        AGPU_CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&p));
        std::copy(values.begin(), values.end(), out.begin());
        return out;
    } catch (const cupti_error&) {}
    for (std::size_t i = 0; i < names.size(); ++i) {
        auto one = p;
        one.ppMetricNames = const_cast<const char**>(&names[i]);
        one.numMetrics = 1;
        one.pMetricValues = &values[i];
        try {
            AGPU_CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&one));
            out[i] = values[i];
        } catch (const cupti_error& e) {
            if (failed.insert(names[i]).second)
                missing.push_back(std::string(names[i]) + ": could not be evaluated (" + cupti_text(e.code()) + ")");
        }
    }
    return out;
}

}  // namespace

std::vector<std::string> cupti_metrics_not_offered(const std::string& chip, const std::vector<std::string>& names) {
    host_object host(chip, {});
    std::vector<std::string> out;
    for (const auto& n : names)
        if (const auto why = metric_refusal(host, n, chip); !why.empty()) out.push_back(n + ": " + why);
    return out;
}

cupti_status cupti_query() {
    cupti_status s;
    try {
        AGPU_CUPTI_CHECK(cuptiGetVersion(&s.api_version));
        int driver_version = 0;
        AGPU_CUDA_CHECK(cudaDriverGetVersion(&driver_version));
        if (driver_version == 0) {
            s.reason = "no NVIDIA driver on this machine (cudaDriverGetVersion found none)";
            return s;
        }
        int count = 0;
        AGPU_CUDA_CHECK(cudaGetDeviceCount(&count));
        if (count == 0) {
            s.reason = "the driver sees no GPU";
            return s;
        }
        // The primary context, as cupti_collect uses: CUPTI's samples ask
        // their device questions with a context current.
        AGPU_CUDA_CHECK(cudaFree(nullptr));
        const current_gpu g = find_current_gpu();
        profiler_library library;
        s.reason = unsupported_reason(g);
        library.close();
        s.available = s.reason.empty();
    } catch (const std::exception& e) {
        s.available = false;
        s.reason = e.what();
    }
    return s;
}

cupti_result cupti_collect(const std::vector<std::string>& metrics, const std::function<void()>& launch_all,
                           std::size_t max_ranges) {
    if (metrics.empty()) throw input_error("metrics", "at least one metric is needed");
    if (!launch_all) throw input_error("launch_all", "must be a callable");
    if (max_ranges == 0 || max_ranges > std::numeric_limits<std::uint32_t>::max())
        throw input_error("max_ranges", "must be between 1 and 2^32-1, got " + std::to_string(max_ranges));

    cupti_result result;
    result.metrics = metrics;

    AGPU_CUDA_CHECK(cudaFree(nullptr));  // creates the runtime's primary context and makes it current
    CUcontext ctx = nullptr;
    AGPU_CU_DRIVER_CHECK(driver().cuCtxGetCurrent(&ctx));
    if (ctx == nullptr) throw std::runtime_error("no current CUDA context after cudaFree(0)");
    const current_gpu g = find_current_gpu();

    profiler_library library;
    if (std::string why = unsupported_reason(g); !why.empty()) throw unavailable_error(why);
    result.chip = chip_name(g);
    const std::vector<std::uint8_t> availability = counter_availability(ctx);

    std::optional<host_object> host;
    host.emplace(result.chip, availability);
    std::vector<std::string> offered;  // unique, in request order
    std::set<std::string> seen;
    for (const auto& name : metrics) {
        if (!seen.insert(name).second) continue;
        if (std::string why = metric_refusal(*host, name, result.chip); why.empty()) offered.push_back(name);
        else result.missing.push_back(name + ": " + why);
    }
    if (!offered.empty()) add_metrics_dropping_refused(host, result.chip, availability, offered, result.missing);
    if (offered.empty()) {
        std::string list;
        for (const auto& m : result.missing) list += (list.empty() ? "" : "; ") + m;
        throw unavailable_error("none of the requested metrics can be collected on " + result.chip + ": " + list);
    }
    std::vector<std::uint8_t> config = config_image(*host);
    result.passes = pass_count(config);
    const std::vector<const char*> names = c_strings(offered);

    // Kernel replay first: CUPTI replays each kernel, so launch_all runs once.
    // User replay when kernel replay fails, except for missing privileges,
    // which no mode can get round. The error reported when both fail carries
    // kernel replay's code, the first cause.
    std::optional<range_profiler> profiler;
    result.mode = "auto-range/kernel-replay";
    try {
        collect_once(profiler, ctx, CUPTI_KernelReplay, config, names, max_ranges, result.passes, launch_all);
    } catch (const cupti_error& kernel_replay) {
        if (is_privilege_error(kernel_replay.code())) throw;
        result.mode = "auto-range/user-replay";
        try {
            collect_once(profiler, ctx, CUPTI_UserReplay, config, names, max_ranges, result.passes, launch_all);
        } catch (const cupti_error& user_replay) {
            throw cupti_error(kernel_replay.code(),
                              "auto-range/kernel-replay failed: " + std::string(kernel_replay.what()) +
                                  "; auto-range/user-replay failed too: " + user_replay.what());
        }
    }

    const std::vector<std::uint8_t>& image = profiler->counter_data();
    std::map<std::string, std::size_t> column;  // metric name -> index in `offered`
    for (std::size_t j = 0; j < offered.size(); ++j) column.emplace(offered[j], j);
    std::set<std::string> failed;
    const std::size_t n = range_count(image);
    result.ranges.reserve(n);
    for (std::size_t r = 0; r < n; ++r) {
        const auto values = evaluate_range(*host, image, r, names, failed, result.missing);
        cupti_range range;
        range.name = range_name(image, r);
        range.values.reserve(metrics.size());
        for (const auto& m : metrics) {
            const auto it = column.find(m);
            range.values.push_back(it == column.end() ? std::nullopt : values[it->second]);
        }
        result.ranges.push_back(std::move(range));
    }

    profiler->close();
    host->close();
    library.close();
    return result;
}

}  // namespace agpu::validate
