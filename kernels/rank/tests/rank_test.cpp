// The rank family on the simulator: both directories' builds and their bulk
// rank1/rank0/select1 queries against the CPU reference on awkward sizes on
// b = 32, 64 and 16; all-zero and all-one vectors (select's edge cases); the
// closed forms against the simulator's counts (equal where exact, within the
// stated bounds for random query loads); and the broadword helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/validate/suite.hpp"
#include "common/tests/closed_form_check.hpp"
#include "rank/rank_runs.hpp"

namespace model = agpu::model;
namespace sim = agpu::sim;
namespace rank = agpu::kernels::rank;
using model::counter;

namespace {

const char* devices[] = {"h100", "h100-b64", "geforce-gtx280"};  // b = 32, 64, 16
const char* algos[] = {"rank/jacobson", "rank/interleaved"};
const char* ops[] = {"build", "rank1", "rank0", "select1"};
const std::uint64_t sizes[] = {1, 2, 63, 64, 65, 511, 512, 513, 4095, 4096, 100003};

sim::simulation run(const std::string& dev, const std::string& algo, std::uint64_t n,
                    const std::vector<std::string>& sets, std::uint64_t seed = 7) {
    const auto& a = sim::find_algorithm(algo);
    return sim::simulate(a, model::resolve_device(dev), n, model::parse_params(a.spec, sets), seed);
}

// The simulated counts against the closed form (exact counters) and the bounds (the rest).
void expect_counts_match(const std::string& dev, const std::string& algo, std::uint64_t n,
                         const std::vector<std::string>& sets) {
    const auto r = agpu::kernels::testing::expect_counts_match(model::resolve_device(dev), dev, algo, n, sets);
    if (!r.ran) return;
    if (sets.front() == "op=build") {
        EXPECT_TRUE(r.bounds.low.empty()) << r.where << ": a build's counts are exact";
    }
    // Every counter but the SASS instruction counts (the simulator's alone) is either exact or bounded.
    EXPECT_EQ(r.exact.size() + r.bounds.low.size(), model::counter_count - 1 - model::pipe_counters.size()) << r.where;
}

}  // namespace

TEST(RankReference, CpuRankAgainstCounting) {
    for (std::uint64_t n : {1, 64, 511, 512, 513, 5000}) {
        const auto w = rank::random_bits(n, 30, n);
        const rank::cpu_rank ref(w, n);
        std::uint64_t ones = 0;
        for (std::uint64_t i = 0; i <= n; ++i) {
            ASSERT_EQ(ref.rank1(i), ones) << "n=" << n << " i=" << i;
            if (i < n && (w[i / 64] >> (i % 64) & 1)) {
                ++ones;
                ASSERT_EQ(ref.select1(ones), i) << "n=" << n;
            }
        }
        EXPECT_EQ(ref.ones(), ones);
        EXPECT_EQ(ref.select1(0), n);
        EXPECT_EQ(ref.select1(ones + 1), n);
        // The padding past n (to a whole 128-bit chunk) is all ones, and ignored.
        if (n % 128 != 0) {
            EXPECT_EQ(w.back() >> 63, 1u) << "n=" << n;
        }
    }
}

TEST(RankLayout, PaperSizesRoundedToPowersOfTwo) {
    const auto j20 = rank::jacobson_layout_for(std::uint64_t(1) << 20);  // lg 20: S ~ 10, L ~ 400
    EXPECT_EQ(j20.log_s, 3u);
    EXPECT_EQ(j20.log_l, 9u);
    const auto j32 = rank::jacobson_layout_for(std::uint64_t(1) << 32);  // lg 32: S = 16, L = 1024
    EXPECT_EQ(j32.log_s, 4u);
    EXPECT_EQ(j32.log_l, 10u);
    const auto j34 = rank::jacobson_layout_for(std::uint64_t(1) << 34);  // lg 34: S ~ 17, L ~ 1156
    EXPECT_EQ(j34.log_s, 4u);
    EXPECT_EQ(j34.log_l, 10u);
    const auto j1 = rank::jacobson_layout_for(1);
    EXPECT_EQ(j1.log_s, 3u);
    EXPECT_EQ(j1.log_l, 7u);
    EXPECT_EQ(j1.superblocks, 1u);
    const auto i = rank::interleaved_layout_for(448);
    EXPECT_EQ(i.lines, 2u);  // position 448 = n starts the second line
}

