// agpu report [--out DIR] [--data DIR...] [--check DIR...] [--fit FILE] [--max-sim-seconds S] [--sweep RESULTS]
// One self-contained HTML page (Vega-Lite charts, rendered offline), a
// Markdown summary and the CSV/JSON behind every chart, from the committed
// datasets, the fit, the closed forms and the simulator at small n. No GPU needed.
#include <algorithm>
#include <iostream>

#include "../command.hpp"
#include "agpu/errors.hpp"
#include "agpu/reports/report.hpp"
#include "agpu/sweep/results.hpp"
#include "agpu/validate/suite.hpp"

namespace agpu::cli {
namespace {

namespace fs = std::filesystem;

const char* report_usage =
    "agpu report [--out DIR] [--data DIR...] [--check DIR...] [--test DIR...] [--fit FILE] [--max-sim-seconds S]\n"
    "            [--sweep RESULTS]";

std::vector<fs::path> dirs(const po::variables_map& vm, const char* name) {
    std::vector<fs::path> out;
    for (const auto& s : vm[name].as<std::vector<std::string>>()) out.emplace_back(s);
    return out;
}

// The fit file's dataset names (relative ones under `root`) as paths, or none
// unless every one of them is a dataset here.
std::vector<fs::path> present_datasets(const std::vector<std::string>& names, const fs::path& root) {
    std::vector<fs::path> out;
    for (const auto& name : names) {
        const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : root / name;
        if (!validate::is_dataset_dir(p)) return {};
        out.push_back(p);
    }
    return out;
}

int run_report(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("out", po::value<std::string>()->default_value("build/report"),
                       "directory to write (replaced whole; made atomically)")(
        "data", po::value<std::vector<std::string>>()->multitoken()->composing(),
        "measured datasets of the fit's device (default: the fit's datasets and the device's sort counters)")(
        "check", po::value<std::vector<std::string>>()->multitoken()->composing(),
        "other devices' datasets, predicted from the fit (default: the fit's check datasets, else every other "
        "device's)")("fit", po::value<std::string>(), "time-model fit file (default: the committed H100 fit)")(
        "max-sim-seconds", po::value<double>()->default_value(2),
        "simulate a run only when its exact simulation is estimated under S seconds")(
        "test", po::value<std::vector<std::string>>()->multitoken()->composing(),
        "the time model's test datasets, scored (default: every validate/data/<gpu>/test/<family>)")(
        "sweep", po::value<std::string>(),
        "an agpu sweep's results (points.jsonl or its directory): adds the sweep's section");
    po::variables_map vm;
    if (!parse_options(inv, report_usage, opts, {}, vm)) return exit_ok;

    reports::report_options opt;
    opt.max_simulation_s = vm["max-sim-seconds"].as<double>();
    if (!(opt.max_simulation_s > 0))
        throw input_error("option --max-sim-seconds", "must be a positive number of seconds");
    opt.fit = vm.count("fit") ? model::load_fit_file(vm["fit"].as<std::string>()) : model::default_fit();
    opt.repository_root = reports::default_repository_root();
    if (vm.count("sweep")) {
        opt.sweep = vm["sweep"].as<std::string>();
        sweep::read_results(opt.sweep);  // a torn or missing file fails before the report's work
    }
    // The JavaScript and the output directory first: either fails before any work.
    const auto js = reports::load_web_assets(reports::default_node_modules());
    const std::string out = vm["out"].as<std::string>();
    reports::check_report_dir(out);

    const fs::path data_root = opt.repository_root / "validate" / "data";
    if (vm.count("data")) {
        opt.data = dirs(vm, "data");
    } else {
        // The fit's own datasets where they are all here, and the device's sort counters dataset, which the
        // fit leaves out (its counts need the simulator run by run, and the model prices the sort's merge
        // passes from counts that do not see their instructions) but the report shows, with the refit on the
        // fit's datasets alone; else every dataset of its device. Every device's other counters datasets
        // (validate/data/<device>/counters/<suite>) are read for their hardware counters only: the fit's
        // datasets are timings.
        opt.data = present_datasets(opt.fit.datasets, opt.repository_root);
        const fs::path sort_counters = data_root / opt.fit.device / "counters" / "sort";
        if (!opt.data.empty() && validate::is_dataset_dir(sort_counters)) opt.data.push_back(sort_counters);
        if (!opt.data.empty()) {
            std::vector<fs::path> devices{data_root / opt.fit.device};
            std::error_code ec;
            for (const auto& e : fs::directory_iterator(data_root, ec))
                if (e.is_directory() && e.path().filename() != opt.fit.device) devices.push_back(e.path());
            std::sort(devices.begin() + 1, devices.end());
            for (const auto& dev : devices)
                for (const auto* suite : validate::suites()) {
                    const fs::path p = dev / "counters" / suite->name;
                    if (validate::is_dataset_dir(p) &&
                        std::none_of(opt.data.begin(), opt.data.end(), [&](const fs::path& d) {
                            return fs::weakly_canonical(d) == fs::weakly_canonical(p);
                        }))
                        opt.counters.push_back(p);
                }
        }
        if (opt.data.empty()) opt.data = reports::find_datasets(data_root / opt.fit.device);
    }
    if (vm.count("test")) {
        opt.test = dirs(vm, "test");
    } else {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(data_root, ec))
            if (e.is_directory() && fs::is_directory(e.path() / "test"))
                for (const auto& d : reports::find_datasets(e.path() / "test")) opt.test.push_back(d);
        std::sort(opt.test.begin(), opt.test.end());
    }
    if (vm.count("check")) {
        opt.check = dirs(vm, "check");
    } else if (!vm.count("data")) {
        // The datasets the fit was checked on where they are all here; else every other device's.
        opt.check = present_datasets(opt.fit.check_datasets, opt.repository_root);
        if (opt.check.empty()) {
            std::error_code ec;
            for (const auto& e : fs::directory_iterator(data_root, ec))
                if (e.is_directory() && e.path().filename() != opt.fit.device)
                    for (const auto& d : reports::find_datasets(e.path())) opt.check.push_back(d);
            std::sort(opt.check.begin(), opt.check.end());
        }
    }
    if (opt.data.empty()) throw input_error("option --data", "no measured dataset to report on");
    opt.progress = [&](const std::string& line) { inv.err << "  " << line << '\n'; };

    const auto doc = reports::build_report(opt);
    const auto w = reports::write_report(doc, js, out);
    inv.out << "report: " << w.index_html.string() << " (" << w.charts << " charts, " << w.tables << " tables)\n"
            << "summary: " << w.summary_md.string() << "\n"
            << "data: " << (w.dir / "data").string() << "/ (the CSV and JSON behind every chart and table)\n";
    return exit_ok;
}

AGPU_COMMAND("report", "the HTML report (Vega-Lite charts), Markdown summary and data of every chart (no GPU needed)",
             run_report);

}  // namespace
}  // namespace agpu::cli
