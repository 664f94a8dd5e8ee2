#include "agpu/reports/sweep_section.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "agpu/reports/sections.hpp"
#include "charts.hpp"

namespace agpu::reports {
namespace {

using json = nlohmann::json;

// The most rows of heatmaps one algorithm's chart shows, and of skipped points listed.
constexpr std::size_t max_heatmap_rows = 12;
constexpr std::size_t max_skipped_rows = 30;

// One priced or skipped point, as the section reads it.
struct row {
    std::string algo, device, base, status, reason, bound;
    std::uint64_t n = 0;
    std::map<std::string, std::string> params;  // algorithm parameters
    std::map<std::string, double> set;          // swept device parameters
    bool priced = false;
    double seconds = 0, io_blocks = 0;
};

std::vector<row> read_rows(const sweep::results& r) {
    std::vector<row> out;
    for (const auto& line : r.lines) {
        const json& p = line.at("point");
        row x;
        x.algo = p.value("algo", "");
        x.n = p.value("n", std::uint64_t(0));
        const json params = p.value("params", json::object());
        for (auto it = params.begin(); it != params.end(); ++it)
            x.params[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
        const json device = p.value("device", json::object());
        x.device = device.value("id", "");
        x.base = device.value("base", "");
        const json set = device.value("set", json::object());
        for (auto it = set.begin(); it != set.end(); ++it)
            if (it.value().is_number()) x.set[it.key()] = it.value().get<double>();
        x.status = line.value("status", "");
        x.reason = line.at("reason").is_string() ? line.at("reason").get<std::string>() : "";
        const json& res = line.at("result");
        if (res.is_object() && res.value("priced", false) && res.at("seconds").is_number()) {
            x.priced = true;
            x.seconds = res.at("seconds").get<double>();
            x.bound = res.value("bound", "");
            x.io_blocks = res.value("counters", json::object()).value("io_blocks", 0.0);
        }
        out.push_back(std::move(x));
    }
    return out;
}

std::string params_text(const std::map<std::string, std::string>& params) {
    std::string s;
    for (const auto& [k, v] : params) s += (s.empty() ? "" : ", ") + k + "=" + v;
    return s.empty() ? "-" : s;
}

std::string set_text(const std::map<std::string, double>& set) {
    std::string s;
    for (const auto& [k, v] : set) s += (s.empty() ? "" : ", ") + k + "=" + fmt(v, 6);
    return s.empty() ? "-" : s;
}

// A dimension along which an algorithm's points vary: a swept device
// parameter, the base device, n, or an algorithm parameter.
struct dimension {
    enum class kind { set, base, n, param } what;
    std::string name;
    bool has(const row& x) const { return what != kind::set || x.set.count(name); }
    std::string text(const row& x) const {
        switch (what) {
            case kind::set: return x.set.count(name) ? fmt(x.set.at(name), 6) : "-";
            case kind::base: return x.base;
            case kind::n: return pow2(x.n);
            case kind::param: return x.params.count(name) ? x.params.at(name) : "-";
        }
        return "-";
    }
    // Numbers sort as numbers on the heatmap's axes.
    json value(const row& x) const {
        if (what == kind::set) return x.set.at(name);
        if (what == kind::n) return x.n;
        return text(x);
    }
    std::string label() const { return what == kind::base ? "device" : name; }
};

std::size_t distinct(const dimension& d, const std::vector<const row*>& rows) {
    std::set<std::string> v;
    for (const auto* x : rows)
        if (d.has(*x)) v.insert(d.text(*x));
    return v.size();
}

json heatmap_spec(const std::string& x_title, const std::string& y_title, bool x_numeric, bool y_numeric,
                  std::size_t x_count, std::size_t y_count, const json& row_order) {
    auto axis = [](const char* field, const std::string& title, bool numeric) {
        json a = {{"field", field}, {"type", "ordinal"}, {"title", title}};
        if (numeric) a["sort"] = "ascending";
        return a;
    };
    const json x = axis("x", x_title, x_numeric), y = axis("y", y_title, y_numeric);
    const json tooltip = json::array({{{"field", "device"}},
                                      {{"field", "metric"}},
                                      {{"field", "value"}, {"format", ".4~g"}},
                                      {{"field", "bound"}},
                                      {{"field", "seconds"}, {"format", ".4~g"}}});
    json rect = {{"transform", json::array({{{"filter", "datum.value > 0"}}})},
                 {"mark", "rect"},
                 {"encoding",
                  {{"x", x},
                   {"y", y},
                   // The lighter part of viridis, so that the bound's label reads on every cell.
                   {"color",
                    {{"field", "value"},
                     {"type", "quantitative"},
                     {"title", nullptr},
                     {"scale", {{"type", "log"}, {"scheme", {{"name", "viridis"}, {"extent", {0.35, 1.0}}}}}},
                     {"legend", {{"format", ".3~s"}}}}},
                   {"tooltip", tooltip}}}};
    json text = {{"transform", json::array({{{"filter", "datum.metric == 'predicted seconds'"}}})},
                 {"mark", {{"type", "text"}, {"fontSize", 9}, {"color", "black"}}},
                 {"encoding", {{"x", x}, {"y", y}, {"text", {{"field", "bound"}}}}}};
    return {{"facet",
             {{"row",
               {{"field", "rest"},
                {"type", "nominal"},
                {"title", nullptr},
                {"sort", row_order},
                {"header", {{"labelAngle", 0}, {"labelAlign", "left"}, {"labelOrient", "top"}}}}},
              {"column",
               {{"field", "metric"},
                {"type", "nominal"},
                {"title", nullptr},
                {"sort", json::array({"predicted seconds", "I/O blocks"})}}}}},
            {"spec",
             {{"width", std::max<std::size_t>(120, 28 * x_count)},
              {"height", std::max<std::size_t>(40, 22 * y_count)},
              {"layer", json::array({rect, text})}}},
            {"resolve", {{"scale", {{"color", "independent"}}}}}};
}

}  // namespace

section sweep_section(const sweep::results& r) {
    section s{"sweep", "The sweep: predicted time and I/O across the design space", {}};
    const auto rows = read_rows(r);
    std::size_t ok = 0, priced = 0;
    std::vector<std::string> algos;
    for (const auto& x : rows) {
        ok += x.status == "ok";
        priced += x.priced;
        if (std::find(algos.begin(), algos.end(), x.algo) == algos.end()) algos.push_back(x.algo);
    }
    std::string intro = "The points of `agpu sweep`";
    if (r.summary.is_object()) {
        const json spec = r.summary.value("spec", json::object());
        intro += " " + spec.value("name", std::string()) + " (" + spec.value("path", std::string()) + ")";
    }
    intro += ", read from " + r.source + ": " + std::to_string(rows.size()) + " points of " +
             std::to_string(algos.size()) + " algorithms, " + std::to_string(priced) + " with predicted seconds, " +
             std::to_string(rows.size() - ok) + " skipped.";
    if (!r.lines.empty()) {
        const json& first = r.lines.front();
        intro += " Counted by agpu " + first.value("agpu", json::object()).value("version", std::string()) +
                 " (commit " + first.value("agpu", json::object()).value("commit", std::string()) +
                 "); seconds from the time model (" +
                 first.value("model", json::object()).value("time_model", std::string()) + ", fit " +
                 first.value("model", json::object()).value("fit", std::string()) + ").";
    }
    s.add(intro);
    s.add(
        "Each algorithm's heatmaps show the predicted seconds and the I/O (global blocks moved) over two swept "
        "parameters, on log colour scales, with the bound that dominates the predicted time in each cell (dram, l2: "
        "memory; step, shared: issue; blocks: dispatch); a row of heatmaps for each value of the other parameters "
        "that vary. The tables say where each bound dominates and which device parameters are best for each "
        "algorithm and size.");

    auto best_table = table{"sweep-best",
                            "The best device parameters per algorithm and size",
                            {"algorithm", "n", "parameters", "points", "best device", "its parameters", "seconds",
                             "bound", "worst device", "seconds", "worst / best"},
                            {}};
    auto bounds_table = table{"sweep-bounds",
                              "Where each bound dominates",
                              {"algorithm", "bound", "points", "share", "over the swept parameters"},
                              {}};

    for (const auto& algo : algos) {
        std::vector<const row*> mine;
        for (const auto& x : rows)
            if (x.algo == algo && x.priced) mine.push_back(&x);
        if (mine.empty()) continue;

        // Best and worst device per size and parameters.
        std::map<std::pair<std::uint64_t, std::string>, std::vector<const row*>> groups;
        for (const auto* x : mine) groups[{x->n, params_text(x->params)}].push_back(x);
        for (const auto& [key, g] : groups) {
            const auto [lo, hi] = std::minmax_element(
                g.begin(), g.end(), [](const row* a, const row* b) { return a->seconds < b->seconds; });
            best_table.rows.push_back({algo, pow2(key.first), key.second, std::to_string(g.size()), (*lo)->device,
                                       set_text((*lo)->set), fmt((*lo)->seconds, 4), (*lo)->bound, (*hi)->device,
                                       fmt((*hi)->seconds, 4), fmt((*hi)->seconds / (*lo)->seconds, 3)});
        }
        // Where each bound dominates.
        std::map<std::string, std::vector<const row*>> by_bound;
        for (const auto* x : mine) by_bound[x->bound].push_back(x);
        for (const auto& [bound, g] : by_bound) {
            std::map<std::string, std::pair<double, double>> ranges;
            for (const auto* x : g)
                for (const auto& [k, v] : x->set) {
                    auto [it, fresh] = ranges.try_emplace(k, v, v);
                    if (!fresh) it->second = {std::min(it->second.first, v), std::max(it->second.second, v)};
                }
            std::string over;
            for (const auto& [k, lohi] : ranges)
                over += (over.empty() ? "" : ", ") + k + " " + fmt(lohi.first, 6) +
                        (lohi.second != lohi.first ? " to " + fmt(lohi.second, 6) : std::string());
            bounds_table.rows.push_back({algo, bound, std::to_string(g.size()),
                                         pct(double(g.size()) / double(mine.size())), over.empty() ? "-" : over});
        }

        // The dimensions along which this algorithm's points vary.
        std::vector<dimension> dims;
        std::set<std::string> set_names;
        for (const auto* x : mine)
            for (const auto& [k, v] : x->set) set_names.insert(k);
        std::vector<dimension> set_dims;
        for (const auto& name : set_names) set_dims.push_back({dimension::kind::set, name});
        std::stable_sort(set_dims.begin(), set_dims.end(),
                         [&](const dimension& a, const dimension& b) { return distinct(a, mine) > distinct(b, mine); });
        for (const auto& d : set_dims)
            if (distinct(d, mine) > 1) dims.push_back(d);
        std::vector<dimension> others = {{dimension::kind::n, "n"}, {dimension::kind::base, "base"}};
        std::set<std::string> param_names;
        for (const auto* x : mine)
            for (const auto& [k, v] : x->params) param_names.insert(k);
        for (const auto& name : param_names) others.push_back({dimension::kind::param, name});
        for (const auto& d : others)
            if (distinct(d, mine) > 1) dims.push_back(d);
        if (dims.empty()) continue;  // one point: the tables say it all

        const dimension x_dim = dims[0];
        const std::optional<dimension> y_dim = dims.size() > 1 ? std::optional<dimension>(dims[1]) : std::nullopt;
        // The points on the heatmap: those with a value on both axes; the rest of the varied dimensions label the rows.
        std::vector<const row*> shown;
        for (const auto* x : mine)
            if (x_dim.has(*x) && (!y_dim || y_dim->has(*x))) shown.push_back(x);
        std::vector<dimension> rest;
        for (std::size_t i = y_dim ? 2 : 1; i < dims.size(); ++i)
            if (distinct(dims[i], shown) > 1) rest.push_back(dims[i]);
        chart c;
        c.id = "sweep-" + slug(algo);
        c.title = algo + ": predicted seconds and I/O over " + x_dim.label() + (y_dim ? " and " + y_dim->label() : "");
        json order = json::array();
        std::set<std::string> seen_rest;
        std::size_t dropped = 0;
        for (const auto* x : shown) {
            std::string label;
            for (const auto& d : rest) label += (label.empty() ? "" : ", ") + d.label() + "=" + d.text(*x);
            if (label.empty()) label = algo;
            if (!seen_rest.count(label)) {
                if (seen_rest.size() == max_heatmap_rows) {
                    ++dropped;
                    continue;
                }
                seen_rest.insert(label);
                order.push_back(label);
            }
            const json yv = y_dim ? y_dim->value(*x) : json(algo);
            for (const auto& [metric, value] : {std::pair<std::string, double>{"predicted seconds", x->seconds},
                                                std::pair<std::string, double>{"I/O blocks", x->io_blocks}})
                c.rows.push_back({{"rest", label},
                                  {"metric", metric},
                                  {"x", x_dim.value(*x)},
                                  {"y", yv},
                                  {"value", value},
                                  {"bound", x->bound},
                                  {"device", x->device},
                                  {"seconds", x->seconds},
                                  {"io_blocks", x->io_blocks},
                                  {"n", x->n}});
        }
        if (c.rows.empty()) continue;
        std::string rest_names;
        for (const auto& d : rest) rest_names += (rest_names.empty() ? "" : ", ") + d.label();
        c.caption =
            "x: " + x_dim.label() + (y_dim ? "; y: " + y_dim->label() : "") +
            "; colour: the predicted seconds (left) and the I/O blocks (right), log scales; label: the bound "
            "that dominates the predicted time" +
            (rest.empty() ? "" : "; one row per " + rest_names) + "." +
            (dropped ? " " + std::to_string(dropped) + " points of further rows are in the chart's CSV only." : "");
        const bool x_numeric = x_dim.what == dimension::kind::set || x_dim.what == dimension::kind::n;
        const bool y_numeric = y_dim && (y_dim->what == dimension::kind::set || y_dim->what == dimension::kind::n);
        c.spec = heatmap_spec(x_dim.label(), y_dim ? y_dim->label() : "", x_numeric, y_numeric, distinct(x_dim, shown),
                              y_dim ? distinct(*y_dim, shown) : 1, order);
        s.add(std::move(c));
    }
    if (!best_table.rows.empty()) s.add(std::move(best_table));
    if (!bounds_table.rows.empty()) s.add(std::move(bounds_table));

    auto skipped = table{
        "sweep-skipped", "Points skipped, with the reason", {"algorithm", "device", "n", "parameters", "reason"}, {}};
    std::size_t skipped_count = 0;
    for (const auto& x : rows) {
        if (x.status == "ok") continue;
        if (++skipped_count <= max_skipped_rows)
            skipped.rows.push_back({x.algo, x.device, pow2(x.n), params_text(x.params), x.reason});
    }
    if (skipped_count) {
        s.add(std::to_string(skipped_count) + " points were skipped" +
              (skipped_count > max_skipped_rows ? " (the first " + std::to_string(max_skipped_rows) + " below)" : "") +
              ".");
        s.add(std::move(skipped));
    }
    if (ok > priced)
        s.add(std::to_string(ok - priced) +
              " points have counts without seconds (counts = closed-form where the closed "
              "form leaves out a counter the time model reads); the tables leave them out.");
    return s;
}

}  // namespace agpu::reports
