// agpu bench on a made-up dataset: throughput from the entries' bytes and
// items, and each kind of goal (time ratio, bandwidth ratio, rate) met or not.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "agpu/validate/bench.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/suite.hpp"

namespace fs = std::filesystem;
namespace validate = agpu::validate;

namespace {

AGPU_REGISTER_SUITE({"bench-test",
                     "a suite for this test only",
                     {1000},
                     {{"test/fast",
                       {"type=float"},
                       [](std::uint64_t n) { return 4.0 * double(n); },
                       [](std::uint64_t n) { return double(n); }},
                      {"test/copy", {}, [](std::uint64_t n) { return 8.0 * double(n); }}},
                     {{"test/fast type=float", "test/copy", "time", 0.5, 0, "fast at least half the copy's speed"},
                      {"test/fast type=float", "test/copy", "bandwidth", 0.9, 0, "fast at 90% of copy bandwidth"},
                      {"test/fast type=float", "", "rate", 2e9, 0, "2 G items/s"}}});

// A fresh dataset directory in the temp folder: a complete session on an H100, no rows yet.
fs::path empty_dataset(const std::string& name, const std::string& suite) {
    const auto dir = fs::temp_directory_path() / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    validate::write_provenance(dir, {{"schema", validate::provenance_schema},
                                     {"suite", suite},
                                     {"device_id", "h100"},
                                     {"gpu", {{"name", "Test GPU"}}},
                                     {"sessions", {{{"commit", "test"}, {"status", "complete"}}}}});
    return dir;
}

void run(validate::measurement_writer& w, const std::string& algo, const std::string& params, std::uint64_t n,
         double ms, bool passed) {
    const auto id = validate::make_run_id(algo, n, params, 1);
    auto r = [&](const std::string& counter, double v) {
        return validate::measurement{id, algo, n, params, 1, "run", "", counter, v, "", ""};
    };
    w.append_run(
        {r("check", passed ? 1 : 0), r("time_ms", ms), r("time_ms_min", ms), r("time_ms_max", ms), r("complete", 1)});
}

}  // namespace

TEST(Bench, ThroughputAndGoals) {
    const auto dir = empty_dataset("agpu_bench_test", "bench-test");
    {
        validate::measurement_writer w(dir);
        run(w, "test/fast", "type=float", 1000, 0.001, true);  // 4000 B in 1 us: 4 GB/s, 1 G items/s
        run(w, "test/copy", "", 1000, 0.004, true);            // 8000 B in 4 us: 2 GB/s
        run(w, "test/copy", "", 2000, 0.002, true);            // 16000 B in 2 us: 8 GB/s (its best)
    }
    const auto r = validate::bench_dataset(dir);
    ASSERT_EQ(r.rows.size(), 3u);
    EXPECT_EQ(r.rows[0].label, "test/copy");
    EXPECT_EQ(r.rows[1].label, "test/fast type=float");
    EXPECT_DOUBLE_EQ(*r.rows[1].bytes_per_s, 4e9);
    EXPECT_DOUBLE_EQ(*r.rows[1].items_per_s, 1e9);
    ASSERT_EQ(r.goals.size(), 3u);
    EXPECT_DOUBLE_EQ(*r.goals[0].value, 4.0);  // copy's 4 us over fast's 1 us at n = 1000
    EXPECT_TRUE(r.goals[0].met);
    EXPECT_DOUBLE_EQ(*r.goals[1].value, 0.5);  // 4 GB/s against the copy's best 8 GB/s
    EXPECT_FALSE(r.goals[1].met);
    EXPECT_DOUBLE_EQ(*r.goals[2].value, 1e9);
    EXPECT_FALSE(r.goals[2].met);
    EXPECT_EQ(validate::to_json(r)["summary"]["met"], 1);
}

TEST(Bench, AFailedRunIsNotTimed) {
    const auto dir = empty_dataset("agpu_bench_test_failed", "bench-test");
    {
        validate::measurement_writer w(dir);
        run(w, "test/fast", "type=float", 1000, 0.001, false);
        run(w, "test/copy", "", 1000, 0.004, true);
    }
    const auto r = validate::bench_dataset(dir);
    ASSERT_EQ(r.goals.size(), 3u);
    for (const auto& g : r.goals) {
        EXPECT_FALSE(g.value) << g.what;
        EXPECT_FALSE(g.met) << g.what;
    }
}

namespace {

AGPU_REGISTER_SUITE({"bench-test-sectors",
                     "a suite for this test only: a sectors-ratio goal",
                     {1000},
                     {{"test/lean", {}}, {"test/heavy", {}}},
                     {{"test/lean", "test/heavy", "sectors", 2.0, 0, "at most half the heavy one's global sectors"}}});

// A run with per-launch sector rows (as a dataset measured with counters has).
void run_with_sectors(validate::measurement_writer& w, const std::string& algo, std::uint64_t n,
                      const std::vector<std::pair<double, double>>& launches) {
    const auto id = validate::make_run_id(algo, n, "", 1);
    auto r = [&](const std::string& launch, const std::string& counter, double v) {
        return validate::measurement{id, algo, n, "", 1, launch, "k", counter, v, "sectors", ""};
    };
    std::vector<validate::measurement> rows{r("run", "check", 1), r("run", "time_ms", 1.0)};
    for (std::size_t i = 0; i < launches.size(); ++i) {
        rows.push_back(r(std::to_string(i), "global_load_sectors", launches[i].first));
        rows.push_back(r(std::to_string(i), "global_store_sectors", launches[i].second));
        rows.push_back(r(std::to_string(i), "global_atomic_sectors", 1e9));  // not a load or a store: not counted
    }
    rows.push_back(r("run", "complete", 1));
    w.append_run(rows);
}

}  // namespace

TEST(Bench, SectorsRatioGoal) {
    const auto dir = empty_dataset("agpu_bench_test_sectors", "bench-test-sectors");
    {
        validate::measurement_writer w(dir);
        run_with_sectors(w, "test/lean", 1000, {{100, 50}, {25, 25}});  // 200 sectors
        run_with_sectors(w, "test/heavy", 1000, {{300, 200}});          // 500 sectors
        run_with_sectors(w, "test/lean", 2000, {{400, 400}});           // 800 sectors
        run_with_sectors(w, "test/heavy", 2000, {{700, 500}});          // 1200 sectors
    }
    const auto r = validate::bench_dataset(dir);
    ASSERT_EQ(r.goals.size(), 2u);
    EXPECT_DOUBLE_EQ(*r.rows[1].global_sectors, 200.0);
    EXPECT_DOUBLE_EQ(*r.goals[0].value, 2.5);  // 500 / 200 at n = 1000
    EXPECT_TRUE(r.goals[0].met);
    EXPECT_DOUBLE_EQ(*r.goals[1].value, 1.5);  // 1200 / 800 at n = 2000
    EXPECT_FALSE(r.goals[1].met);
}

TEST(Bench, SectorsGoalWithoutCountersHasNoValue) {
    const auto dir = empty_dataset("agpu_bench_test_sectors_none", "bench-test-sectors");
    {
        validate::measurement_writer w(dir);
        run_with_sectors(w, "test/lean", 1000, {});
        run_with_sectors(w, "test/heavy", 1000, {});
    }
    const auto r = validate::bench_dataset(dir);
    ASSERT_EQ(r.goals.size(), 1u);
    EXPECT_FALSE(r.goals[0].value);
    EXPECT_FALSE(r.goals[0].met);
}
