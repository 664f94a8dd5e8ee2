// agpu score --data DIR... [--fit FILE] [--runs] [--errors-out FILE] [--format table|json]
// The time models scored on measured runs (docs/time-model-test.md): the
// calibrated model, the plain roofline and a fit, each run predicted on its
// dataset's device from the closed forms' or the simulator's counts; mean,
// median and 90th-percentile absolute percentage errors per device and family,
// with 95% cluster-bootstrap intervals, beside the runs' own noise. No GPU needed.
// --errors-out records the calibrated model's errors per device and family in
// an agpu.model-errors/1 file (model/scores/calibrated.json is the one agpu
// predict quotes), keeping the other devices' entries.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../table.hpp"
#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/json_text.hpp"
#include "agpu/model/model_errors.hpp"
#include "agpu/utc_time.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/score.hpp"

namespace agpu::cli {
namespace {

std::string pct(double x) { return fmt_num(100 * x, 3) + "%"; }

int run_score(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("data", po::value<std::vector<std::string>>()->multitoken()->composing(), "measured datasets")(
        "fit", po::value<std::string>(), "the fit file scored beside (default: the committed H100 fit)")(
        "runs", po::bool_switch(), "also print every run")(
        "errors-out", po::value<std::string>(),
        "record the calibrated model's errors per device and family in FILE (agpu.model-errors/1; other devices' "
        "entries kept)")("max-sim-seconds", po::value<double>()->default_value(validate::default_max_simulation_s),
                         "simulate a run only when its exact simulation is estimated under S seconds");
    add_format_option(opts);
    po::variables_map vm;
    if (!parse_options(inv, "agpu score --data DIR... [--fit FILE] [--runs] [--errors-out FILE] [--format table|json]",
                       opts, {}, vm))
        return exit_ok;
    if (!vm.count("data")) throw usage_error("--data DIR... is required");
    std::vector<std::filesystem::path> dirs;
    for (const auto& s : vm["data"].as<std::vector<std::string>>()) dirs.emplace_back(s);
    const auto fit = vm.count("fit") ? model::load_fit_file(vm["fit"].as<std::string>()) : model::default_fit();
    const auto r = validate::score_datasets(dirs, fit, vm["max-sim-seconds"].as<double>(), 2000,
                                            [&](const std::string& line) { inv.err << "  " << line << '\n'; });
    if (vm.count("errors-out")) {
        const std::filesystem::path out = vm["errors-out"].as<std::string>();
        model::model_errors e;
        if (std::filesystem::exists(out))
            e = model::model_errors_from_json(model::read_json_file(out.string(), "model errors file"), out.string());
        // The datasets as one folder where they share one (validate/data/h100/test), else listed.
        std::filesystem::path common = dirs.front().parent_path();
        for (const auto& d : dirs)
            if (d.parent_path() != common) common.clear();
        std::string data = common.empty() ? std::string() : common.string(), command = "agpu score";
        if (common.empty())
            for (const auto& d : dirs) data += (data.empty() ? "" : " ") + d.string();
        for (const auto& a : inv.args) command += " " + a;
        for (const auto& [dev, fams] : r.errors) {
            model::device_errors de{data, command, utc_now("%Y-%m-%d"), build_info::commit, {}};
            for (const auto& [fam, models] : fams) {
                const auto& m = models.at(validate::time_model_kind::calibrated);
                de.families[fam] = {m.runs, m.mape, m.median_ape, m.p90_ape, m.mape_low, m.mape_high};
            }
            e.devices[dev] = std::move(de);
        }
        validate::write_file_atomically(out, model::to_json(e).dump(2) + "\n");
        inv.err << "calibrated model's errors of " << r.errors.size() << " device(s) written to " << out.string()
                << "\n";
    }
    if (format_option(vm) == output_format::json) {
        inv.out << validate::to_json(r).dump(2) << '\n';
        return exit_ok;
    }
    for (const auto& [dev, fams] : r.errors) {
        inv.out << dev << ": " << fams.at("all").at(validate::time_model_kind::calibrated).runs
                << " runs; median run-to-run noise " << pct(r.median_noise.at(dev))
                << " ((max - min) / median of the repetitions)\n";
        text_table t;
        t.add_column("family", text_table::align::left);
        t.add_column("runs");
        for (auto k : {validate::time_model_kind::calibrated, validate::time_model_kind::roofline,
                       validate::time_model_kind::fit}) {
            const std::string n(name(k));
            t.add_column(n + " MAPE");
            t.add_column("95% interval", text_table::align::left);
            t.add_column("median");
            t.add_column("p90");
        }
        for (const auto& [fam, models] : fams) {
            std::vector<std::string> row{fam, std::to_string(models.at(validate::time_model_kind::calibrated).runs)};
            for (auto k : {validate::time_model_kind::calibrated, validate::time_model_kind::roofline,
                           validate::time_model_kind::fit}) {
                const auto& e = models.at(k);
                row.push_back(pct(e.mape));
                row.push_back(pct(e.mape_low) + " - " + pct(e.mape_high));
                row.push_back(pct(e.median_ape));
                row.push_back(pct(e.p90_ape));
            }
            t.add_row(std::move(row));
        }
        t.print(inv.out);
        inv.out << '\n';
    }
    if (vm["runs"].as<bool>()) {
        text_table t;
        for (const char* h : {"run", "device", "bound"}) t.add_column(h, text_table::align::left);
        for (const char* h : {"measured ms", "calibrated ms", "error", "roofline ms", "fit ms"}) t.add_column(h);
        for (const auto& x : r.runs) {
            const double c = x.predicted_s.at(validate::time_model_kind::calibrated);
            t.add_row({x.run_id, x.device_id, x.winner, fmt_num(x.measured_s * 1e3, 4), fmt_num(c * 1e3, 4),
                       pct((c - x.measured_s) / x.measured_s),
                       fmt_num(x.predicted_s.at(validate::time_model_kind::roofline) * 1e3, 4),
                       fmt_num(x.predicted_s.at(validate::time_model_kind::fit) * 1e3, 4)});
        }
        t.print(inv.out);
    }
    inv.out << "calibrated: model/launch_time.hpp with each device's timing constants; roofline: launches at the "
               "launch overhead plus the larger of the sectors at peak bandwidth and the AGPU steps; fit: "
            << r.fit_source << ". Intervals: 95%, resampling whole configurations.\n";
    return exit_ok;
}

AGPU_COMMAND("score", "the calibrated model, the roofline and a fit scored on measured runs (no GPU needed)",
             run_score);

}  // namespace
}  // namespace agpu::cli
