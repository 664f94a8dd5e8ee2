#include "agpu/model/time_model.hpp"

#include <gtest/gtest.h>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/sweep.hpp"

namespace agpu::model {
namespace {

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    return "no error";
}

// The counts of `launches` launches of `threads` threads in all.
counts launched(std::uint64_t launches, std::uint64_t threads) {
    counts c;
    c[counter::launches] = launches;
    c[counter::threads] = threads;
    return c;
}

// A device's SM clocks per second, all SMs together.
double sm_clocks_hz(const device& d) { return d.hw.sm_count * d.hw.sm_clock_mhz * 1e6; }

TEST(TimeModel, FeaturesUseTheDevicesFigures) {
    const auto& h100 = resolve_device("h100");
    counts c = launched(2, 2 * 1024);
    c[counter::time_steps] = 1980;
    c[counter::global_sectors] = 1000;
    c[counter::shared_wavefronts] = 132 * 40;
    c[counter::bank_conflicts] = 132 * 10;  // the shared term prices the replays only, the steps the rest
    c[counter::thread_blocks] = 264;
    c[counter::chain_waits] = 2 * 99;        // two launches whose heaviest blocks wait 99 times a warp
    c[counter::chain_collectives] = 2 * 25;  // and shuffle 25 times
    const auto f = time_features(c, h100, 0);
    const double sm_clocks = sm_clocks_hz(h100);
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::launch)], 2 * h100.hw.launch_overhead_us * 1e-6);
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::dram)], 32000 / (h100.hw.mem_bandwidth_gbs * 1e9));
    EXPECT_EQ(f[std::size_t(time_term::l2)], 0);  // footprint unknown: streamed, every sector from DRAM
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::step)], (1980 - 10) / (h100.hw.sm_clock_mhz * 1e6));
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::shared)], 132 * 10 / sm_clocks);
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::blocks)], 264 / sm_clocks);                    // two blocks an SM
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::chain)], 198 / (h100.hw.sm_clock_mhz * 1e6));  // one SM's clock
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::collective)], 50 / (h100.hw.sm_clock_mhz * 1e6));
    EXPECT_EQ(f[std::size_t(time_term::latency)], 0);  // launches of a warp or more
    EXPECT_EQ(f[std::size_t(time_term::atomic)], 0);
    c[counter::threads] = 2;  // one thread per launch: latency-bound
    EXPECT_DOUBLE_EQ(time_features(c, h100, 0)[std::size_t(time_term::latency)],
                     1980 * (1 - 1.0 / 32) / (h100.hw.sm_clock_mhz * 1e6));
}

// A working set that fits in the L2 crosses DRAM once; the other sectors are
// the L2's. One above the L2 is streamed from DRAM whatever it re-reads.
TEST(TimeModel, WorkingSetsInTheL2AreServedByIt) {
    const auto& h100 = resolve_device("h100");
    counts c = launched(1, 1 << 20);
    c[counter::global_sectors] = 1000000;
    c[counter::global_atomic_sectors] = 24;
    c[counter::io_blocks] = 250006;  // four sectors to a 128-byte block
    const double sm_clocks = sm_clocks_hz(h100);
    const std::uint64_t fits = 3200000;  // 100,000 sectors, far below the 50 MB L2
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, fits), 100000);
    auto f = time_features(c, h100, fits);
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::dram)], 100000 * 32 / (h100.hw.mem_bandwidth_gbs * 1e9));
    // The L2 serves blocks: all of them but the 25,000 that DRAM's sectors fill.
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::l2)], (250006 - 25000) / sm_clocks);
    c[counter::io_blocks] = 1000024;  // scattered: every sector a block of its own, the same sectors
    EXPECT_DOUBLE_EQ(time_features(c, h100, fits)[std::size_t(time_term::l2)], (1000024 - 25000) / sm_clocks);
    c[counter::io_blocks] = 250006;
    // A footprint larger than the traffic: every sector once, from DRAM.
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, 40000000), 1000024);
    EXPECT_EQ(time_features(c, h100, 40000000)[std::size_t(time_term::l2)], 0);
    // Above the L2 (and on a device without one): all of it.
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, h100.hw.l2_bytes + 1), 1000024);
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, h100.hw.l2_bytes), 1000024);  // 1.6 M sectors of footprint: all of it
    EXPECT_DOUBLE_EQ(dram_sectors(c, resolve_device("geforce-9400gt"), fits), 1000024);
    // A working set just above the H100's L2 is streamed there and resident
    // on the H200, whose L2 is larger: the same rule on each device's figures.
    c[counter::launches] = 4;
    c[counter::global_sectors] = 4000000;
    const auto& h200 = resolve_device("h200");
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, h100.hw.l2_bytes + 32), 4000024);
    EXPECT_DOUBLE_EQ(dram_sectors(c, h200, h100.hw.l2_bytes + 32), 1638401);
}

