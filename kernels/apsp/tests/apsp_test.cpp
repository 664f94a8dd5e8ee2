// The apsp family on the simulator: every variant, tile, method and width on
// every graph kind against the CPU reference at awkward sizes (1, 2, 7, 16,
// 31, 33, 64, 100, 130: below, at and across tile sizes, padding) on b = 32
// (h100) and b = 16 (geforce-gtx280, M = 4096 words: the 64-tiles only just
// fit); the reference's inf rule against true distances; launch counts; the
// closed forms against the simulator's counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/validate/suite.hpp"
#include "apsp/apsp_runs.hpp"

namespace model = agpu::model;
namespace sim = agpu::sim;
namespace apsp = agpu::kernels::apsp;
using model::counter;

namespace {

const char* devices[] = {"h100", "geforce-gtx280"};  // b = 32, 16
const char* graphs[] = {"sparse", "dense", "negative"};
const std::uint64_t sizes[] = {1, 2, 7, 16, 31, 33, 64, 100, 130};

struct variant {
    const char* algo;
    std::vector<std::string> sets;
};

const std::vector<variant> variants = {
    {"apsp/naive", {}},
    {"apsp/blocked", {"t=16", "method=A"}},
    {"apsp/blocked", {"t=32", "method=A"}},
    {"apsp/blocked", {"t=64", "method=A"}},
    {"apsp/blocked", {"t=16", "method=B", "t2=4"}},
    {"apsp/blocked", {"t=32", "method=B", "t2=8"}},
    {"apsp/blocked", {"t=64", "method=B", "t2=8"}},
    {"apsp/recursive", {"tr=16"}},
    {"apsp/recursive", {"tr=32"}},
    {"apsp/recursive", {"tr=64"}},
    {"apsp/dpx", {"t=16", "width=32"}},
    {"apsp/dpx", {"t=32", "width=32"}},
    {"apsp/dpx", {"t=64", "width=32"}},
    {"apsp/dpx", {"t=16", "width=16"}},
    {"apsp/dpx", {"t=32", "width=16"}},
    {"apsp/dpx", {"t=64", "width=16"}},
};

sim::simulation run(const std::string& dev, const std::string& algo, std::uint64_t n,
                    const std::vector<std::string>& sets, std::uint64_t seed = 7) {
    const auto& a = sim::find_algorithm(algo);
    return sim::simulate(a, model::resolve_device(dev), n, model::parse_params(a.spec, sets), seed);
}

std::string describe(const variant& v) {
    std::string s = v.algo;
    for (const auto& x : v.sets) s += " " + x;
    return s;
}

}  // namespace

// The kernels' rule (int32 arithmetic, missing edges weigh inf, "no path" read
// as a value above inf/2) gives the true distances, for both infinities.
TEST(ApspReference, InfRuleGivesTrueDistances) {
    for (const char* gname : graphs)
        for (std::uint32_t n : {1u, 2u, 7u, 33u, 100u}) {
            const auto g = apsp::make_graph(apsp::parse_graph_kind(gname), n, 3);
            const auto truth = apsp::fw_true(g);
            for (std::int32_t inf : {apsp::inf32, std::int32_t(apsp::inf16)}) {
                const auto raw = apsp::fw_reference(g, inf);
                for (std::size_t x = 0; x < raw.size(); ++x) {
                    if (truth[x] == apsp::no_path) {
                        ASSERT_GT(raw[x], inf / 2) << gname << " n=" << n << " at " << x;
                    } else {
                        ASSERT_EQ(raw[x], truth[x]) << gname << " n=" << n << " at " << x;
                    }
                    ASSERT_LE(raw[x], inf);
                }
                if (std::string(gname) != "negative")  // without negative edges "no path" is exactly inf
                    for (std::size_t x = 0; x < raw.size(); ++x) {
                        if (truth[x] == apsp::no_path) {
                            ASSERT_EQ(raw[x], inf);
                        }
                    }
            }
            for (std::uint32_t s = 0; s < n; s += 5) {
                const auto row = apsp::true_row(g, s);
                for (std::uint32_t j = 0; j < n; ++j)
                    ASSERT_EQ(row[j], truth[std::size_t(s) * n + j]) << gname << " " << s;
            }
        }
}

