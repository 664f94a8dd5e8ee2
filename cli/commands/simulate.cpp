// agpu simulate --algo KEY [--n N] [--device ID|FILE] [--set NAME=VALUE ...] [--seed S] [--mode exact|sampled|auto] [--threads T] [--quiet] [--format table|json|csv]
// agpu algos [--format table|json]
#include <iostream>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../progress.hpp"
#include "../table.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/reports/tidy.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/model_counts.hpp"

namespace agpu::cli {
namespace {

const char* simulate_usage =
    "agpu simulate --algo KEY [--n N] [--device ID|FILE] [--device-set NAME=VALUE ...] [--set NAME=VALUE ...]\n"
    "                     [--seed S] [--mode exact|sampled|auto] [--threads T] [--quiet] [--format table|json|csv]";

void print_simulation(const sim::simulation& s, std::ostream& os) {
    os << s.algo << " on " << s.device.id << " " << s.device.agpu << ", n = " << s.n;
    for (const auto& [k, v] : s.params.all()) os << ", " << k << " = " << v;
    os << "\ncheck: " << (s.check.passed ? "passed" : "FAILED") << " (" << s.check.detail << ")\n";
    os << "mode: " << sim::to_string(s.mode);
    if (s.record.sampled()) {
        std::uint64_t blocks = 0, recorded = 0;
        for (const auto& l : s.record.launches) {
            blocks += l.c[model::counter::thread_blocks];
            recorded += l.blocks_recorded;
        }
        const std::uint64_t skipped = s.record.blocks_skipped();
        os << " (" << recorded << " of " << blocks << " thread blocks recorded, " << blocks - recorded - skipped
           << " run unrecorded, " << skipped << " skipped; ";
        os << "95% error of the totals: ";
        const auto e = s.record.relative_error_95();
        bool first = true;
        for (auto c : {model::counter::time_steps, model::counter::global_sectors, model::counter::shared_wavefronts,
                       model::counter::warp_instructions}) {
            os << (first ? "" : ", ") << model::info(c).name << " " << fmt_num(100 * e[std::size_t(c)], 2) << "%";
            first = false;
        }
        os << ")";
    } else if (s.mode == sim::sim_mode::sampled) {
        os << " (every launch small enough to record in full: exact)";
    }
    os << "\n\n";
    // Per launch: the counters a reader looks at first; every counter is in the JSON.
    const model::counter cols[] = {model::counter::time_steps,        model::counter::io_blocks,
                                   model::counter::global_requests,   model::counter::global_sectors,
                                   model::counter::shared_wavefronts, model::counter::bank_conflicts,
                                   model::counter::warp_instructions, model::counter::shared_words_max};
    text_table t;
    t.add_column("#");
    t.add_column("kernel", text_table::align::left);
    t.add_column("grid x block");
    for (auto c : cols) t.add_column(std::string(model::info(c).name));
    auto row = [&](const std::string& idx, const std::string& name, const std::string& shape, const model::counts& c) {
        std::vector<std::string> r{idx, name, shape};
        for (auto col : cols) r.push_back(fmt_num(double(c[col])));
        t.add_row(std::move(r));
    };
    const std::size_t shown = std::min<std::size_t>(s.record.launches.size(), 40);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& l = s.record.launches[i];
        row(std::to_string(i), l.kernel,
            std::to_string(std::uint64_t(l.grid.x) * l.grid.y * l.grid.z) + " x " +
                std::to_string(std::uint64_t(l.block.x) * l.block.y * l.block.z),
            l.c);
    }
    if (shown < s.record.launches.size())
        t.add_row({"...", "(" + std::to_string(s.record.launches.size() - shown) + " more launches: --format json)", "",
                   "", "", "", "", "", "", "", ""});
    row("", "total (" + std::to_string(s.record.launches.size()) + " launches)", "", s.record.totals());
    t.print(os);
}

int run_simulate(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("algo", po::value<std::string>()->required(), "algorithm key (agpu algos lists them)")(
        "n", po::value<std::uint64_t>(), "problem size (default: the algorithm's)")(
        "device", po::value<std::string>()->default_value("h100"), "device preset id or device file")(
        "device-set", po::value<std::vector<std::string>>()->composing(),
        "device parameter NAME=VALUE (b, M, p, w, k, clock, bandwidth or a field name; repeatable): derived fields "
        "follow")("set", po::value<std::vector<std::string>>()->composing(),
                  "algorithm parameter NAME=VALUE (repeatable)")("seed", po::value<std::uint64_t>()->default_value(1),
                                                                 "seed of the random inputs")(
        "mode", po::value<std::string>()->default_value("auto"),
        "exact (every thread block recorded), sampled (a sample recorded, the rest extrapolated), or auto (exact when "
        "estimated at most 2 s)")("threads", po::value<unsigned>()->default_value(0),
                                  "host threads running a launch's blocks (0: one per core)")(
        "quiet", po::bool_switch(), "no progress bar on stderr")(
        "format", po::value<std::string>()->default_value("table"),
        "output format: table, json, or csv (tidy: one row per launch and counter)");
    po::variables_map vm;
    if (!parse_options(inv, simulate_usage, opts, {}, vm)) return exit_ok;
    const auto format = vm["format"].as<std::string>();
    if (format != "table" && format != "json" && format != "csv")
        throw usage_error("option --format: must be table, json or csv, got '" + format + "'");
    const auto& algo = sim::find_algorithm(vm["algo"].as<std::string>());
    const auto dev = device_option(vm);
    const std::uint64_t n = vm.count("n") ? vm["n"].as<std::uint64_t>() : algo.spec.default_n;
    model::check_n(algo.spec, n);
    const auto params = model::parse_params(
        algo.spec, vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{});
    sim::engine_options eo;
    eo.mode = sim::resolve_mode(sim::parse_mode(vm["mode"].as<std::string>()), algo, dev, n, params);
    eo.threads = vm["threads"].as<unsigned>();
    std::uint64_t total_threads = 0;
    if (const auto* cf = model::find_closed_form(algo.spec.key)) {
        const auto p = cf->costs(dev.agpu, n, params);
        if (p.count(model::counter::threads)) total_threads = p.at(model::counter::threads);
    }
    progress_bar bar(inv.err, !vm["quiet"].as<bool>() && progress_bar::stderr_is_terminal(), total_threads,
                     "simulating " + algo.spec.key);
    eo.progress = [&bar](std::uint64_t t) { bar.add(t); };
    const auto s = sim::simulate(algo, dev, n, params, vm["seed"].as<std::uint64_t>(), eo);
    bar.finish();
    if (format == "json") {
        inv.out << sim::to_json(s).dump(2) << '\n';
    } else if (format == "csv") {
        std::string param_text;
        for (const auto& [k, v] : s.params.all()) param_text += (param_text.empty() ? "" : ";") + k + "=" + v;
        std::vector<reports::launch_counts> rows;
        for (std::size_t i = 0; i < s.record.launches.size(); ++i)
            rows.push_back({std::to_string(i), s.record.launches[i].kernel, s.record.launches[i].c});
        rows.push_back({"total", "", s.record.totals()});
        reports::write_counts_csv_header(inv.out);
        reports::write_counts_csv(
            inv.out, {s.record.sampled() ? "simulator (sampled)" : "simulator", s.device.id, s.algo, param_text, s.n},
            rows);
    } else {
        print_simulation(s, inv.out);
    }
    if (!s.check.passed) {
        inv.err << "agpu simulate: the simulated outputs differ from the CPU reference: " << s.check.detail << '\n';
        return exit_internal;
    }
    return exit_ok;
}

int run_algos(const invocation& inv) {
    po::options_description opts("options");
    add_format_option(opts);
    po::variables_map vm;
    if (!parse_options(inv, "agpu algos [--format table|json]", opts, {}, vm)) return exit_ok;
    const auto algos = sim::algorithms();
    if (format_option(vm) == output_format::json) {
        auto arr = nlohmann::json::array();
        for (const auto* a : algos) {
            auto params = nlohmann::json::array();
            for (const auto& p : a->spec.params) {
                nlohmann::json jp = {{"name", p.name}, {"description", p.description}, {"default", p.default_value}};
                if (p.choices.empty()) jp["range"] = {p.min, p.max};
                else jp["choices"] = p.choices;
                params.push_back(jp);
            }
            const auto* cf = model::find_closed_form(a->spec.key);
            arr.push_back({{"key", a->spec.key},
                           {"summary", a->spec.summary},
                           {"n_means", a->spec.n_means},
                           {"default_n", a->spec.default_n},
                           {"n_range", {a->spec.min_n, a->spec.max_n}},
                           {"params", params},
                           {"closed_form", cf ? cf->formula : ""}});
        }
        inv.out << arr.dump(2) << '\n';
        return exit_ok;
    }
    text_table t;
    t.add_column("key", text_table::align::left);
    t.add_column("n (default)", text_table::align::left);
    t.add_column("parameters (--set NAME=VALUE; default)", text_table::align::left);
    t.add_column("what it does", text_table::align::left);
    for (const auto* a : algos) {
        std::string ps;
        for (const auto& p : a->spec.params) {
            ps += (ps.empty() ? "" : "  ") + p.name + "=";
            if (p.choices.empty()) ps += std::to_string(p.min) + ".." + std::to_string(p.max);
            else
                for (std::size_t i = 0; i < p.choices.size(); ++i) ps += (i ? "|" : "") + p.choices[i];
            ps += " (" + p.default_value + ")";
        }
        t.add_row({a->spec.key, a->spec.n_means + " (" + std::to_string(a->spec.default_n) + ")", ps.empty() ? "-" : ps,
                   a->spec.summary});
    }
    t.print(inv.out);
    return exit_ok;
}

AGPU_COMMAND("simulate", "run an algorithm's kernels in the AGPU simulator on a device and print its counters",
             run_simulate);
AGPU_COMMAND("algos", "list the algorithms with their parameters", run_algos);

}  // namespace
}  // namespace agpu::cli
