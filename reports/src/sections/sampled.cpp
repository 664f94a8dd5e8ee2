// The sampled simulation's section: the committed sampled-against-exact
// table (validate/data/host/sampled, read_sampled_table) as it is.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include "agpu/errors.hpp"
#include "agpu/reports/report.hpp"
#include "agpu/reports/sections.hpp"
#include "agpu/validate/dataset.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

namespace fs = std::filesystem;

sampled_records read_sampled_table(const fs::path& dir) {
    static constexpr const char* schema = "agpu.sampled-table/1";
    static constexpr const char* header =
        "schema,commit,device,algo,params,n,note,exact_s,sampled_s,blocks_recorded,blocks_total,counter,exact,sampled,"
        "relative_error,reported_95";
    constexpr std::size_t columns = 16;
    sampled_records r;
    const fs::path path = dir / "sampled.csv";
    r.source = path.generic_string();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        r.missing =
            "no " + r.source + " (validate/scripts/sampled-table.py --out " + dir.generic_string() + " makes it)";
        return r;
    }
    std::string line;
    if (!std::getline(in, line) || line != header)
        throw input_error(r.source + ":1", std::string("the header must be: ") + header);
    std::vector<std::string> f;
    for (std::size_t lineno = 2; std::getline(in, line); ++lineno) {
        if (line.empty()) continue;
        const std::string where = r.source + ":" + std::to_string(lineno);
        if (!validate::split_csv(line, f)) throw input_error(where, "unterminated quoted field");
        if (f.size() != columns)
            throw input_error(where,
                              "expected " + std::to_string(columns) + " columns, got " + std::to_string(f.size()));
        if (f[0] != schema)
            throw input_error(where + ": column schema",
                              "this agpu reads " + std::string(schema) + ", got '" + f[0] + "'");
        auto number = [&](std::size_t i, const char* name) {
            try {
                std::size_t used = 0;
                const double v = std::stod(f[i], &used);
                if (used == f[i].size() && std::isfinite(v)) return v;
            } catch (const std::exception&) {}
            throw input_error(where + ": column " + name, "must be a finite number, got '" + f[i] + "'");
        };
        auto count = [&](std::size_t i, const char* name) {
            const double v = number(i, name);
            if (v < 0 || v != std::floor(v))
                throw input_error(where + ": column " + name, "must be a non-negative integer, got '" + f[i] + "'");
            return std::uint64_t(v);
        };
        sampled_counter c;
        c.algo = f[3];
        c.params = f[4];
        c.n = count(5, "n");
        c.note = f[6];
        c.exact_s = number(7, "exact_s");
        c.sampled_s = number(8, "sampled_s");
        c.blocks_recorded = count(9, "blocks_recorded");
        c.blocks_total = count(10, "blocks_total");
        c.counter = f[11];
        c.exact = number(12, "exact");
        c.sampled = number(13, "sampled");
        c.relative_error = number(14, "relative_error");
        if (!f[15].empty()) c.reported_95 = number(15, "reported_95");
        r.counters.push_back(std::move(c));
    }
    if (r.counters.empty()) r.missing = r.source + " has no rows";
    const fs::path prov_path = dir / "provenance.json";
    std::ifstream prov_in(prov_path, std::ios::binary);
    if (!prov_in) {
        r.provenance = "No provenance.json beside it.";
        return r;
    }
    json p;
    try {
        p = json::parse(prov_in);
    } catch (const json::exception& e) {
        throw input_error(prov_path.generic_string(), std::string("not JSON: ") + e.what());
    }
    if (p.value("schema", std::string()) != "agpu.sampled-provenance/1")
        throw input_error(prov_path.generic_string() + ": field schema", "must be agpu.sampled-provenance/1");
    const auto& host = p.value("host", json::object());
    std::string load;
    if (host.contains("load_average_before") && host["load_average_before"].is_array() &&
        !host["load_average_before"].empty())
        load = ", load " + fmt(host["load_average_before"][0].get<double>()) + " at the start";
    r.provenance = "Measured " + p.value("started", std::string("(no date)")) + " to " +
                   p.value("finished", std::string("(no date)")) + " on " +
                   host.value("cpu", std::string("(unknown CPU)")) + ", " + std::to_string(host.value("cores", 0)) +
                   " cores" + load + ", by " + p.value("agpu_version", std::string("(unknown agpu)")) + ": `" +
                   p.value("command", std::string()) + "`.";
    return r;
}

// ---------------------------------------------------------------- sampled simulation against exact

namespace {

// A fraction as a percentage with fixed decimals, as sim/README.md's table gives it.
std::string pct_fixed(double fraction, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f%%", decimals, 100 * fraction);
    return buf;
}

}  // namespace

