#include "agpu/reports/sections.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/reports/report.hpp"

namespace agpu::reports {
namespace {

std::string all_text(const section& s) {
    std::string out;
    for (const auto& b : s.blocks)
        if (const auto* p = std::get_if<paragraph>(&b)) out += p->text + "\n";
    return out;
}

const table& only_table(const section& s, std::size_t i = 0) { return *s.tables().at(i); }

TEST(Sections, Formatting) {
    EXPECT_EQ(fmt(0), "0");
    EXPECT_EQ(fmt(1234), "1234");
    EXPECT_EQ(fmt(1.23456), "1.23");
    EXPECT_EQ(fmt(2.5e9), "2.50e+09");
    EXPECT_EQ(pct(0.1234), "12.3%");
}

TEST(Sections, DevicesTableHasEveryPreset) {
    const auto s = devices_section(model::presets());
    EXPECT_EQ(only_table(s).rows.size(), model::presets().size());
    EXPECT_EQ(s.charts().at(0)->rows.size(), model::presets().size());
    // H100: 3352 GB/s over 132 SMs x 128 cores x 1980 MHz.
    const auto h100 = model::resolve_device("h100");
    EXPECT_NEAR(bytes_per_op(h100), h100.hw.mem_bandwidth_gbs * 1e9 / (132.0 * 128 * h100.hw.sm_clock_mhz * 1e6),
                1e-12);
}

model::device fake_device(const std::string& id, double bandwidth_gbs, std::uint64_t smem_per_block) {
    model::device d = model::resolve_device("h100");
    d.id = id;
    d.hw.sm_count = 10;
    d.hw.cores_per_sm = 10;
    d.hw.sm_clock_mhz = 1000;  // 1e11 operations per second
    d.hw.mem_bandwidth_gbs = bandwidth_gbs;
    d.hw.smem_per_block_bytes = smem_per_block;
    return d;
}

TEST(Sections, TileQuestionPicksTheSmallestComputeBoundTile) {
    // 0.3 bytes per op: 8/t < 0.3 from t = 32 (0.25); 0.1: from t = 128 (0.0625), which needs 192 KiB.
    const auto s = tile_question({fake_device("fast-mem", 30, 48 * 1024), fake_device("slow-mem", 10, 48 * 1024)}, 8192,
                                 {16, 32, 64, 128}, 4);
    const auto& t = only_table(s);
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.rows[0][t.columns.size() - 2], "32");
    EXPECT_EQ(t.rows[1][t.columns.size() - 2], "128");
    EXPECT_EQ(t.rows[0].back(), "64");  // 3 * 64^2 * 4 = 48 KiB
    EXPECT_NE(all_text(s).find("slow-mem: t = 128 (more than fits"), std::string::npos) << all_text(s);
    EXPECT_EQ(s.charts().at(0)->rows.size(), 4u + 2u);
}

TEST(Sections, SortQuestion) {
    // The bound itself: model/tests/costing_test.cpp.
    const auto s = sort_question(model::resolve_device("h100"),
                                 {{1024, 100, 100, 200, 200, 50}, {4096, 500, 600, 1500, 1800, 250}});
    EXPECT_EQ(only_table(s).rows.size(), 2u);
    EXPECT_EQ(only_table(s).rows[0][1], "100");
    EXPECT_EQ(only_table(s).rows[1][1], "500 to 600");
    EXPECT_EQ(s.charts().at(0)->rows.size(), 10u);
    EXPECT_NE(all_text(s).find("moves 500 to 600 blocks, 2 to 2.4 times the bound; the pairwise sort moves 1500 to "
                               "1800, 2.5 to 3.6 times"),
              std::string::npos)
        << all_text(s);
}

TEST(Sections, FamilySectionTablesAndCharts) {
    family_records r;
    r.family = "stats";
    r.formulas = {{"stats/fused", "n/b blocks"}, {"stats/serial", ""}};
    r.scaling = {{"stats/fused", "h100", "closed form", 1024, "io_blocks", 32},
                 {"stats/fused", "h100", "simulator", 1024, "io_blocks", 32},
                 {"stats/fused", "h100", "closed form", 1024, "time_steps", 0}};  // 0: not on a log axis
    r.seconds = {{"stats/fused", "h100", "run a", 1024, 1e-5, 1.1e-5},
                 {"stats/fused", "h100", "run b", 4096, 2e-5, 1.8e-5}};
    r.counters = {{"stats/fused", "run a", "global_load_sectors", 1024, 128, 128},
                  {"stats/fused", "run b", "global_load_sectors", 4096, 512, 520}};
    r.notes = {"Counters of x not compared: too long."};
    const auto s = family_section(r);
    EXPECT_EQ(s.id, "family-stats");
    const auto charts = s.charts();
    ASSERT_EQ(charts.size(), 3u);
    EXPECT_EQ(charts[0]->rows.size(), 2u);
    EXPECT_EQ(charts[1]->rows.size(), 2u);
    const auto tables = s.tables();
    ASSERT_EQ(tables.size(), 3u);
    EXPECT_EQ(tables[0]->rows[1][1], "(none: simulator only)");
    EXPECT_EQ(tables[1]->rows[0][3], "10%");  // MAPE of +10% and -10%
    EXPECT_EQ(tables[2]->rows[0][2], "1");    // one of two runs equal
    EXPECT_NE(all_text(s).find("too long"), std::string::npos);
}

TEST(Sections, FitSectionShowsUsedAndRefittedConstants) {
    validate::fit_report refit;
    const model::time_vector truth = {2, 0.8, 0.5, 0, 1, 0, 0, 0, 1};  // shared and atomic (indices 4, 8): the fixed 1
    for (int i = 0; i < 24; ++i) {
        validate::fit_sample s;
        s.algo = i % 2 ? "a/x" : "b/y";
        s.n = std::uint64_t(100) << i;
        s.run_id = s.algo + " n=" + std::to_string(s.n);
        s.device_id = "h100";
        s.size_range = i / 6;
        // A residue modulo 13 (more than the terms): no two terms' columns alike.
        for (std::size_t t = 0; t < model::time_term_count; ++t)
            s.features[t] = 1e-6 * double(1 + (std::size_t(i) * 7 + t * 3) % 13);
        s.measured_s = model::predict_seconds(s.features, truth);
        refit.data.samples.push_back(s);
    }
    refit = validate::fit_datasets(refit.data, {"synthetic"}, "test");
    const auto s = fit_section(model::default_fit(), refit);
    const auto& c = only_table(s, 0);
    EXPECT_EQ(c.rows.size(), model::time_term_count);
    EXPECT_EQ(c.rows[0][2], "2");  // launch refitted exactly
    const auto& e = only_table(s, 1);
    EXPECT_EQ(e.rows[0][0], "in sample");
    EXPECT_LT(std::stod(e.rows[0][2]), 1e-3) << e.rows[0][2];  // exact data: within the fit's ridge (1e-6) of 0%
    // in sample + 2 held-out evaluations, each of every sample.
    EXPECT_EQ(s.charts().at(0)->rows.size(), 3u * 24u);
}

TEST(Sections, CrossDeviceErrors) {
    const auto s =
        cross_device_section("h100", {{"stats/fused", "h100", "a", 10, 1, 1}, {"scan/x", "h100", "b", 10, 1, 1}},
                             {{"stats/fused", "h200", "c", 10, 1, 1.5}, {"stats/fused", "h200", "d", 20, 2, 1}});
    const auto& t = only_table(s);
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.rows[0][3], "50%");
    EXPECT_EQ(t.rows[1][0], "all");
    // Only the fit device's runs of algorithms also measured on the other device: 3 runs x measured, predicted.
    EXPECT_EQ(s.charts().at(0)->rows.size(), 6u);
    EXPECT_TRUE(cross_device_section("h100", {}, {}).charts().empty());
}

