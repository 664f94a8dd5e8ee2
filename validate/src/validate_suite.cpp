// `agpu validate`: measures a suite run by run into a dataset directory,
// appending each finished run, and records the provenance of the session.
#include <chrono>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/validate/cupti.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "agpu/validate/gpu.hpp"
#include "measure.hpp"

namespace agpu::validate {
namespace {

std::string utc_now() {
    const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::ostringstream os;
    os << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
    return os.str();
}

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

}  // namespace

void validate_suite(const suite& s, const std::vector<std::uint64_t>& sizes, const std::filesystem::path& out,
                    bool resume, const measure_options& opt, const std::string& device_override,
                    const std::string& command_line, const std::function<void(const std::string&)>& progress) {
    require_gpu("agpu validate");
    const auto status = query_gpus();
    const auto& gpu = status.devices.front();
    const auto preset = model::resolve_device(device_override.empty() ? preset_for(gpu.name) : device_override);
    const auto cupti = cupti_query();
    if (opt.counters && !cupti.available) throw unavailable_error("hardware counters need CUPTI: " + cupti.reason);

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
        for (auto n : sizes) {
            if (e.max_n && n > e.max_n) continue;
            model::check_n(spec, n);
            plan.push_back({e.algo, n, params});
        }
    }

    const bool exists = std::filesystem::exists(out / "measurements.csv");
    if (exists && !resume)
        throw input_error(out.string(), "already holds a dataset: pass --resume to complete it, or choose another --out");
    nlohmann::json prov;
    std::set<std::string> done;
    if (exists) {
        prov = read_provenance(out);
        if (prov["gpu"].value("name", "") != gpu.name)
            throw input_error((out / "provenance.json").string() + ": field gpu.name",
                              "the dataset was measured on " + prov["gpu"].value("name", "?") + ", this GPU is " + gpu.name);
        if (prov.value("suite", "") != s.name)
            throw input_error((out / "provenance.json").string() + ": field suite",
                              "the dataset is of suite " + prov.value("suite", "?") + ", not " + s.name);
        done = completed_runs(read_measurements(out));
    } else {
        prov = {{"schema", provenance_schema},
                {"suite", s.name},
                {"device_id", preset.id},
                {"gpu",
                 {{"name", gpu.name},
                  {"compute_capability", std::to_string(gpu.cc_major) + "." + std::to_string(gpu.cc_minor)},
                  {"sm_count", gpu.sm_count},
                  {"memory_bytes", gpu.memory_bytes},
                  {"max_sm_clock_mhz", gpu.sm_clock_mhz},
                  {"max_mem_clock_mhz", gpu.mem_clock_mhz}}},
                {"driver_version", status.driver_version},
                {"cuda_runtime_version", status.runtime_version},
                {"cupti_api_version", cupti.api_version},
                {"timing", {{"warmup", opt.warmup}, {"reps", opt.reps}, {"statistic", "median, min, max"},
                            {"l2", "flushed (2x L2 written) before each timed run's first launch"}}},
                {"sessions", nlohmann::json::array()}};
    }
    nlohmann::json session = {{"commit", build_info::commit},         {"started", utc_now()},
                              {"command_line", command_line},         {"clocks_before", clocks_json(read_clocks(gpu.ordinal))},
                              {"runs_already_complete", done.size()}, {"status", "running"}};
    prov["sessions"].push_back(session);
    const std::size_t si = prov["sessions"].size() - 1;
    std::filesystem::create_directories(out);
    write_provenance(out, prov);

    measurement_writer writer(out);
    std::size_t measured = 0, index = 0;
    collection_info info;
    for (const auto& p : plan) {
        ++index;
        const std::string id = make_run_id(p.algo, p.n, params_string(p.params.all()), opt.seed);
        if (done.count(id)) continue;
        const auto rows = measure_run(preset, p.algo, p.n, p.params, opt, info);
        writer.append_run(rows);
        ++measured;
        std::string summary = "[" + std::to_string(index) + "/" + std::to_string(plan.size()) + "] " + id;
        for (const auto& r : rows)
            if (r.launch == "run" && r.counter == "time_ms" && r.value)
                summary += ": " + std::to_string(*r.value) + " ms";
            else if (r.launch == "run" && r.counter == "check" && r.value && *r.value == 0)
                summary += ": CHECK FAILED (" + r.note + ")";
        progress(summary);
    }
    prov["sessions"][si]["finished"] = utc_now();
    prov["sessions"][si]["clocks_after"] = clocks_json(read_clocks(gpu.ordinal));
    prov["sessions"][si]["runs_measured"] = measured;
    prov["sessions"][si]["status"] = "complete";
    if (opt.counters && measured > 0)
        prov["counters"] = {{"chip", info.chip}, {"mode", info.mode}, {"passes", info.passes}, {"missing", info.missing}};
    write_provenance(out, prov);
}

}  // namespace agpu::validate