TEST(RankBroadword, SmallBlockEntriesAndSelectInWord) {
    std::mt19937_64 rng(3);
    for (int k = 0; k < 1000; ++k) {
        const std::uint64_t w = k < 2 ? (k == 0 ? 0 : ~std::uint64_t(0)) : rng();
        const auto base = static_cast<std::uint32_t>(rng() % 1000);
        const std::uint64_t e16 = rank::st_entries16(w, base);
        const auto e8 = rank::st_entries8(w, base);
        for (unsigned f = 0; f < 4; ++f)
            EXPECT_EQ(e16 >> (16 * f) & 0xffff, base + std::uint64_t(std::popcount(rank::low_bits(w, 16 * f))));
        for (unsigned f = 0; f < 8; ++f) {
            const std::uint64_t field = (f < 4 ? e8.lo : e8.hi) >> (16 * (f % 4)) & 0xffff;
            EXPECT_EQ(field, base + std::uint64_t(std::popcount(rank::low_bits(w, 8 * f))));
        }
        std::uint64_t x = w;
        for (unsigned r = 1; x != 0; ++r, x &= x - 1)
            EXPECT_EQ(rank::select_in_word(w, r), unsigned(std::countr_zero(x))) << std::hex << w << " r=" << r;
    }
}

TEST(RankCorrect, EveryStructureOpAndSize) {
    for (const char* dev : devices)
        for (const char* algo : algos)
            for (const char* op : ops)
                for (std::uint64_t n : sizes) {
                    const auto s = run(dev, algo, n, {std::string("op=") + op});
                    EXPECT_TRUE(s.check.passed)
                        << algo << " " << op << " on " << dev << " n=" << n << ": " << s.check.detail;
                }
}

TEST(RankCorrect, AllZerosAndAllOnes) {
    for (const char* dev : devices)
        for (const char* algo : algos)
            for (const char* density : {"density=0", "density=100"})
                for (const char* op : ops)
                    for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(64), std::uint64_t(513),
                                            std::uint64_t(4096), std::uint64_t(20011)}) {
                        const auto s = run(dev, algo, n, {std::string("op=") + op, density});
                        EXPECT_TRUE(s.check.passed) << algo << " " << op << " " << density << " on " << dev
                                                    << " n=" << n << ": " << s.check.detail;
                    }
}

TEST(RankCorrect, ManyTilesSparseAndFewQueries) {
    // Past b tiles the look-back window is full; 7% ones; fewer and more queries than n.
    for (const char* dev : devices)
        for (const char* algo : algos) {
            for (const char* op : ops) {
                const auto s = run(dev, algo, 17000003, {std::string("op=") + op, "queries=3000", "density=7"});
                EXPECT_TRUE(s.check.passed) << algo << " " << op << " on " << dev << ": " << s.check.detail;
            }
            const auto s = run(dev, algo, 100, {"op=select1", "queries=1000"});
            EXPECT_TRUE(s.check.passed) << algo << " on " << dev << ": " << s.check.detail;
        }
}

TEST(RankClosedForm, MatchesTheSimulator) {
    for (const char* dev : devices)
        for (const char* algo : algos) {
            for (const char* op : ops)
                for (std::uint64_t n : sizes) expect_counts_match(dev, algo, n, {std::string("op=") + op});
            // Tile boundaries (2048 chunks; 512 lines), many tiles, odd query counts.
            for (std::uint64_t n : {262143, 262144, 262145, 229375, 229376, 229377, 17000003})
                expect_counts_match(dev, algo, n, {"op=build"});
            for (const char* op : {"rank1", "select1"}) {
                expect_counts_match(dev, algo, 17000003, {std::string("op=") + op, "queries=1000"});
                expect_counts_match(dev, algo, 700001, {std::string("op=") + op, "queries=777"});
            }
        }
}

TEST(RankClosedForm, EveryAlgorithmHasOne) {
    for (const char* algo : algos) EXPECT_NE(model::find_closed_form(algo), nullptr) << algo;
}

namespace {

// Warp 0 of one block runs the chained prefix of `tile` (own count `aggregate`)
// over a status the host wrote; out = what it returns and what it publishes.
AGPU_KERNEL void chained_prefix_probe(agpu::kl::gspan<unsigned long long> status,
                                      agpu::kl::gspan<unsigned long long> out, unsigned long long tile,
                                      unsigned long long aggregate) {
    if (agpu::kl::warp_id() != 0) return;
    const unsigned long long before = rank::chained_prefix(status, tile, aggregate);
    if (agpu::kl::lane_id() == 0) {
        out.store(0, before);
        out.store(1, status.load(tile));
    }
}

// Flags per tile before `tile`: 'P' inclusive prefix, 'A' aggregate, 'X' unpublished.
std::vector<unsigned long long> chained_prefix_on(const std::string& dev, const std::string& flags,
                                                  const std::vector<unsigned long long>& value,
                                                  unsigned long long aggregate) {
    sim::executor ex(model::resolve_device(dev));
    const std::size_t tile = flags.size();
    std::vector<unsigned long long> words(tile + 1, 0);
    for (std::size_t t = 0; t < tile; ++t)
        words[t] = (flags[t] == 'P'   ? rank::status_prefix
                    : flags[t] == 'A' ? rank::status_aggregate
                                      : rank::status_none) |
                   (flags[t] == 'X' ? 0 : value[t]);
    auto status = ex.alloc<unsigned long long>(tile + 1);
    ex.upload(status, std::span<const unsigned long long>(words));
    auto out = ex.alloc<unsigned long long>(2);
    ex.launch("chained_prefix_probe", chained_prefix_probe, {1}, {64}, 0, status, out, tile, aggregate);
    std::vector<unsigned long long> got(2);
    ex.download(std::span<unsigned long long>(got), out);
    return got;
}

}  // namespace