// A streamed working set crosses DRAM at most once per launch: what a launch
// touches again (the same sectors by two loads of a warp, a row every block
// reads) is served by the L2 while the launch runs. Without an L2 nothing is.
TEST(TimeModel, StreamedLaunchesMoveAtMostTheirFootprint) {
    const auto& h100 = resolve_device("h100");
    counts c = launched(1, 1 << 20);
    c[counter::global_load_sectors] = 3000000;
    c[counter::global_load_blocks] = 750000;
    c[counter::global_store_sectors] = 1000000;
    c[counter::global_sectors] = 4000000;
    c[counter::io_blocks] = 1000000;
    const std::uint64_t footprint = 2 * h100.hw.l2_bytes;  // 3,276,800 sectors
    const double sm_clocks = sm_clocks_hz(h100);
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, footprint), 3276800);
    EXPECT_DOUBLE_EQ(time_features(c, h100, footprint)[std::size_t(time_term::l2)], (1000000 - 819200) / sm_clocks);
    c[counter::launches] = 2;  // two launches may stream it twice: every sector
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, footprint), 4000000);
    c[counter::launches] = 0;  // counts without launches: one
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, footprint), 3276800);
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, 0), 4000000);  // footprint unknown: no bound
    EXPECT_DOUBLE_EQ(dram_sectors(c, resolve_device("geforce-9400gt"), footprint), 4000000);  // no L2
}

// A streamed run's loads move at least one 64-byte DRAM atom per global
// block they touch: one sector per block (global-stride 33) moves twice its
// sectors, four per block (stride 8) its sectors. Stores move their sectors
// whatever their blocks. A resident working set keeps its footprint rule.
TEST(TimeModel, StreamedLoadsMoveWholeDramAtoms) {
    const auto& h100 = resolve_device("h100");
    counts c = launched(1, 1 << 20);
    c[counter::global_load_sectors] = 1 << 20;
    c[counter::global_load_blocks] = 1 << 20;  // every sector in a block of its own
    c[counter::global_store_sectors] = 1 << 17;
    c[counter::global_store_blocks] = 1 << 15;
    c[counter::global_sectors] = (1 << 20) + (1 << 17);
    c[counter::io_blocks] = (1 << 20) + (1 << 15);
    const std::uint64_t streamed = 4 * h100.hw.l2_bytes;
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, streamed), 2.0 * (1 << 20) + (1 << 17));
    // The L2 serves 2^20 + 2^15 blocks; DRAM's atoms fill the bytes of 2^19 + 2^15.
    EXPECT_DOUBLE_EQ(time_features(c, h100, streamed)[std::size_t(time_term::l2)],
                     double(1 << 19) / sm_clocks_hz(h100));
    c[counter::global_load_blocks] = 1 << 18;  // four sectors to a 128-byte block
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, streamed), (1 << 20) + (1 << 17));
    c[counter::global_load_sectors] = 0;  // scattered stores: their sectors only
    c[counter::global_load_blocks] = 0;
    c[counter::global_store_sectors] = 1 << 20;
    c[counter::global_store_blocks] = 1 << 20;
    c[counter::global_sectors] = 1 << 20;
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, streamed), 1 << 20);
    EXPECT_DOUBLE_EQ(dram_sectors(c, h100, 3200000), 100000);  // resident: the footprint once
    // A machine whose global block is smaller than an atom (b = 4 words of
    // 32 bits: 16 bytes) counts half an atom per block, never more than its sectors' worth.
    device tiny = h100;
    tiny.agpu.b = 4;
    tiny.agpu.p = 4 * 132;
    c[counter::global_load_sectors] = 1 << 20;
    c[counter::global_load_blocks] = 1 << 20;
    c[counter::global_sectors] = (1 << 20) + (1 << 20);
    EXPECT_DOUBLE_EQ(dram_sectors(c, tiny, streamed), 2.0 * (1 << 20));
}

