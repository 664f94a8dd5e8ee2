// The sorts' sampled mode on synthesized inputs (estimators/sort_synth.hpp,
// estimators/sort_sampled.hpp): the synthesized runs are sorted, do not depend on the
// order their units are made in, have the order statistics of i.i.d.
// uniform keys, and rank what their keys count; a synthesized sampled run,
// and one whose long blocks are probed on shortened work, stay within the
// error they report and within 1% of the exact run on the counters the test
// names; auto picks sampled for a 2^20-key sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "agpu/model/catalog.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/model_counts.hpp"
#include "estimators/sort_sampled.hpp"

namespace model = agpu::model;
namespace sim = agpu::sim;
namespace sort = agpu::kernels::sort;
namespace est = agpu::sim::sort_estimator;

TEST(SortSynth, RunsAreSortedAndDoNotDependOnTheOrderUnitsAreMade) {
    const std::uint64_t n = 10007, L = 3000;
    const est::sorted_runs_synth<std::uint32_t> s(n, L, 42);
    std::vector<std::uint32_t> all(n), piecewise(n);
    s.fill(0, n, all.data());
    for (std::uint64_t i = n; i > 0; i -= std::min<std::uint64_t>(i, 37)) {  // backwards, in pieces across units
        const std::uint64_t first = i - std::min<std::uint64_t>(i, 37);
        s.fill(first, i - first, piecewise.data() + first);
    }
    EXPECT_EQ(all, piecewise);
    for (std::uint64_t r = 0; r * L < n; ++r) {
        const auto b = all.begin() + std::ptrdiff_t(r * L), e = all.begin() + std::ptrdiff_t(std::min(n, (r + 1) * L));
        EXPECT_TRUE(std::is_sorted(b, e)) << "run " << r;
    }
    EXPECT_NE(all[0], all[L]);  // runs differ
    EXPECT_EQ(s.order_at(1234), all[1234]);
}

TEST(SortSynth, RankCountsTheKeysBelowAValue) {
    const std::uint64_t n = 5000, L = 2000;  // the last run shorter
    const est::sorted_runs_synth<std::uint32_t> s(n, L, 11);
    std::vector<std::uint32_t> all(n);
    s.fill(0, n, all.data());
    for (std::uint64_t r = 0; r * L < n; ++r) {
        const auto b = all.begin() + std::ptrdiff_t(r * L), e = all.begin() + std::ptrdiff_t(std::min(n, (r + 1) * L));
        est::sorted_runs_synth<std::uint32_t>::split_cache cache;
        std::vector<std::uint64_t> values{0, 1, 0xffffffffull};
        for (auto it = b; it < e; it += 97) values.push_back(*it);  // keys of the run: ties at the cut
        std::sort(values.begin(), values.end());
        for (const std::uint64_t v : values)
            for (const bool inclusive : {false, true}) {
                const auto want =
                    std::uint64_t(inclusive ? std::upper_bound(b, e, v) - b : std::lower_bound(b, e, v) - b);
                EXPECT_EQ(s.rank(r, v, inclusive, &cache), want) << "run " << r << " value " << v;
                EXPECT_EQ(s.rank(r, v, inclusive, nullptr), want) << "run " << r << " value " << v;
            }
        EXPECT_EQ(s.order_at(r * L + 5, &cache), all[r * L + 5]);
    }
}

TEST(SortSynth, OrderStatisticsOfUniformKeys) {
    // Element i of a sorted run of L i.i.d. uniforms has mean (i + 1)/(L + 1)
    // and standard deviation about sqrt(p(1 - p)/(L + 2)): over 400 runs the
    // mean of each of a few positions is within 4 standard errors.
    const std::uint64_t L = 1023, runs = 400;
    const est::sorted_runs_synth<std::uint32_t> s(L * runs, L, 7);
    for (std::uint64_t i : {0ull, 100ull, 511ull, 900ull, 1022ull}) {
        double sum = 0;
        for (std::uint64_t r = 0; r < runs; ++r) sum += double(s.order_at(r * L + i)) / 0x1p32;
        const double p = double(i + 1) / double(L + 1), sd = std::sqrt(p * (1 - p) / double(L + 2));
        EXPECT_NEAR(sum / double(runs), p, 4 * sd / std::sqrt(double(runs))) << "position " << i;
    }
    // The unsorted input: uniform keys.
    const est::random_keys_synth<std::uint32_t> in(3);
    std::vector<std::uint32_t> k(1 << 16);
    in.fill(0, k.size(), k.data());
    double mean = 0;
    for (auto x : k) mean += double(x) / 0x1p32 / double(k.size());
    EXPECT_NEAR(mean, 0.5, 4 * std::sqrt(1.0 / 12 / double(k.size())));
}

