#include "agpu/validate/score.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/launch_time.hpp"
#include "agpu/validate/dataset.hpp"

namespace agpu::validate {
namespace {

std::string family_of(const std::string& algo) { return algo.substr(0, algo.find('/')); }

// The plain roofline: launches at the launch overhead, plus the larger of the
// sectors touched at peak DRAM bandwidth and the AGPU steps at b / cores_per_sm
// clocks a step.
double roofline_seconds(const model::counts& c, const model::device& d) {
    const double bytes = double(c[model::counter::global_sectors] + c[model::counter::global_atomic_sectors]) * 32;
    const double mem = bytes / (d.hw.mem_bandwidth_gbs * 1e9);
    const double issue = double(c[model::counter::time_steps]) * double(d.agpu.b) / double(d.hw.cores_per_sm) /
                         (d.hw.sm_clock_mhz * 1e6);
    return double(c[model::counter::launches]) * d.hw.launch_overhead_us * 1e-6 + std::max(mem, issue);
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = q * double(v.size() - 1);
    const auto lo = std::size_t(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / double(v.size());
}

// Each run's repetitions' spread, (max - min) / median, by run id.
std::map<std::string, double> noise_of(const std::filesystem::path& dir) {
    std::map<std::string, std::map<std::string, double>> run;
    for (const auto& r : read_measurements(dir))
        if (r.launch == "run" && r.value &&
            (r.counter == "time_ms" || r.counter == "time_ms_min" || r.counter == "time_ms_max"))
            run[r.run_id][r.counter] = *r.value;
    std::map<std::string, double> out;
    for (const auto& [id, v] : run)
        if (v.count("time_ms") && v.count("time_ms_min") && v.count("time_ms_max") && v.at("time_ms") > 0)
            out[id] = (v.at("time_ms_max") - v.at("time_ms_min")) / v.at("time_ms");
    return out;
}

}  // namespace

std::string_view name(time_model_kind k) {
    switch (k) {
        case time_model_kind::calibrated: return "calibrated";
        case time_model_kind::roofline: return "roofline";
        case time_model_kind::fit: return "fit";
    }
    return "?";
}

error_summary summarise_errors(const std::vector<std::pair<std::string, double>>& rows, unsigned bootstrap_samples,
                               std::uint64_t seed) {
    error_summary s;
    s.runs = rows.size();
    if (rows.empty()) return s;
    std::vector<double> ape;
    std::map<std::string, std::vector<double>> clusters;
    for (const auto& [cfg, e] : rows) {
        ape.push_back(e);
        clusters[cfg].push_back(e);
    }
    s.mape = mean(ape);
    s.median_ape = quantile(ape, 0.5);
    s.p90_ape = quantile(ape, 0.9);
    std::vector<const std::vector<double>*> groups;
    for (const auto& [cfg, v] : clusters) groups.push_back(&v);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, groups.size() - 1);
    std::vector<double> means;
    for (unsigned b = 0; b < bootstrap_samples; ++b) {
        double sum = 0;
        std::size_t n = 0;
        for (std::size_t i = 0; i < groups.size(); ++i) {
            const auto& g = *groups[pick(rng)];
            for (double x : g) sum += x;
            n += g.size();
        }
        means.push_back(n ? sum / double(n) : 0);
    }
    s.mape_low = quantile(means, 0.025);
    s.mape_high = quantile(means, 0.975);
    return s;
}

score_report score_datasets(const std::vector<std::filesystem::path>& dirs, const model::time_fit& fit,
                            double max_simulation_s, unsigned bootstrap_samples,
                            const std::function<void(const std::string&)>& progress) {
    score_report r;
    r.fit_source = fit.source.empty() ? std::string("model/fits/h100.json (compiled in)") : fit.source;
    const auto samples = load_samples(dirs, max_simulation_s, progress);
    r.skipped = samples.skipped;
    std::map<std::string, std::map<std::string, double>> noise;  // dataset -> run -> spread
    for (const auto& d : dirs) noise[d.string()] = noise_of(d);
    for (const auto& s : samples.samples) {
        const auto dev = model::resolve_device(s.device_id);
        scored_run x;
        x.dataset = s.dataset;
        x.device_id = s.device_id;
        x.run_id = s.run_id;
        x.algo = s.algo;
        x.family = family_of(s.algo);
        x.configuration = s.algo + " " + s.params;
        x.n = s.n;
        x.measured_s = s.measured_s;
        if (auto it = noise[s.dataset].find(s.run_id); it != noise[s.dataset].end()) x.noise = it->second;
        const auto run = s.launch_counts.empty() ? model::time_run(s.counts, {}, dev, s.footprint_bytes)
                                                 : model::time_run(s.launch_counts, {}, dev, s.footprint_bytes);
        x.predicted_s[time_model_kind::calibrated] = run.seconds;
        x.winner = std::string(model::name(model::summarize(run).winner));
        x.floor_s = model::floor_seconds(s.counts, dev, s.footprint_bytes);
        x.predicted_s[time_model_kind::roofline] = roofline_seconds(s.counts, dev);
        x.predicted_s[time_model_kind::fit] =
            model::predict_seconds(model::time_features(s.counts, dev, s.footprint_bytes), fit.constants);
        r.runs.push_back(std::move(x));
    }
    // Errors per device, per family and in all, per model.
    std::map<std::string, std::map<std::string, std::map<time_model_kind, std::vector<std::pair<std::string, double>>>>>
        rows;
    std::map<std::string, std::vector<double>> noises;
    for (const auto& x : r.runs) {
        for (const auto& [k, p] : x.predicted_s) {
            const double ape = std::abs(p - x.measured_s) / x.measured_s;
            rows[x.device_id][x.family][k].push_back({x.configuration, ape});
            rows[x.device_id]["all"][k].push_back({x.configuration, ape});
        }
        noises[x.device_id].push_back(x.noise);
    }
    std::uint64_t seed = 1;
    for (const auto& [dev, fams] : rows)
        for (const auto& [fam, models] : fams)
            for (const auto& [k, v] : models) r.errors[dev][fam][k] = summarise_errors(v, bootstrap_samples, seed++);
    for (const auto& [dev, v] : noises) r.median_noise[dev] = quantile(v, 0.5);
    return r;
}

nlohmann::json to_json(const score_report& r) {
    using json = nlohmann::json;
    json runs = json::array();
    for (const auto& x : r.runs) {
        json p = json::object();
        for (const auto& [k, v] : x.predicted_s) p[std::string(name(k))] = v;
        runs.push_back({{"dataset", x.dataset},
                        {"device", x.device_id},
                        {"run_id", x.run_id},
                        {"algo", x.algo},
                        {"family", x.family},
                        {"n", x.n},
                        {"measured_s", x.measured_s},
                        {"noise", x.noise},
                        {"predicted_s", p},
                        {"calibrated_bound", x.winner},
                        {"floor_s", x.floor_s}});
    }
    json errors = json::object();
    for (const auto& [dev, fams] : r.errors)
        for (const auto& [fam, models] : fams)
            for (const auto& [k, e] : models)
                errors[dev][fam][std::string(name(k))] = {
                    {"runs", e.runs},       {"mape", e.mape},         {"median_ape", e.median_ape},
                    {"p90_ape", e.p90_ape}, {"mape_low", e.mape_low}, {"mape_high", e.mape_high}};
    json skipped = json::array();
    for (const auto& s : r.skipped) skipped.push_back({{"dataset", s.dataset}, {"run_id", s.run_id}, {"why", s.why}});
    return {{"schema", score_schema}, {"fit", r.fit_source}, {"median_noise", r.median_noise},
            {"errors", errors},       {"runs", runs},        {"skipped", skipped}};
}

}  // namespace agpu::validate
