// The simulator counts exactly what the AGPU model charges: every micro-kernel
// against its closed form (which gives every counter), on b = 32, 64 and 16,
// on awkward sizes (1, 7, b-1, b, b+1, partial blocks) as well as round ones;
// and the formulas.
#include <gtest/gtest.h>

#include <numeric>

#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/model/time_model.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/model_counts.hpp"

namespace model = agpu::model;
namespace sim = agpu::sim;
using model::counter;

namespace {

const char* devices[] = {"h100", "h100-b64", "geforce-gtx280"};  // b = 32, 64, 16

struct cfg {
    const char* algo;
    std::vector<std::string> sets;
};

const std::vector<cfg> configs = {
    {"micro/global-stride", {"stride=1"}},
    {"micro/global-stride", {"stride=3"}},
    {"micro/global-stride", {"stride=8"}},
    {"micro/global-stride", {"stride=33"}},
    {"micro/global-stride", {"stride=2", "op=store"}},
    {"micro/global-stride", {"stride=40", "op=store"}},
    {"micro/shared-stride", {"stride=1"}},
    {"micro/shared-stride", {"stride=2"}},
    {"micro/shared-stride", {"stride=6"}},
    {"micro/shared-stride", {"stride=17"}},
    {"micro/shared-stride", {"stride=64"}},
    {"micro/shared-stride", {"stride=6", "repeat=5"}},
    {"micro/broadcast", {}},
    {"micro/barriers", {"count=3"}},
    {"micro/barriers", {"count=0"}},
    {"micro/barriers", {"count=2", "threads=96"}},
    {"micro/barriers", {"count=1", "threads=480"}},
    {"micro/barriers", {"count=0", "threads=32"}},
    {"micro/divergent", {"ways=1"}},
    {"micro/divergent", {"ways=3"}},
    {"micro/divergent", {"ways=32"}},
    {"micro/atomics", {"distinct=1"}},
    {"micro/atomics", {"distinct=5"}},
    {"micro/atomics", {"space=shared", "distinct=1"}},
    {"micro/atomics", {"space=shared", "distinct=40"}},
    {"micro/chase", {"stride=1"}},
    {"micro/chase", {"stride=8"}},
    {"micro/chase", {"stride=33"}},
    {"micro/divergent", {"ways=40"}},
    {"micro/atomics", {"distinct=256"}},
    {"micro/atomics", {"space=shared", "distinct=256"}},
    {"micro/global-stride", {"stride=1", "op=store"}},
    {"micro/shared-stride", {"stride=64", "repeat=3"}},
};

model::counts run(const std::string& dev, const std::string& algo, std::uint64_t n,
                  const std::vector<std::string>& sets) {
    const auto& a = sim::find_algorithm(algo);
    const auto s = sim::simulate(a, model::resolve_device(dev), n, model::parse_params(a.spec, sets), 7);
    EXPECT_TRUE(s.check.passed) << algo << " on " << dev << " n=" << n << ": " << s.check.detail;
    return s.record.totals();
}

}  // namespace

TEST(Exact, EveryMicroKernelMatchesItsClosedForm) {
    for (const char* dev : devices) {
        const auto d = model::resolve_device(dev);
        const std::uint64_t b = d.agpu.b;
        for (const auto& c : configs)
            for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(7), b - 1, b, b + 1, std::uint64_t(255),
                                    std::uint64_t(257), std::uint64_t(1000), std::uint64_t(4096)}) {
                const auto& a = sim::find_algorithm(c.algo);
                const auto params = model::parse_params(a.spec, c.sets);
                const auto got = run(dev, c.algo, n, c.sets);
                const auto* cf = model::find_closed_form(c.algo);
                ASSERT_NE(cf, nullptr) << c.algo;
                for (const auto& [ctr, want] : cf->costs(d.agpu, n, params))
                    EXPECT_EQ(got[ctr], want) << c.algo << " " << ::testing::PrintToString(c.sets) << " on " << dev
                                              << " n=" << n << ": counter " << model::info(ctr).name;
            }
    }
}