TEST(TimeModel, BoundsSumTheirTermsAndTheLargestCounts) {
    time_vector f{}, c{};
    f.fill(1);
    // launch, dram, l2, step, shared, latency, dram_latency, l2_latency, atomic, blocks
    c = {1, 2, 3, 4, 5, 6, 7, 8, 9, 7};
    EXPECT_DOUBLE_EQ(predict_seconds(f, c), 1 + 6 + 7 + 8 + 9 + std::max({2 + 3, 4 + 5, 7}));
    EXPECT_EQ(dominant_group(f, c), time_bound::issue);
    EXPECT_EQ(dominant_bound(f, c), time_term::shared);
    c[std::size_t(time_term::dram)] = 20;
    EXPECT_EQ(dominant_group(f, c), time_bound::memory);
    EXPECT_EQ(dominant_bound(f, c), time_term::dram);
    EXPECT_EQ(name(time_bound::memory), "memory");
    c[std::size_t(time_term::blocks)] = 30;  // the dispatch bound, a third of the max
    EXPECT_DOUBLE_EQ(predict_seconds(f, c), 1 + 6 + 7 + 8 + 9 + 30);
    EXPECT_EQ(dominant_group(f, c), time_bound::dispatch);
    EXPECT_EQ(dominant_bound(f, c), time_term::blocks);
    EXPECT_EQ(name(time_bound::dispatch), "dispatch");
}

TEST(TimeModel, MoreBandwidthNeverSlower) {
    counts c = launched(1, 1 << 20);
    c[counter::time_steps] = 5000;
    c[counter::global_sectors] = 1 << 20;
    const auto& fit = default_fit();
    const auto& h100 = resolve_device("h100");
    const double t1 = predict_seconds(time_features(c, h100, 0), fit.constants);
    const double t2 = predict_seconds(
        time_features(c, with_parameter(h100, "bandwidth", 2 * h100.hw.mem_bandwidth_gbs), 0), fit.constants);
    EXPECT_LT(t2, t1);
}

TEST(TimeModel, FitJsonRoundTrip) {
    time_fit f;
    f.constants = {1.5, 0.8, 1.3, 0.5, 0.6, 90, 650, 270, 1.25};
    f.device = "h100";
    f.date = "2026-11-21T00:00:00Z";
    f.commit = "abc";
    f.datasets = {"validate/data/h100/timing/stats"};
    f.quality = {{"in_sample", {{"mape", 0.2}}}};
    const auto g = fit_from_json(fit_to_json(f), "mem");
    EXPECT_EQ(g.constants, f.constants);
    EXPECT_EQ(g.device, f.device);
    EXPECT_EQ(g.date, f.date);
    EXPECT_EQ(g.commit, f.commit);
    EXPECT_EQ(g.datasets, f.datasets);
    EXPECT_TRUE(g.check_datasets.empty());
    EXPECT_FALSE(fit_to_json(f).contains("check_datasets"));  // optional: written only when checked
    EXPECT_EQ(g.quality, f.quality);
    EXPECT_EQ(fit_to_json(f)["schema"], "agpu.fit/10");
    f.check_datasets = {"validate/data/h200/timing/stats", "validate/data/h200/timing/scan"};
    EXPECT_EQ(fit_from_json(fit_to_json(f), "mem").check_datasets, f.check_datasets);
}