TEST(SortSynth, FloatKeysMapBackToTheirBits) {
    for (float x : {-3.5f, -0.0f, 0.0f, 1e-40f, 2.0f, INFINITY, -INFINITY})
        EXPECT_EQ(std::bit_cast<std::uint32_t>(est::key_from_order<float>(sort::key_order<float>::ordered(x))),
                  std::bit_cast<std::uint32_t>(x));
}

// A range that starts at a searched split is costed over the b starts of the
// b-element block its start falls in, its end where it is: the mean and
// variance moves_near gives are those of the moves from each of them.
TEST(SortSampled, KnownPartAveragesTheStartsNearASplit) {
    const auto dev = model::resolve_device("h100");
    const auto& m = dev.agpu;
    const std::uint64_t chunk = 128, b = m.b;
    est::detail::moves_memo memo;
    for (const bool read : {true, false})
        for (const std::uint64_t p : {std::uint64_t(4096), std::uint64_t(4103), std::uint64_t(4127)})
            for (const std::uint64_t len : {std::uint64_t(40), std::uint64_t(127), std::uint64_t(1000),
                                            std::uint64_t(1025), std::uint64_t(4096 + 5)}) {
                est::detail::moves_tally near{m, 32, false, 0, memo};
                near.moves_near(read, p, len, chunk);
                std::vector<est::detail::moments> each;
                const std::uint64_t first = p - p % b, end = p + len;
                for (std::uint64_t start = first; start < first + b; ++start) {
                    est::detail::moves_tally t{m, 32, false, 0, memo};
                    t.moves(read, start, end - start, chunk);
                    each.push_back(est::detail::moments_of(t.part));
                }
                for (const auto c :
                     {model::counter::shared_store_bank_conflicts, model::counter::shared_load_wavefronts,
                      model::counter::global_load_blocks, model::counter::global_store_sectors,
                      model::counter::warp_instructions, model::counter::time_steps}) {
                    const auto i = std::size_t(c);
                    double mean = 0, var = 0;
                    for (const auto& e : each) mean += e[i] / double(b);
                    for (const auto& e : each) var += (e[i] - mean) * (e[i] - mean) / double(b);
                    const std::string what = std::string(model::info(c).name) + " read " + std::to_string(read) +
                                             " p " + std::to_string(p) + " len " + std::to_string(len);
                    if (len < b) {  // a start could pass the end: the start kept
                        EXPECT_EQ(near.mean[i], 0.0) << what;
                        continue;
                    }
                    EXPECT_NEAR(near.mean[i], mean, 1e-9 * (1 + mean)) << what;
                    EXPECT_NEAR(near.var[i], var, 1e-6 * (1 + var)) << what;
                }
            }
}

