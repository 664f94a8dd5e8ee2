// The committed H100 `micro` dataset against the simulator (no GPU needed):
// what agrees exactly, what differs and why (validate/README.md).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "agpu/validate/compare.hpp"
#include "agpu/validate/dataset.hpp"

namespace validate = agpu::validate;

namespace {

const validate::comparison& h100_micro() {
    static const auto c = validate::compare_dataset(AGPU_SOURCE_DIR "/validate/data/h100/counters/micro");
    return c;
}

}  // namespace

TEST(H100Micro, DatasetIsComplete) {
    EXPECT_EQ(h100_micro().device_id, "h100");
    EXPECT_EQ(h100_micro().runs, 50u);
}

TEST(H100Micro, MemoryCountersAreExact) {
    const std::set<std::string> exact = {
        "global_load_requests",     "global_load_sectors",         "global_store_requests",
        "global_store_sectors",     "global_atomic_instructions",  "global_atomic_sectors",
        "shared_load_instructions", "shared_load_wavefronts",      "shared_load_bank_conflicts",
        "shared_store_wavefronts",  "shared_store_bank_conflicts", "shared_atomic_instructions"};
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

// The shared-load offset: the L1TEX data stage's own wavefront total is above
// the SASS-attributed one (which equals the bank model, exact above) by a few
// wavefronts per thread block, wavefronts no load of the kernel asked for.
// This bounds them so that a change shows.
TEST(H100Micro, L1texSharedLoadTotalsCarryABoundedOffset) {
    std::map<std::string, std::map<std::string, double>> by_launch;
    std::map<std::string, std::uint64_t> n_of;
    for (const auto& m : validate::read_measurements(AGPU_SOURCE_DIR "/validate/data/h100/counters/micro"))
        if (m.value && m.launch != "run") {
            by_launch[m.run_id + "#" + m.launch][m.counter] = *m.value;
            n_of[m.run_id + "#" + m.launch] = m.n;
        }
    std::size_t checked = 0;
    for (const auto& [key, v] : by_launch) {
        const auto sass = v.find("shared_load_wavefronts"), l1tex = v.find("shared_load_wavefronts_l1tex");
        ASSERT_NE(l1tex, v.end()) << key;
        if (sass == v.end() || sass->second == 0) continue;
        const double blocks = double((n_of[key] + 255) / 256);
        EXPECT_GE(l1tex->second, sass->second) << key;
        EXPECT_LE(l1tex->second - sass->second, 18 * blocks) << key;
        ++checked;
    }
    EXPECT_EQ(checked, 24u) << "the launches with shared loads: shared-stride, broadcast, shared atomics";
}
