// The stats family on the simulator: every algorithm against the CPU
// reference on awkward sizes, float and double; the numerics that separate
// the source's formula from the stable one; and the closed forms against the
// simulator's counters on b = 32, 64 and 16.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>

#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/sim/algorithms.hpp"
#include "stats/stats_runs.hpp"

namespace model = agpu::model;
namespace sim = agpu::sim;
namespace st = agpu::kernels::stats;
using model::counter;

namespace {

const char* algos[] = {"stats/fused", "stats/pairwise", "stats/serial"};
const char* types[] = {"float", "double"};

sim::simulation simulate(const std::string& algo, const model::device& dev, std::uint64_t n, const std::string& type,
                         std::uint64_t seed = 7) {
    const auto& a = sim::find_algorithm(algo);
    return sim::simulate(a, dev, n, model::parse_params(a.spec, {"type=" + type}), seed);
}

// The results of one algorithm on given values, on the simulator.
template <class T>
st::results on_sim(st::algo a, const std::vector<T>& values, const std::string& device = "h100") {
    sim::executor ex(model::resolve_device(device));
    auto x = ex.alloc<T>(values.size());
    ex.upload(x, std::span<const T>(values));
    return st::run_algo<T>(a, ex, agpu::kl::gspan<const T>(x));
}

}  // namespace

TEST(Stats, EveryAlgorithmMatchesTheReferenceOnAwkwardSizes) {
    for (const char* algo : algos)
        for (const char* type : types)
            for (std::uint64_t n : {1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000, 4096, 4097}) {
                const auto s = simulate(algo, model::resolve_device("h100"), n, type);
                EXPECT_TRUE(s.check.passed) << algo << " type=" << type << " n=" << n << ": " << s.check.detail;
            }
}

namespace {

// Every counter the closed form gives equals the simulator's.
void expect_closed_form(const std::string& algo, const model::device& dev, std::uint64_t n, const std::string& type) {
    const auto s = simulate(algo, dev, n, type);
    ASSERT_TRUE(s.check.passed) << algo << " on " << dev.id << " n=" << n << ": " << s.check.detail;
    const auto* cf = model::find_closed_form(algo);
    ASSERT_NE(cf, nullptr) << algo;
    const auto got = s.record.totals();
    const auto& a = sim::find_algorithm(algo);
    for (const auto& [ctr, want] : cf->costs(dev.agpu, n, model::parse_params(a.spec, {"type=" + type})))
        EXPECT_EQ(got[ctr], want) << algo << " type=" << type << " on " << dev.id << " (b=" << dev.agpu.b
                                  << ", k=" << dev.agpu.k() << ") n=" << n << ": counter " << model::info(ctr).name;
}

// The H100 with k MPs: few blocks, so that stats/fused's threads loop many times.
model::device h100_with_mps(std::uint64_t k) {
    auto d = model::resolve_device("h100");
    d.id = "h100-k" + std::to_string(k);
    d.agpu.p = k * d.agpu.b;
    return d;
}

}  // namespace

// Sampled runs of the data-independent algorithms read an input that fills
// itself: where every block ran (few blocks) the results are checked on it;
// where blocks were skipped they are not, and the counts are the exact run's.
TEST(Stats, SampledRunsOnSelfFillingInput) {
    const auto dev = model::resolve_device("h100");
    sim::engine_options opt;
    opt.mode = sim::sim_mode::sampled;
    for (const auto& [key, n] :
         {std::pair{"stats/fused", std::uint64_t(1) << 24}, std::pair{"stats/pairwise", std::uint64_t(1) << 18}}) {
        const auto& a = sim::find_algorithm(key);
        const auto p = model::parse_params(a.spec, {});
        const auto small = sim::simulate(a, dev, 1000, p, 1, opt);
        EXPECT_TRUE(small.check.passed) << key << ": " << small.check.detail;
        EXPECT_NE(small.check.detail.rfind("not checked", 0), 0u) << key;
        const auto sampled = sim::simulate(a, dev, n, p, 1, opt);
        EXPECT_EQ(sampled.check.detail.rfind("not checked", 0), 0u) << key;
        EXPECT_GT(sampled.record.blocks_skipped(), 0u) << key;
        const auto exact = sim::simulate(a, dev, n, p, 1).record.totals();
        for (const auto c : {model::counter::time_steps, model::counter::global_sectors}) {
            const double x = double(exact[c]), y = double(sampled.record.totals()[c]);
            EXPECT_NEAR(y, x, 1e-3 * x) << key << " " << model::info(c).name;
        }
    }
}

