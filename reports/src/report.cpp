#include "agpu/reports/report.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/model/sweep.hpp"
#include "agpu/reports/sections.hpp"
#include "agpu/reports/sweep_section.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/model_counts.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/fit.hpp"
#include "sort/sort_bounds.hpp"
#include "agpu/utc_time.hpp"

#ifndef AGPU_SOURCE_DIR
#define AGPU_SOURCE_DIR "."
#endif

namespace agpu::reports {

namespace fs = std::filesystem;
using json = nlohmann::json;
using model::counter;

fs::path default_repository_root() { return AGPU_SOURCE_DIR; }

std::vector<fs::path> find_datasets(const fs::path& root) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw input_error(root.string(), "no such directory of datasets");
    if (validate::is_dataset_dir(root)) out.push_back(root);
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_directory() && validate::is_dataset_dir(it->path())) out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

sampled_records read_sampled_table(const fs::path& dir) {
    static constexpr const char* schema = "agpu.sampled-table/1";
    static constexpr const char* header =
        "schema,commit,device,algo,params,n,note,exact_s,sampled_s,blocks_recorded,blocks_total,counter,exact,sampled,"
        "relative_error,reported_95";
    constexpr std::size_t columns = 16;
    sampled_records r;
    const fs::path path = dir / "sampled.csv";
    r.source = path.generic_string();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        r.missing = "no " + r.source + " (validate/scripts/sampled-table.py --out " + dir.generic_string() + " makes it)";
        return r;
    }
    std::string line;
    if (!std::getline(in, line) || line != header) throw input_error(r.source + ":1", std::string("the header must be: ") + header);
    std::vector<std::string> f;
    for (std::size_t lineno = 2; std::getline(in, line); ++lineno) {
        if (line.empty()) continue;
        const std::string where = r.source + ":" + std::to_string(lineno);
        if (!validate::split_csv(line, f)) throw input_error(where, "unterminated quoted field");
        if (f.size() != columns)
            throw input_error(where, "expected " + std::to_string(columns) + " columns, got " + std::to_string(f.size()));
        if (f[0] != schema) throw input_error(where + ": column schema", "this agpu reads " + std::string(schema) + ", got '" + f[0] + "'");
        auto number = [&](std::size_t i, const char* name) {
            try {
                std::size_t used = 0;
                const double v = std::stod(f[i], &used);
                if (used == f[i].size() && std::isfinite(v)) return v;
            } catch (const std::exception&) {
            }
            throw input_error(where + ": column " + name, "must be a finite number, got '" + f[i] + "'");
        };
        auto count = [&](std::size_t i, const char* name) {
            const double v = number(i, name);
            if (v < 0 || v != std::floor(v)) throw input_error(where + ": column " + name, "must be a non-negative integer, got '" + f[i] + "'");
            return std::uint64_t(v);
        };
        sampled_counter c;
        c.algo = f[3];
        c.params = f[4];
        c.n = count(5, "n");
        c.note = f[6];
        c.exact_s = number(7, "exact_s");
        c.sampled_s = number(8, "sampled_s");
        c.blocks_recorded = count(9, "blocks_recorded");
        c.blocks_total = count(10, "blocks_total");
        c.counter = f[11];
        c.exact = number(12, "exact");
        c.sampled = number(13, "sampled");
        c.relative_error = number(14, "relative_error");
        if (!f[15].empty()) c.reported_95 = number(15, "reported_95");
        r.counters.push_back(std::move(c));
    }
    if (r.counters.empty()) r.missing = r.source + " has no rows";
    const fs::path prov_path = dir / "provenance.json";
    std::ifstream prov_in(prov_path, std::ios::binary);
    if (!prov_in) {
        r.provenance = "No provenance.json beside it.";
        return r;
    }
    json p;
    try {
        p = json::parse(prov_in);
    } catch (const json::exception& e) {
        throw input_error(prov_path.generic_string(), std::string("not JSON: ") + e.what());
    }
    if (p.value("schema", std::string()) != "agpu.sampled-provenance/1")
        throw input_error(prov_path.generic_string() + ": field schema", "must be agpu.sampled-provenance/1");
    const auto& host = p.value("host", json::object());
    std::string load;
    if (host.contains("load_average_before") && host["load_average_before"].is_array() && !host["load_average_before"].empty())
        load = ", load " + fmt(host["load_average_before"][0].get<double>()) + " at the start";
    r.provenance = "Measured " + p.value("started", std::string("(no date)")) + " to " +
                   p.value("finished", std::string("(no date)")) + " on " + host.value("cpu", std::string("(unknown CPU)")) +
                   ", " + std::to_string(host.value("cores", 0)) + " cores" + load + ", by " +
                   p.value("agpu_version", std::string("(unknown agpu)")) + ": `" + p.value("command", std::string()) + "`.";
    return r;
}

