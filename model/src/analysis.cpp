#include "agpu/model/analysis.hpp"

#include "agpu/registry.hpp"

namespace agpu::model {

using analysis_registry = keyed_registry<analysis_entry>;

const analysis_entry* find_analysis(const std::string& key) { return analysis_registry::find(key); }

analysis_registrar::analysis_registrar(analysis_entry e) {
    const std::string key = e.key;  // read before the move below
    analysis_registry::add(key, std::move(e));
}

nlohmann::json to_json(const analysis& a) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : a.rows) {
        nlohmann::json row = nlohmann::json::object();
        for (std::size_t i = 0; i < r.size() && i < a.columns.size(); ++i) row[a.columns[i]] = r[i];
        rows.push_back(row);
    }
    return {{"title", a.title}, {"columns", a.columns}, {"rows", rows}, {"conclusion", a.conclusion}};
}

double ops_per_second(const device& d) {
    const double clock = d.hw.sm_clock_mhz * 1e6;
    if (d.hw.sm_count > 0 && d.hw.cores_per_sm > 0) return double(d.hw.sm_count) * d.hw.cores_per_sm * clock;
    return double(d.agpu.p) * clock;
}

}  // namespace agpu::model
