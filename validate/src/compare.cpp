#include "agpu/validate/compare.hpp"

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/validate/dataset.hpp"

namespace agpu::validate {

comparison compare_dataset(const std::filesystem::path& dir, const std::string& device_override) {
    const auto data = read_dataset(dir);
    const auto& prov = data.provenance;
    const auto& rows = data.rows;
    comparison out;
    out.dataset = dir.string();
    out.device_id = device_override.empty() ? prov["device_id"].get<std::string>() : device_override;
    out.gpu_name = prov["gpu"].value("name", "");
    const auto dev = model::resolve_device(out.device_id);

    // measured[run][launch][counter]
    std::map<std::string, std::map<std::string, std::map<std::string, const measurement*>>> measured;
    std::map<std::string, const measurement*> first_row;
    for (const auto& r : rows) {
        measured[r.run_id][r.launch][r.counter] = &r;
        first_row.emplace(r.run_id, &r);
    }
    std::map<std::string, counter_summary> summary;
    for (const auto& [run_id, launches] : measured) {
        const auto run = launches.find("run");
        if (run == launches.end() || !run->second.count("complete")) continue;  // interrupted: nothing to compare
        const auto check = run->second.find("check");
        if (check != run->second.end() && check->second->value && *check->second->value == 0) continue;
        const measurement& m = *first_row.at(run_id);
        const sim::algorithm* found = nullptr;
        for (const auto* a : sim::algorithms())
            if (a->spec.key == m.algo) found = a;
        if (!found) {  // a GPU-only baseline (CUB, Thrust, a copy): measured, nothing to simulate
            out.not_simulated.insert(m.algo);
            continue;
        }
        const auto& algo = *found;
        std::vector<std::string> sets;
        for (std::size_t start = 0; start < m.params.size();) {
            const auto end = m.params.find(';', start);
            sets.push_back(m.params.substr(start, end == std::string::npos ? std::string::npos : end - start));
            start = end == std::string::npos ? m.params.size() : end + 1;
        }
        const auto params = model::parse_params(algo.spec, sets);
        const auto sim = sim::simulate(algo, dev, m.n, params, m.seed);
        if (!sim.check.passed) throw internal_error("simulating " + run_id + " failed its check: " + sim.check.detail);
        ++out.runs;
        for (std::size_t i = 0; i < sim.record.launches.size(); ++i) {
            const auto& l = sim.record.launches[i];
            const auto mi = launches.find(std::to_string(i));
            for (const auto& c : model::counter_table) {
                if (c.cupti_metric.empty()) continue;
                compare_row row{m.algo,
                                m.params,
                                l.kernel,
                                std::to_string(i),
                                std::string(c.name),
                                std::string(c.cupti_metric),
                                m.n,
                                double(l.c[c.id]),
                                std::nullopt,
                                std::nullopt};
                auto& s = summary[row.counter];
                s.counter = row.counter;
                ++s.rows;
                if (mi != launches.end()) {
                    const auto ci = mi->second.find(row.counter);
                    if (ci != mi->second.end()) {
                        if (ci->second->kernel != l.kernel)
                            throw input_error(dir.string() + ": run " + run_id,
                                              "launch " + row.launch + " is kernel " + ci->second->kernel +
                                                  " in the dataset but " + l.kernel + " in the simulator");
                        row.measured = ci->second->value;
                    }
                }
                if (row.measured) {
                    row.rel_diff = (*row.measured - row.simulated) / std::max(row.simulated, 1.0);
                    s.exact += *row.measured == row.simulated;
                    s.max_abs_rel_diff = std::max(s.max_abs_rel_diff, std::fabs(*row.rel_diff));
                    s.simulated_total += row.simulated;
                    s.measured_total += *row.measured;
                } else {
                    ++s.missing;
                }
                out.rows.push_back(std::move(row));
            }
        }
    }
    for (const auto& c : model::counter_table)
        if (summary.count(std::string(c.name))) out.counters.push_back(summary[std::string(c.name)]);
    return out;
}

nlohmann::json to_json(const comparison& c) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : c.rows)
        rows.push_back({{"algo", r.algo},
                        {"n", r.n},
                        {"params", r.params},
                        {"launch", r.launch},
                        {"kernel", r.kernel},
                        {"counter", r.counter},
                        {"cupti_metric", r.cupti_metric},
                        {"simulated", r.simulated},
                        {"measured", r.measured ? nlohmann::json(*r.measured) : nlohmann::json(nullptr)},
                        {"rel_diff", r.rel_diff ? nlohmann::json(*r.rel_diff) : nlohmann::json(nullptr)}});
    nlohmann::json counters = nlohmann::json::array();
    for (const auto& s : c.counters)
        counters.push_back({{"counter", s.counter},
                            {"rows", s.rows},
                            {"exact", s.exact},
                            {"missing", s.missing},
                            {"max_abs_rel_diff", s.max_abs_rel_diff},
                            {"simulated_total", s.simulated_total},
                            {"measured_total", s.measured_total}});
    return {{"schema", compare_schema},
            {"commit", build_info::commit},
            {"dataset", c.dataset},
            {"device", c.device_id},
            {"gpu", c.gpu_name},
            {"rows", rows},
            {"summary", {{"runs", c.runs}, {"counters", counters}, {"not_simulated", c.not_simulated}}}};
}

}  // namespace agpu::validate