namespace {

// Per-run limits of the simulator's dots on the scaling charts: a few small n per algorithm and device.
constexpr double scaling_point_max_s = 0.1;
constexpr int scaling_points_per_series = 3;

// Count options: refuse any simulation estimated above `seconds`.
sim::count_options limited_to(double seconds) {
    sim::count_options o;
    o.max_simulation_s = seconds;
    return o;
}
// Closed forms only: every simulation refused.
sim::count_options closed_form_only() { return limited_to(1e-9); }

std::string family_of(const std::string& key) { return key.substr(0, key.find('/')); }

// The n of a family's scaling charts: powers of two (APSP) or four from lo to hi, within the algorithm's range.
std::vector<std::uint64_t> scaling_sizes(const model::algo_spec& spec) {
    const std::string f = family_of(spec.key);
    // Where a closed form walks every warp (the bitonic sort, the micro-kernels, APSP's tiles) its cost grows
    // with n: these ranges keep the charts to seconds.
    int lo = 10, hi = 28, step = 2;
    if (f == "apsp") lo = 6, hi = 12, step = 1;
    if (f == "rank") lo = 12, hi = 32;
    if (f == "micro") hi = 20;
    if (f == "sort") hi = 22;
    std::vector<std::uint64_t> out;
    for (int e = lo; e <= hi; e += step) {
        const std::uint64_t n = std::uint64_t(1) << e;
        if (n >= spec.min_n && n <= spec.max_n) out.push_back(n);
    }
    return out;
}

std::optional<model::partial_counts> closed_form_counts(const std::string& key, const model::device& d, std::uint64_t n,
                                                       const model::param_values& p) {
    const auto* cf = model::find_closed_form(key);
    if (!cf) return std::nullopt;
    try {
        return cf->costs(d.agpu, n, p);
    } catch (const input_error&) {
        return std::nullopt;  // parameters this device cannot run (a heap above M, a tile above a block)
    }
}

// Runs fn(i) for every i in [0, count) on `threads` threads (the calling one
// included); rethrows the first exception. Simulations are independent (each
// has its own executor; the engine's current-thread state is thread_local).
template <class F>
void parallel_for(std::size_t count, unsigned threads, F fn) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex m;
    auto work = [&] {
        for (std::size_t i; (i = next++) < count;) {
            try {
                fn(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(m);
                if (!error) error = std::current_exception();
                next = count;
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < std::min<std::size_t>(threads, count); ++w) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

class timer {
public:
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    }

private:
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

struct gathered {
    validate::sample_set data, check;
    std::vector<counter_point> counters;
    std::vector<std::pair<std::string, std::string>> not_compared;  // run, why
};

// Simulated against measured counters, per run: each counter the GPU measured
// on every launch, summed over the launches, against the simulator's totals for
// the same algorithm, n, parameters and seed on the dataset's preset (the
// per-launch comparison is `agpu compare`). A run the samples already simulated
// is not simulated again; another is simulated when its estimate is under the limit.
void compare_runs(const fs::path& dir, const std::map<std::string, const validate::fit_sample*>& simulated,
                  double max_simulation_s, gathered& g) {
    const auto prov = validate::read_provenance(dir);
    const auto dev = model::resolve_device(prov.value("device_id", std::string()));
    struct run {
        const validate::measurement* first = nullptr;
        bool complete = false, failed = false;
        std::map<std::string, double> sums;
        std::set<std::string> missing;
    };
    std::map<std::string, run> runs;
    const auto rows = validate::read_measurements(dir);
    for (const auto& r : rows) {
        auto& x = runs[r.run_id];
        if (!x.first) x.first = &r;
        if (r.launch == "run") {
            x.complete |= r.counter == "complete";
            x.failed |= r.counter == "check" && r.value && *r.value == 0;
            continue;
        }
        if (r.value) x.sums[r.counter] += *r.value;
        else x.missing.insert(r.counter);
    }
    for (const auto& [id, x] : runs) {
        if (!x.complete || x.failed) continue;
        const auto& m = *x.first;
        const sim::algorithm* algo = nullptr;
        for (const auto* a : sim::algorithms())
            if (a->spec.key == m.algo) algo = a;
        if (!algo) continue;  // a GPU-only baseline
        bool any = false;
        for (const auto& c : model::counter_table)
            any |= !c.cupti_metric.empty() && x.sums.count(std::string(c.name));
        if (!any) continue;  // timed without counters
        model::counts totals;
        if (const auto it = simulated.find(dir.string() + "\n" + id); it != simulated.end()) {
            totals = it->second->counts;
        } else {
            const auto params = model::parse_params(algo->spec, validate::split_params(m.params));
            const auto* cf = model::find_closed_form(algo->spec.key);
            model::counts partial;
            if (cf)
                for (const auto& [c, v] : cf->costs(dev.agpu, m.n, params)) partial[c] = v;
            const double est = cf ? sim::simulation_seconds_estimate(partial, m.n) : 0;
            if (!cf || est > max_simulation_s) {
                g.not_compared.emplace_back(id, cf ? "its exact simulation would take about " + fmt(est) + " s (limit " +
                                                         fmt(max_simulation_s) + " s)"
                                                   : "no closed form to estimate its simulation time from");
                continue;
            }
            const auto s = sim::simulate(*algo, dev, m.n, params, m.seed);
            if (!s.check.passed) throw internal_error("simulating " + id + " failed its check: " + s.check.detail);
            totals = s.record.totals();
        }
        for (const auto& c : model::counter_table) {
            const std::string name(c.name);
            if (c.cupti_metric.empty() || !x.sums.count(name) || x.missing.count(name)) continue;
            g.counters.push_back({m.algo, id + " (" + dev.id + ")", name, m.n, double(totals[c.id]), x.sums.at(name)});
        }
    }
}

seconds_point to_point(const validate::fit_sample& s, const model::time_vector& constants) {
    return {s.algo, s.device_id, s.run_id, s.n, s.measured_s, model::predict_seconds(s.features, constants)};
}

}  // namespace

document build_report(const report_options& opt) {
    const timer total;
    const unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    std::mutex say_mutex;
    auto say = [&](const std::string& line) {
        std::lock_guard<std::mutex> lock(say_mutex);
        if (opt.progress) opt.progress(line);
    };
    const model::time_fit& fit = opt.fit;
    const model::device fit_dev = model::resolve_device(fit.device);

    document doc;
    doc.title = "agpu report: the AGPU(p, b, M, w) model against " + fit.device + " measurements";
    doc.meta = {{"schema", report_schema},
                {"commit", build_info::commit},
                {"date", utc_now()},
                {"fit", (fit.source.empty() ? std::string("model/fits/h100.json (compiled in)") : fit.source) +
                            ", fitted on " + fit.device + " " + fit.date}};
    // Dataset names relative to the repository where they lie in it.
    auto name_of = [&](const fs::path& d) {
        const auto rel = fs::weakly_canonical(d).lexically_relative(fs::weakly_canonical(opt.repository_root));
        return rel.empty() || *rel.begin() == ".." ? d.generic_string() : rel.generic_string();
    };
    json data_names = json::array(), check_names = json::array();
    for (const auto& d : opt.data) data_names.push_back(name_of(d));
    for (const auto& d : opt.check) check_names.push_back(name_of(d));
    doc.meta["datasets"] = data_names;
    doc.meta["other devices' datasets"] = check_names;
    json counter_names = json::array();
    for (const auto& d : opt.counters) counter_names.push_back(name_of(d));
    doc.meta["datasets read for their counters only"] = counter_names;
    doc.meta["simulator limit"] = "runs estimated under " + fmt(opt.max_simulation_s) + " s are simulated";

    // ------------------------------------------------------------ records
    gathered g;
    {
        const timer t;
        std::vector<fs::path> all = opt.data;
        all.insert(all.end(), opt.check.begin(), opt.check.end());
        std::vector<validate::sample_set> sets(all.size());
        parallel_for(all.size(), threads, [&](std::size_t i) {
            const timer one;
            sets[i] = validate::load_samples({all[i]}, opt.max_simulation_s);
            say("  " + all[i].generic_string() + ": " + std::to_string(sets[i].samples.size()) + " runs (" +
                fmt(one.seconds()) + " s)");
        });
        for (std::size_t i = 0; i < all.size(); ++i) {
            auto& to = i < opt.data.size() ? g.data : g.check;
            to.samples.insert(to.samples.end(), sets[i].samples.begin(), sets[i].samples.end());
            to.skipped.insert(to.skipped.end(), sets[i].skipped.begin(), sets[i].skipped.end());
        }
        say("measured runs counted: " + std::to_string(g.data.samples.size()) + " + " +
            std::to_string(g.check.samples.size()) + " (" + fmt(t.seconds()) + " s)");
        doc.meta["read"] = std::to_string(opt.data.size()) + " datasets of " + fit.device + " (" +
                           std::to_string(g.data.samples.size()) + " timed runs), " + std::to_string(opt.check.size()) +
                           " of other devices (" + std::to_string(g.check.samples.size()) + " timed runs), " +
                           std::to_string(opt.counters.size()) + " more for their hardware counters; the paths below";
    }
    {
        const timer t;
        std::map<std::string, const validate::fit_sample*> simulated;
        for (const auto* set : {&g.data, &g.check})
            for (const auto& s : set->samples)
                if (s.count_source == sim::to_string(sim::count_source::simulator)) simulated[s.dataset + "\n" + s.run_id] = &s;
        std::vector<fs::path> all = opt.data;
        all.insert(all.end(), opt.counters.begin(), opt.counters.end());
        all.insert(all.end(), opt.check.begin(), opt.check.end());
        std::vector<gathered> parts(all.size());
        parallel_for(all.size(), threads, [&](std::size_t i) { compare_runs(all[i], simulated, opt.max_simulation_s, parts[i]); });
        std::size_t n = 0;
        for (auto& p : parts) {
            n += !p.counters.empty();
            g.counters.insert(g.counters.end(), p.counters.begin(), p.counters.end());
            g.not_compared.insert(g.not_compared.end(), p.not_compared.begin(), p.not_compared.end());
        }
        say("simulated against measured counters: " + std::to_string(g.counters.size()) + " run counters of " +
            std::to_string(n) + " datasets (" + fmt(t.seconds()) + " s)");
    }

    // ------------------------------------------------------------ sections
    doc.sections.push_back(devices_section(model::presets()));

    // The refit: on the fit's own datasets where they are all here, else on every dataset given.
    validate::fit_report refit;
    {
        const timer t;
        std::set<std::string> fit_sets;
        bool all_here = !fit.datasets.empty();
        for (const auto& name : fit.datasets) {
            const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : opt.repository_root / name;
            bool found = false;
            for (const auto& d : opt.data)
                if (fs::weakly_canonical(d) == fs::weakly_canonical(p)) {
                    fit_sets.insert(d.string());
                    found = true;
                }
            all_here = all_here && found;
        }
        validate::sample_set subset;
        std::vector<std::string> names;
        for (const auto& d : opt.data)
            if (!all_here || fit_sets.count(d.string())) names.push_back(d.generic_string());
        for (const auto& s : g.data.samples)
            if (!all_here || fit_sets.count(s.dataset)) subset.samples.push_back(s);
        for (const auto& s : g.data.skipped)
            if (!all_here || fit_sets.count(s.dataset)) subset.skipped.push_back(s);
        if (!subset.samples.empty()) refit = validate::fit_datasets(subset, names, "agpu report");
        say("refit and cross-validation (" + fmt(t.seconds()) + " s)");
    }

    // Families: every simulated algorithm, grouped by the key's family.
    {
        const timer t;
        std::map<std::string, family_records> families;
        const std::vector<std::string> scaling_devices = {fit_dev.id, "a100", "v100", "geforce-gtx280"};
        const std::vector<std::string> simulated_devices = {fit_dev.id, "geforce-gtx280"};
        struct series {
            const sim::algorithm* algo;
            std::string device;
            std::vector<scaling_point> points;
        };
        std::vector<series> all;
        for (const auto* a : sim::algorithms()) {
            const auto& key = a->spec.key;
            auto& f = families[family_of(key)];
            f.family = family_of(key);
            const auto* cf = model::find_closed_form(key);
            f.formulas[key] = cf ? cf->formula : "";
            for (const auto& dev_id : scaling_devices) all.push_back({a, dev_id, {}});
        }
        parallel_for(all.size(), threads, [&](std::size_t i) {
            auto& se = all[i];
            const auto& key = se.algo->spec.key;
            const auto params = model::parse_params(se.algo->spec, {});
            const auto dev = model::resolve_device(se.device);
            const bool simulate =
                std::find(simulated_devices.begin(), simulated_devices.end(), se.device) != simulated_devices.end();
            int simulated = 0;
            for (auto n : scaling_sizes(se.algo->spec)) {
                const auto cf_counts = closed_form_counts(key, dev, n, params);
                if (!cf_counts) continue;
                for (auto c : {counter::time_steps, counter::io_blocks})
                    if (cf_counts->count(c))
                        se.points.push_back({key, se.device, "closed form", n, std::string(model::info(c).name),
                                             double(cf_counts->at(c))});
                if (!simulate || simulated >= scaling_points_per_series) continue;
                model::counts partial;
                for (const auto& [c, v] : *cf_counts) partial[c] = v;
                if (sim::simulation_seconds_estimate(partial, n) > scaling_point_max_s) continue;
                try {
                    const timer one;
                    const auto s = sim::simulate(*se.algo, dev, n, params, 1);
                    // The estimate is blind where a closed form counts no instructions (the sorts'): the
                    // series stops at the first simulation that took longer than the limit.
                    if (one.seconds() > scaling_point_max_s) simulated = scaling_points_per_series;
                    if (!s.check.passed)
                        throw internal_error("simulating " + key + " n=" + std::to_string(n) + " on " + se.device +
                                             " failed its check: " + s.check.detail);
                    const auto tot = s.record.totals();
                    for (auto c : {counter::time_steps, counter::io_blocks})
                        se.points.push_back({key, se.device, "simulator", n, std::string(model::info(c).name), double(tot[c])});
                    ++simulated;
                } catch (const kernel_error&) {
                    // the device cannot run the default parameters (a block or tile above its limits)
                } catch (const input_error&) {
                }
            }
        });
        for (auto& se : all) {
            auto& f = families[family_of(se.algo->spec.key)];
            f.scaling.insert(f.scaling.end(), se.points.begin(), se.points.end());
        }
        for (const auto& s : g.data.samples) families[family_of(s.algo)].seconds.push_back(to_point(s, fit.constants));
        for (const auto& s : g.check.samples) families[family_of(s.algo)].seconds.push_back(to_point(s, fit.constants));
        for (const auto& c : g.counters) families[family_of(c.algo)].counters.push_back(c);
        std::map<std::string, std::vector<std::string>> left_out;
        for (const auto& [run, why] : g.not_compared) left_out[family_of(run)].push_back(run + " (" + why + ")");
        for (const auto& [family, runs] : left_out) {
            std::string list;
            for (const auto& r : runs) list += (list.empty() ? "" : "; ") + r;
            families[family].notes.push_back("Counters not compared here, for want of time (`agpu compare --data DIR` "
                                             "compares every launch of a dataset): " + list + ".");
        }
        for (auto& [name, f] : families) {
            if (f.formulas.empty()) continue;  // a GPU-only family (baselines)
            if (f.seconds.empty())
                f.notes.push_back("No measured run of " + name + " is among the datasets reported on (`agpu report "
                                  "--data DIR...` chooses them; by default the fit's datasets and the device's sort "
                                  "counters dataset).");
            if (name == "sort" && !f.seconds.empty())
                f.notes.push_back("The sort's runs are not among the fit's (their counts need the simulator run by "
                                  "run), and the model predicts them far too fast: the merge passes are bound by "
                                  "integer instructions (the heap's addressing and the merge networks) that the "
                                  "AGPU steps do not count (kernels/sort/README.md, model/README.md).");
            doc.sections.push_back(family_section(f));
        }
        say("algorithm families (" + fmt(t.seconds()) + " s)");
    }

    doc.sections.push_back(fit_section(fit, refit));
    {
        std::vector<seconds_point> base, other;
        for (const auto& s : g.data.samples) base.push_back(to_point(s, fit.constants));
        for (const auto& s : g.check.samples) other.push_back(to_point(s, fit.constants));
        doc.sections.push_back(cross_device_section(fit.device, base, other));
    }

    // Hypothetical devices: closed forms at paper scale, one parameter at a time.
    {
        const timer t;
        struct run_at {
            const char* algo;
            std::uint64_t n;
            std::vector<std::string> params;
        };
        // Closed forms only (instant at paper scale); a device whose counts would need the simulator is noted.
        const std::vector<run_at> runs = {{"stats/pairwise", 1ull << 28, {}}, {"stats/fused", 1ull << 28, {}},
                                          {"scan/work-efficient", 1ull << 28, {}}, {"apsp/blocked", 4096, {}},
                                          {"rank/interleaved", 1ull << 32, {"op=build"}}};
        const std::vector<std::pair<std::string, std::vector<double>>> factors = {
            {"bandwidth", {0.5, 1, 2, 4}}, {"clock", {0.5, 1, 2}}, {"p", {0.5, 1, 2}}, {"b", {0.5, 1, 2}}, {"M", {0.25, 0.5, 1, 2}}};
        std::vector<sweep_point> points;
        std::vector<std::string> notes;
        auto seconds_on = [&](const sim::algorithm& a, const model::device& d, std::uint64_t n, const model::param_values& p,
                              std::vector<std::string>& out_notes) -> std::optional<std::pair<double, std::string>> {
            try {
                const auto mc = sim::count_run(a, d, n, p, 1, closed_form_only());
                const auto features = model::time_features(mc.totals, d, mc.footprint_bytes);
                return std::pair{model::predict_seconds(features, fit.constants),
                                 std::string(model::info(model::dominant_bound(features, fit.constants)).name)};
            } catch (const sim::simulation_too_long&) {
                out_notes.push_back(a.spec.key + " n=" + std::to_string(n) + " on " + d.id +
                                ": left out (its closed form does not give every counter the time model reads there).");
            } catch (const input_error& e) {
                out_notes.push_back(a.spec.key + " on " + d.id + ": " + e.what() + ".");
            } catch (const kernel_error& e) {
                out_notes.push_back(a.spec.key + " on " + d.id + ": " + e.what() + ".");
            }
            return std::nullopt;
        };
        auto base_value = [&](const std::string& param) -> double {
            if (param == "bandwidth") return fit_dev.hw.mem_bandwidth_gbs;
            if (param == "clock") return fit_dev.hw.sm_clock_mhz;
            if (param == "p") return double(fit_dev.agpu.p);
            if (param == "b") return fit_dev.agpu.b;
            return double(fit_dev.agpu.M);
        };
        std::vector<std::vector<sweep_point>> run_points(runs.size());
        std::vector<std::vector<std::string>> run_notes(runs.size());
        parallel_for(runs.size(), threads, [&](std::size_t i) {
            const auto& r = runs[i];
            auto& my_points = run_points[i];
            auto& my_notes = run_notes[i];
            const auto& a = sim::find_algorithm(r.algo);
            const auto params = model::parse_params(a.spec, r.params);
            const auto base = seconds_on(a, fit_dev, r.n, params, my_notes);
            if (!base) return;
            for (const auto& [param, fs_] : factors)
                for (double f : fs_) {
                    double v = base_value(param) * f;
                    if (param != "bandwidth" && param != "clock") v = std::round(v);
                    if (param == "p") v = std::round(v / fit_dev.agpu.b) * fit_dev.agpu.b;
                    model::device d;
                    try {
                        d = f == 1 ? fit_dev : model::with_parameter(fit_dev, param, v);
                    } catch (const input_error& e) {
                        my_notes.push_back(std::string("--sweep ") + param + ": " + e.what() + ".");
                        continue;
                    }
                    if (const auto x = seconds_on(a, d, r.n, params, my_notes))
                        my_points.push_back({r.algo, r.n, param, d.id, v, base_value(param), x->first, base->first, x->second});
                }
            for (const auto& d : model::presets()) {
                if (d.kind != "hypothetical" || d.base != fit_dev.id) continue;
                if (const auto x = seconds_on(a, d, r.n, params, my_notes))
                    my_points.push_back({r.algo, r.n, "preset", d.id, 0, 0, x->first, base->first, x->second});
            }
        });
        for (std::size_t i = 0; i < runs.size(); ++i) {
            points.insert(points.end(), run_points[i].begin(), run_points[i].end());
            notes.insert(notes.end(), run_notes[i].begin(), run_notes[i].end());
        }
        doc.sections.push_back(sweeps_section(fit_dev.id, points, notes));
        say("hypothetical devices (" + fmt(t.seconds()) + " s)");
    }

    // The source papers' questions.
    {
        const timer t;
        const auto& pairwise = sim::find_algorithm("stats/pairwise");
        std::map<std::uint64_t, pairwise_row> rows;
        const std::string float_params = "type=float";
        std::map<std::uint64_t, double> measured_pairwise, measured_fused;
        for (const auto& s : g.data.samples) {
            if (s.params != float_params) continue;
            if (s.algo == "stats/pairwise") measured_pairwise.emplace(s.n, s.measured_s);
            if (s.algo == "stats/fused") measured_fused.emplace(s.n, s.measured_s);
        }
        std::set<std::uint64_t> sizes;
        for (const auto& [n, v] : measured_pairwise) sizes.insert(n);
        if (sizes.size() < 3)
            for (int e = 10; e <= 30; e += 4) sizes.insert(std::uint64_t(1) << e);
        const auto params = model::parse_params(pairwise.spec, {float_params});
        for (auto n : sizes) {
            const auto mc = sim::count_run(pairwise, fit_dev, n, params, 1, limited_to(opt.max_simulation_s));
            pairwise_row r;
            r.n = n;
            r.launches = double(mc.totals[counter::launches]);
            r.io_blocks = double(mc.totals[counter::io_blocks]);
            r.array_blocks = std::ceil(double(n) / fit_dev.agpu.b);
            r.predicted_s = model::predict_seconds(model::time_features(mc.totals, fit_dev, mc.footprint_bytes), fit.constants);
            if (measured_pairwise.count(n)) r.measured_pairwise_s = measured_pairwise.at(n);
            if (measured_fused.count(n)) r.measured_fused_s = measured_fused.at(n);
            rows[n] = r;
        }
        std::vector<pairwise_row> list;
        for (const auto& [n, r] : rows) list.push_back(r);
        doc.sections.push_back(pairwise_question(fit_dev.id, list));

        std::vector<model::device> real;
        for (const auto& d : model::presets())
            if (d.kind == "real") real.push_back(d);
        doc.sections.push_back(tile_question(real, 8192, {8, 16, 32, 64, 128, 256}, 4));

        const auto& multiway = sim::find_algorithm("sort/multiway");
        const auto& pairwise_sort = sim::find_algorithm("sort/pairwise");
        const auto mp = model::parse_params(multiway.spec, {}), pp = model::parse_params(pairwise_sort.spec, {});
        std::vector<sort_io_row> sort_rows;
        // Blocks: the closed form's exact count, else its [low, high] (kernels/sort/sort_bounds.hpp).
        auto blocks = [&](const sim::algorithm& a, const model::param_values& p, std::uint64_t n)
            -> std::optional<std::pair<double, double>> {
            const auto exact = closed_form_counts(a.spec.key, fit_dev, n, p);
            if (exact && exact->count(counter::io_blocks)) return std::pair{double(exact->at(counter::io_blocks)), double(exact->at(counter::io_blocks))};
            const auto b = model::sort_costs::sort_bounds(fit_dev.agpu, a.spec.key, n, p);
            if (!b.low.count(counter::io_blocks) || !b.high.count(counter::io_blocks)) return std::nullopt;
            return std::pair{double(b.low.at(counter::io_blocks)), double(b.high.at(counter::io_blocks))};
        };
        for (int e = 12; e <= 28; e += 2) {
            const std::uint64_t n = std::uint64_t(1) << e;
            const auto m = blocks(multiway, mp, n), p = blocks(pairwise_sort, pp, n);
            if (!m || !p) continue;
            const double words = 1;  // the default sorts u32 keys only: one word per element
            sort_rows.push_back({n, m->first, m->second, p->first, p->second,
                                 sort_io_lower_bound(double(n) * words, fit_dev.agpu.b, double(fit_dev.agpu.M))});
        }
        if (!sort_rows.empty()) doc.sections.push_back(sort_question(fit_dev, sort_rows));
        say("the source papers' questions (" + fmt(t.seconds()) + " s)");
    }
    // Sampled simulation against exact: committed measurements, read as they are.
    {
        const fs::path dir =
            opt.sampled_table.empty() ? opt.repository_root / "validate" / "data" / "host" / "sampled" : opt.sampled_table;
        auto records = read_sampled_table(dir);
        records.source = name_of(dir / "sampled.csv");
        doc.sections.push_back(sampled_section(records));
        say("sampled simulation against exact: " + (records.missing.empty() ? std::to_string(records.counters.size()) +
                                                                                  " counter values"
                                                                            : records.missing));
    }
    if (!opt.sweep.empty()) doc.sections.push_back(sweep_section(sweep::read_results(opt.sweep)));
    doc.meta["built in"] = fmt(total.seconds()) + " s";
    return doc;
}

}  // namespace agpu::reports
