// `agpu validate`: measures a suite run by run into a dataset directory,
// appending each finished run, and records the provenance of the session,
// its status and, when it stops early, why (a signal, a GPU error).
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/utc_time.hpp"
#include "agpu/validate/cupti.hpp"
#include "agpu/validate/gpu.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "measure.hpp"

namespace agpu::validate {
namespace {

// The preset that describes a GPU, from its name.
std::string preset_for(const std::string& gpu_name) {
    for (const auto& [needle, id] : std::initializer_list<std::pair<const char*, const char*>>{
             {"H100", "h100"}, {"H200", "h200"}, {"A100", "a100"}, {"V100", "v100"}})
        if (gpu_name.find(needle) != std::string::npos) return id;
    throw input_error("GPU " + gpu_name, "no device preset matches it: pass --device ID|FILE");
}

nlohmann::json clocks_json(const gpu_clocks& c) {
    if (!c.known) return {{"known", false}, {"note", c.note}};
    return {{"known", true}, {"sm_mhz", c.sm_mhz}, {"mem_mhz", c.mem_mhz}};
}

// The signal that asked the session to stop (0: none). The handler only
// records it; the loop stops between runs. A second signal kills at once
// with the default action: every finished run is already on disk.
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void on_stop_signal(int sig) {
    if (stop_signal != 0) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    stop_signal = sig;
}

// SIGINT and SIGTERM handled for the life of the object; the previous
// handlers come back after.
class stop_signals {
public:
    stop_signals() {
        stop_signal = 0;
        m_int = std::signal(SIGINT, on_stop_signal);
        m_term = std::signal(SIGTERM, on_stop_signal);
    }
    ~stop_signals() {
        std::signal(SIGINT, m_int);
        std::signal(SIGTERM, m_term);
    }
    stop_signals(const stop_signals&) = delete;
    stop_signals& operator=(const stop_signals&) = delete;

private:
    void (*m_int)(int);
    void (*m_term)(int);
};

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

// This machine's GPU, through CUDA, CUPTI and NVML.
class gpu_backend final : public measure_backend {
public:
    explicit gpu_backend(const measure_options& opt) : m_status(query_gpus()), m_cupti(cupti_query()) {
        if (opt.counters && !m_cupti.available)
            throw unavailable_error("hardware counters need CUPTI: " + m_cupti.reason);
    }
    std::string gpu_name() const override { return gpu().name; }
    nlohmann::json machine() const override {
        const auto& g = gpu();
        return {{"gpu",
                 {{"name", g.name},
                  {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)},
                  {"sm_count", g.sm_count},
                  {"memory_bytes", g.memory_bytes},
                  {"max_sm_clock_mhz", g.sm_clock_mhz},
                  {"max_mem_clock_mhz", g.mem_clock_mhz}}},
                {"driver_version", m_status.driver_version},
                {"cuda_runtime_version", m_status.runtime_version},
                {"cupti_api_version", m_cupti.api_version}};
    }
    nlohmann::json clocks() const override { return clocks_json(read_clocks(gpu().ordinal)); }
    std::vector<measurement> measure(const model::device& preset, const std::string& algo, std::uint64_t n,
                                     const model::param_values& params, const measure_options& opt) override {
        auto rows = measure_run(preset, algo, n, params, opt, m_info);
        m_collected |= opt.counters;
        return rows;
    }
    nlohmann::json counters() const override {
        if (!m_collected) return nullptr;
        return {{"chip", m_info.chip}, {"mode", m_info.mode}, {"passes", m_info.passes}, {"missing", m_info.missing}};
    }

private:
    const gpu_device_info& gpu() const { return m_status.devices.front(); }
    gpu_status m_status;
    cupti_status m_cupti;
    collection_info m_info;
    bool m_collected = false;
};

}  // namespace

