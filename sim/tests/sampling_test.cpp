// Sampled simulation and blocks in parallel: a launch's blocks run on several
// host threads give exactly the serial counts; a sampled run's extrapolated
// counts lie within 1% of the exact run's at mid sizes, inside the error it
// reports; the host-memory check stops a run before it starts.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "agpu/kl/kl.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/model_counts.hpp"

namespace kl = agpu::kl;
namespace model = agpu::model;
namespace sim = agpu::sim;
using model::counter;

namespace {

struct cfg {
    const char* algo;
    std::uint64_t n;
    std::vector<std::string> sets;
};

sim::simulation run(const cfg& c, sim::sim_mode mode, unsigned threads) {
    const auto& a = sim::find_algorithm(c.algo);
    sim::engine_options opt;
    opt.mode = mode;
    opt.threads = threads;
    auto s = sim::simulate(a, model::resolve_device("h100"), c.n, model::parse_params(a.spec, c.sets), 3, opt);
    EXPECT_TRUE(s.check.passed) << c.algo << ": " << s.check.detail;
    return s;
}

// Blocks write disjoint outputs; a block's own counts do not depend on the others.
AGPU_KERNEL void scaled_copy(kl::gspan<const float> in, kl::gspan<float> out, unsigned stride) {
    const std::uint64_t i = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_idx().x;
    if (i * stride < in.size()) out.store(i, 2 * in.load(i * stride));
}

// Block b's threads each load 1 + (37·b mod 11) elements: the work varies
// from block to block, with no trend the strata could follow.
AGPU_KERNEL void uneven_loads(kl::gspan<const float> in, kl::gspan<float> out) {
    const unsigned b = kl::block_idx().x, loads = 1 + (37 * b) % 11;
    float s = 0;
    for (unsigned j = 0; j < loads; ++j) s += in.load((std::uint64_t(b) * loads + j) * kl::block_dim().x % in.size());
    out.store(std::uint64_t(b) * kl::block_dim().x + kl::thread_idx().x, s);
}

}  // namespace

TEST(Sampled, UnevenBlocksWithinTheReportedError) {
    const unsigned blocks = 2000, threads = 64;
    model::counts exact, sampled;
    std::array<double, model::counter_count> err{};
    for (auto mode : {sim::sim_mode::exact, sim::sim_mode::sampled}) {
        sim::engine_options opt;
        opt.mode = mode;
        sim::executor ex(model::resolve_device("h100"), opt);
        auto in = ex.alloc<float>(1 << 16);
        auto out = ex.alloc<float>(std::size_t(blocks) * threads);
        ex.launch("uneven_loads", uneven_loads, {blocks}, {threads}, 0, kl::gspan<const float>(in), out);
        (mode == sim::sim_mode::exact ? exact : sampled) = ex.record().totals();
        if (mode == sim::sim_mode::sampled) {
            err = ex.record().relative_error_95();
            EXPECT_EQ(ex.record().launches[0].blocks_recorded, 50u);
        }
    }
    for (auto c :
         {counter::global_load_requests, counter::global_sectors, counter::warp_instructions, counter::time_steps}) {
        const double x = double(exact[c]), y = double(sampled[c]), e = err[std::size_t(c)];
        EXPECT_GT(e, 0.0) << model::info(c).name;
        EXPECT_LT(e, 0.25) << model::info(c).name;  // 48 samples of work varying 1..11: about ±15%
        EXPECT_LE(std::abs(y - x) / x, e) << model::info(c).name << ": exact " << x << ", sampled " << y;
    }
    EXPECT_EQ(exact[counter::threads], sampled[counter::threads]);
    EXPECT_EQ(exact[counter::thread_blocks], sampled[counter::thread_blocks]);
}

TEST(Parallel, SameCountsAsSerialForAnyThreadCount) {
    const std::vector<cfg> configs = {
        {"sort/multiway", 20000, {"tile=256", "d=4", "values=1"}},
        {"scan/work-efficient", 100000, {}},  // decoupled look-back: blocks in order
        {"rank/jacobson", 1 << 20, {}},
        {"apsp/blocked", 200, {"t=32"}},
        {"stats/pairwise", 50000, {}},
        {"micro/atomics", 5000, {"distinct=3"}},
    };
    for (const auto& c : configs) {
        const auto serial = run(c, sim::sim_mode::exact, 1);
        for (unsigned threads : {2u, 5u}) {
            const auto par = run(c, sim::sim_mode::exact, threads);
            ASSERT_EQ(serial.record.launches.size(), par.record.launches.size()) << c.algo;
            for (std::size_t l = 0; l < serial.record.launches.size(); ++l)
                EXPECT_EQ(serial.record.launches[l].c.v, par.record.launches[l].c.v)
                    << c.algo << " launch " << l << " (" << serial.record.launches[l].kernel << ") on " << threads
                    << " threads";
        }
    }
}

TEST(Parallel, KernelErrorIsTheLowestFailingBlocksForAnyThreadCount) {
    for (unsigned threads : {1u, 3u}) {
        sim::engine_options opt;
        opt.threads = threads;
        sim::executor ex(model::resolve_device("h100"), opt);
        auto in = ex.alloc<float>(1000);
        auto out = ex.alloc<float>(1000);
        // An output of 300 elements: blocks 2 to 7 store outside it, block 2 first at thread 44.
        try {
            ex.launch("scaled_copy", scaled_copy, {8}, {128}, 0, kl::gspan<const float>(in), out.subspan(0, 300), 1u);
            FAIL() << "no error";
        } catch (const agpu::kernel_error& e) {
            EXPECT_NE(std::string(e.what()).find("block (2,0,0) thread (44,0,0)"), std::string::npos) << e.what();
        }
    }
}