TEST(ApspReference, GraphsHaveTheirShape) {
    const auto sparse = apsp::make_graph(apsp::graph_kind::sparse, 1000, 1);
    std::size_t edges = 0;
    for (std::size_t x = 0; x < sparse.w.size(); ++x)
        if (sparse.w[x] != apsp::graph::no_edge && x % 1001 != 0) ++edges;
    EXPECT_GT(edges, 3900u);  // 4n draws, a few parallel ones merged
    EXPECT_LE(edges, 4000u);
    const auto neg = apsp::make_graph(apsp::graph_kind::negative, 1000, 1);
    bool negative = false;
    for (auto w : neg.w) negative |= w != apsp::graph::no_edge && w < 0;
    EXPECT_TRUE(negative);
}

TEST(ApspReference, CheckCatchesAWrongDistance) {
    const auto g = apsp::make_graph(apsp::graph_kind::sparse, 40, 9);
    auto d = apsp::fw_reference(g, apsp::inf32);
    EXPECT_TRUE(apsp::check_distances(g, d, 40, apsp::inf32).passed);
    d[5 * 40 + 7] -= 1;
    const auto c = apsp::check_distances(g, d, 40, apsp::inf32);
    EXPECT_FALSE(c.passed);
    EXPECT_NE(c.detail.find("d[5][7]"), std::string::npos) << c.detail;
}

TEST(ApspCorrect, EveryVariantGraphAndSize) {
    for (const char* dev : devices)
        for (const auto& v : variants)
            for (const char* gname : graphs)
                for (std::uint64_t n : sizes) {
                    auto sets = v.sets;
                    sets.push_back(std::string("graph=") + gname);
                    const auto s = run(dev, v.algo, n, sets);
                    EXPECT_TRUE(s.check.passed)
                        << describe(v) << " graph=" << gname << " on " << dev << " n=" << n << ": " << s.check.detail;
                }
}

TEST(ApspLaunches, NaiveBlockedRecursive) {
    EXPECT_EQ(run("h100", "apsp/naive", 100, {}).record.launches.size(), 100u);
    for (std::uint64_t t : {16, 32, 64}) {
        const std::string ts = "t=" + std::to_string(t);
        EXPECT_EQ(run("h100", "apsp/blocked", 256, {ts}).record.launches.size(), 3 * 256 / t);
        EXPECT_EQ(run("h100", "apsp/blocked", 256, {ts, "method=B"}).record.launches.size(), 3 * 256 / t);
        EXPECT_EQ(run("h100", "apsp/dpx", 130, {ts}).record.launches.size(), 3 * ((130 + t - 1) / t));
        EXPECT_EQ(run("h100", "apsp/recursive", 256, {"tr=" + std::to_string(t)}).record.launches.size(),
                  5 * 256 / t - 4);
        EXPECT_EQ(run("h100", "apsp/recursive", 200, {"tr=" + std::to_string(t)}).record.launches.size(),
                  5 * ((200 + t - 1) / t) - 4);
    }
    EXPECT_EQ(run("h100", "apsp/blocked", 10, {"t=16"}).record.launches.size(), 1u);  // one tile: the pivot only
    // dpx t = 128 with lookahead (int32, the default): n/t + 2 launches, the
    // pivot tile and its row and column launched once; without, 3n/t.
    // (lookahead=1 only where the other tiles fill two waves: not at 5 tiles.)
    EXPECT_EQ(run("h100", "apsp/dpx", 520, {"t=128", "lookahead=2"}).record.launches.size(), 5u + 2);
    EXPECT_EQ(run("h100", "apsp/dpx", 520, {"t=128"}).record.launches.size(), 3u * 5);
    EXPECT_EQ(run("h100", "apsp/dpx", 520, {"t=128", "lookahead=0"}).record.launches.size(), 3u * 5);
    EXPECT_EQ(run("h100", "apsp/dpx", 520, {"t=128", "width=16", "lookahead=2"}).record.launches.size(), 3u * 5);
    // The default on the H100 (132 SMs: two waves are 528 regions): n = 2048
    // (15² other tiles) without, 4096 (31²) and 8192 with (closed forms).
    const auto& spec = sim::find_algorithm("apsp/dpx").spec;
    const auto launches = [&](std::uint64_t n) {
        return model::find_closed_form("apsp/dpx")
            ->costs(model::resolve_device("h100").agpu, n, model::parse_params(spec, {"t=128"}))[counter::launches];
    };
    EXPECT_EQ(launches(2048), 3u * 16);
    EXPECT_EQ(launches(4096), 32u + 2);
    EXPECT_EQ(launches(8192), 64u + 2);
}

