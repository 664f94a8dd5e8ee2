#include "agpu/validate/bench.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/suite.hpp"

namespace agpu::validate {
namespace {

std::set<std::string> split(const std::string& s, char sep) {
    std::set<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, sep);)
        if (!item.empty()) out.insert(item);
    return out;
}

// Whether a run of `algo` with `params` ("a=1;b=2") is an instance of `e`.
bool matches(const suite_entry& e, const std::string& algo, const std::string& params) {
    if (e.algo != algo) return false;
    const auto have = split(params, ';');
    return std::all_of(e.sets.begin(), e.sets.end(), [&](const std::string& s) { return have.count(s) > 0; });
}

}  // namespace

bench_report bench_dataset(const std::filesystem::path& dir) {
    const auto data = read_dataset(dir);
    const auto& prov = data.provenance;
    const auto& s = find_suite(prov.value("suite", ""));
    bench_report out{s.name, prov["gpu"].value("name", ""), dir.string(), {}, {}};

    std::map<std::string, std::vector<const measurement*>> by_run;
    const auto& rows = data.rows;
    std::map<std::string, double> sectors_by_run;  // global load + store sectors over the run's launches
    for (const auto& r : rows) {
        if (r.launch == "run") by_run[r.run_id].push_back(&r);
        else if (r.value && (r.counter == "global_load_sectors" || r.counter == "global_store_sectors"))
            sectors_by_run[r.run_id] += *r.value;
    }
    for (const auto& [id, rs] : by_run) {
        const auto get = [&](const std::string& counter) -> const measurement* {
            for (const auto* r : rs)
                if (r->counter == counter) return r;
            return nullptr;
        };
        if (!get("complete")) continue;  // interrupted run
        const measurement& m = *rs.front();
        const suite_entry* e = nullptr;
        for (const auto& cand : s.entries)
            if (matches(cand, m.algo, m.params) && (!e || cand.sets.size() > e->sets.size())) e = &cand;
        if (!e) continue;  // measured with another version of the suite
        bench_row b{entry_label(*e), m.algo, m.params, m.n, false, {}, {}, {}, {}, {}, {}};
        const auto* check = get("check");
        b.passed = check && check->value && *check->value == 1;
        const auto take = [&](const char* c) -> std::optional<double> {
            const auto* r = get(c);
            return r && r->value ? r->value : std::nullopt;
        };
        if (b.passed) {
            b.ms = take("time_ms");
            b.ms_min = take("time_ms_min");
            b.ms_max = take("time_ms_max");
        }
        if (b.ms && *b.ms > 0) {
            if (e->bytes) b.bytes_per_s = e->bytes(m.n) / (*b.ms * 1e-3);
            if (e->items) b.items_per_s = e->items(m.n) / (*b.ms * 1e-3);
        }
        if (const auto it = sectors_by_run.find(id); it != sectors_by_run.end()) b.global_sectors = it->second;
        out.rows.push_back(std::move(b));
    }
    std::sort(out.rows.begin(), out.rows.end(),
              [](const bench_row& a, const bench_row& b) { return std::tie(a.n, a.label) < std::tie(b.n, b.label); });

    check_targets(s);
    for (const auto& t : s.targets) {
        double best_baseline = 0;
        for (const auto& r : out.rows)
            if (r.label == t.baseline && r.bytes_per_s) best_baseline = std::max(best_baseline, *r.bytes_per_s);
        for (const auto& r : out.rows) {
            if (r.label != t.subject || r.n < t.min_n) continue;
            bench_goal g{t.subject, t.baseline, t.measure, t.what, r.n, std::nullopt, t.at_least, false};
            if (t.measure == "time" || t.measure == "sectors") {
                const bool time = t.measure == "time";
                bool baseline_measured = false;  // at this n, in this dataset
                for (const auto& b : out.rows)
                    if (b.label == t.baseline && b.n == r.n) {
                        baseline_measured = true;
                        if (time && b.ms && r.ms) g.value = *b.ms / *r.ms;
                        if (!time && b.passed && r.passed && b.global_sectors && r.global_sectors &&
                            *r.global_sectors > 0)
                            g.value = *b.global_sectors / *r.global_sectors;
                    }
                if (!baseline_measured) continue;  // not a failure: this dataset did not time the baseline here
            } else if (t.measure == "bandwidth") {
                if (r.bytes_per_s && best_baseline > 0) g.value = *r.bytes_per_s / best_baseline;
            } else if (r.items_per_s) {
                g.value = *r.items_per_s;
            }
            g.met = g.value && *g.value >= t.at_least;
            out.goals.push_back(std::move(g));
        }
    }
    return out;
}

nlohmann::json to_json(const bench_report& r) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json rows = nlohmann::json::array(), goals = nlohmann::json::array();
    for (const auto& b : r.rows)
        rows.push_back({{"label", b.label},
                        {"algo", b.algo},
                        {"params", b.params},
                        {"n", b.n},
                        {"passed", b.passed},
                        {"ms", opt(b.ms)},
                        {"ms_min", opt(b.ms_min)},
                        {"ms_max", opt(b.ms_max)},
                        {"bytes_per_s", opt(b.bytes_per_s)},
                        {"items_per_s", opt(b.items_per_s)},
                        {"global_sectors", opt(b.global_sectors)}});
    std::size_t met = 0;
    for (const auto& g : r.goals) {
        met += g.met;
        goals.push_back({{"subject", g.subject},
                         {"baseline", g.baseline},
                         {"measure", g.measure},
                         {"what", g.what},
                         {"n", g.n},
                         {"value", opt(g.value)},
                         {"at_least", g.at_least},
                         {"met", g.met}});
    }
    return {{"schema", bench_schema},
            {"suite", r.suite},
            {"gpu", r.gpu_name},
            {"dataset", r.dataset},
            {"rows", rows},
            {"goals", goals},
            {"summary", {{"goals", r.goals.size()}, {"met", met}}}};
}

}  // namespace agpu::validate