namespace {

// A sampled run of the synthesized driver (whatever its size) against the
// exact run: every counter within the error it reports (plus 0.5%: the error
// is itself an estimate), and those in `one_percent` (all when empty) within 1%.
template <class Policy>
void expect_synthesized_near_exact(std::uint64_t n, const std::vector<std::string>& sets, bool want_probes,
                                   const std::vector<model::counter>& one_percent = {}) {
    const auto& a = sim::find_algorithm("sort/multiway");
    const auto dev = model::resolve_device("h100");
    const auto params = model::parse_params(a.spec, sets);
    const auto exact = sim::simulate(a, dev, n, params, 3).record.totals();
    sim::engine_options opt;
    opt.mode = sim::sim_mode::sampled;
    sim::executor ex(dev, opt);
    const auto shape = model::sort_plan::shape_of("sort/multiway", params);
    const auto check = est::merge_sort_synthesized<std::uint32_t, false, Policy>(ex, n, shape, 3);
    EXPECT_TRUE(check.passed);
    EXPECT_EQ(check.detail.rfind("not checked", 0), 0u);
    bool probed = false;
    for (const auto& l : ex.record().launches) probed |= l.blocks_shortened > 0;
    EXPECT_EQ(probed, want_probes);
    const auto s = ex.record().totals();
    const auto err = ex.record().relative_error_95();
    for (const auto& info : model::counter_table) {
        const double x = double(exact[info.id]), y = double(s[info.id]);
        const double rel = x == 0 ? std::abs(y) : std::abs(y - x) / x;
        // The SASS instruction counts of a sampled launch are its recorded blocks' estimate scaled up, with
        // no reported error: here within 5% of the exact run's in all, 15% per pipe (the small pipes vary most).
        if (model::is_sass_instruction_counter(info.id)) {
            EXPECT_LE(rel, info.id == model::counter::inst_executed ? 0.05 : 0.15)
                << info.name << ": exact " << x << ", sampled " << y;
            continue;
        }
        if (one_percent.empty() || std::find(one_percent.begin(), one_percent.end(), info.id) != one_percent.end()) {
            EXPECT_LE(rel, 0.01) << info.name << ": exact " << x << ", sampled " << y;
        }
        EXPECT_LE(rel, err[std::size_t(info.id)] + 0.005)
            << info.name << ": reported error " << err[std::size_t(info.id)];
    }
}

// Probes of short blocks (x1 = 2048 keys) for a small run with long blocks.
struct small_probes : est::sampled_policy {
    static std::uint64_t x1(std::uint64_t, std::uint64_t) { return 2048; }
};

}  // namespace

// Every counter within 1% but the shared stores' bank conflicts (-1.85%
// here, within the error reported). Their known part, mostly a leaf's
// misaligned staging stores, depends on where the ranges start against
// b-word blocks; at 2^19 its searched splits spread over less than b
// (synthesized_merge), so they are the synthesized run's draws, not the exact
// run's: -0.97% of the difference. The rest, -0.88%, is the heaps' own
// conflicts (moves of partial buffers near a range's end), sampled on 16 and
// 18 of the 64 blocks of the two split launches.
TEST(SortSampled, SynthesizedWithinOnePercent) {
    std::vector<model::counter> one_percent;
    for (const auto& info : model::counter_table)
        if (info.id != model::counter::shared_store_bank_conflicts) one_percent.push_back(info.id);
    expect_synthesized_near_exact<est::sampled_policy>(1 << 19, {}, false, one_percent);
}

// Probes see 3 blocks, and a block's global instructions depend on how its
// output and its runs' ranges fall against b-word blocks (at chunk 64 an
// aligned move takes 2 warp-instructions, another 3): those counters are
// within the error reported (a few percent here), the rest within 1%.
TEST(SortSampled, ProbedLaunchesWithinTheirError) {
    using model::counter;
    expect_synthesized_near_exact<small_probes>(
        1 << 18, {"tile=256", "chunk=64", "d=4", "parts=2"}, true,
        {counter::time_steps, counter::warp_instructions, counter::lane_accesses, counter::shared_load_instructions,
         counter::shared_wavefronts, counter::bank_conflicts, counter::barrier_instructions, counter::global_sectors});
}

TEST(SortSampled, AutoPicksSampledForLargeSorts) {
    const auto dev = model::resolve_device("h100");
    for (const char* key : {"sort/multiway", "sort/pairwise", "sort/bitonic"}) {
        const auto& a = sim::find_algorithm(key);
        const auto p = model::parse_params(a.spec, {});
        EXPECT_EQ(sim::resolve_mode(sim::mode_request::automatic, a, dev, 1 << 12, p), sim::sim_mode::exact) << key;
        EXPECT_EQ(sim::resolve_mode(sim::mode_request::automatic, a, dev, 1 << 20, p), sim::sim_mode::sampled) << key;
    }
    // The synthesized run of 2^28 keys is estimated in seconds, the exact one in half an hour.
    const auto& a = sim::find_algorithm("sort/multiway");
    const auto p = model::parse_params(a.spec, {});
    EXPECT_GT(sim::exact_simulation_estimate(a, dev, std::uint64_t(1) << 28, p), 1200.0);
    EXPECT_LT(sim::sampled_simulation_estimate(a, dev, std::uint64_t(1) << 28, p), 60.0);
}