TEST(Sections, SweepsAndPresets) {
    const auto s = sweeps_section("h100",
                                  {{"stats/fused", 1024, "bandwidth", "h100-bandwidth6704", 6704, 3352, 1, 2, "dram"},
                                   {"stats/fused", 1024, "preset", "h100-2x-bw", 0, 0, 1, 2, "dram"}},
                                  {"a note"});
    EXPECT_EQ(s.charts().at(0)->rows.size(), 1u);
    EXPECT_EQ(s.charts().at(0)->rows[0]["speedup"], 2.0);
    EXPECT_EQ(only_table(s).rows.size(), 1u);
    EXPECT_EQ(only_table(s).rows[0][5], "2");
}

TEST(Sections, PairwiseQuestionHasTheNumbers) {
    std::vector<pairwise_row> rows = {{1024, 20, 200, 32, 1e-4, 1.1e-4, 5e-6},
                                      {1 << 20, 40, 131072, 32768, 1e-2, std::nullopt, std::nullopt}};
    const auto s = pairwise_question("h100", rows);
    EXPECT_NE(all_text(s).find("log2 N grows 2x, but the predicted time grows 100x"), std::string::npos) << all_text(s);
    EXPECT_NE(all_text(s).find("4 times the array, in 40 launches"), std::string::npos) << all_text(s);
    EXPECT_EQ(only_table(s).rows[1][6], "-");
    EXPECT_EQ(s.charts().at(0)->rows.size(), 2u * 2u + 2u);
}