// The lookahead launch (region_ahead) on several steps and every graph:
// distances equal the CPU reference's, counts the closed form's (on b = 32
// and 64).
TEST(ApspLookahead, CorrectAndEqualsTheClosedForm) {
    for (std::uint64_t n : {257, 520})
        for (const char* gname : graphs) {
            const auto s = run("h100", "apsp/dpx", n, {"t=128", "lookahead=2", std::string("graph=") + gname});
            EXPECT_TRUE(s.check.passed) << gname << " n=" << n << ": " << s.check.detail;
        }
    for (const char* dev : {"h100", "h100-b64"}) {
        const auto& a = sim::find_algorithm("apsp/dpx");
        const auto params = model::parse_params(a.spec, {"t=128", "lookahead=2"});
        const auto got = run(dev, "apsp/dpx", 512, {"t=128", "lookahead=2"}).record.totals();
        for (const auto& [ctr, value] :
             model::find_closed_form("apsp/dpx")->costs(model::resolve_device(dev).agpu, 512, params))
            EXPECT_EQ(got[ctr], value) << "lookahead on " << dev << ": counter " << model::info(ctr).name;
    }
    // The same updates either way (the closure in 8 warps of 64 per k, tile_fw
    // in 32 of 16); the flags and claims only with lookahead.
    const auto with = run("h100", "apsp/dpx", 512, {"t=128", "lookahead=2"}).record.totals();
    const auto without = run("h100", "apsp/dpx", 512, {"t=128", "lookahead=0"}).record.totals();
    EXPECT_EQ(without[counter::compute_instructions], with[counter::compute_instructions]);
    EXPECT_EQ(with[counter::global_atomic_instructions] > 0, true);
    EXPECT_EQ(without[counter::global_atomic_instructions], 0u);
}

TEST(ApspCorrect, MethodBEveryStripDepth) {
    for (const char* t : {"t=16", "t=32", "t=64"})
        for (const char* t2 : {"t2=2", "t2=4", "t2=8", "t2=16"})
            for (std::uint64_t n : {33, 100}) {
                const auto s = run("h100", "apsp/blocked", n, {t, "method=B", t2, "graph=negative"});
                EXPECT_TRUE(s.check.passed) << t << " " << t2 << " n=" << n << ": " << s.check.detail;
            }
}

// t = 128 (apsp/dpx only): a 1024-thread pivot tile, so devices of 1024
// threads per block; 8 x 8 outputs per thread in every product.
TEST(ApspTile128, CorrectAndEqualsTheClosedForm) {
    for (const char* width : {"width=32", "width=16"}) {
        for (std::uint64_t n : {1, 100, 130, 256})
            for (const char* gname : graphs) {
                const auto s = run("h100", "apsp/dpx", n, {"t=128", width, std::string("graph=") + gname});
                EXPECT_TRUE(s.check.passed) << width << " " << gname << " n=" << n << ": " << s.check.detail;
            }
        for (const char* dev : {"h100", "h100-b64"})
            for (std::uint64_t n : {128, 256}) {
                const auto& a = sim::find_algorithm("apsp/dpx");
                const auto params = model::parse_params(a.spec, {"t=128", width});
                const auto got = run(dev, "apsp/dpx", n, {"t=128", width}).record.totals();
                for (const auto& [ctr, value] :
                     model::find_closed_form("apsp/dpx")->costs(model::resolve_device(dev).agpu, n, params))
                    EXPECT_EQ(got[ctr], value)
                        << "t=128 " << width << " on " << dev << " n=" << n << ": counter " << model::info(ctr).name;
            }
    }
    EXPECT_THROW(run("geforce-gtx280", "apsp/dpx", 100, {"t=128"}), agpu::input_error);
}

