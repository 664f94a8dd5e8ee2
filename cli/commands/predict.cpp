// agpu predict --algo KEY --n N[,N...] [--device ID|FILE] [--set NAME=VALUE ...] [--fit FILE]
//              [--sweep PARAM=v1,v2,...] [--mode exact|sampled|auto] [--threads T] [--quiet] [--max-sim-seconds S] [--format table|json]
// Counts (closed form where it gives every counter the time model reads, the
// simulator otherwise) and predicted seconds on any device, real or
// hypothetical, optionally over one swept device parameter. The seconds are
// the calibrated model's (model/launch_time.hpp: the device's own time
// constants), explained bound by bound; a fit file (--fit) adds the fitted
// model's seconds beside them as a diagnostic.
#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../progress.hpp"
#include "../table.hpp"
#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/analysis.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/model/derivation.hpp"
#include "agpu/model/launch_time.hpp"
#include "agpu/model/model_errors.hpp"
#include "agpu/model/sweep.hpp"
#include "agpu/model/time_model.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/model_counts.hpp"
#include "agpu/sweep/prediction.hpp"

namespace agpu::cli {
namespace {

using json = nlohmann::json;

constexpr const char* predict_schema = "agpu.predict/3";
const char* predict_usage =
    "agpu predict --algo KEY --n N[,N...] [--device ID|FILE] [--device-set NAME=VALUE ...] [--set NAME=VALUE ...]\n"
    "                    [--fit FILE] [--sweep PARAM=v1,v2,...] [--mode exact|sampled|auto] [--threads T] [--quiet]\n"
    "                    [--max-sim-seconds S] [--seed S] [--format table|json]";

// The counts column: closed form, simulator, or simulator (sampled, ±x% time).
std::string source_text(const sim::model_counts& c) {
    if (c.source != sim::count_source::simulator || c.mode == sim::sim_mode::exact) return sim::to_string(c.source);
    return "simulator (sampled, time ±" +
           fmt_num(100 * c.relative_error_95[std::size_t(model::counter::time_steps)], 2) + "%)";
}

std::vector<std::uint64_t> parse_sizes(const std::string& text) {
    std::vector<std::uint64_t> out;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        std::uint64_t v = 0;
        if (!model::parse_unsigned(item, v))
            throw input_error("option --n",
                              "must be a comma-separated list of non-negative integers, got '" + text + "'");
        out.push_back(v);
    }
    if (out.empty())
        throw input_error("option --n", "must be a comma-separated list of non-negative integers, got '" + text + "'");
    return out;
}

struct row {
    std::uint64_t n = 0;
    model::device dev;
    std::optional<double> sweep_value;
    sweep::prediction p;
};

std::string pct(double v) { return fmt_num(100 * v, 3) + "%"; }

// How far to trust the seconds: the calibrated model's measured error on this
// device's runs of this family (model/scores/calibrated.json), or plainly
// that there is none.
std::string trust_line(const model::device& d, const std::string& algo) {
    const std::string family = algo.substr(0, algo.find('/'));
    const auto& all = model::calibrated_errors().devices;
    std::string measured;
    for (const auto& [id, e] : all)
        if (e.families.count("all"))
            measured += (measured.empty() ? "" : ", ") + id + " " + pct(e.families.at("all").mape);
    const auto it = d.kind == "real" ? all.find(d.id) : all.end();
    if (it == all.end())
        return "trust: " + d.id + " has no measurements in agpu's test data, so these seconds are unchecked" +
               (measured.empty() ? std::string(" (no device has any yet)")
                                 : " (the model's MAPE over all test runs where measured: " + measured + ")");
    const auto& e = it->second;
    const auto f = e.families.find(family);
    if (f == e.families.end())
        return "trust: " + family + " has no test runs on " + d.id + ", so these seconds are unchecked" +
               (e.families.count("all") ? " (every family there: MAPE " + pct(e.families.at("all").mape) + ")"
                                        : std::string());
    const auto& m = f->second;
    return "trust: the calibrated model's error on " + d.id + "'s " + family + " test runs: MAPE " + pct(m.mape) +
           " (95% interval " + pct(m.mape_low) + " to " + pct(m.mape_high) + "), median " + pct(m.median) + ", p90 " +
           pct(m.p90) + " over " + std::to_string(m.runs) + " runs (" + e.data + ", " + e.date + ")";
}

// One row's account: the launches' overhead, then every bound with its
// quantity and rate, what it adds, and the winner's margin.
void explain(std::ostream& os, const row& r) {
    const auto& s = r.p.summary;
    os << "\nn = " << r.n << ": " << model::seconds_text(s.seconds) << " = " << s.launches << " launch"
       << (s.launches == 1 ? "" : "es") << "' overhead (" << model::seconds_text(s.launch_overhead_s)
       << ") + each launch's largest bound; " << model::name(s.winner) << " adds the most, "
       << (s.margin > 0 ? fmt_num(s.margin, 3) + "x the next bounds of the same launches" : std::string("unopposed"))
       << "\n";
    text_table t;
    t.add_column("bound", text_table::align::left);
    t.add_column("quantity at rate = alone", text_table::align::left);
    t.add_column("wins");
    t.add_column("adds");
    t.add_column("what it counts", text_table::align::left);
    for (const auto& b : s.bounds)
        t.add_row({std::string(model::name(b.bound)), model::describe(b), std::to_string(b.launches_won),
                   b.seconds_added > 0 ? model::seconds_text(b.seconds_added) : "-", b.what});
    t.print(os);
}

int run_predict(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("algo", po::value<std::string>()->required(), "algorithm key (agpu algos lists them)")(
        "n", po::value<std::string>(), "problem sizes N[,N...] (default: the algorithm's)")(
        "device", po::value<std::string>()->default_value("h100"), "device preset id or device file")(
        "device-set", po::value<std::vector<std::string>>()->composing(),
        "device parameter NAME=VALUE (b, M, p, w, k, clock, bandwidth or a field name; repeatable): derived fields "
        "follow")("set", po::value<std::vector<std::string>>()->composing(),
                  "algorithm parameter NAME=VALUE (repeatable)")(
        "fit", po::value<std::string>(),
        "a fit file whose seconds are shown beside the calibrated model's, as a diagnostic")(
        "sweep", po::value<std::string>(),
        "PARAM=v1,v2,...: one device parameter over values (b, M, p, clock, bandwidth)")(
        "max-sim-seconds", po::value<double>()->default_value(60),
        "refuse a simulation estimated to take longer (0: no limit)")(
        "seed", po::value<std::uint64_t>()->default_value(1), "seed of the random inputs (simulator)")(
        "mode", po::value<std::string>()->default_value("auto"),
        "where the simulator counts: exact, sampled (a sample of thread blocks recorded, the rest extrapolated), or "
        "auto (exact when estimated at most 2 s)")("threads", po::value<unsigned>()->default_value(0),
                                                   "host threads running a launch's blocks (0: one per core)")(
        "quiet", po::bool_switch(), "no progress bar on stderr");
    add_format_option(opts);
    po::variables_map vm;
    if (!parse_options(inv, predict_usage, opts, {}, vm)) return exit_ok;
    const auto format = format_option(vm);
    const auto& algo = sim::find_algorithm(vm["algo"].as<std::string>());
    const auto base = device_option(vm);
    const auto sizes =
        vm.count("n") ? parse_sizes(vm["n"].as<std::string>()) : std::vector<std::uint64_t>{algo.spec.default_n};
    for (auto n : sizes) model::check_n(algo.spec, n);
    const auto params = model::parse_params(
        algo.spec, vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{});
    const bool with_fit = vm.count("fit") > 0;
    const model::time_fit fit = with_fit ? model::load_fit_file(vm["fit"].as<std::string>()) : model::default_fit();
    const double max_sim = vm["max-sim-seconds"].as<double>();
    if (!(max_sim >= 0)) throw input_error("option --max-sim-seconds", "must be a non-negative number of seconds");
    const auto mode = sim::parse_mode(vm["mode"].as<std::string>());
    const bool show_progress = !vm["quiet"].as<bool>() && progress_bar::stderr_is_terminal();

    std::optional<model::sweep_spec> sweep;
    if (vm.count("sweep")) sweep = model::parse_sweep(vm["sweep"].as<std::string>());
    std::vector<std::pair<std::optional<double>, model::device>> devices;
    if (sweep)
        for (double v : sweep->values) devices.emplace_back(v, model::with_parameter(base, sweep->param, v));
    else devices.emplace_back(std::nullopt, base);

    std::vector<row> rows;
    for (const auto& [value, dev] : devices)
        for (auto n : sizes) {
            row r;
            r.n = n;
            r.dev = dev;
            r.sweep_value = value;
            std::uint64_t total_threads = 0;
            if (const auto* cf = model::find_closed_form(algo.spec.key)) {
                const auto p = cf->costs(dev.agpu, n, params);
                if (p.count(model::counter::threads)) total_threads = p.at(model::counter::threads);
            }
            progress_bar bar(inv.err, show_progress, total_threads,
                             "simulating " + algo.spec.key + " n=" + std::to_string(n));
            sim::count_options co;
            co.max_simulation_s = max_sim;
            co.mode = mode;
            co.threads = vm["threads"].as<unsigned>();
            co.progress = [&bar](std::uint64_t t) { bar.add(t); };
            try {
                auto p = sweep::predict(algo, dev, n, params, vm["seed"].as<std::uint64_t>(),
                                        sweep::counts_mode::automatic, co, fit);
                bar.finish();
                r.p = std::move(p);
            } catch (const sim::simulation_too_long& e) {
                throw input_error(e.where(), e.rule() + "; --max-sim-seconds 0 runs it anyway");
            }
            rows.push_back(std::move(r));
        }

    // The algorithm's own reading of each device (e.g. apsp's tile sizes), at the largest n.
    std::vector<std::pair<std::string, model::analysis>> analyses;
    if (const auto* an = model::find_analysis(algo.spec.key))
        for (const auto& [value, dev] : devices)
            analyses.emplace_back(dev.id, an->analyze(dev, *std::max_element(sizes.begin(), sizes.end()), params));

    if (format == output_format::json) {
        json janalyses = json::array();
        for (const auto& [id, a] : analyses) {
            auto j = model::to_json(a);
            j["device"] = id;
            j["n"] = *std::max_element(sizes.begin(), sizes.end());
            janalyses.push_back(j);
        }
        json jrows = json::array();
        for (const auto& r : rows) {
            json jr = {{"n", r.n},
                       {"device", r.dev.id},
                       {"counts", sim::to_string(r.p.counts.source)},
                       {"mode", sim::to_string(r.p.counts.mode)},
                       {"totals", sim::counts_to_json(r.p.counts.totals)},
                       {"relative_error_95", sim::errors_to_json(r.p.counts.relative_error_95)},
                       {"seconds", r.p.seconds},
                       {"floor_s", r.p.floor_s},
                       {"bound", r.p.bound},
                       {"calibrated", sweep::summary_to_json(r.p.summary)}};
            if (with_fit) {
                jr["fit_seconds"] = r.p.fit_seconds;
                jr["fit_terms_s"] = sweep::terms_to_json(r.p.fit_terms);
            }
            if (sweep) jr[sweep->param] = *r.sweep_value;
            jrows.push_back(jr);
        }
        json jmodel = {{"name", "calibrated"},
                       {"timing_sources", model::timing_source_kinds(base)},
                       {"trust", trust_line(base, algo.spec.key)}};
        if (with_fit) jmodel["fit"] = {{"source", sweep::fit_source(fit)}, {"device", fit.device}, {"date", fit.date}};
        inv.out << json{{"schema", predict_schema},
                        {"commit", build_info::commit},
                        {"device", model::device_summary_json(base)},
                        {"algo", algo.spec.key},
                        {"params", params.all()},
                        {"sweep", sweep ? json{{"param", sweep->param}, {"values", sweep->values}} : json(nullptr)},
                        {"time_model", jmodel},
                        {"rows", jrows},
                        {"analysis", janalyses}}
                       .dump(2)
                << '\n';
        return exit_ok;
    }
    auto& os = inv.out;
    os << algo.spec.key << " on " << base.id << " " << base.agpu;
    for (const auto& [k, v] : params.all()) os << ", " << k << " = " << v;
    os << "\ntime model: calibrated (docs/model.md), from " << base.id << "'s time constants ("
       << model::timing_source_kinds(base) << "); nothing fitted on algorithm runs\n"
       << trust_line(base, algo.spec.key) << "\n\n";
    text_table t;
    t.add_column("n");
    if (sweep) t.add_column(sweep->param);
    t.add_column("counts", text_table::align::left);
    for (auto c : {model::counter::launches, model::counter::time_steps, model::counter::io_blocks,
                   model::counter::global_sectors, model::counter::bank_conflicts})
        t.add_column(std::string(model::info(c).name));
    t.add_column("seconds");
    t.add_column("floor");
    t.add_column("bound", text_table::align::left);
    if (with_fit) t.add_column("fit seconds");
    for (const auto& r : rows) {
        std::vector<std::string> cells{std::to_string(r.n)};
        if (sweep) cells.push_back(fmt_num(*r.sweep_value));
        cells.push_back(source_text(r.p.counts));
        for (auto c : {model::counter::launches, model::counter::time_steps, model::counter::io_blocks,
                       model::counter::global_sectors, model::counter::bank_conflicts})
            cells.push_back(fmt_num(double(r.p.counts.totals[c])));
        cells.push_back(fmt_num(r.p.seconds, 4));
        cells.push_back(fmt_num(r.p.floor_s, 4));
        cells.push_back(r.p.bound);
        if (with_fit) cells.push_back(fmt_num(r.p.fit_seconds, 4));
        t.add_row(std::move(cells));
    }
    t.print(os);
    // Each row's bounds; over a sweep, the last row's (the largest n at the last value).
    if (rows.size() <= 4) {
        for (const auto& r : rows) explain(os, r);
    } else {
        os << "\n(the bounds of the last row; --format json has every row's)";
        explain(os, rows.back());
    }
    if (with_fit)
        os << "\nfit seconds: " << sweep::fit_source(fit) << ", fitted on " << fit.device
           << " runs, a diagnostic (agpu fit)\n";
    for (const auto& [id, a] : analyses) {
        os << "\n" << id << ", n = " << *std::max_element(sizes.begin(), sizes.end()) << ": " << a.title << "\n";
        text_table at;
        for (const auto& c : a.columns)
            at.add_column(c, c == "bound" ? text_table::align::left : text_table::align::right);
        for (const auto& r : a.rows) at.add_row(r);
        at.print(os);
        os << a.conclusion << "\n";
    }
    return exit_ok;
}

AGPU_COMMAND("predict", "counts and predicted seconds of an algorithm on any device (closed forms or the simulator)",
             run_predict);

}  // namespace
}  // namespace agpu::cli
