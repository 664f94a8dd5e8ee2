// The committed H100 `micro` dataset against the simulator (no GPU needed):
// what agrees exactly, and the bound of what does not yet (validate/README.md).
#include <gtest/gtest.h>

#include <set>

#include "agpu/validate/compare.hpp"

namespace validate = agpu::validate;

namespace {

const validate::comparison& h100_micro() {
    static const auto c = validate::compare_dataset(AGPU_SOURCE_DIR "/validate/data/h100/micro");
    return c;
}

}  // namespace

TEST(H100Micro, DatasetIsComplete) {
    EXPECT_EQ(h100_micro().device_id, "h100");
    EXPECT_EQ(h100_micro().runs, 50u);
}

TEST(H100Micro, GlobalAndAtomicCountersAreExact) {
    const std::set<std::string> exact = {"global_load_requests",  "global_load_sectors",        "global_store_requests",
                                         "global_store_sectors",  "global_atomic_instructions", "global_atomic_sectors",
                                         "shared_load_instructions", "shared_store_wavefronts", "shared_store_bank_conflicts",
                                         "shared_atomic_instructions"};
    std::size_t checked = 0;
    for (const auto& r : h100_micro().rows) {
        if (!exact.count(r.counter)) continue;
        ASSERT_TRUE(r.measured) << r.algo << " " << r.params << " " << r.counter;
        EXPECT_EQ(*r.measured, r.simulated) << r.algo << " n=" << r.n << " " << r.params << " " << r.counter;
        ++checked;
    }
    EXPECT_EQ(checked, exact.size() * 50);
}

// Predication: a store or load under `if (thread 0)` is issued by every warp of
// the block, with no lane active; the hardware counts those instructions, the
// simulator counts warps with active lanes. They make no requests, sectors or
// wavefronts (exact above).
TEST(H100Micro, InstructionCountsDifferOnlyByPredicatedWarps) {
    for (const auto& r : h100_micro().rows) {
        if (r.counter != "global_load_instructions" && r.counter != "global_store_instructions" &&
            r.counter != "shared_store_instructions")
            continue;
        ASSERT_TRUE(r.measured);
        EXPECT_GE(*r.measured, r.simulated) << r.algo << " " << r.params << " " << r.counter;
        const double blocks = double((r.n + 255) / 256);
        EXPECT_LE(*r.measured - r.simulated, 7 * blocks) << "at most the 7 other warps of each block";
    }
}

// Not yet explained (issue 4 stays open): the hardware reports extra shared-load
// wavefronts, from 0.2% (32 loads per thread) to 24% (one load per thread)
// above the bank model. This bounds them so that a change shows.
TEST(H100Micro, SharedLoadWavefrontsCarryABoundedExtra) {
    for (const auto& r : h100_micro().rows) {
        if (r.counter != "shared_load_wavefronts") continue;
        ASSERT_TRUE(r.measured);
        EXPECT_GE(*r.measured, r.simulated) << r.algo << " " << r.params;
        const double blocks = double((r.n + 255) / 256);
        EXPECT_LE(*r.measured - r.simulated, 18 * blocks) << r.algo << " " << r.params;
    }
}