section sampled_section(const sampled_records& r) {
    section s{"sampled", "Sampled simulation against exact", {}};
    s.add(
        "Sampled mode (`agpu simulate|predict --mode sampled`) records the first and last blocks of a launch and one "
        "block drawn from each of 48 strata of the rest, extrapolates every summed counter from them (the stratified "
        "estimator) and reports each one's 95% error; the sorts' large runs synthesize their inputs, and some "
        "launches skip the blocks they do not record (sim/README.md, \"Sampled mode\"). Here each row ran "
        "`agpu simulate --mode exact` and `--mode sampled` at a mid size and compared every counter of the totals.");
    if (r.counters.empty()) {
        s.add("No sampled-against-exact table to show: " + (r.missing.empty() ? std::string("no rows") : r.missing) +
              ".");
        return s;
    }
    struct row {
        const sampled_counter* first = nullptr;
        const sampled_counter* time = nullptr;
        const sampled_counter* worst = nullptr;
        double largest_reported = 0;
        std::size_t counters = 0, within = 0;
        std::vector<const sampled_counter*> above;
    };
    std::vector<row> rows;
    std::map<std::string, std::size_t> index;  // algo, params, n -> rows[]
    struct per_counter {
        std::size_t rows = 0, within = 0;
        const sampled_counter* worst = nullptr;
    };
    std::map<std::string, per_counter> counters;
    std::size_t values = 0, values_within = 0;
    for (const auto& c : r.counters) {
        const std::string key = c.algo + "\n" + c.params + "\n" + std::to_string(c.n);
        const auto [it, added] = index.emplace(key, rows.size());
        if (added) rows.emplace_back().first = &c;
        auto& x = rows[it->second];
        const double err = std::fabs(c.relative_error);
        const bool within = err <= sampled_tolerance;
        ++x.counters;
        x.within += within;
        if (!within) x.above.push_back(&c);
        if (c.counter == "time_steps") x.time = &c;
        if (err > 0 && (!x.worst || err > std::fabs(x.worst->relative_error))) x.worst = &c;
        if (c.reported_95) x.largest_reported = std::max(x.largest_reported, *c.reported_95);
        auto& pc = counters[c.counter];
        ++pc.rows;
        pc.within += within;
        if (!pc.worst || err > std::fabs(pc.worst->relative_error)) pc.worst = &c;
        ++values;
        values_within += within;
    }
    auto name = [](const sampled_counter& c) {
        std::string out = c.algo;
        if (!c.params.empty()) out += " " + c.params;
        if (!c.note.empty()) out += " (" + c.note + ")";
        return out;
    };
    std::size_t rows_within = 0;
    std::string above;
    for (const auto& x : rows) {
        rows_within += x.above.empty();
        for (const auto* c : x.above)
            above += (above.empty() ? "" : "; ") + name(*c) + " n=" + std::to_string(c->n) + ": " + c->counter + " " +
                     pct_fixed(c->relative_error, 3);
    }
    s.add(std::to_string(rows_within) + " of " + std::to_string(rows.size()) + " rows have every counter within " +
          pct(sampled_tolerance) + " of exact; " + std::to_string(values_within) + " of " + std::to_string(values) +
          " counter values (rows times counters) are within it, and " +
          std::to_string(std::count_if(counters.begin(), counters.end(),
                                       [](const auto& kv) { return kv.second.within == kv.second.rows; })) +
          " of " + std::to_string(counters.size()) + " counters are within it on every row." +
          (above.empty() ? std::string() : " Above " + pct(sampled_tolerance) + ": " + above + "."));
    s.add("Data: `" + r.source + "` (one row per algorithm row and counter). " + r.provenance +
          " Wall times are of one run each on a host shared with other work: indicative only.");

    auto t = make_table(
        "sampled-table", "Sampled against exact, every counter of the totals",
        {"algorithm, params", "n", "exact s", "sampled s", "speed-up", "blocks recorded", "time_steps error",
         "its reported 95%", "worst counter error", "largest reported 95%", "within " + pct(sampled_tolerance)});
    for (const auto& x : rows) {
        const auto& c = *x.first;
        const double speedup = c.sampled_s > 0 ? c.exact_s / c.sampled_s : 0;
        char speed[32];
        std::snprintf(speed, sizeof speed, "%.1fx", speedup);
        char secs[2][32];
        std::snprintf(secs[0], sizeof secs[0], "%.1f", c.exact_s);
        std::snprintf(secs[1], sizeof secs[1], "%.1f", c.sampled_s);
        const std::string worst = x.worst
                                      ? pct_fixed(std::fabs(x.worst->relative_error), 3) + " (" + x.worst->counter + ")"
                                      : pct_fixed(0, 3) + " (-)";
        const std::string within =
            x.above.empty() ? "yes (" + std::to_string(x.within) + "/" + std::to_string(x.counters) + ")"
                            : "NO: " + std::to_string(x.above.size()) + " of " + std::to_string(x.counters) + " above";
        t.rows.push_back({name(c), std::to_string(c.n), secs[0], secs[1], speed,
                          std::to_string(c.blocks_recorded) + "/" + std::to_string(c.blocks_total),
                          x.time ? pct_fixed(std::fabs(x.time->relative_error), 3) : "-",
                          x.time && x.time->reported_95 ? pct_fixed(*x.time->reported_95, 2) : "-", worst,
                          pct_fixed(x.largest_reported, 2), within});
    }
    s.add(std::move(t));

    auto pc = make_table("sampled-counters", "Each counter's worst error over the rows",
                         {"counter", "rows", "within " + pct(sampled_tolerance), "worst error", "its row"});
    for (const auto& [counter, x] : counters)
        pc.rows.push_back(
            {counter, std::to_string(x.rows), std::to_string(x.within),
             pct_fixed(std::fabs(x.worst->relative_error), 3),
             std::fabs(x.worst->relative_error) > 0 ? name(*x.worst) + " n=" + std::to_string(x.worst->n) : "-"});
    s.add(std::move(pc));
    return s;
}

namespace {

std::vector<section> sampled_sections(const report_context& ctx) {
    const auto& opt = ctx.opt;
    const fs::path dir =
        opt.sampled_table.empty() ? opt.repository_root / "validate" / "data" / "host" / "sampled" : opt.sampled_table;
    auto records = read_sampled_table(dir);
    records.source = ctx.name_of(dir / "sampled.csv");
    ctx.say("  sampled simulation against exact: " +
            (records.missing.empty() ? std::to_string(records.counters.size()) + " counter values" : records.missing));
    return {sampled_section(records)};
}

AGPU_REGISTER_REPORT_SECTION({"sampled", 90, "sampled simulation against exact", sampled_sections});

}  // namespace
}  // namespace agpu::reports