TEST(TimeModel, FitCheckDatasetsMustBePaths) {
    time_fit f;
    f.device = "h100";
    f.date = "2026-11-24T00:00:00Z";
    auto j = fit_to_json(f);
    j["check_datasets"] = "validate/data/h200/timing/stats";
    try {
        fit_from_json(j, "f.json");
        FAIL() << "a string where an array belongs was read";
    } catch (const agpu::input_error& e) {
        EXPECT_STREQ(e.what(), "f.json: field check_datasets: must be an array of paths");
    }
    j["check_datasets"] = nlohmann::json::array({"ok", 3});
    EXPECT_THROW(fit_from_json(j, "f.json"), agpu::input_error);
}

// A conflict-free shared access is a step like any other; the wavefronts a
// bank conflict replays are the shared pipeline's clocks instead of steps
// (micro/shared-stride: stride 1 conflict-free, stride 32 32 replays a load).
TEST(TimeModel, SharedTermPricesBankConflictsOnly) {
    const auto& h100 = resolve_device("h100");
    const double clock_hz = h100.hw.sm_clock_mhz * 1e6;
    counts c = launched(1, 1 << 20);
    c[counter::time_steps] = 33 * 1000;
    c[counter::shared_wavefronts] = 1 << 15;
    auto f = time_features(c, h100, 0);
    EXPECT_EQ(f[std::size_t(time_term::shared)], 0);
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::step)], 33 * 1000 / clock_hz);
    c[counter::shared_wavefronts] = 33 * 132 * 1000;
    c[counter::bank_conflicts] = 32 * 132 * 1000;
    f = time_features(c, h100, 0);
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::shared)], double(32 * 132 * 1000) / sm_clocks_hz(h100));
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::step)], 1000 / clock_hz);  // the replays left out
    c[counter::bank_conflicts] = 40 * 132 * 1000;  // more replays than steps (busiest MP against the mean): none left
    EXPECT_EQ(time_features(c, h100, 0)[std::size_t(time_term::step)], 0);
}

// The shared pipeline's rate is the hardware's, one wavefront a clock per SM:
// the only fixed constant.
TEST(TimeModel, OnlyTheSharedAndAtomicConstantsAreFixed) {
    for (const auto& t : time_term_table) {
        if (t.id == time_term::shared || t.id == time_term::atomic) {
            ASSERT_TRUE(t.fixed.has_value());
            EXPECT_EQ(*t.fixed, 1.0);
        } else {
            EXPECT_FALSE(t.fixed.has_value()) << t.name;
        }
    }
}

// Versions 2 and 3 priced every shared wavefront, version 4 charged a replay
// a step and a fitted shared constant, version 5 priced the L2 by sectors:
// their constants do not carry over, so they are refused like version 1.
TEST(TimeModel, OlderFitsAreRefused) {
    time_fit f;
    f.device = "h100";
    f.date = "2026";
    auto j = fit_to_json(f);
    for (const char* old : {"agpu.fit/2", "agpu.fit/3", "agpu.fit/4", "agpu.fit/5", "agpu.fit/6", "agpu.fit/7",
                            "agpu.fit/8", "agpu.fit/9"}) {
        j["schema"] = old;
        EXPECT_EQ(error_of([&] { fit_from_json(j, "f.json"); }),
                  std::string("f.json: field schema: \"") + old +
                      "\" is an older time model than this agpu's (agpu.fit/10: a launch's chain of waits and of warp "
                      "collectives, a cost per thread block, "
                      "atomics at the L2's rate, the L2 priced by the blocks it serves, shared at the pipeline's "
                      "rate); refit with agpu fit");
    }
}

