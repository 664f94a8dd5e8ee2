// The cross-device section: the other device's runs predicted from the fit's
// constants and that device's preset alone, beside the fit device's own.
#include <map>
#include <set>

#include "agpu/reports/sections.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

section cross_device_section(const std::string& fit_device, const std::vector<seconds_point>& fit_device_runs,
                             const std::vector<seconds_point>& other_runs) {
    section s{"cross-device", "Another device predicted from the " + fit_device + " fit", {}};
    if (other_runs.empty()) {
        s.add("No dataset of another device was given, so nothing was predicted across devices.");
        return s;
    }
    std::set<std::string> others;
    for (const auto& p : other_runs) others.insert(p.device);
    std::string names;
    for (const auto& d : others) names += (names.empty() ? "" : ", ") + d;
    s.add("The runs measured on " + names + " predicted from the constants fitted on " + fit_device +
          " and the device's preset alone (its clock, bandwidth, SM count and launch overhead): nothing measured on " +
          names + " enters the prediction.");
    auto t = make_table("cross-device-errors", names + " predicted from the " + fit_device + " constants",
                        {"algorithm", "device", "runs", "MAPE", "median", "worst", "worst run"});
    std::map<std::pair<std::string, std::string>, std::vector<const seconds_point*>> groups;
    std::vector<double> all_p, all_m;
    std::vector<std::string> all_ids;
    for (const auto& p : other_runs) {
        groups[{p.algo, p.device}].push_back(&p);
        all_p.push_back(p.predicted_s);
        all_m.push_back(p.measured_s);
        all_ids.push_back(p.run_id);
    }
    add_error_rows(t, groups);
    const auto all = validate::summarise(all_p, all_m, all_ids);
    t.rows.push_back({"all", names, std::to_string(all.count), pct(all.mape), pct(all.median_ape), pct(all.worst_ape),
                      all.worst_run});
    s.add(std::move(t));

    chart c;
    c.id = "cross-device-seconds";
    c.title = "Measured and predicted seconds against n, per device";
    c.caption = "Filled circles measured, open squares predicted: the " + fit_device +
                " runs in sample, the others from the " + fit_device +
                " constants and their own preset. Runs of the "
                "algorithms measured on both devices only.";
    std::set<std::string> other_algos;
    for (const auto& p : other_runs) other_algos.insert(p.algo);
    auto add = [&](const seconds_point& p) {
        for (const auto& [kind, v] :
             {std::pair<const char*, double>{"measured", p.measured_s}, {"predicted", p.predicted_s}})
            c.rows.push_back({{"algo", p.algo},
                              {"device", p.device},
                              {"n", p.n},
                              {"run", p.run_id},
                              {"kind", kind},
                              {"seconds", v}});
    };
    for (const auto& p : fit_device_runs)
        if (other_algos.count(p.algo)) add(p);
    for (const auto& p : other_runs) add(p);
    c.spec = {{"facet", {{"column", nominal("device", "")}}},
              {"spec",
               {{"width", 340},
                {"height", 280},
                {"mark", {{"type", "point"}, {"size", 55}}},
                {"encoding",
                 {{"x", log_axis("n", "n")},
                  {"y", log_axis("seconds", "seconds")},
                  {"color", nominal("algo", "algorithm")},
                  {"shape", nominal("kind", "")},
                  {"fill",
                   {{"condition", {{"test", "datum.kind == 'measured'"}, {"field", "algo"}, {"type", "nominal"}}},
                    {"value", "transparent"}}},
                  {"tooltip", tooltip({"run", "device", "kind", "seconds"})}}}}}};
    s.add(std::move(c));
    return s;
}

namespace {

std::vector<section> cross_device_sections(const report_context& ctx) {
    const auto& fit = ctx.fit;
    const auto& g = ctx.records;
    std::vector<seconds_point> base, other;
    for (const auto& s : g.data.samples) base.push_back(to_point(s, fit.constants));
    for (const auto& s : g.check.samples) other.push_back(to_point(s, fit.constants));
    return {cross_device_section(fit.device, base, other)};
}

AGPU_REGISTER_REPORT_SECTION({"cross-device", 40, "cross-device", cross_device_sections});

}  // namespace
}  // namespace agpu::reports
