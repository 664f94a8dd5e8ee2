// The calibrated model as agpu predict and agpu sweep price a run: never below
// the device's physical floors (every preset, every algorithm with a closed
// form, sizes from launch-bound to DRAM-bound), its bounds summed and named
// as they add to the run, and the GTX 280's issue rate of b / cores_per_sm
// clocks a step.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/model/launch_time.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sweep/prediction.hpp"

namespace model = agpu::model;
namespace sim = agpu::sim;
namespace sweep = agpu::sweep;

namespace {

std::optional<sweep::prediction> closed_form(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                                             const std::vector<std::string>& settings = {}) {
    try {
        model::check_n(algo.spec, n);
        const auto params = model::parse_params(algo.spec, settings);
        return sweep::predict_closed_form(algo, dev, n, params, sweep::counts_mode::automatic, model::default_fit());
    } catch (const agpu::input_error&) {
        return std::nullopt;  // a size or shape this device or algorithm refuses
    }
}

void expect_consistent(const sweep::prediction& p, const std::string& what) {
    const auto& s = p.summary;
    double added = 0;
    std::uint64_t won = 0;
    for (const auto& b : s.bounds) {
        EXPECT_TRUE(std::isfinite(b.seconds_alone) && b.seconds_alone >= 0) << what << " " << model::name(b.bound);
        EXPECT_LE(b.seconds_added, b.seconds_alone * (1 + 1e-12)) << what;
        EXPECT_EQ(b.seconds_added > 0, b.launches_won > 0 && b.seconds_alone > 0)
            << what << " " << model::name(b.bound);
        added += b.seconds_added;
        won += b.launches_won;
        EXPECT_LE(b.seconds_added, s.bounds[std::size_t(s.winner)].seconds_added) << what << ": the winner adds most";
    }
    EXPECT_EQ(won, s.launches) << what << ": every launch has one winner";
    EXPECT_NEAR(s.seconds, s.launch_overhead_s + added, 1e-9 * s.seconds) << what;
    EXPECT_NEAR(p.seconds, s.seconds, 1e-9 * s.seconds) << what;
    EXPECT_EQ(p.bound, std::string(model::name(s.winner))) << what;
    EXPECT_TRUE(s.margin == 0 || s.margin >= 1 - 1e-12) << what << ": margin " << s.margin;
}

}  // namespace

TEST(CalibratedPrediction, NeverBelowTheFloorsOnAnyPreset) {
    std::size_t priced = 0;
    for (const auto& dev : model::presets())
        for (const auto* algo : sim::algorithms()) {
            if (!model::find_closed_form(algo->spec.key)) continue;
            for (std::uint64_t n : {std::uint64_t(64), std::uint64_t(1000), std::uint64_t(1) << 14,
                                    std::uint64_t(1) << 20, std::uint64_t(1) << 26, std::uint64_t(1) << 30}) {
                // APSP's closed forms walk every tile: n = 1000 spans launch- to issue-bound there.
                if (algo->spec.key.rfind("apsp/", 0) == 0 && n > 1000) continue;
                const auto p = closed_form(*algo, dev, n);
                if (!p || !p->priced) continue;
                const std::string what = algo->spec.key + " n=" + std::to_string(n) + " on " + dev.id;
                ASSERT_TRUE(std::isfinite(p->seconds) && p->seconds > 0) << what;
                // A closed form's launch is its totals over the launches, rounded: 1e-6 of slack.
                EXPECT_GE(p->seconds, p->floor_s * (1 - 1e-6))
                    << what << ": " << p->seconds << " s below the floor " << p->floor_s << " s";
                expect_consistent(*p, what);
                ++priced;
            }
        }
    // Every preset prices most of the grid (the rest: sizes an algorithm refuses).
    EXPECT_GE(priced, model::presets().size() * 30) << priced << " runs priced";
}

TEST(CalibratedPrediction, Gtx280IssuesAStepInTwoClocks) {
    // b = 16 lanes on 8 cores: a step takes 2 clocks; the issue bound is never less.
    const auto dev = model::resolve_device("geforce-gtx280");
    ASSERT_EQ(dev.agpu.b / dev.hw.cores_per_sm, 2u);
    const auto p = closed_form(sim::find_algorithm("apsp/blocked"), dev, 8192, {"t=32"});
    ASSERT_TRUE(p && p->priced);
    const double steps = double(p->counts.totals[model::counter::time_steps]);
    const auto& issue = p->summary.bounds[std::size_t(model::launch_bound::issue)];
    EXPECT_GE(issue.seconds_alone, steps * 2 / (dev.hw.sm_clock_mhz * 1e6) * (1 - 1e-9));
    EXPECT_GE(p->seconds, issue.seconds_alone);
}

TEST(CalibratedPrediction, SimulatedLaunchesEachHaveAWinner) {
    const auto& algo = sim::find_algorithm("scan/work-efficient");
    const auto dev = model::resolve_device("h100");
    sim::count_options opt;
    const auto p = sweep::predict_simulated(algo, dev, 100000, model::parse_params(algo.spec, {}), 1,
                                            sweep::counts_mode::exact, opt, model::default_fit());
    ASSERT_TRUE(p.priced);
    EXPECT_EQ(p.summary.launches, p.counts.launches.size());
    EXPECT_GT(p.summary.launches, 1u);
    expect_consistent(p, "scan/work-efficient n=100000");
    EXPECT_GE(p.seconds, p.floor_s);
}

TEST(CalibratedPrediction, DescribedWithUnits) {
    model::bound_summary b;
    b.quantity = 1.2e9;
    b.quantity_unit = "bytes";
    b.seconds_alone = 0.4e-3;
    b.rate = b.quantity / b.seconds_alone;
    b.rate_unit = "bytes/s";
    EXPECT_EQ(model::describe(b), "1.2 GB at 3 TB/s = 400 us");
    b.quantity = 3.36e9;
    b.quantity_unit = "SM clocks";
    b.rate = 1.296e9;
    b.rate_unit = "Hz";
    b.seconds_alone = b.quantity / b.rate;
    EXPECT_EQ(model::describe(b), "3.36e9 SM clocks at 1.3 GHz = 2.59 s");
    EXPECT_EQ(model::seconds_text(12.3e-6), "12.3 us");
}
