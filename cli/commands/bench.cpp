// agpu bench --data DIR [--format table|json]
// A dataset's timings as throughput, and the suite's performance goals checked
// on them (no GPU needed: it reads the dataset).
#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../table.hpp"
#include "agpu/validate/bench.hpp"

namespace agpu::cli {
namespace {

std::string opt_num(const std::optional<double>& v, double scale, int digits) {
    return v ? fmt_num(*v * scale, digits) : "-";
}

int run_bench(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("data", po::value<std::string>()->required(), "dataset directory (made by agpu validate)");
    add_format_option(opts);
    po::variables_map vm;
    if (!parse_options(inv, "agpu bench --data DIR [--format table|json]", opts, {}, vm)) return exit_ok;
    const auto format = format_option(vm);
    const auto r = validate::bench_dataset(vm["data"].as<std::string>());
    if (format == output_format::json) {
        inv.out << validate::to_json(r).dump(2) << '\n';
        return exit_ok;
    }
    text_table t;
    for (const char* h : {"n", "run"})
        t.add_column(h, h[0] == 'n' ? text_table::align::right : text_table::align::left);
    for (const char* h : {"median ms", "min ms", "max ms", "GB/s", "G items/s", "check"}) t.add_column(h);
    for (const auto& b : r.rows)
        t.add_row({std::to_string(b.n), b.label, opt_num(b.ms, 1, 4), opt_num(b.ms_min, 1, 4), opt_num(b.ms_max, 1, 4),
                   opt_num(b.bytes_per_s, 1e-9, 4), opt_num(b.items_per_s, 1e-9, 4), b.passed ? "passed" : "FAILED"});
    t.print(inv.out);
    std::size_t met = 0;
    if (!r.goals.empty()) {
        inv.out << "\n";
        text_table g;
        for (const char* h : {"goal", "n", "subject", "baseline", "measure"}) g.add_column(h, text_table::align::left);
        for (const char* h : {"value", "at least", "met"}) g.add_column(h);
        for (const auto& x : r.goals) {
            met += x.met;
            g.add_row({x.what, std::to_string(x.n), x.subject, x.baseline.empty() ? "-" : x.baseline, x.measure,
                       opt_num(x.value, 1, 4), fmt_num(x.at_least, 4), x.met ? "yes" : "NO"});
        }
        g.print(inv.out);
    }
    inv.out << "\n"
            << r.rows.size() << " runs of suite " << r.suite << " on " << r.gpu_name << "; " << met << " of "
            << r.goals.size() << " goals met\n";
    return exit_ok;
}

AGPU_COMMAND("bench", "a dataset's timings as throughput, and its suite's performance goals (no GPU needed)",
             run_bench);

}  // namespace
}  // namespace agpu::cli