// Mid sizes (exact in a few seconds): every counter within 1%, and within the
// reported 95% error plus 0.5% (the error is itself an estimate). The full
// table, every algorithm at larger sizes, is in sim/README.md.
namespace {

void expect_within_one_percent(const cfg& c) {
    const auto exact = run(c, sim::sim_mode::exact, 0);
    const auto sampled = run(c, sim::sim_mode::sampled, 0);
    EXPECT_TRUE(sampled.record.sampled()) << c.algo << ": no launch was large enough to sample";
    const auto e = exact.record.totals(), s = sampled.record.totals();
    const auto err = sampled.record.relative_error_95();
    for (const auto& info : model::counter_table) {
        const double x = double(e[info.id]), y = double(s[info.id]);
        const double rel = x == 0 ? std::abs(y) : std::abs(y - x) / x;
        EXPECT_LE(rel, 0.01) << c.algo << " " << info.name << ": exact " << x << ", sampled " << y;
        EXPECT_LE(rel, err[std::size_t(info.id)] + 0.005)
            << c.algo << " " << info.name << ": reported error " << err[std::size_t(info.id)];
    }
}

}  // namespace

TEST(Sampled, StatsPairwiseSkippingWithinOnePercent) { expect_within_one_percent({"stats/pairwise", 1 << 18, {}}); }
TEST(Sampled, ScanHillisSteeleWithinOnePercent) { expect_within_one_percent({"scan/hillis-steele", 1 << 20, {}}); }
TEST(Sampled, RankQueriesWithinOnePercent) {
    expect_within_one_percent({"rank/jacobson", 1 << 22, {"op=rank1", "queries=262144"}});
}
TEST(Sampled, SortMultiwayWithinOnePercent) { expect_within_one_percent({"sort/multiway", 1 << 17, {}}); }
TEST(Sampled, SortPairsWithinOnePercent) {
    expect_within_one_percent({"sort/multiway", 1 << 16, {"values=1", "type=float", "tile=256"}});
}

TEST(Sampled, SmallLaunchesAreRecordedInFull) {
    const cfg c{"stats/pairwise", 3000, {}};
    const auto s = run(c, sim::sim_mode::sampled, 0);
    EXPECT_FALSE(s.record.sampled());
    EXPECT_EQ(s.record.totals().v, run(c, sim::sim_mode::exact, 1).record.totals().v);
    for (double e : s.record.relative_error_95()) EXPECT_EQ(e, 0.0);
}

TEST(Sampled, ModeParsing) {
    EXPECT_EQ(sim::parse_mode("exact"), sim::mode_request::exact);
    EXPECT_EQ(sim::parse_mode("sampled"), sim::mode_request::sampled);
    EXPECT_EQ(sim::parse_mode("auto"), sim::mode_request::automatic);
    try {
        sim::parse_mode("fast");
        FAIL() << "no error";
    } catch (const agpu::input_error& e) {
        EXPECT_EQ(std::string(e.what()), "option --mode: must be exact, sampled or auto, got 'fast'");
    }
    // auto: exact where cheap, sampled where the exact simulator would take long.
    const auto& a = sim::find_algorithm("sort/multiway");
    const auto dev = model::resolve_device("h100");
    const auto p = model::parse_params(a.spec, {});
    EXPECT_EQ(sim::resolve_mode(sim::mode_request::automatic, a, dev, 1000, p), sim::sim_mode::exact);
    EXPECT_EQ(sim::resolve_mode(sim::mode_request::automatic, a, dev, std::uint64_t(1) << 28, p),
              sim::sim_mode::sampled);
}

TEST(HostMemory, ClearErrorBeforeAnythingRuns) {
    sim::engine_options opt;
    opt.device_memory_limit = 1 << 20;
    sim::executor ex(model::resolve_device("h100"), opt);
    auto small = ex.alloc<float>(1000);
    (void)small;
    try {
        (void)ex.alloc<float>(1 << 20);
        FAIL() << "no error";
    } catch (const sim::host_memory_error& e) {
        const std::string w = e.what();
        EXPECT_EQ(w.rfind("host memory: the run needs more than 0.00 GiB", 0), 0u) << w;
        EXPECT_NE(w.find("about twice that on the host"), std::string::npos) << w;
    }
}

TEST(HostMemory, SimulateRefusesARunTheHostCannotHoldBeforeItStarts) {
    const auto& a = sim::find_algorithm("sort/multiway");
    sim::engine_options opt;
    opt.device_memory_limit = std::uint64_t(1) << 30;  // 1 GiB of device memory: a 2 GiB host
    try {
        (void)sim::simulate(a, model::resolve_device("h100"), std::uint64_t(1) << 28, model::parse_params(a.spec, {}),
                            1, opt);
        FAIL() << "no error";
    } catch (const sim::host_memory_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "host memory: sort/multiway n=268435456 needs about 3.00 GiB of simulated device memory, and the "
                  "simulator about twice that on the host (the inputs and CPU reference beside it), 6.00 GiB: more "
                  "than this host's 2.00 GiB available; use a smaller n, or agpu predict (closed forms need no "
                  "memory)");
    }
}