// The committed table (validate/data/host/sampled, validate/scripts/sampled-table.py --out): one table row per
// algorithm row, in the file's order, and the counts of the text from the same records.
TEST(Sections, SampledSectionRendersTheCommittedTable) {
    const auto r = read_sampled_table(default_repository_root() / "validate/data/host/sampled");
    ASSERT_TRUE(r.missing.empty()) << r.missing;
    std::vector<std::string> keys;
    std::set<std::string> seen, counters;
    std::size_t within = 0;
    for (const auto& c : r.counters) {
        const std::string key = c.algo + " " + c.params + " " + std::to_string(c.n);
        if (seen.insert(key).second) keys.push_back(key);
        counters.insert(c.counter);
        within += std::fabs(c.relative_error) <= sampled_tolerance;
    }
    ASSERT_GE(keys.size(), 20u);
    EXPECT_EQ(r.counters.size(), keys.size() * counters.size());  // every counter of every row
    const auto s = sampled_section(r);
    EXPECT_EQ(s.id, "sampled");
    const auto& t = only_table(s, 0);
    ASSERT_EQ(t.rows.size(), keys.size());
    EXPECT_EQ(t.rows[0][0].rfind(r.counters[0].algo, 0), 0u) << t.rows[0][0];
    EXPECT_EQ(t.rows[0][1], std::to_string(r.counters[0].n));
    EXPECT_EQ(only_table(s, 1).rows.size(), counters.size());
    EXPECT_NE(all_text(s).find(std::to_string(within) + " of " + std::to_string(r.counters.size()) + " counter values"),
              std::string::npos)
        << all_text(s);
    document d;
    d.sections.push_back(s);
    const auto md = render_markdown(d);
    EXPECT_NE(md.find("Sampled simulation against exact"), std::string::npos);
    EXPECT_NE(md.find("| " + t.rows[0][0] + " |"), std::string::npos);
}

sampled_counter sampled(const std::string& algo, const std::string& counter, double exact, double sampled_value) {
    sampled_counter c;
    c.algo = algo;
    c.n = 4096;
    c.exact_s = 2;
    c.sampled_s = 0.5;
    c.blocks_recorded = 50;
    c.blocks_total = 1000;
    c.counter = counter;
    c.exact = exact;
    c.sampled = sampled_value;
    c.relative_error = (sampled_value - exact) / exact;
    c.reported_95 = 0.015;
    return c;
}

TEST(Sections, SampledSectionFlagsARowAboveOnePercent) {
    sampled_records r;
    r.source = "sampled.csv";
    r.counters = {sampled("a/good", "time_steps", 1000, 1005), sampled("a/good", "io_blocks", 100, 100),
                  sampled("b/bad", "time_steps", 1000, 1000), sampled("b/bad", "io_blocks", 100, 102)};
    const auto s = sampled_section(r);
    const auto& t = only_table(s, 0);
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.rows[0][4], "4.0x");
    EXPECT_EQ(t.rows[0][5], "50/1000");
    EXPECT_EQ(t.rows[0][6], "0.500%");
    EXPECT_EQ(t.rows[0][8], "0.500% (time_steps)");
    EXPECT_EQ(t.rows[0].back(), "yes (2/2)");
    EXPECT_EQ(t.rows[1][8], "2.000% (io_blocks)");
    EXPECT_EQ(t.rows[1].back(), "NO: 1 of 2 above");
    const auto text = all_text(s);
    EXPECT_NE(text.find("1 of 2 rows have every counter within 1%"), std::string::npos) << text;
    EXPECT_NE(text.find("3 of 4 counter values"), std::string::npos) << text;
    EXPECT_NE(text.find("Above 1%: b/bad n=4096: io_blocks 2.000%"), std::string::npos) << text;
    const auto& per_counter = only_table(s, 1);
    ASSERT_EQ(per_counter.rows.size(), 2u);
    EXPECT_EQ(per_counter.rows[0][0], "io_blocks");
    EXPECT_EQ(per_counter.rows[0][2], "1");
    EXPECT_EQ(per_counter.rows[0][4], "b/bad n=4096");
}

TEST(Sections, SampledSectionWithoutItsFile) {
    const auto dir = std::filesystem::temp_directory_path() / "agpu-sampled-test-missing";
    std::filesystem::remove_all(dir);
    const auto r = read_sampled_table(dir);
    EXPECT_NE(r.missing.find("sampled-table.py"), std::string::npos) << r.missing;
    const auto s = sampled_section(r);
    EXPECT_TRUE(s.tables().empty());
    EXPECT_NE(all_text(s).find("No sampled-against-exact table to show: no "), std::string::npos) << all_text(s);
    // A file in another format is refused, naming it.
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "sampled.csv") << "algo,n\n";
    try {
        read_sampled_table(dir);
        ADD_FAILURE() << "no error";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("sampled.csv:1"), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace agpu::reports
