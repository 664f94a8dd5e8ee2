// The sweep's section from a handful of points: a heatmap per algorithm over
// the two swept parameters, the best device per size, the bounds, the skips.
#include <gtest/gtest.h>

#include "agpu/reports/document.hpp"
#include "agpu/reports/sweep_section.hpp"

namespace reports = agpu::reports;
using nlohmann::json;

namespace {

json line(const std::string& algo, std::uint64_t n, double b, double bw, double seconds, const std::string& bound,
          bool ok = true) {
    json point = {{"algo", algo},
                  {"n", n},
                  {"params", {{"type", "float"}}},
                  {"seed", 1},
                  {"counts", "auto"},
                  {"device",
                   {{"id", "h100-b" + std::to_string(int(b)) + "-bandwidth" + std::to_string(int(bw))},
                    {"base", "h100"},
                    {"set", {{"b", b}, {"bandwidth", bw}}}}}};
    json result =
        ok ? json{{"priced", true}, {"seconds", seconds}, {"bound", bound}, {"counters", {{"io_blocks", 1000 / b}}}}
           : json(nullptr);
    return {{"schema", "agpu.sweep-point/2"},
            {"key", "k"},
            {"point", point},
            {"status", ok ? "ok" : "skipped"},
            {"reason", ok ? json(nullptr) : json("the simulator would take about 900 s here (limit 60 s)")},
            {"result", result}};
}

reports::section sample() {
    agpu::sweep::results r;
    r.source = "points.jsonl";
    for (std::uint64_t n : {1024u, 4096u})
        for (double b : {16.0, 32.0, 64.0})
            for (double bw : {1000.0, 2000.0})
                r.lines.push_back(line("stats/fused", n, b, bw, double(n) / bw / b, bw < 1500 ? "dram" : "step"));
    r.lines.push_back(line("sort/multiway", 1 << 24, 32, 1000, 0, "", false));
    return reports::sweep_section(r);
}

}  // namespace

TEST(SweepSection, AHeatmapPerAlgorithmOverTheTwoSweptParameters) {
    const auto s = sample();
    const auto charts = s.charts();
    ASSERT_EQ(charts.size(), 1u) << "sort/multiway has no priced point";
    const auto& c = *charts[0];
    EXPECT_EQ(c.id, "sweep-stats-fused");
    // 12 points, each a seconds cell and an I/O cell; the rows of heatmaps are the two sizes.
    EXPECT_EQ(c.rows.size(), 24u);
    EXPECT_EQ(c.spec["facet"]["row"]["sort"], json::array({"n=2^10", "n=2^12"}));
    EXPECT_EQ(c.spec["spec"]["layer"][0]["mark"], "rect");
    EXPECT_EQ(c.spec["spec"]["layer"][0]["encoding"]["color"]["scale"]["type"], "log");
    EXPECT_EQ(c.spec["spec"]["layer"][1]["encoding"]["text"]["field"], "bound");
    // x: the parameter with more values (b: 3), y: the other (bandwidth: 2).
    EXPECT_EQ(c.spec["spec"]["layer"][0]["encoding"]["x"]["title"], "b");
    EXPECT_EQ(c.spec["spec"]["layer"][0]["encoding"]["y"]["title"], "bandwidth");
    reports::document d;
    d.sections.push_back(s);
    EXPECT_NO_THROW(reports::check_document(d));
}

TEST(SweepSection, TheBestDevicePerSizeTheBoundsAndTheSkips) {
    const auto s = sample();
    const auto tables = s.tables();
    ASSERT_EQ(tables.size(), 3u);
    const auto& best = *tables[0];
    EXPECT_EQ(best.id, "sweep-best");
    ASSERT_EQ(best.rows.size(), 2u);
    EXPECT_EQ(best.rows[0][4], "h100-b64-bandwidth2000");  // the fastest: widest b, most bandwidth
    EXPECT_EQ(best.rows[0][5], "b=64, bandwidth=2000");
    EXPECT_EQ(best.rows[0][8], "h100-b16-bandwidth1000");
    const auto& bounds = *tables[1];
    EXPECT_EQ(bounds.id, "sweep-bounds");
    ASSERT_EQ(bounds.rows.size(), 2u);
    EXPECT_EQ(bounds.rows[0][1], "dram");
    EXPECT_EQ(bounds.rows[0][4], "b 16 to 64, bandwidth 1000");
    const auto& skipped = *tables[2];
    EXPECT_EQ(skipped.id, "sweep-skipped");
    ASSERT_EQ(skipped.rows.size(), 1u);
    EXPECT_NE(skipped.rows[0][4].find("limit 60 s"), std::string::npos);
}
