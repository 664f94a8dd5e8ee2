// The committed H100 datasets of the algorithm suites (stats, scan, rank)
// against the simulator (no GPU needed): every memory counter equal, except
// where a kernel's look-back polls again on the GPU (validate/README.md,
// "Algorithms"); those only add to the measured side, by little.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "agpu/validate/compare.hpp"

namespace validate = agpu::validate;

namespace {

// Kernels whose look-back (decoupled, on tile status words) may poll more than
// once on the GPU: their status loads (scan) or atomics (rank) can exceed the
// simulator's, which runs blocks in order and finds every predecessor done.
const std::map<std::string, std::set<std::string>> polls = {
    {"chained_scan", {"global_load_requests", "global_load_sectors"}},
    {"jacobson_build", {"global_atomic_instructions", "global_atomic_sectors"}},
    {"interleaved_build", {"global_atomic_instructions", "global_atomic_sectors"}},
};

const std::set<std::string> memory = {
    "global_load_requests",       "global_load_sectors",        "global_store_requests",  "global_store_sectors",
    "global_atomic_instructions", "global_atomic_sectors",      "shared_load_wavefronts", "shared_load_bank_conflicts",
    "shared_store_wavefronts",    "shared_store_bank_conflicts"};

void check(const std::string& dataset, std::size_t runs) {
    const auto c = validate::compare_dataset(std::string(AGPU_SOURCE_DIR "/validate/data/") + dataset);
    EXPECT_EQ(c.device_id, "h100");
    EXPECT_EQ(c.runs, runs) << dataset << ": runs compared (complete, passed, simulated)";
    std::size_t exact = 0, polled = 0;
    for (const auto& r : c.rows) {
        if (!memory.count(r.counter)) continue;
        ASSERT_TRUE(r.measured) << r.algo << " " << r.kernel << " " << r.counter;
        const std::string where =
            r.algo + " n=" + std::to_string(r.n) + " " + r.params + " " + r.kernel + " " + r.counter;
        const auto p = polls.find(r.kernel);
        if (p != polls.end() && p->second.count(r.counter)) {
            EXPECT_GE(*r.measured, r.simulated) << where << ": polls only add";
            EXPECT_LE(*r.measured, r.simulated * 1.4 + 16) << where;
            ++polled;
        } else if (r.kernel == "jacobson_select" && r.counter == "global_load_sectors") {
            // 6 of 13.3 M sectors fewer on the GPU at n = 10^6+3 (not explained; see README)
            EXPECT_NEAR(*r.measured, r.simulated, 1e-6 * r.simulated) << where;
        } else {
            EXPECT_EQ(*r.measured, r.simulated) << where;
            ++exact;
        }
    }
    EXPECT_GT(exact, 0u);
    (void)polled;
}

}  // namespace

TEST(H100Algorithms, StatsCountersAreExact) { check("h100/counters/stats", 12); }
TEST(H100Algorithms, ScanCountersAreExactButLookBackPolls) { check("h100/counters/scan", 16); }
TEST(H100Algorithms, RankCountersAreExactButLookBackPolls) { check("h100/counters/rank", 12); }
