// agpu sweep's library: the spec (JSON and TOML alike, every bad field named),
// the points' keys, the cache's entries, the LPT assignment, the results
// reader, and a whole run that a second run finds in the cache.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/sweep/cache.hpp"
#include "agpu/sweep/point.hpp"
#include "agpu/sweep/results.hpp"
#include "agpu/sweep/runner.hpp"
#include "agpu/sweep/spec.hpp"

using agpu::input_error;
using nlohmann::json;
namespace sweep = agpu::sweep;
namespace fs = std::filesystem;

namespace {

json small_spec() {
    return json::parse(R"({
      "schema": "agpu.sweep-spec/1",
      "name": "small",
      "devices": {"base": ["h100"], "set": {"b": [16, 32], "bandwidth": {"from": 1000, "to": 4000, "times": 2}}},
      "algorithms": [
        {"key": "stats/fused", "n": [1000, 1000000]},
        {"key": "micro/global-stride", "n": 1024, "params": {"stride": [1, 2]}, "counts": ["auto", "exact"]}
      ]
    })");
}

std::string error_of(const json& j) {
    try {
        sweep::parse_spec(j, "spec.json", "");
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

void expect_error(const std::string& msg, const std::string& field, const std::string& rule) {
    EXPECT_NE(msg.find("spec.json: field " + field + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(rule), std::string::npos) << msg;
}

struct temp_dir {
    fs::path path;
    temp_dir() {
        path = fs::temp_directory_path() /
               ("agpu-sweep-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~temp_dir() { fs::remove_all(path); }
    static int& counter() {
        static int c = 0;
        return c;
    }
};

}  // namespace

TEST(SweepSpec, ExpandsDevicesAlgorithmsParamsSizesAndCounts) {
    const auto s = sweep::parse_spec(small_spec(), "spec.json", "");
    // devices: 2 b x 3 bandwidths (1000, 2000, 4000); stats/fused 2 n; global-stride 2 strides x 2 counts.
    EXPECT_EQ(s.points.size(), 6u * 2 + 6u * 2 * 2);
    EXPECT_EQ(s.device_axes, (std::vector<std::string>{"b", "bandwidth"}));
    const auto& first = s.points.front();
    EXPECT_EQ(first.device.agpu.b, 16u);
    EXPECT_EQ(first.device.agpu.p, 132u * 16);  // derived
    EXPECT_EQ(first.device.hw.mem_bandwidth_gbs, 1000);
    EXPECT_EQ(first.device_base, "h100");
    EXPECT_EQ(s.name, "small");
}

TEST(SweepSpec, TomlReadsAsJsonDoes) {
    const std::string toml = R"(
schema = "agpu.sweep-spec/1"
name = "small"

[devices]
base = ["h100"]
set.b = [16, 32]
set.bandwidth = {from = 1000, to = 4000, times = 2}

[[algorithms]]
key = "stats/fused"
n = [1000, 1000000]

[[algorithms]]
key = "micro/global-stride"
n = 1024
params = {stride = [1, 2]}
counts = ["auto", "exact"]
)";
    const auto a = sweep::parse_spec(sweep::toml_to_json(toml, "spec.toml"), "spec.toml", "");
    const auto b = sweep::parse_spec(small_spec(), "spec.json", "");
    ASSERT_EQ(a.points.size(), b.points.size());
    for (std::size_t i = 0; i < a.points.size(); ++i)
        EXPECT_EQ(sweep::point_json(a.points[i]), sweep::point_json(b.points[i])) << i;
}

TEST(SweepSpec, BadTomlNamesLineAndColumn) {
    try {
        sweep::toml_to_json("schema = \"x\"\nname = = 3\n", "spec.toml");
        FAIL();
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("spec.toml:2:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("not valid TOML"), std::string::npos) << e.what();
    }
}

TEST(SweepSpec, EveryUnknownKeyIsRejectedWithItsPath) {
    auto j = small_spec();
    j["device"] = 1;
    expect_error(error_of(j), "device", "unknown key (known: schema, name, devices");
    j = small_spec();
    j["devices"]["sets"] = json::object();
    expect_error(error_of(j), "devices.sets", "unknown key (known: base, set)");
    j = small_spec();
    j["algorithms"][1]["param"] = json::object();
    expect_error(error_of(j), "algorithms[1].param", "unknown key");
    j = small_spec();
    j["devices"]["set"]["bandwidth"]["by"] = 2;
    expect_error(error_of(j), "devices.set.bandwidth.by", "unknown key (known: from, to, step, times)");
}

TEST(SweepSpec, BadValuesNameTheFieldAndTheRule) {
    auto j = small_spec();
    j["schema"] = "agpu.sweep-spec/2";
    expect_error(error_of(j), "schema", "must be \"agpu.sweep-spec/1\"");
    j = small_spec();
    j["devices"]["set"]["bw"] = {1};
    expect_error(error_of(j), "devices.set.bw", "unknown device parameter");
    j = small_spec();
    j["algorithms"][1]["params"]["strid"] = {1};
    expect_error(error_of(j), "algorithms[1].params.strid", "unknown parameter of micro/global-stride");
    j = small_spec();
    j["algorithms"][1]["params"]["stride"] = {0};
    expect_error(error_of(j), "algorithms[1].params.stride", "must be in [1, 1024], got 0");
    j = small_spec();
    j["algorithms"][0]["key"] = "stats/nope";
    expect_error(error_of(j), "algorithms[0].key", "unknown algorithm");
    j = small_spec();
    j["algorithms"][0]["counts"] = "fast";
    expect_error(error_of(j), "algorithms[0].counts", "must be auto, closed-form, exact or sampled");
    j = small_spec();
    j["algorithms"][0]["n"] = {{"from", 10}, {"to", 1}, {"step", 1}};
    expect_error(error_of(j), "algorithms[0].n", "to must not be below from");
    j = small_spec();
    j["devices"]["base"] = {"h1000"};
    expect_error(error_of(j), "devices.base[0]", "no such preset");
    // An impossible device: the derivation's contradiction, named.
    j = small_spec();
    j["devices"]["set"] = {{"b", {64}}, {"p", {4224}}, {"k", {132}}};
    const auto msg = error_of(j);
    EXPECT_NE(msg.find("field agpu.p: gives 4224, which contradicts the derivation p = k * b"), std::string::npos)
        << msg;
}

TEST(SweepSpec, RepeatedPointsAppearOnce) {
    auto j = small_spec();
    j["devices"] = json::array({{{"base", "h100"}}, {{"base", {"h100", "h100"}}}});
    j["algorithms"] = json::array({{{"key", "stats/fused"}, {"n", {1000, 1000}}}});
    EXPECT_EQ(sweep::parse_spec(j, "spec.json", "").points.size(), 1u);
}

TEST(SweepKey, DependsOnTheInputsNotTheNames) {
    auto j = small_spec();
    j["devices"] = json::array({{{"base", "h100"}, {"set", {{"b", {64}}}}}, {{"base", "h100-b64"}}});
    j["algorithms"] = json::array({{{"key", "stats/fused"}, {"n", {1000, 2000}}}});
    const auto s = sweep::parse_spec(j, "spec.json", "");
    ASSERT_EQ(s.points.size(), 4u);
    // The same numbers under two names (h100 with b=64 set, its derivations following, and the h100-b64 preset)
    // share their key.
    EXPECT_EQ(sweep::point_key(s.points[0], s.fit), sweep::point_key(s.points[1], s.fit));
    EXPECT_NE(sweep::point_key(s.points[0], s.fit), sweep::point_key(s.points[2], s.fit));
    EXPECT_EQ(sweep::point_key(s.points[0], s.fit).size(), 64u);
    EXPECT_EQ(sweep::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    auto other_fit = s.fit;
    other_fit.constants[0] *= 2;
    EXPECT_NE(sweep::point_key(s.points[0], s.fit), sweep::point_key(s.points[0], other_fit));
}

TEST(SweepCache, EntriesRoundTripAndTornOnesDoNot) {
    temp_dir t;
    const sweep::cache c(t.path / "cache");
    const std::string key(64, 'a');
    sweep::outcome o;
    o.ok = true;
    o.result = {{"seconds", 1.5}};
    const auto text = sweep::cache::entry_text(key, {{"n", 1}}, o);
    EXPECT_FALSE(c.find(key));
    c.store(key, text);
    ASSERT_TRUE(c.find(key));
    EXPECT_EQ(*c.find(key), o);
    EXPECT_FALSE(sweep::cache::parse_entry(text.substr(0, text.size() - 1), key)) << "no line end: torn";
    EXPECT_FALSE(sweep::cache::parse_entry(text.substr(0, text.size() / 2) + "\n", key));
    EXPECT_FALSE(sweep::cache::parse_entry(text, std::string(64, 'b'))) << "another key's entry";
    // Nothing but the entry is left beside it.
    std::size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(t.path / "cache")) files += e.is_regular_file();
    EXPECT_EQ(files, 1u);
}

TEST(SweepLpt, LargestFirstToTheLeastLoaded) {
    const auto w = sweep::assign_lpt({1, 5, 3, 3, 2}, 2);
    // 5 -> 0, 3 -> 1, 3 -> 1 (3 < 5), 2 -> 0 (5 < 6), 1 -> 1 (6 < 7) ... loads 7 and 7.
    EXPECT_EQ(w, (std::vector<unsigned>{1, 0, 1, 1, 0}));
    EXPECT_EQ(sweep::assign_lpt({1, 1, 1}, 1), (std::vector<unsigned>{0, 0, 0}));
}

TEST(SweepResults, ATornLineIsAnErrorNamingTheLine) {
    temp_dir t;
    const auto file = t.path / "points.jsonl";
    const std::string line =
        json{{"schema", "agpu.sweep-point/2"}, {"key", "k"}, {"point", {}}, {"status", "ok"}, {"result", nullptr}}
            .dump();
    {
        std::ofstream out(file);
        out << line << "\n" << line.substr(0, 20);
    }
    try {
        sweep::read_results(file);
        FAIL();
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("points.jsonl:2: the last line has no line end"), std::string::npos)
            << e.what();
    }
    {
        std::ofstream out(file);
        out << line << "\n" << line << "\n";
    }
    EXPECT_EQ(sweep::read_results(t.path).lines.size(), 2u);
}

TEST(SweepRun, ASecondRunComputesNothingAndMergeAssemblesTheSame) {
    temp_dir t;
    auto j = small_spec();
    j["algorithms"][1]["n"] = 64;
    const auto s = sweep::parse_spec(j, "spec.json", "");
    sweep::run_options opt;
    opt.out_dir = t.path / "out";
    opt.cache_dir = t.path / "cache";
    opt.jobs = 2;
    const auto first = sweep::run_sweep(s, opt);
    EXPECT_EQ(first.computed, s.points.size());
    EXPECT_EQ(first.cached, 0u);
    EXPECT_EQ(first.ok, s.points.size());
    std::ifstream in1(first.results);
    const std::string text1((std::istreambuf_iterator<char>(in1)), {});
    opt.jobs = 1;
    const auto second = sweep::run_sweep(s, opt);
    EXPECT_EQ(second.computed, 0u);
    EXPECT_EQ(second.cached, s.points.size());
    std::ifstream in2(second.results);
    EXPECT_EQ(text1, std::string((std::istreambuf_iterator<char>(in2)), {}));
    // Shards of another sweep directory sharing the cache find everything; a merge assembles the same bytes.
    opt.out_dir = t.path / "merged";
    opt.merge_only = true;
    const auto merged = sweep::run_sweep(s, opt);
    std::ifstream in3(merged.results);
    EXPECT_EQ(text1, std::string((std::istreambuf_iterator<char>(in3)), {}));
    // A merge with points missing says how many, and writes nothing.
    opt.cache_dir = t.path / "empty-cache";
    opt.out_dir = t.path / "nothing";
    try {
        sweep::run_sweep(s, opt);
        FAIL();
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(s.points.size()) + " of " +
                                             std::to_string(s.points.size()) + " points are not in the cache"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(fs::exists(t.path / "nothing" / "points.jsonl"));
}

TEST(SweepRun, ShardsTogetherComputeEveryPointOnce) {
    temp_dir t;
    const auto s = sweep::parse_spec(small_spec(), "spec.json", "");
    sweep::run_options opt;
    opt.out_dir = t.path / "out";
    opt.cache_dir = t.path / "cache";
    std::size_t computed = 0;
    for (unsigned i = 0; i < 3; ++i) {
        opt.shard_index = i;
        opt.shard_count = 3;
        const auto r = sweep::run_sweep(s, opt);
        EXPECT_FALSE(r.wrote_results);
        computed += r.computed;
    }
    EXPECT_EQ(computed, s.points.size());
    opt.shard_index = 0;
    opt.shard_count = 1;
    opt.merge_only = true;
    EXPECT_EQ(sweep::run_sweep(s, opt).ok, s.points.size());
}

TEST(SweepPoint, SkipsWhatCannotRunWithTheReason) {
    auto j = small_spec();
    j["devices"] = {{"base", "h100"}};
    // The exact simulation of a large sort is estimated far above a 1 s limit.
    j["algorithms"] =
        json::array({{{"key", "sort/multiway"}, {"n", 1 << 24}, {"counts", "exact"}, {"max_sim_seconds", 1}}});
    const auto s = sweep::parse_spec(j, "spec.json", "");
    ASSERT_EQ(s.points.size(), 1u);
    const auto o = sweep::evaluate(s.points[0], s.fit);
    EXPECT_FALSE(o.ok);
    EXPECT_NE(o.reason.find("limit 1 s"), std::string::npos) << o.reason;
    EXPECT_TRUE(o.result.is_null());
}
