// agpu validate --suite NAME [--sizes LIST] --out DIR [--resume] [--reps R] [--warmup W] [--no-counters] [--device ID|FILE]
// agpu compare --data DIR [--device ID|FILE] [--format table|json]
#include <algorithm>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../table.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "agpu/validate/compare.hpp"
#include "agpu/validate/suite.hpp"

namespace agpu::cli {
namespace {

std::vector<std::uint64_t> parse_sizes(const std::string& list) {
    std::vector<std::uint64_t> out;
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::uint64_t v = 0;
        if (!model::parse_unsigned(item, v) || v == 0)
            throw input_error("option --sizes",
                              "must be a comma-separated list of positive integers, got '" + item + "'");
        out.push_back(v);
    }
    if (out.empty()) throw input_error("option --sizes", "must name at least one size");
    return out;
}

int run_validate(const invocation& inv) {
    const char* usage =
        "agpu validate --suite NAME --out DIR [--sizes N,N,...] [--resume] [--reps R] [--warmup W] [--no-counters] "
        "[--device ID|FILE] [--only LABEL|LABEL...]";
    po::options_description opts("options");
    opts.add_options()("suite", po::value<std::string>()->required(), "suite to measure (micro, ...)")(
        "out", po::value<std::string>()->required(), "dataset directory (validate/data/<device>/<suite>)")(
        "sizes", po::value<std::string>(), "problem sizes, comma-separated (default: the suite's)")(
        "resume", "complete an interrupted dataset in --out")("reps", po::value<unsigned>()->default_value(10),
                                                              "timed repetitions per run (at least 10)")(
        "warmup", po::value<unsigned>()->default_value(2), "untimed runs first")(
        "no-counters", "time only: skip the CUPTI counters")("device", po::value<std::string>()->default_value(""),
                                                             "device preset of this GPU (default: from its name)")(
        "only", po::value<std::string>(),
        "measure only these entries of the suite, '|'-separated labels as `agpu bench` shows them "
        "(\"algo name=value;name=value\")");
    po::variables_map vm;
    if (!parse_options(inv, usage, opts, {}, vm)) return exit_ok;
    validate::suite s = validate::find_suite(vm["suite"].as<std::string>());
    if (vm.count("only")) {
        std::vector<validate::suite_entry> kept;
        std::stringstream ss(vm["only"].as<std::string>());
        for (std::string label; std::getline(ss, label, '|');) {
            const auto it = std::find_if(s.entries.begin(), s.entries.end(),
                                         [&](const auto& e) { return validate::entry_label(e) == label; });
            if (it == s.entries.end())
                throw input_error("option --only", "suite " + s.name + " has no entry '" + label + "'");
            kept.push_back(*it);
        }
        s.entries = std::move(kept);
    }
    // Empty: each entry's own sizes, else the suite's.
    const auto sizes = vm.count("sizes") ? parse_sizes(vm["sizes"].as<std::string>()) : std::vector<std::uint64_t>{};
    validate::measure_options opt;
    opt.reps = vm["reps"].as<unsigned>();
    opt.warmup = vm["warmup"].as<unsigned>();
    opt.counters = !vm.count("no-counters");
    if (opt.reps < 10) throw input_error("option --reps", "must be at least 10 (medians of many repetitions)");
    std::string cmd = "agpu validate";
    for (const auto& a : inv.args) cmd += " " + a;
    const auto outcome = validate::validate_suite(s, sizes, vm["out"].as<std::string>(), vm.count("resume") > 0, opt,
                                                  vm["device"].as<std::string>(), cmd,
                                                  [&](const std::string& line) { inv.err << line << std::endl; });
    if (outcome.status == "interrupted") {
        inv.err << "agpu validate: interrupted: " << outcome.reason << "; the dataset in "
                << vm["out"].as<std::string>() << " keeps every finished run\n";
        return 128 + outcome.signal;
    }
    inv.out << "dataset written to " << vm["out"].as<std::string>() << "\n";
    return exit_ok;
}

int run_compare(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("data", po::value<std::string>()->required(), "dataset directory")(
        "device", po::value<std::string>()->default_value(""), "preset to simulate on (default: the dataset's)");
    add_format_option(opts);
    po::variables_map vm;
    if (!parse_options(inv, "agpu compare --data DIR [--device ID|FILE] [--format table|json]", opts, {}, vm))
        return exit_ok;
    const auto format = format_option(vm);
    const auto c = validate::compare_dataset(vm["data"].as<std::string>(), vm["device"].as<std::string>());
    if (format == output_format::json) {
        inv.out << validate::to_json(c).dump(2) << '\n';
        return exit_ok;
    }
    text_table t;
    for (const char* h : {"algo", "n", "params", "#", "kernel", "counter"}) t.add_column(h, text_table::align::left);
    for (const char* h : {"simulated", "measured", "rel diff"}) t.add_column(h);
    for (const auto& r : c.rows)
        t.add_row({r.algo, std::to_string(r.n), r.params, r.launch, r.kernel, r.counter, fmt_num(r.simulated),
                   r.measured ? fmt_num(*r.measured) : "missing", r.rel_diff ? fmt_num(*r.rel_diff, 3) : "-"});
    t.print(inv.out);
    inv.out << "\n";
    text_table s;
    s.add_column("counter", text_table::align::left);
    for (const char* h : {"rows", "exact", "missing", "max |rel diff|", "simulated total", "measured total"})
        s.add_column(h);
    for (const auto& x : c.counters)
        s.add_row({x.counter, std::to_string(x.rows), std::to_string(x.exact), std::to_string(x.missing),
                   fmt_num(x.max_abs_rel_diff, 3), fmt_num(x.simulated_total), fmt_num(x.measured_total)});
    s.print(inv.out);
    std::size_t rows = 0, exact = 0;
    for (const auto& x : c.counters) {
        rows += x.rows - x.missing;
        exact += x.exact;
    }
    inv.out << "\n"
            << c.runs << " runs on " << c.gpu_name << " against the simulator on " << c.device_id << ": " << exact
            << " of " << rows << " measured counter values equal the simulated ones exactly\n";
    if (!c.not_simulated.empty()) {
        inv.out << "not simulated (GPU-only baselines):";
        for (const auto& k : c.not_simulated) inv.out << " " << k;
        inv.out << "\n";
    }
    return exit_ok;
}

AGPU_COMMAND("validate", "measure a suite on this GPU (CUPTI counters, CUDA-event timing) into a dataset",
             run_validate);
AGPU_COMMAND("compare", "simulated against measured counters of a dataset, kernel by kernel (no GPU needed)",
             run_compare);

}  // namespace
}  // namespace agpu::cli
