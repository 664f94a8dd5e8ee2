// agpu report: the records gathered once (the measured datasets, counted;
// simulated against measured counters), then every registered section in its
// order (context.hpp).
#include "agpu/reports/report.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/registry.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/utc_time.hpp"
#include "agpu/validate/dataset.hpp"
#include "context.hpp"

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
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (ec) break;
        if (it->is_directory() && validate::is_dataset_dir(it->path())) out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// ---------------------------------------------------------------- registries

using section_registry = keyed_registry<report_section>;
using family_registry = keyed_registry<report_family>;

report_section_registrar::report_section_registrar(report_section s) {
    const std::string key = s.key;  // read before the move below
    section_registry::add(key, std::move(s));
}

std::vector<const report_section*> report_sections() {
    std::vector<const report_section*> out;
    for (const auto& [key, s] : section_registry::all()) out.push_back(&s);
    std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->order < b->order; });
    return out;
}

report_family_registrar::report_family_registrar(report_family f) {
    const std::string key = f.family;
    family_registry::add(key, std::move(f));
}

report_family family_settings(const std::string& family) {
    if (const auto* f = family_registry::find(family)) return *f;
    report_family f;
    f.family = family;
    return f;
}

// ---------------------------------------------------------------- helpers

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

seconds_point to_point(const validate::fit_sample& s, const model::time_vector& constants) {
    return {s.algo, s.device_id, s.run_id, s.n, s.measured_s, model::predict_seconds(s.features, constants)};
}

namespace {

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
        for (const auto& c : model::counter_table) any |= !c.cupti_metric.empty() && x.sums.count(std::string(c.name));
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
                g.not_compared.emplace_back(id, cf ? "its exact simulation would take about " + fmt(est) +
                                                         " s (limit " + fmt(max_simulation_s) + " s)"
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

    report_context ctx{opt, fit, fit_dev, threads, {}, say, name_of};
    gathered& g = ctx.records;
    // ------------------------------------------------------------ records
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
                if (s.count_source == sim::to_string(sim::count_source::simulator))
                    simulated[s.dataset + "\n" + s.run_id] = &s;
        std::vector<fs::path> all = opt.data;
        all.insert(all.end(), opt.counters.begin(), opt.counters.end());
        all.insert(all.end(), opt.check.begin(), opt.check.end());
        std::vector<gathered> parts(all.size());
        parallel_for(all.size(), threads,
                     [&](std::size_t i) { compare_runs(all[i], simulated, opt.max_simulation_s, parts[i]); });
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
    for (const auto* s : report_sections()) {
        const timer t;
        for (auto& built : s->build(ctx)) doc.sections.push_back(std::move(built));
        say(s->progress + " (" + fmt(t.seconds()) + " s)");
    }
    doc.meta["built in"] = fmt(total.seconds()) + " s";
    return doc;
}

}  // namespace agpu::reports