TEST(Stats, ClosedFormsEqualTheSimulator) {
    for (const char* id : {"h100", "h100-b64", "geforce-gtx280"}) {  // b = 32, 64, 16
        const auto dev = model::resolve_device(id);
        const std::uint64_t b = dev.agpu.b;
        for (const char* algo : algos)
            for (const char* type : types)
                for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(2), std::uint64_t(7), b - 1, b, b + 1,
                                        std::uint64_t(255), std::uint64_t(256), std::uint64_t(257), std::uint64_t(1000),
                                        std::uint64_t(4096), std::uint64_t(5000)})
                    expect_closed_form(algo, dev, n, type);
    }
}

TEST(Stats, FusedClosedFormWhenThreadsLoop) {
    // k = 1 and 3: G = 4 or 12 blocks, each thread many unrolled iterations, then a remainder.
    for (std::uint64_t k : {1, 3})
        for (const char* type : types)
            for (std::uint64_t n : {16384, 16385, 100000, 131071, 262144})
                expect_closed_form("stats/fused", h100_with_mps(k), n, type);
    // A full grid on the H100 (528 blocks) with several iterations per thread.
    expect_closed_form("stats/fused", model::resolve_device("h100"), (std::uint64_t(1) << 23) + 5, "float");
}

// Mixed signs, and equal values (variance exactly 0 for the stable algorithms).
TEST(Stats, MixedSignsAndConstantValues) {
    for (std::size_t n : {1000, 4097}) {
        std::mt19937_64 rng(5);
        std::normal_distribution<double> d(-5.0, 100.0);
        std::vector<float> xf(n);
        std::vector<double> xd(n);
        for (std::size_t i = 0; i < n; ++i) xd[i] = xf[i] = static_cast<float>(d(rng));
        for (st::algo a : {st::algo::fused, st::algo::pairwise, st::algo::serial}) {
            const auto tf = st::tolerance_for<float>(a, n);
            const auto td = st::tolerance_for<double>(a, n);
            EXPECT_EQ(st::compare_results(on_sim(a, xf), st::reference(std::span<const float>(xf)), tf), "") << n;
            EXPECT_EQ(st::compare_results(on_sim(a, xd), st::reference(std::span<const double>(xd)), td), "") << n;
        }
    }
    const std::vector<float> same(3001, 3.25f);
    for (st::algo a : {st::algo::fused, st::algo::serial}) {
        const auto r = on_sim(a, same);
        EXPECT_EQ(r[st::f_var_pop], 0.0);
        EXPECT_EQ(r[st::f_mean], 3.25);
        EXPECT_EQ(r[st::f_min], 3.25);
        EXPECT_EQ(r[st::f_max], 3.25);
    }
}

// {1e8 + 4, 1e8 + 7, 1e8 + 13, 1e8 + 16}: mean 1e8 + 10, deviations -6, -3, 3, 6,
// M2 = 90: population variance 90/4 = 22.5, sample variance 90/3 = 30.
TEST(Stats, StableAlgorithmsGiveTheExactVarianceOfLargeOffsetDoubles) {
    const std::vector<double> x = {1e8 + 4, 1e8 + 7, 1e8 + 13, 1e8 + 16};
    for (st::algo a : {st::algo::fused, st::algo::serial}) {
        const auto r = on_sim(a, x);
        EXPECT_EQ(r[st::f_var_pop], 22.5);
        EXPECT_EQ(r[st::f_var_sample], 30.0);
        EXPECT_EQ(r[st::f_mean], 1e8 + 10);
        EXPECT_EQ(r[st::f_std_pop], std::sqrt(22.5));
    }
    // The source's formula: sum x^2/N - mean^2 cancels 1e16 against 1e16, with
    // an ulp of 2 there: it gives 22, off by 0.5.
    const auto p = on_sim(st::algo::pairwise, x);
    EXPECT_GE(std::abs(p[st::f_var_pop] - 22.5), 0.5) << p[st::f_var_pop];
}

