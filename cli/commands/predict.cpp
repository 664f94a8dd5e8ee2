// agpu predict --algo KEY --n N[,N...] [--device ID|FILE] [--set NAME=VALUE ...] [--fit FILE]
//              [--sweep PARAM=v1,v2,...] [--mode exact|sampled|auto] [--threads T] [--quiet] [--max-sim-seconds S] [--format table|json]
// Counts (closed form where it gives every counter the time model reads, the
// simulator otherwise) and predicted seconds on any device, real or
// hypothetical, optionally over one swept device parameter.
#include <algorithm>
#include <iostream>
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
#include "agpu/model/sweep.hpp"
#include "agpu/model/time_model.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/model_counts.hpp"
#include "agpu/sweep/prediction.hpp"

namespace agpu::cli {
namespace {

using json = nlohmann::json;

constexpr const char* predict_schema = "agpu.predict/2";
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
    sim::model_counts counts;
    model::time_vector terms{};  // constant * feature; the bounds combine by max
    model::time_term bound = model::time_term::dram;
    double seconds = 0;
};

// How far to trust the seconds: the fit's own errors on this algorithm's
// measured runs, or over every run where it has none of this algorithm's.
std::string error_line(const model::fit_errors& e, const std::string& algo, const std::string& device) {
    auto pct = [](double v) { return fmt_num(100 * v, 3) + "%"; };
    std::string s = "the fit's error (MAPE of measured " + device + " runs): ";
    if (e.algorithm_in_sample && e.algorithm_runs) {
        s += algo + " " + pct(*e.algorithm_in_sample) + " over " + std::to_string(*e.algorithm_runs) + " runs";
        if (e.algorithm_worst_in_sample) s += " (worst " + pct(*e.algorithm_worst_in_sample) + ")";
        if (e.algorithm_held_out) s += ", " + pct(*e.algorithm_held_out) + " with it held out of the fit";
        return s;
    }
    s += algo + " has no runs in the fit, so these seconds are unchecked by it";
    if (e.algorithm_held_out_overall)
        s += " (an algorithm the fit has, held out of it, is off by " + pct(*e.algorithm_held_out_overall) + ")";
    else s += " (and the fit file records no errors)";
    return s;
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
        "fit", po::value<std::string>(), "time-model fit file (default: the committed H100 fit)")(
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
    const model::time_fit fit =
        vm.count("fit") ? model::load_fit_file(vm["fit"].as<std::string>()) : model::default_fit();
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
                r.counts = std::move(p.counts);
                r.terms = p.terms;
                r.bound = p.bound;
                r.seconds = p.seconds;
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
            json terms = json::object();
            for (const auto& t : model::time_term_table) terms[std::string(t.name)] = r.terms[std::size_t(t.id)];
            json jr = {{"n", r.n},
                       {"device", r.dev.id},
                       {"counts", sim::to_string(r.counts.source)},
                       {"mode", sim::to_string(r.counts.mode)},
                       {"totals", sim::counts_to_json(r.counts.totals)},
                       {"relative_error_95", sim::errors_to_json(r.counts.relative_error_95)},
                       {"seconds", r.seconds},
                       {"terms_s", terms},
                       {"bound", std::string(model::info(r.bound).name)}};
            if (sweep) jr[sweep->param] = *r.sweep_value;
            jrows.push_back(jr);
        }
        const auto err = model::errors_for(fit, algo.spec.key);
        auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
        json jfit = {{"source", fit.source.empty() ? std::string("model/fits/h100.json (compiled in)") : fit.source},
                     {"device", fit.device},
                     {"date", fit.date},
                     {"constants", model::fit_to_json(fit)["constants"]},
                     {"errors",
                      {{"algorithm_runs", opt(err.algorithm_runs)},
                       {"algorithm_in_sample_mape", opt(err.algorithm_in_sample)},
                       {"algorithm_worst_in_sample", opt(err.algorithm_worst_in_sample)},
                       {"algorithm_held_out_mape", opt(err.algorithm_held_out)},
                       {"in_sample_mape", opt(err.in_sample)},
                       {"size_range_held_out_mape", opt(err.size_range_held_out)},
                       {"algorithm_held_out_mape_overall", opt(err.algorithm_held_out_overall)}}}};
        inv.out << json{{"schema", predict_schema},
                        {"commit", build_info::commit},
                        {"device", model::device_summary_json(base)},
                        {"algo", algo.spec.key},
                        {"params", params.all()},
                        {"sweep", sweep ? json{{"param", sweep->param}, {"values", sweep->values}} : json(nullptr)},
                        {"fit", jfit},
                        {"rows", jrows},
                        {"analysis", janalyses}}
                       .dump(2)
                << '\n';
        return exit_ok;
    }
    auto& os = inv.out;
    os << algo.spec.key << " on " << base.id << " " << base.agpu;
    for (const auto& [k, v] : params.all()) os << ", " << k << " = " << v;
    os << "\ntime model: " << (fit.source.empty() ? "model/fits/h100.json (compiled in)" : fit.source) << ", fitted on "
       << fit.device << "\n"
       << error_line(model::errors_for(fit, algo.spec.key), algo.spec.key, fit.device) << "\n\n";
    text_table t;
    t.add_column("n");
    if (sweep) t.add_column(sweep->param);
    t.add_column("counts", text_table::align::left);
    for (auto c : {model::counter::launches, model::counter::time_steps, model::counter::io_blocks,
                   model::counter::global_sectors, model::counter::bank_conflicts})
        t.add_column(std::string(model::info(c).name));
    t.add_column("seconds");
    t.add_column("largest term", text_table::align::left);
    for (const auto& r : rows) {
        std::vector<std::string> cells{std::to_string(r.n)};
        if (sweep) cells.push_back(fmt_num(*r.sweep_value));
        cells.push_back(source_text(r.counts));
        for (auto c : {model::counter::launches, model::counter::time_steps, model::counter::io_blocks,
                       model::counter::global_sectors, model::counter::bank_conflicts})
            cells.push_back(fmt_num(double(r.counts.totals[c])));
        cells.push_back(fmt_num(r.seconds, 4));
        std::size_t big = 0;
        for (std::size_t i = 1; i < model::time_term_count; ++i)
            if (r.terms[i] > r.terms[big]) big = i;
        cells.push_back(r.seconds > 0 ? std::string(model::time_term_table[big].name) + " " +
                                            fmt_num(100 * r.terms[big] / r.seconds, 3) + "%"
                                      : "-");
        t.add_row(std::move(cells));
    }
    t.print(os);
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