// A one-thread launch waits for every DRAM atom it misses and for every
// sector an atom brought into the L2 beside the one missed: micro/chase's
// links 4 bytes apart (stride 1) touch 1/8 of a new sector per load, half of
// those from DRAM; 128 bytes apart each load is an atom of its own.
TEST(TimeModel, OneThreadLaunchesWaitForTheirMisses) {
    const auto& h100 = resolve_device("h100");
    const double clock_hz = h100.hw.sm_clock_mhz * 1e6, u = 1 - 1.0 / 32;
    counts c = launched(1, 1);
    const std::uint64_t n = 1 << 20;
    c[counter::time_steps] = n;
    c[counter::global_sectors] = c[counter::global_load_sectors] = c[counter::global_load_blocks] = n;
    auto f = time_features(c, h100, 4 * n);  // stride 1: n / 8 sectors, in the L2
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::dram_latency)], double(n / 16) * u / clock_hz);
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::l2_latency)], double(n / 16) * u / clock_hz);
    f = time_features(c, h100, 128 * n);  // stride 32: above the L2, a 64-byte atom per load
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::dram_latency)], double(n) * u / clock_hz);
    EXPECT_EQ(f[std::size_t(time_term::l2_latency)], 0);
    f = time_features(c, h100, 32 * n);  // stride 8, in the L2: an atom per two loads, the L2 the other
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::dram_latency)], double(n / 2) * u / clock_hz);
    EXPECT_DOUBLE_EQ(f[std::size_t(time_term::l2_latency)], double(n / 2) * u / clock_hz);
    c[counter::threads] = 32;  // a warp: its misses are priced by throughput, not waited for
    f = time_features(c, h100, 4 * n);
    EXPECT_EQ(f[std::size_t(time_term::dram_latency)], 0);
    EXPECT_EQ(f[std::size_t(time_term::l2_latency)], 0);
}

TEST(TimeModel, FitFileErrorsNameFieldAndRule) {
    time_fit f;
    f.device = "h100";
    f.date = "2026";
    auto with = [&](const std::function<void(nlohmann::json&)>& change) {
        auto j = fit_to_json(f);
        change(j);
        return error_of([&] { fit_from_json(j, "f.json"); });
    };
    EXPECT_EQ(
        with([](auto& j) { j["schema"] = "agpu.fit/11"; }),
        "f.json: field schema: \"agpu.fit/11\" is newer than this agpu reads (agpu.fit/10); use a newer agpu or refit");
    EXPECT_EQ(with([](auto& j) { j["schema"] = "agpu.fit/1"; }),
              "f.json: field schema: \"agpu.fit/1\" is an older time model than this agpu's (agpu.fit/10: a launch's "
              "chain of waits and of warp "
              "collectives, a cost per thread block, atomics at the L2's rate, the L2 priced by the blocks it serves, "
              "shared at the pipeline's rate); refit with agpu fit");
    EXPECT_EQ(with([](auto& j) { j["schema"] = "other/1"; }),
              "f.json: field schema: must be agpu.fit/10, got \"other/1\"");
    EXPECT_EQ(with([](auto& j) { j.erase("schema"); }), "f.json: field schema: is required");
    EXPECT_EQ(with([](auto& j) { j["constants"]["dram"] = -1; }),
              "f.json: field constants.dram: must be finite and non-negative, got -1");
    EXPECT_EQ(with([](auto& j) { j["constants"].erase("step"); }), "f.json: field constants.step: is required");
    EXPECT_EQ(
        with([](auto& j) { j["constants"]["cache"] = 1; }).rfind("f.json: field constants.cache: unknown term", 0), 0u);
    EXPECT_EQ(error_of([] { load_fit_file("/nonexistent/fit.json"); }), "/nonexistent/fit.json: cannot open fit file");
}

