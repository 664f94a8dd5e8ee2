// agpu fit --data DIR... [--out FILE] [--check DIR...] [--runs] [--format table|json]
// agpu fit --check DIR... [--fit FILE]
// Fits the time model's constants on measured datasets and reports its errors
// in sample and held out (by algorithm, by decade of n); --check predicts
// other datasets (another device) from the constants and their device's
// preset alone. No GPU needed.
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../table.hpp"
#include "agpu/errors.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/fit.hpp"

namespace agpu::cli {
namespace {

const char* fit_usage =
    "agpu fit --data DIR... [--out FILE] [--check DIR...] [--runs] [--format table|json]\n"
    "       agpu fit --check DIR... [--fit FILE] [--runs] [--format table|json]";

std::string pct(double x) { return fmt_num(100 * x, 3) + "%"; }

void stats_header(text_table& t, const char* first) {
    t.add_column(first, text_table::align::left);
    for (const char* h : {"runs", "MAPE", "median", "worst", "R2 (log)"}) t.add_column(h);
    t.add_column("worst run", text_table::align::left);
}
void stats_row(text_table& t, const std::string& name, const validate::error_stats& s) {
    t.add_row({name, std::to_string(s.count), pct(s.mape), pct(s.median_ape), pct(s.worst_ape), fmt_num(s.r2, 3),
               s.worst_run});
}

void print_runs(std::ostream& os, const std::vector<validate::fit_sample>& samples,
                const std::vector<double>& predicted, const std::vector<const validate::cross_validation*>& cvs) {
    text_table t;
    t.add_column("run", text_table::align::left);
    t.add_column("counts", text_table::align::left);
    t.add_column("measured ms");
    t.add_column("predicted ms");
    t.add_column("error");
    for (const auto* cv : cvs) t.add_column(cv->name == "leave-one-algorithm-out" ? "algo held out" : "size held out");
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        std::vector<std::string> row{s.run_id, s.count_source, fmt_num(s.measured_s * 1e3, 4),
                                     fmt_num(predicted[i] * 1e3, 4), pct((predicted[i] - s.measured_s) / s.measured_s)};
        for (const auto* cv : cvs)
            row.push_back(std::isnan(cv->predicted[i]) ? "-" : pct((cv->predicted[i] - s.measured_s) / s.measured_s));
        t.add_row(std::move(row));
    }
    t.print(os);
}

std::vector<std::filesystem::path> paths(const po::variables_map& vm, const char* name) {
    std::vector<std::filesystem::path> out;
    if (vm.count(name))
        for (const auto& s : vm[name].as<std::vector<std::string>>()) out.emplace_back(s);
    return out;
}

int run_fit(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("data", po::value<std::vector<std::string>>()->multitoken()->composing(),
                       "measured datasets to fit on (one device)")(
        "out", po::value<std::string>(),
        (std::string("write the fit (schema ") + model::fit_schema + ") to FILE").c_str())(
        "check", po::value<std::vector<std::string>>()->multitoken()->composing(),
        "datasets to predict from the constants and their device's preset alone (e.g. another GPU)")(
        "fit", po::value<std::string>(), "without --data: the fit to check (default: the committed H100 fit)")(
        "runs", po::bool_switch(), "also list every run with its measured and predicted time");
    add_format_option(opts);
    po::variables_map vm;
    if (!parse_options(inv, fit_usage, opts, {}, vm)) return exit_ok;
    const auto format = format_option(vm);
    const auto data_dirs = paths(vm, "data"), check_dirs = paths(vm, "check");
    if (data_dirs.empty() && check_dirs.empty())
        throw usage_error("give --data DIR... to fit, or --check DIR... to check a fit");
    if (!data_dirs.empty() && vm.count("fit"))
        throw usage_error("option --fit: only without --data (--data makes a new fit)");
    if (data_dirs.empty() && vm.count("out"))
        throw usage_error("option --out: needs --data (nothing is fitted without it)");
    if (vm.count("out")) {  // before the fit, not after it
        const std::filesystem::path dir = std::filesystem::path(vm["out"].as<std::string>()).parent_path();
        if (!dir.empty() && !std::filesystem::is_directory(dir))
            throw input_error("option --out " + vm["out"].as<std::string>(),
                              "its directory " + dir.string() + " does not exist");
    }
    auto progress = [&](const std::string& line) {
        if (format == output_format::table) inv.err << "  " << line << '\n';
    };

    validate::fit_report r;
    if (!data_dirs.empty()) {
        std::string command_line = "agpu fit";
        std::vector<std::string> names;
        for (const auto& a : inv.args) command_line += " " + a;
        for (const auto& d : data_dirs) names.push_back(d.lexically_normal().generic_string());
        r = validate::fit_datasets(validate::load_samples(data_dirs, validate::default_max_simulation_s, progress),
                                   names, command_line);
        // The datasets it is checked on go with it: the report's default cross-device check.
        for (const auto& d : check_dirs) r.fit.check_datasets.push_back(d.lexically_normal().generic_string());
        if (vm.count("out")) {
            const auto out = vm["out"].as<std::string>();
            try {
                validate::write_file_atomically(out, model::fit_to_json(r.fit).dump(2) + "\n");
            } catch (const input_error& e) {
                throw input_error("option --out " + out, e.rule());
            }
        }
    } else {
        r.fit = vm.count("fit") ? model::load_fit_file(vm["fit"].as<std::string>()) : model::default_fit();
    }
    if (!check_dirs.empty()) {
        r.check_data = validate::load_samples(check_dirs, validate::default_max_simulation_s, progress);
        if (r.check_data.samples.empty())
            throw input_error("option --check", "the datasets hold no run the model can count");
        r.check = validate::evaluate(r.check_data.samples, r.fit.constants);
    }

    if (format == output_format::json) {
        inv.out << validate::to_json(r).dump(2) << '\n';
        return exit_ok;
    }
    auto& os = inv.out;
    os << "time model fitted on " << r.fit.device << (r.fit.source.empty() ? "" : " (" + r.fit.source + ")") << "\n";
    text_table c;
    c.add_column("term", text_table::align::left);
    c.add_column("constant");
    c.add_column("meaning", text_table::align::left);
    for (const auto& t : model::time_term_table)
        c.add_row({std::string(t.name), fmt_num(r.fit.constants[std::size_t(t.id)], 4), std::string(t.constant)});
    c.print(os);
    if (!data_dirs.empty()) {
        os << "\nin sample (" << r.data.samples.size() << " runs; " << r.data.skipped.size()
           << " skipped: baselines, incomplete)\n";
        text_table t;
        stats_header(t, "algorithm");
        for (const auto& [a, s] : r.in_sample.per_algo) stats_row(t, a, s);
        stats_row(t, "all", r.in_sample.overall);
        t.print(os);
        for (const auto& cv : r.held_out) {
            os << "\n" << cv.name << " (each fold predicted from constants fitted without it)\n";
            text_table h;
            stats_header(h, "held out");
            for (const auto& [f, s] : cv.per_fold) stats_row(h, f, s);
            stats_row(h, "all", cv.overall);
            h.print(os);
        }
        if (vm["runs"].as<bool>()) {
            os << "\n";
            std::vector<const validate::cross_validation*> cvs;
            for (const auto& cv : r.held_out) cvs.push_back(&cv);
            print_runs(os, r.data.samples, r.in_sample.predicted, cvs);
        }
    }
    if (!check_dirs.empty()) {
        os << "\ncheck: predicted from the " << r.fit.device << " constants and each dataset's device preset alone\n";
        text_table t;
        stats_header(t, "algorithm");
        for (const auto& [a, s] : r.check.per_algo) stats_row(t, a, s);
        stats_row(t, "all", r.check.overall);
        t.print(os);
        if (vm["runs"].as<bool>()) {
            os << "\n";
            print_runs(os, r.check_data.samples, r.check.predicted, {});
        }
    }
    if (vm.count("out")) os << "\nwrote " << vm["out"].as<std::string>() << '\n';
    return exit_ok;
}

AGPU_COMMAND("fit", "fit the time model's constants on measured datasets; check them on others (no GPU needed)",
             run_fit);

}  // namespace
}  // namespace agpu::cli