// DESIGN.md / issue 3 with b lanes and 4-byte words: a global load of stride s
// from an aligned base costs min(4s, 32) sectors per request when b = 32
// (generally min(s*b/8, b)) and min(s, b) AGPU blocks per instruction; a shared
// load of stride s costs gcd(s, b) wavefronts; all lanes reading one word cost 1.
TEST(Exact, StrideFormulas) {
    for (const char* dev : devices) {
        const std::uint64_t b = model::resolve_device(dev).agpu.b;
        const std::uint64_t n = 4096;  // full warps only
        const std::uint64_t warps = n / b;
        for (std::uint64_t s : {1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64, 100}) {
            const auto g = run(dev, "micro/global-stride", n, {"stride=" + std::to_string(s)});
            EXPECT_EQ(g[counter::global_load_requests], warps);
            EXPECT_EQ(g[counter::global_load_sectors], warps * std::min(s * b / 8, b)) << dev << " s=" << s;
            EXPECT_EQ(g[counter::global_load_blocks], warps * std::min(s, b)) << dev << " s=" << s;
            if (s <= 64) {
                const auto sh = run(dev, "micro/shared-stride", n, {"stride=" + std::to_string(s)});
                EXPECT_EQ(sh[counter::shared_load_wavefronts], warps * std::gcd(s, b)) << dev << " s=" << s;
                EXPECT_EQ(sh[counter::shared_load_bank_conflicts], warps * (std::gcd(s, b) - 1));
                if (s % 2 == 1) {
                    EXPECT_EQ(sh[counter::shared_load_bank_conflicts], 0u) << "odd strides are conflict-free";
                }
            }
        }
        const auto bc = run(dev, "micro/broadcast", n, {});
        EXPECT_EQ(bc[counter::shared_load_wavefronts], warps);
        EXPECT_EQ(bc[counter::bank_conflicts], 0u);
    }
}

// A launch's chain is its heaviest block's waits per warp, and its warp
// collectives per warp: micro/barriers in blocks of 96 threads (3 warps)
// waits at count barriers a warp (its store is no wait), and a last block of
// one live warp as long.
TEST(Exact, TheChainIsTheHeaviestBlocksWaitsPerWarp) {
    for (std::uint64_t count : {0, 1, 5}) {
        const auto set = std::vector<std::string>{"count=" + std::to_string(count), "threads=96"};
        EXPECT_EQ(run("h100", "micro/barriers", 1000, set)[counter::chain_waits], count) << count;
        EXPECT_EQ(run("h100", "micro/barriers", 1, set)[counter::chain_waits], count) << count;
    }
    // One thread: each of its loads waits for the one before (micro/chase: n loads and a store).
    EXPECT_EQ(run("h100", "micro/chase", 100, {})[counter::chain_waits], 100u);
    // micro/shared-stride: a warp waits at the barrier after the fill and at
    // each of its reads (the fill and the store are stores): 1 + repeat.
    EXPECT_EQ(run("h100", "micro/shared-stride", 4096, {"stride=2", "repeat=4"})[counter::chain_waits], 5u);
    // micro/atomics in shared memory: two barriers and an atomic a warp, and
    // warp 0 reads the counters: 25 waits a block of 8 warps, 4 rounded up.
    EXPECT_EQ(run("h100", "micro/atomics", 4096, {"space=shared", "distinct=8"})[counter::chain_waits], 3u + 1u);
    // micro/divergent: `ways` warp syncs a warp, and stores (no waits).
    const auto div = run("h100", "micro/divergent", 4096, {"ways=3"});
    EXPECT_EQ(div[counter::chain_collectives], 3u);
    EXPECT_EQ(div[counter::chain_waits], 0u);
    EXPECT_EQ(run("h100", "micro/barriers", 1000, {"count=2"})[counter::chain_collectives], 0u);
}

TEST(Exact, EverySimulatedAlgorithmHasAClosedForm) {
    for (const auto* a : sim::algorithms())
        EXPECT_NE(model::find_closed_form(a->spec.key), nullptr)
            << a->spec.key << " has no closed form in model/costs/";
}

TEST(Exact, TimeIsTheBusiestMp) {
    // 132 MPs, 8 warps per block, 2 instructions per warp: 16 steps per block.
    // 264 blocks = 2 rounds: 32 steps; 265 blocks: one MP runs 3 blocks: 48.
    EXPECT_EQ(run("h100", "micro/global-stride", 264 * 256, {})[counter::time_steps], 32u);
    EXPECT_EQ(run("h100", "micro/global-stride", 264 * 256 + 1, {})[counter::time_steps], 48u - 14u);
}

// The time model prices a counter a closed form leaves out as 0 (the scans'
// forms leave out their zeros): for every closed form complete enough to
// replace the simulator, each counter the time model reads that the form
// leaves out is 0 in the simulator too, at a small n with the defaults.
TEST(Exact, AServingClosedFormLeavesOutOnlyZeros) {
    const auto d = model::resolve_device("h100");
    std::size_t served = 0;
    for (const auto& [key, cf] : model::closed_forms()) {
        const auto& a = sim::find_algorithm(key);
        const auto params = model::parse_params(a.spec, {});
        const std::uint64_t n = std::min(a.spec.max_n, std::max<std::uint64_t>(a.spec.min_n, 64));
        const auto given = cf.costs(d.agpu, n, params);
        if (!sim::serves_time_model(given)) continue;
        ++served;
        const auto got = run("h100", key, n, {});
        for (auto c : model::time_model_inputs())
            if (!given.count(c)) {
                EXPECT_EQ(got[c], 0u) << key << " n=" << n << " leaves out " << model::info(c).name;
            }
    }
    EXPECT_GE(served, 16u) << "the micro, stats, scan and APSP forms replace the simulator at this n";
}