// The look-back's paths the simulated builds never take (blocks run in order
// there, so tile t-1 always holds its prefix): aggregates summed over several
// windows down to the nearest prefix, unpublished tiles beyond it ignored; the
// tile then publishes its own prefix.
TEST(RankChainedPrefix, SumsAggregatesDownToTheNearestPrefix) {
    std::mt19937_64 rng(5);
    for (const char* dev : devices)
        for (std::uint64_t tile : {0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 130, 1000}) {
            for (int pattern = 0; pattern < 4; ++pattern) {
                std::string flags(tile, 'A');
                std::vector<unsigned long long> value(tile);
                for (auto& v : value) v = rng() % (1ull << 35);
                // 0: only tile 0 has its prefix; 1: every tile; 2: random; 3: one prefix, unpublished before it.
                if (tile > 0) flags[0] = 'P';
                if (pattern == 1) flags.assign(tile, 'P');
                for (std::uint64_t t = 1; t < tile; ++t)
                    if (pattern == 2 && rng() % 7 == 0) flags[t] = 'P';
                if (pattern == 3 && tile > 0) {
                    for (std::uint64_t t = 0; t < tile / 2; ++t) flags[t] = rng() % 2 ? 'X' : 'A';
                    flags[tile / 2] = 'P';
                }
                unsigned long long want = 0;
                for (std::uint64_t t = tile; t-- > 0;) {
                    want += value[t];
                    if (flags[t] == 'P') break;
                }
                const unsigned long long aggregate = rng() % 100000;
                const auto got = chained_prefix_on(dev, flags, value, aggregate);
                EXPECT_EQ(got[0], want) << dev << " tile " << tile << " pattern " << pattern;
                EXPECT_EQ(got[1], rank::status_prefix | (want + aggregate)) << dev << " tile " << tile;
            }
        }
}

// An unpublished tile nearer than the nearest prefix is waited for: in the
// simulator the wait can never end, so the run stops instead of hanging.
TEST(RankChainedPrefix, WaitsForAnUnpublishedNearerTile) {
    EXPECT_ANY_THROW(chained_prefix_on("h100", "PAXA", {1, 1, 1, 1}, 1));
}

TEST(RankSuites, EntriesParseAndGoalsNameEntries) {
    for (const char* name : {"rank", "rank-goals"}) {
        const auto& suite = agpu::validate::find_suite(name);
        std::vector<std::string> labels;
        for (const auto& e : suite.entries) {
            std::string label = e.algo;
            for (std::size_t i = 0; i < e.sets.size(); ++i) label += (i ? ";" : " ") + e.sets[i];
            labels.push_back(label);
            ASSERT_TRUE(e.bytes && e.items) << label;
            if (e.algo.starts_with("baseline/")) continue;  // GPU-only
            EXPECT_NO_THROW(model::parse_params(sim::find_algorithm(e.algo).spec, e.sets)) << name << ": " << label;
        }
        for (const auto& t : suite.targets) {
            EXPECT_NE(std::find(labels.begin(), labels.end(), t.subject), labels.end()) << t.subject;
            if (!t.baseline.empty()) {
                EXPECT_NE(std::find(labels.begin(), labels.end(), t.baseline), labels.end()) << t.baseline;
            }
        }
    }
    // A build's bytes: the bit vector read and the tables written, at 2^32 bits.
    const auto& goals = agpu::validate::find_suite("rank-goals");
    const double n = double(std::uint64_t(1) << 32);
    EXPECT_DOUBLE_EQ(goals.entries[1].bytes(std::uint64_t(1) << 32),
                     n / 8 + n / 8 + 8 * (n / 1024 + 1) + 2 * 1024 / 16);
    EXPECT_DOUBLE_EQ(goals.entries[2].bytes(std::uint64_t(1) << 32), n / 8 + 64 * (std::floor(n / 448) + 1));
}