// Float values with mean / std = 1e4 (mean 1e4, std 1): fused and serial keep
// the variance to far better than 1e-3 relative; the source's formula, with
// E[x^2] / variance = 1e8 and float's eps = 6e-8, does not.
TEST(Stats, OnlyTheSourceFormulaLosesTheVarianceOfOffsetFloats) {
    for (std::size_t n : {1000, 4096, 5001}) {
        std::mt19937_64 rng(11);
        std::normal_distribution<double> d(1e4, 1.0);
        std::vector<float> x(n);
        for (auto& v : x) v = static_cast<float>(d(rng));
        const auto want = st::reference(std::span<const float>(x));
        const auto rel = [&](const st::results& r) {
            return std::abs(r[st::f_var_pop] - want[st::f_var_pop]) / want[st::f_var_pop];
        };
        const double fused = rel(on_sim(st::algo::fused, x)), serial = rel(on_sim(st::algo::serial, x));
        const double pairwise = rel(on_sim(st::algo::pairwise, x));
        EXPECT_LT(fused, 1e-3) << "n=" << n;
        EXPECT_LT(fused, 1e-12) << "n=" << n << ": double sums of float data";
        EXPECT_LT(serial, 1e-12) << "n=" << n;
        EXPECT_GT(pairwise, 1e-3) << "n=" << n;
        std::cout << "n=" << n << ": relative error of the variance: fused " << fused << ", serial " << serial
                  << ", pairwise " << pairwise << "\n";
    }
}

// The closed forms' headline formulas (their `formula` text and README.md), at
// powers of two on b = 32, 64, 16.
TEST(Stats, HeadlineFormulas) {
    for (const char* id : {"h100", "h100-b64", "geforce-gtx280"}) {
        const auto dev = model::resolve_device(id);
        const std::uint64_t b = dev.agpu.b, k = dev.agpu.k(), block_bytes = dev.agpu.block_bytes();
        for (const char* type : types) {
            const std::uint64_t s = std::string(type) == "float" ? 4 : 8, V = 16 / s;
            for (std::uint64_t P : {std::uint64_t(1) << 10, std::uint64_t(1) << 13}) {
                const std::uint64_t lg = std::countr_zero(P);
                const auto t = simulate("stats/pairwise", dev, P, type).record.totals();
                EXPECT_EQ(t[counter::launches], 6 * lg);
                EXPECT_EQ(t[counter::io_blocks], 14 * P * s * lg / block_bytes) << id << " " << type << " P=" << P;
                const std::uint64_t copy = (P + 256 * k - 1) / (256 * k) * 512 / b;
                const std::uint64_t pairs = (P / 2 + 256 * k - 1) / (256 * k) * 256 / b;
                EXPECT_EQ(t[counter::time_steps], lg * (3 * copy + pairs * (4 + 3 + 3))) << id << " " << type;
            }
            const std::uint64_t n = 3000;
            EXPECT_EQ(simulate("stats/serial", dev, n, type).record.totals()[counter::time_steps], n + 9);
            for (std::uint64_t n_fused : {std::uint64_t(1) << 12, std::uint64_t(1) << 16}) {
                const auto r = simulate("stats/fused", dev, n_fused, type).record;
                ASSERT_EQ(r.launches.size(), 2u);
                const auto& k1 = r.launches[0].c;
                EXPECT_EQ(k1[counter::global_load_blocks], n_fused * s / block_bytes);
                EXPECT_EQ(k1[counter::global_load_instructions], n_fused / (V * b));
                EXPECT_EQ(k1[counter::global_load_sectors], n_fused * s / 32);
                EXPECT_EQ(k1[counter::global_store_instructions], 5 * r.launches[0].grid.x);
            }
        }
    }
}
