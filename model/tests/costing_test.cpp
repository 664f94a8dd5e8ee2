// Each costing rule of model/costing.hpp on its own: coalescing into sectors
// and blocks, global atomics, shared wavefronts (the bank rule and 16-byte
// vectors), placement on the MPs, Floyd-Warshall's N_b and N_c, the sorting
// I/O lower bound.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "agpu/model/costing.hpp"

namespace agpu::model {
namespace {

machine make(std::uint32_t b) { return {std::uint64_t(b) * 4, b, std::uint64_t(b) * 1024, 32}; }

lane_accesses strided(std::uint64_t first, std::uint64_t lanes, std::uint64_t stride, std::uint32_t bytes) {
    lane_accesses acc;
    for (std::uint64_t l = 0; l < lanes; ++l) acc.emplace_back(first + l * stride, bytes);
    return acc;
}

std::vector<std::uint32_t> lanes_of(std::size_t n) {
    std::vector<std::uint32_t> l(n);
    for (std::size_t i = 0; i < n; ++i) l[i] = std::uint32_t(i);
    return l;
}

TEST(Coalescing, UnitsOfAContiguousRange) {
    EXPECT_EQ(units(0, 0, 32), 0u);
    EXPECT_EQ(units(0, 128, 32), 4u);
    EXPECT_EQ(units(4, 128, 32), 5u);
    EXPECT_EQ(units(31, 2, 32), 2u);
    EXPECT_EQ(units(100, 1, 128), 1u);
}

TEST(Coalescing, StridedUnits) {
    EXPECT_EQ(strided_units(0, 4, 4, 32), 0u);
    EXPECT_EQ(strided_units(32, 4, 4, 32), 4u);       // a full warp of words: 4 sectors
    EXPECT_EQ(strided_units(32, 8, 4, 32), 8u);       // stride 2 words
    EXPECT_EQ(strided_units(32, 32, 4, 32), 32u);     // a sector a lane
    EXPECT_EQ(strided_units(32, 4, 4, 128), 1u);      // one b-word block at b = 32
    EXPECT_EQ(strided_units(32, 256, 16, 128), 32u);  // 16-byte accesses two blocks apart: a block each
}

TEST(Coalescing, DistinctUnitsOfLaneAccesses) {
    const machine m = make(32);
    access_coster c(m);
    // Coalesced: 32 consecutive words, aligned and not.
    EXPECT_EQ(c.sectors(strided(0, 32, 4, 4)), 4u);
    EXPECT_EQ(c.blocks(strided(0, 32, 4, 4)), 1u);
    EXPECT_EQ(c.sectors(strided(4, 32, 4, 4)), 5u);
    EXPECT_EQ(c.blocks(strided(4, 32, 4, 4)), 2u);
    // Strided and scattered, repeats counted once, an access over a boundary in both units.
    EXPECT_EQ(c.sectors(strided(0, 32, 64, 4)), 32u);
    EXPECT_EQ(c.blocks(strided(0, 32, 64, 4)), 16u);
    EXPECT_EQ(c.sectors(lane_accesses{{0, 4}, {0, 4}, {200, 4}, {4, 4}}), 2u);
    EXPECT_EQ(c.sectors(lane_accesses{{30, 4}, {500, 4}}), 3u);
    EXPECT_EQ(c.blocks(lane_accesses{{126, 4}, {1000, 4}}), 3u);
    // The free function is the same rule.
    EXPECT_EQ(distinct_units(lane_accesses{{30, 4}, {500, 4}}, sector_bytes), 3u);
    EXPECT_EQ(distinct_units(strided(4, 32, 4, 4), 128), 2u);
    EXPECT_EQ(distinct_units({}, 32), 0u);
    // b = 16: 64-byte blocks.
    access_coster c16(make(16));
    EXPECT_EQ(c16.blocks(strided(0, 16, 4, 4)), 1u);
    EXPECT_EQ(c16.blocks(strided(0, 32, 4, 4)), 2u);
}

TEST(Coalescing, AtomicSectorsCountTheMostLanesOnOneAddress) {
    access_coster c(make(32));
    EXPECT_EQ(c.atomic_sectors(lane_accesses(32, {64, 4})), 32u);  // 32 lanes on one word
    EXPECT_EQ(c.atomic_sectors(strided(0, 32, 4, 4)), 4u);         // 32 consecutive words
    // Sector 0: addresses 0 (3 lanes) and 4 (1 lane); sector 1: 32 (2 lanes).
    const lane_accesses mixed{{0, 4}, {4, 4}, {0, 4}, {32, 4}, {0, 4}, {32, 4}};
    EXPECT_EQ(c.atomic_sectors(mixed), 5u);
    EXPECT_EQ(atomic_sectors(mixed), 5u);
}

TEST(SharedMemory, TheBankRuleOnWords) {
    std::vector<std::uint64_t> consecutive(32), stride2(32), broadcast(32, 7), column(32), eight_byte(64);
    for (std::uint64_t l = 0; l < 32; ++l) {
        consecutive[l] = l;
        stride2[l] = 2 * l;
        column[l] = 32 * l;
    }
    for (std::uint64_t w = 0; w < 64; ++w) eight_byte[w] = w;
    EXPECT_EQ(shared_bank_cost(consecutive, 32), (bank_cost{1, 1}));
    EXPECT_EQ(shared_bank_cost(stride2, 32), (bank_cost{2, 1}));     // a 2-way conflict
    EXPECT_EQ(shared_bank_cost(broadcast, 32), (bank_cost{1, 1}));   // one word read by all: no conflict
    EXPECT_EQ(shared_bank_cost(column, 32), (bank_cost{32, 1}));     // every lane in bank 0
    EXPECT_EQ(shared_bank_cost(eight_byte, 32), (bank_cost{2, 2}));  // 8-byte loads: 2 wavefronts, no conflict
    EXPECT_EQ(shared_bank_cost(stride2, 16), (bank_cost{4, 2}));
    // Accesses give the same as their words, whichever path counts them.
    access_coster c(make(32));
    EXPECT_EQ(c.bank_rule(strided(0, 32, 8, 4)), shared_bank_cost(stride2, 32));
    EXPECT_EQ(c.bank_rule(strided(0, 32, 128, 4)), shared_bank_cost(column, 32));
    EXPECT_EQ(c.bank_rule(strided(0, 32, 8, 8)), shared_bank_cost(eight_byte, 32));
    EXPECT_EQ(c.bank_rule_words(column), shared_bank_cost(column, 32));
    EXPECT_EQ(c.shared(strided(0, 32, 8, 4), lanes_of(32)), (bank_cost{2, 1}));
}

TEST(SharedMemory, SixteenByteVectorsPerQuarterWarp) {
    const machine m = make(32);
    access_coster c(m);
    // Every lane reads one vector: each half-warp takes 1 wavefront.
    EXPECT_EQ(c.shared(lane_accesses(32, {0, 16}), lanes_of(32)), (bank_cost{2, 2}));
    // Lane l reads vector l: each quarter 8 different vectors (32 words): 1 each, 4 in all.
    EXPECT_EQ(c.shared(strided(0, 32, 16, 16), lanes_of(32)), (bank_cost{4, 4}));
    // The quarters of a half read the same 8 vectors: they share their wavefronts.
    lane_accesses same;
    for (std::uint64_t l = 0; l < 32; ++l) same.emplace_back(16 * (l % 8), 16);
    EXPECT_EQ(c.shared(same, lanes_of(32)), (bank_cost{2, 2}));
    // Quarters reading 2 different vectors: 1 wavefront each.
    lane_accesses two;
    for (std::uint64_t l = 0; l < 32; ++l) two.emplace_back(16 * (l / 8), 16);
    EXPECT_EQ(c.shared(two, lanes_of(32)), (bank_cost{4, 4}));
    // Vectors a bank-row apart within a quarter: 8 vectors on the same 4 banks.
    EXPECT_EQ(c.shared(strided(0, 8, 128, 16), lanes_of(8)), (bank_cost{8, 1}));
    // Vector indices by lane, a lane off: the same rule.
    std::vector<std::uint64_t> vecs(32);
    for (std::uint64_t l = 0; l < 32; ++l) vecs[l] = l % 8;
    EXPECT_EQ(shared_vector_cost(vecs, m), (bank_cost{2, 2}));
    vecs.assign(32, vector_off);
    vecs[3] = 5;
    EXPECT_EQ(shared_vector_cost(vecs, m), (bank_cost{1, 1}));
    vecs.assign(32, vector_off);
    EXPECT_EQ(shared_vector_cost(vecs, m), (bank_cost{0, 0}));
}

TEST(Placement, GreedyMakespan) {
    EXPECT_EQ(greedy_makespan({}, 4), 0u);
    EXPECT_EQ(greedy_makespan({5, 3, 3, 1}, 2), 6u);     // 5 | 3, then 3 on the 3 and 1 on the 5
    EXPECT_EQ(greedy_makespan({5, 3, 3, 1}, 1), 12u);    // one MP: the sum
    EXPECT_EQ(greedy_makespan({5, 3, 3, 1}, 8), 5u);     // more MPs than blocks: the largest
    EXPECT_EQ(greedy_makespan({1, 1, 1, 1, 4}, 2), 6u);  // in order, not sorted: 2 + 4
}

TEST(Placement, RunsPlaceAsTheirBlocksWould) {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
        std::vector<std::uint64_t> blocks;
        for (int r = 0, nr = int(rng() % 6); r < nr; ++r) {
            const std::uint64_t steps = rng() % 50, count = rng() % 40;
            runs.emplace_back(steps, count);
            blocks.insert(blocks.end(), count, steps);
        }
        const std::uint64_t k = 1 + rng() % 20;
        EXPECT_EQ(greedy_makespan_runs(runs, k), greedy_makespan(blocks, k)) << "trial " << trial;
    }
}

TEST(FloydWarshall, BytesAndOperationsWithNPadded) {
    // N_b = d(4n^3/t - 2n^2), N_c = 2n(n^2 - 2t + 1).
    EXPECT_DOUBLE_EQ(floyd_warshall_bytes(64, 16, 4), 4 * (4.0 * 64 * 64 * 64 / 16 - 2.0 * 64 * 64));
    EXPECT_DOUBLE_EQ(floyd_warshall_operations(64, 16), 2.0 * 64 * (64 * 64 - 32 + 1));
    EXPECT_NEAR(floyd_warshall_bytes(1 << 20, 32, 4) / floyd_warshall_operations(1 << 20, 32), 8.0 / 32, 1e-5);
    // n is padded to the tile: 100 counts as 128 at t = 32.
    EXPECT_DOUBLE_EQ(floyd_warshall_bytes(100, 32, 4), floyd_warshall_bytes(128, 32, 4));
    EXPECT_DOUBLE_EQ(floyd_warshall_operations(100, 32), floyd_warshall_operations(128, 32));
    EXPECT_DOUBLE_EQ(floyd_warshall_bytes(100, 32, 2), floyd_warshall_bytes(128, 32, 4) / 2);
}

TEST(Sorting, IoLowerBound) {
    EXPECT_DOUBLE_EQ(sort_io_lower_bound(double(1 << 25), 32, 32 * 1024), double(1 << 20) * 2);
    EXPECT_DOUBLE_EQ(sort_io_lower_bound(16, 32, 1024), 0.5);     // less than a block
    EXPECT_DOUBLE_EQ(sort_io_lower_bound(1024, 32, 32), 32.0);    // M/b = 1: no merging
    EXPECT_DOUBLE_EQ(sort_io_lower_bound(64, 32, 1 << 20), 2.0);  // fewer blocks than M/b: one pass
}

}  // namespace
}  // namespace agpu::model