TEST(ApspErrors, MethodBBlockAboveTheDeviceLimit) {
    // t·t2 = 1024 threads: fine on the H100, above the GTX 280's 512.
    EXPECT_TRUE(run("h100", "apsp/blocked", 100, {"t=64", "method=B", "t2=16"}).check.passed);
    EXPECT_THROW(run("geforce-gtx280", "apsp/blocked", 100, {"t=64", "method=B", "t2=16"}), agpu::input_error);
}

// Where the model is exact (n a multiple of every tile, and for the block
// counts rows a whole number of b-word blocks), every counter of the closed
// form equals the simulator's, on b = 32, 16 and 64.
TEST(ApspClosedForm, EqualsTheSimulatorWhereExact) {
    for (const char* dev : {"h100", "geforce-gtx280", "h100-b64"}) {
        const auto d = model::resolve_device(dev);
        for (const auto& v : variants)
            for (std::uint64_t n : {64, 128}) {
                const auto& a = sim::find_algorithm(v.algo);
                const auto params = model::parse_params(a.spec, v.sets);
                const auto got = run(dev, v.algo, n, v.sets).record.totals();
                const auto* cf = model::find_closed_form(v.algo);
                ASSERT_NE(cf, nullptr) << v.algo;
                const auto want = cf->costs(d.agpu, n, params);
                EXPECT_GE(want.size(), 15u) << describe(v);
                const bool packed = std::find(v.sets.begin(), v.sets.end(), "width=16") != v.sets.end();
                const std::uint64_t bytes = packed ? 2 : 4;  // per distance
                const bool rows_on_blocks = n * bytes % d.agpu.block_bytes() == 0;
                for (const auto& [ctr, value] : want) {
                    if (!rows_on_blocks && (ctr == counter::global_load_blocks || ctr == counter::global_store_blocks ||
                                            ctr == counter::io_blocks))
                        continue;
                    EXPECT_EQ(got[ctr], value)
                        << describe(v) << " on " << dev << " n=" << n << ": counter " << model::info(ctr).name;
                }
            }
    }
}

// Elsewhere (n not a multiple of the tile: padding; rows that do not start on
// a b-word block) the closed form assumes block-aligned rows, so only the
// AGPU block counts (global_*_blocks, io_blocks) may differ.
TEST(ApspClosedForm, EqualsTheSimulatorBeyondBlockCounts) {
    for (const char* dev : devices) {
        const auto d = model::resolve_device(dev);
        for (const auto& v : variants)
            for (std::uint64_t n : {1, 7, 33, 100}) {
                const auto& a = sim::find_algorithm(v.algo);
                const auto params = model::parse_params(a.spec, v.sets);
                const auto got = run(dev, v.algo, n, v.sets).record.totals();
                for (const auto& [ctr, value] : model::find_closed_form(v.algo)->costs(d.agpu, n, params)) {
                    if (ctr == counter::global_load_blocks || ctr == counter::global_store_blocks ||
                        ctr == counter::io_blocks)
                        continue;
                    EXPECT_EQ(got[ctr], value)
                        << describe(v) << " on " << dev << " n=" << n << ": counter " << model::info(ctr).name;
                }
            }
    }
}

TEST(ApspSuite, EntriesParseAndGoalsNameEntries) {
    const auto& suite = agpu::validate::find_suite("apsp");
    for (const auto& e : suite.entries) {
        EXPECT_NO_THROW(model::parse_params(sim::find_algorithm(e.algo).spec, e.sets)) << e.algo;
        EXPECT_EQ(e.items(10), 1000.0);
    }
    EXPECT_NO_THROW(agpu::validate::check_targets(suite));
}
