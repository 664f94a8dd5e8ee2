// agpu calibrate --out DIR [--reps R] [--warmup W] [--no-counters] [--resume] [--device ID|FILE] [--format table|json]
// agpu calibrate --data DIR [--out-timing FILE] [--format table|json]
// Measures the calibrate suite's probes on this GPU into a dataset and
// derives the device's time constants from it (DIR/timing.json), or derives
// them from a dataset measured before (no GPU needed).
#include <iostream>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../table.hpp"
#include "agpu/errors.hpp"
#include "agpu/validate/calibrate.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/gpu.hpp"
#include "agpu/validate/suite.hpp"

namespace agpu::cli {
namespace {

const char* calibrate_usage =
    "agpu calibrate --out DIR [--reps R] [--warmup W] [--no-counters] [--resume] [--device ID|FILE] [--format "
    "table|json]\n"
    "       agpu calibrate --data DIR [--partial] [--out-timing FILE] [--format table|json]";

void print_timing(const invocation& inv, const validate::device_timing& t, output_format format) {
    if (format == output_format::json) {
        inv.out << validate::to_json(t).dump(2) << '\n';
        return;
    }
    text_table table;
    table.add_column("constant", text_table::align::left);
    table.add_column("value");
    for (const char* h : {"unit", "source"}) table.add_column(h, text_table::align::left);
    for (const auto& c : t.timing) table.add_row({c.name, fmt_num(c.value, 4), c.unit, c.source});
    table.print(inv.out);
    inv.out << "\n"
            << t.timing.size() << " constants of " << t.gpu << " (device " << t.device << "), measured "
            << (t.timing.empty() ? std::string("-") : t.timing.front().date) << ", SM clock "
            << fmt_num(t.provenance["sm_clock"].value("used_mhz", 0.0), 5) << " MHz ("
            << t.provenance["sm_clock"].value("from", std::string("?")) << ")\n";
    for (const auto& n : t.notes) inv.out << "note: " << n << "\n";
    for (const auto& m : t.missing) inv.out << "not derived: " << m << "\n";
}

int run_calibrate(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("out", po::value<std::string>(),
                       "measure on this GPU: the dataset directory, where timing.json is written too")(
        "data", po::value<std::string>(), "derive from this dataset (measured before; no GPU needed)")(
        "out-timing", po::value<std::string>(), "with --data: write the device timing file (JSON) here")(
        "partial", "with --data: derive the constants the dataset's probes give and name the others")(
        "reps", po::value<unsigned>()->default_value(10), "timed repetitions per run (at least 10)")(
        "warmup", po::value<unsigned>()->default_value(2), "untimed runs first")(
        "no-counters", "time only: skip the CUPTI counters (the pipe rates then count the probes' SASS)")(
        "resume", "complete an interrupted calibration dataset in --out")(
        "device", po::value<std::string>()->default_value(""), "device preset of this GPU (default: from its name)");
    add_format_option(opts);
    po::variables_map vm;
    if (!parse_options(inv, calibrate_usage, opts, {}, vm)) return exit_ok;
    const auto format = format_option(vm);
    if (vm.count("out") == vm.count("data"))
        throw usage_error("give either --out DIR (measure, then derive) or --data DIR (derive from a dataset)");
    if (vm.count("partial") && !vm.count("data"))
        throw usage_error("--partial goes with --data (a calibration measured in full needs none)");
    if (vm.count("out-timing") && !vm.count("data"))
        throw usage_error("--out-timing goes with --data (with --out, the timing is written to DIR/timing.json)");
    std::string cmd = "agpu calibrate";
    for (const auto& a : inv.args) cmd += " " + a;

    if (vm.count("data")) {
        auto t = validate::derive_timing(std::filesystem::path(vm["data"].as<std::string>()), vm.count("partial") > 0);
        t.provenance["derived"]["command_line"] = cmd;
        if (vm.count("out-timing")) {
            const std::string file = vm["out-timing"].as<std::string>();
            validate::write_file_atomically(file, validate::to_json(t).dump(2) + "\n");
            if (format == output_format::table) inv.err << "device timing written to " << file << "\n";
        }
        print_timing(inv, t, format);
        return exit_ok;
    }

    const std::string out = vm["out"].as<std::string>();
    validate::measure_options opt;
    opt.reps = vm["reps"].as<unsigned>();
    opt.warmup = vm["warmup"].as<unsigned>();
    opt.counters = !vm.count("no-counters");
    if (opt.reps < 10) throw input_error("option --reps", "must be at least 10 (medians of many repetitions)");
    validate::require_gpu("agpu calibrate --out");
    const auto outcome = validate::validate_suite(validate::find_suite("calibrate"), {}, out, vm.count("resume") > 0,
                                                  opt, vm["device"].as<std::string>(), cmd,
                                                  [&](const std::string& line) { inv.err << line << std::endl; });
    if (outcome.status == "interrupted") {
        inv.err << "agpu calibrate: interrupted: " << outcome.reason << "; the dataset in " << out
                << " keeps every finished run (--resume completes it)\n";
        return 128 + outcome.signal;
    }
    auto t = validate::derive_timing(std::filesystem::path(out));
    t.provenance["derived"]["command_line"] = cmd;
    const auto file = std::filesystem::path(out) / "timing.json";
    validate::write_file_atomically(file, validate::to_json(t).dump(2) + "\n");
    print_timing(inv, t, format);
    if (format == output_format::table) inv.out << "dataset and device timing written to " << out << "\n";
    return exit_ok;
}

AGPU_COMMAND(
    "calibrate",
    "measure this GPU's time constants with the probes (launch, bandwidths, latencies, issue rates), or derive "
    "them from a dataset",
    run_calibrate);

}  // namespace
}  // namespace agpu::cli