suite_outcome measure_suite(measure_backend& backend, const suite& s, const std::vector<std::uint64_t>& sizes,
                            const std::filesystem::path& out, bool resume, const measure_options& opt,
                            const std::string& device_override, const std::string& command_line,
                            const std::function<void(const std::string&)>& progress) {
    const std::string gpu_name = backend.gpu_name();
    const auto preset = model::resolve_device(device_override.empty() ? preset_for(gpu_name) : device_override);

    // Check every run's algorithm and parameters before measuring anything.
    struct planned {
        std::string algo;
        std::uint64_t n;
        model::param_values params;
    };
    std::vector<planned> plan;
    for (const auto& e : s.entries) {
        const auto& spec = find_spec(e.algo);
        const auto params = model::parse_params(spec, e.sets);
        for (auto n : !sizes.empty() ? sizes : !e.sizes.empty() ? e.sizes : s.default_sizes) {
            if (e.max_n && n > e.max_n) continue;
            model::check_n(spec, n);
            plan.push_back({e.algo, n, params});
        }
    }

    const bool exists = is_dataset_dir(out);
    if (exists && !resume)
        throw input_error(out.string(),
                          "already holds a dataset: pass --resume to complete it, or choose another --out");
    nlohmann::json prov;
    std::set<std::string> done;
    if (exists) {
        // The writer below first drops a row cut short by a kill; read after it.
        measurement_writer repair(out);
        const auto data = read_dataset(out);
        prov = data.provenance;
        if (prov["gpu"].value("name", "") != gpu_name)
            throw input_error(
                (out / "provenance.json").string() + ": field gpu.name",
                "the dataset was measured on " + prov["gpu"].value("name", "?") + ", this GPU is " + gpu_name);
        if (prov.value("suite", "") != s.name)
            throw input_error((out / "provenance.json").string() + ": field suite",
                              "the dataset is of suite " + prov.value("suite", "?") + ", not " + s.name);
        done = completed_runs(data.rows);
    } else {
        prov = {{"schema", provenance_schema}, {"suite", s.name}, {"device_id", preset.id}};
        prov.update(backend.machine());
        prov["timing"] = {{"warmup", opt.warmup},
                          {"reps", opt.reps},
                          {"statistic", "median, min, max"},
                          {"l2", "flushed (2x L2 written) before each timed run's first launch"},
                          {"launches",
                           "queued behind a held stream until the run's launches are submitted (at most 20 ms), "
                           "held again after each copy or allocation within the run, so that none is timed "
                           "waiting for the host"}};
        prov["sessions"] = nlohmann::json::array();
    }
    nlohmann::json session = {{"commit", build_info::commit},
                              {"started", utc_now()},
                              {"command_line", command_line},
                              {"clocks_before", backend.clocks()},
                              {"runs_already_complete", done.size()},
                              {"runs_measured", 0},
                              {"status", "running"}};
    prov["sessions"].push_back(session);
    const std::size_t si = prov["sessions"].size() - 1;
    std::filesystem::create_directories(out);
    write_provenance(out, prov);

    measurement_writer writer(out);
    suite_outcome outcome;
    std::size_t index = 0;
    auto finish = [&](const std::string& status, const std::string& reason) {
        auto& ses = prov["sessions"][si];
        ses["finished"] = utc_now();
        try {
            ses["clocks_after"] = backend.clocks();
        } catch (const std::exception& e) {  // after a GPU fault: the fault is the news, not the clocks
            ses["clocks_after"] = {{"known", false}, {"note", e.what()}};
        }
        ses["runs_measured"] = outcome.measured;
        ses["status"] = status;
        if (!reason.empty()) ses["reason"] = reason;
        if (const auto c = backend.counters(); !c.is_null() && outcome.measured > 0) prov["counters"] = c;
        write_provenance(out, prov);
    };
    const stop_signals signals;
    for (const auto& p : plan) {
        ++index;
        const std::string id = make_run_id(p.algo, p.n, params_string(p.params.all()), opt.seed);
        if (done.count(id)) continue;
        if (stop_signal != 0) break;
        std::vector<measurement> rows;
        try {
            rows = backend.measure(preset, p.algo, p.n, p.params, opt);
        } catch (const std::exception& e) {
            // The run's failure goes into the dataset beside the runs kept;
            // the run is not complete, so --resume measures it again.
            const auto* dev = dynamic_cast<const device_error*>(&e);
            const std::string ps = params_string(p.params.all());
            writer.append_run({{id, p.algo, p.n, ps, opt.seed, "run", "", "error",
                                dev ? std::optional<double>(dev->code()) : std::nullopt, dev ? "code" : "", e.what()}});
            progress("[" + std::to_string(index) + "/" + std::to_string(plan.size()) + "] " + id + ": FAILED (" +
                     e.what() + ")");
            finish("failed", id + ": " + e.what());
            throw;
        }
        writer.append_run(rows);
        ++outcome.measured;
        done.insert(id);
        prov["sessions"][si]["runs_measured"] = outcome.measured;
        write_provenance(out, prov);
        std::string summary = "[" + std::to_string(index) + "/" + std::to_string(plan.size()) + "] " + id;
        for (const auto& r : rows)
            if (r.launch == "run" && r.counter == "time_ms" && r.value)
                summary += ": " + std::to_string(*r.value) + " ms";
            else if (r.launch == "run" && r.counter == "check" && r.value && *r.value == 0)
                summary += ": CHECK FAILED (" + r.note + ")";
        progress(summary);
    }
    for (const auto& p : plan)
        outcome.remaining += !done.count(make_run_id(p.algo, p.n, params_string(p.params.all()), opt.seed));
    if (stop_signal != 0 && outcome.remaining > 0) {
        outcome.status = "interrupted";
        outcome.signal = stop_signal;
        outcome.reason = std::string(signal_name(stop_signal)) + " received: stopped after " +
                         std::to_string(outcome.measured) + " runs, " + std::to_string(outcome.remaining) +
                         " left (--resume measures them)";
    }
    finish(outcome.status, outcome.reason);
    return outcome;
}

suite_outcome validate_suite(const suite& s, const std::vector<std::uint64_t>& sizes, const std::filesystem::path& out,
                             bool resume, const measure_options& opt, const std::string& device_override,
                             const std::string& command_line, const std::function<void(const std::string&)>& progress) {
    require_gpu("agpu validate");
    gpu_backend gpu(opt);
    return measure_suite(gpu, s, sizes, out, resume, opt, device_override, command_line, progress);
}

}  // namespace agpu::validate
