// Tests of a family's closed forms against the simulator: one run's counts
// equal the closed form's exact counters and lie within the family's bounds
// for the rest (no counter both exact and bounded). For the families whose
// counts are partly data-dependent (rank queries, split sort passes).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agpu/model/closed_form.hpp"
#include "agpu/model/device.hpp"
#include "agpu/sim/algorithms.hpp"

namespace agpu::kernels::testing {

struct checked_counts {
    model::partial_counts exact;
    model::count_bounds bounds;
    std::string where;  // "algo [sets] on dev n=N", for further expectations
    bool ran = false;   // the run passed its check and the closed form exists
};

// Simulates `algo` on device d (named `dev` in messages) with seed 11 and
// checks its counts against its closed form's exact counters and bounds.
inline checked_counts expect_counts_match(const model::device& d, const std::string& dev, const std::string& algo,
                                          std::uint64_t n, const std::vector<std::string>& sets) {
    checked_counts r;
    r.where = algo + " " + ::testing::PrintToString(sets) + " on " + dev + " n=" + std::to_string(n);
    const auto& a = sim::find_algorithm(algo);
    const auto params = model::parse_params(a.spec, sets);
    const auto s = sim::simulate(a, d, n, params, 11);
    EXPECT_TRUE(s.check.passed) << r.where << ": " << s.check.detail;
    if (!s.check.passed) return r;
    const auto got = s.record.totals();
    const auto* cf = model::find_closed_form(algo);
    EXPECT_NE(cf, nullptr) << algo;
    if (cf == nullptr) return r;
    r.exact = cf->costs(d.agpu, n, params);
    for (const auto& [ctr, want] : r.exact)
        EXPECT_EQ(got[ctr], want) << r.where << ": counter " << model::info(ctr).name;
    if (cf->bounds) r.bounds = cf->bounds(d.agpu, n, params);
    r.ran = true;
    for (const auto& [ctr, low] : r.bounds.low) {
        EXPECT_GE(got[ctr], low) << r.where << ": counter " << model::info(ctr).name;
        EXPECT_LE(got[ctr], r.bounds.high.at(ctr)) << r.where << ": counter " << model::info(ctr).name;
        EXPECT_EQ(r.exact.count(ctr), 0u) << r.where << ": " << model::info(ctr).name << " both exact and bounded";
    }
    return r;
}

}  // namespace agpu::kernels::testing