TEST(TimeModel, ErrorsForReadTheFitsQualityRecord) {
    time_fit f;
    f.quality = nlohmann::json::parse(R"({
        "in_sample": {"mape": 0.11},
        "in_sample_per_algorithm": {"scan/x": {"mape": 0.09, "worst_ape": 0.38, "samples": 21}},
        "leave-one-algorithm-out": {"folds": {"scan/x": {"mape": 0.12}}, "overall": {"mape": 0.13}},
        "leave-one-size-range-out": {"folds": {}, "overall": {"mape": 0.119}}})");
    const auto e = errors_for(f, "scan/x");
    ASSERT_TRUE(e.algorithm_in_sample && e.algorithm_held_out && e.algorithm_worst_in_sample && e.algorithm_runs);
    EXPECT_DOUBLE_EQ(*e.algorithm_in_sample, 0.09);
    EXPECT_DOUBLE_EQ(*e.algorithm_held_out, 0.12);
    EXPECT_DOUBLE_EQ(*e.algorithm_worst_in_sample, 0.38);
    EXPECT_EQ(*e.algorithm_runs, 21u);
    EXPECT_DOUBLE_EQ(*e.in_sample, 0.11);
    EXPECT_DOUBLE_EQ(*e.size_range_held_out, 0.119);
    EXPECT_DOUBLE_EQ(*e.algorithm_held_out_overall, 0.13);
    // An algorithm the fit has no runs of, and a fit without a quality record.
    const auto other = errors_for(f, "sort/y");
    EXPECT_FALSE(other.algorithm_in_sample || other.algorithm_held_out || other.algorithm_runs);
    EXPECT_DOUBLE_EQ(*other.algorithm_held_out_overall, 0.13);
    const auto bare = errors_for(time_fit{}, "scan/x");
    EXPECT_FALSE(bare.in_sample || bare.size_range_held_out || bare.algorithm_held_out_overall);
    // Entries of the wrong kind are absent, not errors.
    f.quality["in_sample"] = "n/a";
    f.quality["in_sample_per_algorithm"]["scan/x"]["mape"] = "high";
    EXPECT_FALSE(errors_for(f, "scan/x").in_sample || errors_for(f, "scan/x").algorithm_in_sample);
}

TEST(TimeModel, DefaultFitIsTheCommittedH100Fit) {
    const auto& f = default_fit();
    EXPECT_EQ(f.device, "h100");
    EXPECT_FALSE(f.datasets.empty());
    for (double c : f.constants) EXPECT_GE(c, 0);
}

TEST(Sweep, BDragsBanksAndPAlong) {
    const auto d = with_parameter(resolve_device("h100"), "b", 64);
    EXPECT_EQ(d.agpu.b, 64u);
    EXPECT_EQ(d.agpu.p, 132u * 64);
    EXPECT_EQ(d.hw.banks, 64u);
    EXPECT_EQ(d.hw.warp_width, 64u);
    EXPECT_EQ(d.kind, "hypothetical");
    EXPECT_EQ(d.id, "h100-b64");
    const auto half = with_parameter(resolve_device("h100"), "b", 16);
    EXPECT_EQ(half.hw.warp_width, 32u);  // 16 lanes of a 32-wide warp bank together
}

TEST(Sweep, OtherParameters) {
    const auto& h = resolve_device("h100");
    EXPECT_EQ(with_parameter(h, "M", 1024).agpu.M, 1024u);
    EXPECT_EQ(with_parameter(h, "M", 100000).hw.smem_per_block_bytes, 400000u);
    EXPECT_EQ(with_parameter(h, "p", 64 * 32).hw.sm_count, 64u);
    EXPECT_EQ(with_parameter(h, "clock", 1000).hw.sm_clock_mhz, 1000);
    EXPECT_EQ(with_parameter(h, "bandwidth", 1000.5).hw.mem_bandwidth_gbs, 1000.5);
}

TEST(Sweep, BadValuesNameTheOptionOrField) {
    const auto& h = resolve_device("h100");
    EXPECT_EQ(error_of([] { parse_sweep("freq=1,2"); }),
              "option --sweep freq: unknown parameter (known: b, M, p, clock, bandwidth)");
    EXPECT_EQ(error_of([] { parse_sweep("b=32,x"); }), "option --sweep b: values must be positive integers, got 'x'");
    EXPECT_EQ(error_of([] { parse_sweep("b=16.5"); }),
              "option --sweep b: values must be positive integers, got '16.5'");
    EXPECT_EQ(error_of([] { parse_sweep("clock=-5"); }),
              "option --sweep clock: values must be positive numbers, got '-5'");
    EXPECT_EQ(error_of([] { parse_sweep("clock"); }).rfind("option --sweep clock: must be PARAM=v1,v2,...", 0), 0u);
    EXPECT_NE(error_of([&] { with_parameter(h, "p", 100); }).find("field agpu.p: must be a multiple of b"),
              std::string::npos);
    EXPECT_EQ(parse_sweep("clock=1000,1500.5").values, (std::vector<double>{1000, 1500.5}));
}

}  // namespace
}  // namespace agpu::model
