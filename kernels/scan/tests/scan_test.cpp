// The scan family on the simulator: both algorithms against the CPU reference
// on awkward sizes (1, b-ish, tile-1, tile, tile+1, primes) for every type and
// kind on b = 32, 64 and 16, and with sums that wrap; their closed forms
// against the simulator's counts; the look-back's paths that a simulated scan
// never takes; the kernel layer's additions for it; the suites.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/validate/suite.hpp"
#include "scan/scan_runs.hpp"

namespace model = agpu::model;
namespace sim = agpu::sim;
namespace scan = agpu::kernels::scan;
namespace kl = agpu::kl;
using model::counter;

namespace {

const char* devices[] = {"h100", "h100-b64", "geforce-gtx280"};  // b = 32, 64, 16
const char* algos[] = {"scan/hillis-steele", "scan/work-efficient"};

std::uint64_t tile_of(const std::string& algo) {
    return algo == "scan/hillis-steele"
               ? scan::hillis_steele_policy::block_threads
               : std::uint64_t(scan::chained_policy::default_threads) * scan::chained_policy::default_items;
}

std::vector<std::uint64_t> sizes_for(const std::string& algo) {
    const std::uint64_t tile = tile_of(algo);
    return {1, 2, 7, 31, 32, 33, 255, 256, 257, tile - 1, tile, tile + 1, 1000, 4096, 100003};
}

sim::simulation run(const std::string& dev, const std::string& algo, std::uint64_t n,
                    const std::vector<std::string>& sets, std::uint64_t seed = 7) {
    const auto& a = sim::find_algorithm(algo);
    return sim::simulate(a, model::resolve_device(dev), n, model::parse_params(a.spec, sets), seed);
}

}  // namespace

TEST(ScanReference, InclusiveAndExclusiveWrap) {
    const std::vector<std::uint32_t> in{1, 2, 0xffffffffu, 4};
    EXPECT_EQ(scan::cpu_scan(in, false), (std::vector<std::uint32_t>{1, 3, 2, 6}));
    EXPECT_EQ(scan::cpu_scan(in, true), (std::vector<std::uint32_t>{0, 1, 3, 2}));
}

namespace {

// The drivers on values of the whole range, so that the sums wrap.
template <class T>
void expect_wrapping_scans(const std::string& dev, std::uint64_t n) {
    const auto values = agpu::kernels::random_values<T>(n, 3, T(0), ~T(0));
    const auto& h = *values;
    for (bool exclusive : {false, true})
        for (bool chained : {false, true}) {
            sim::executor ex(model::resolve_device(dev));
            auto in = ex.alloc<T>(n);
            auto out = ex.alloc<T>(n);
            ex.upload(in, std::span<const T>(h));
            if (chained) scan::chained_scan(ex, kl::gspan<const T>(in), out, n, exclusive);
            else scan::multi_level_scan(ex, kl::gspan<const T>(in), out, n, exclusive);
            std::vector<T> got(n);
            ex.download(std::span<T>(got), out);
            EXPECT_EQ(got, scan::cpu_scan(h, exclusive))
                << dev << " " << sizeof(T) * 8 << "-bit " << (chained ? "chained" : "multi-level")
                << (exclusive ? " exclusive" : " inclusive");
        }
}

}  // namespace

TEST(ScanCorrect, SumsWrapLikeTheGpu) {
    for (const char* dev : devices) {
        expect_wrapping_scans<std::uint32_t>(dev, 70001);
        expect_wrapping_scans<std::uint64_t>(dev, 70001);
    }
}

TEST(ScanCorrect, EveryAlgorithmTypeKindAndSize) {
    for (const char* dev : devices)
        for (const char* algo : algos)
            for (const char* type : {"u32", "u64"})
                for (const char* kind : {"inclusive", "exclusive"})
                    for (std::uint64_t n : sizes_for(algo)) {
                        const auto s = run(dev, algo, n, {std::string("type=") + type, std::string("kind=") + kind});
                        EXPECT_TRUE(s.check.passed) << algo << " " << type << " " << kind << " on " << dev << " n=" << n
                                                    << ": " << s.check.detail;
                    }
}

// Every counter of the closed form equals the simulator's, at every size
// (powers of two and awkward ones), for both types and on b = 32, 64, 16.
TEST(ScanClosedForm, EqualsTheSimulator) {
    for (const char* dev : devices) {
        const auto d = model::resolve_device(dev);
        for (const char* algo : algos) {
            const auto* cf = model::find_closed_form(algo);
            ASSERT_NE(cf, nullptr) << algo;
            std::vector<std::uint64_t> sizes = sizes_for(algo);
            for (std::uint64_t p = 1; p <= (std::uint64_t(1) << 17); p *= 4) sizes.push_back(p);
            for (const char* type : {"u32", "u64"})
                for (std::uint64_t n : sizes) {
                    const std::vector<std::string> sets{std::string("type=") + type};
                    const auto& a = sim::find_algorithm(algo);
                    const auto params = model::parse_params(a.spec, sets);
                    const auto got = run(dev, algo, n, sets).record.totals();
                    const auto costs = cf->costs(d.agpu, n, params);
                    for (counter k :
                         {counter::launches, counter::time_steps, counter::io_blocks, counter::global_load_requests,
                          counter::global_load_sectors, counter::global_store_requests, counter::global_store_sectors,
                          counter::shared_wavefronts, counter::barrier_instructions, counter::shared_words_max})
                        EXPECT_TRUE(costs.contains(k)) << algo << " has no closed form of " << model::info(k).name;
                    for (const auto& [ctr, want] : costs)
                        EXPECT_EQ(got[ctr], want) << algo << " " << type << " on " << dev << " n=" << n << ": counter "
                                                  << model::info(ctr).name;
                }
        }
    }
}

// The tuning parameters of scan/work-efficient: other block and tile sizes are
// as correct and as exactly predicted.
TEST(ScanWorkEfficient, OtherTilesAreCorrectAndPredicted) {
    const auto* cf = model::find_closed_form("scan/work-efficient");
    ASSERT_NE(cf, nullptr);
    const auto& a = sim::find_algorithm("scan/work-efficient");
    for (const char* dev : {"h100", "h100-b64", "geforce-gtx280"}) {
        const auto d = model::resolve_device(dev);
        for (const char* threads : {"128", "256", "512"})
            for (const char* items : {"8", "24"})
                for (const char* type : {"u32", "u64"}) {
                    if (std::stoul(threads) / d.agpu.b > d.agpu.b) continue;  // more warps than lanes
                    const std::uint64_t tile = std::stoull(threads) * std::stoull(items);
                    for (std::uint64_t n : {std::uint64_t(5), tile - 3, tile, 3 * tile + 9, 40 * tile - 1}) {
                        const std::vector<std::string> sets{std::string("threads=") + threads,
                                                            std::string("items=") + items, std::string("type=") + type,
                                                            "kind=exclusive"};
                        const auto s = run(dev, "scan/work-efficient", n, sets);
                        EXPECT_TRUE(s.check.passed)
                            << ::testing::PrintToString(sets) << " on " << dev << " n=" << n << ": " << s.check.detail;
                        const auto got = s.record.totals();
                        for (const auto& [ctr, want] : cf->costs(d.agpu, n, model::parse_params(a.spec, sets)))
                            EXPECT_EQ(got[ctr], want) << ::testing::PrintToString(sets) << " on " << dev << " n=" << n
                                                      << ": counter " << model::info(ctr).name;
                    }
                }
    }
}

TEST(ScanWorkEfficient, RejectsMoreWarpsThanLanes) {
    // b = 16: 512 threads are 32 warps, whose totals one warp cannot scan.
    EXPECT_THROW(run("geforce-gtx280", "scan/work-efficient", 1000, {"threads=512"}), agpu::input_error);
}

// The same n and parameters give the same counts every time (the look-back
// included: blocks run in order, so it always stops at tile t-1's prefix).
TEST(ScanWorkEfficient, CountsAreDeterministic) {
    const auto a = run("h100", "scan/work-efficient", 300000, {"type=u64"}, 1).record.totals();
    const auto b = run("h100", "scan/work-efficient", 300000, {"type=u64"}, 2).record.totals();
    for (std::size_t i = 0; i < model::counter_count; ++i)
        EXPECT_EQ(a[static_cast<counter>(i)], b[static_cast<counter>(i)]) << model::counter_table[i].name;
}

namespace {

AGPU_KERNEL void add_one_volatile(kl::gspan<const std::uint64_t> in, kl::gspan<std::uint64_t> out) {
    const unsigned i = kl::thread_rank();
    out.store_volatile(i, in.load_volatile(i) + 1);
    kl::thread_fence();
}

AGPU_KERNEL void wait_for_flag(kl::gspan<std::uint32_t> flag) {
    while (flag.load_volatile(0) == 0) kl::spin_wait(100);
}

}  // namespace

// The layer's additions for the look-back, in the simulator: volatile accesses
// count as global loads and stores; a fence counts nothing; a spin wait stops
// the run (blocks run one after another: what it waits for never comes).
TEST(ScanLayer, VolatileAccessesFenceAndSpinWait) {
    sim::executor ex(model::resolve_device("h100"));
    const std::vector<std::uint64_t> h{1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    auto in = ex.alloc<std::uint64_t>(32);
    auto out = ex.alloc<std::uint64_t>(32);
    ex.upload(in, std::span<const std::uint64_t>(h));
    ex.launch("add_one_volatile", add_one_volatile, {1}, {32}, 0, kl::gspan<const std::uint64_t>(in), out);
    std::vector<std::uint64_t> got(32);
    ex.download(std::span<std::uint64_t>(got), out);
    for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(got[i], h[i] + 1);
    const auto c = ex.record().totals();
    EXPECT_EQ(c[counter::global_load_requests], 1u);
    EXPECT_EQ(c[counter::global_load_sectors], 8u);  // 32 lanes x 8 bytes
    EXPECT_EQ(c[counter::global_store_requests], 1u);
    EXPECT_EQ(c[counter::global_store_sectors], 8u);
    EXPECT_EQ(c[counter::warp_instructions], 2u);  // the fence is free here

    auto flag = ex.alloc<std::uint32_t>(1);
    const std::vector<std::uint32_t> zero{0};
    ex.upload(flag, std::span<const std::uint32_t>(zero));
    try {
        ex.launch("wait_for_flag", wait_for_flag, {1}, {32}, 0, flag);
        ADD_FAILURE() << "a spin wait that can never end did not stop the run";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("spin_wait at"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("scan_test.cpp"), std::string::npos) << e.what();
    }
}

// The suites name parameters their algorithms accept, and goals that name their entries.
TEST(ScanSuites, EntriesParseAndGoalsNameEntries) {
    for (const char* name : {"scan", "scan-tune"}) {
        const auto& suite = agpu::validate::find_suite(name);
        std::vector<std::string> labels;
        for (const auto& e : suite.entries) {
            std::string label = e.algo;
            for (std::size_t i = 0; i < e.sets.size(); ++i) label += (i ? ";" : " ") + e.sets[i];
            labels.push_back(label);
            if (e.algo.starts_with("baseline/")) continue;  // GPU-only
            EXPECT_NO_THROW(model::parse_params(sim::find_algorithm(e.algo).spec, e.sets)) << name << ": " << label;
            EXPECT_EQ(e.bytes(1000), (e.sets[0] == "type=u64" ? 16000.0 : 8000.0)) << label;
        }
        for (const auto& t : suite.targets) {
            EXPECT_NE(std::find(labels.begin(), labels.end(), t.subject), labels.end()) << t.subject;
            EXPECT_NE(std::find(labels.begin(), labels.end(), t.baseline), labels.end()) << t.baseline;
        }
    }
}

namespace {

// Warp 0 of one block runs the look-back of `tile` over a status the host wrote.
template <class T>
AGPU_KERNEL void look_back_probe(scan::tile_status<T> status, kl::gspan<T> out, std::uint64_t tile) {
    if (kl::warp_id() != 0) return;
    const T before = scan::detail::look_back<T>(status, tile, 0);
    if (kl::lane_id() == 0) out.store(0, before);
}

// Flags per tile: 'P' inclusive prefix, 'A' aggregate, 'X' unpublished.
template <class T>
T look_back_on(const std::string& dev, const std::string& flags, const std::vector<T>& aggregate,
               const std::vector<T>& inclusive, std::uint64_t tile) {
    sim::executor ex(model::resolve_device(dev));
    const std::size_t tiles = flags.size();
    auto code = [](char f) {
        return f == 'P' ? scan::flag_prefix : f == 'A' ? scan::flag_aggregate : scan::flag_invalid;
    };
    scan::tile_status<T> st;
    if constexpr (sizeof(T) == 4) {
        std::vector<std::uint64_t> words(tiles);
        for (std::size_t t = 0; t < tiles; ++t)
            words[t] = std::uint64_t(code(flags[t])) << 32 | (flags[t] == 'P' ? inclusive[t] : aggregate[t]);
        st.words = ex.alloc<std::uint64_t>(tiles);
        ex.upload(st.words, std::span<const std::uint64_t>(words));
    } else {
        std::vector<std::uint32_t> f(tiles);
        for (std::size_t t = 0; t < tiles; ++t) f[t] = code(flags[t]);
        st.flags = ex.alloc<std::uint32_t>(tiles);
        st.aggregates = ex.alloc<T>(tiles);
        st.inclusives = ex.alloc<T>(tiles);
        ex.upload(st.flags, std::span<const std::uint32_t>(f));
        ex.upload(st.aggregates, std::span<const T>(aggregate));
        ex.upload(st.inclusives, std::span<const T>(inclusive));
    }
    auto out = ex.alloc<T>(1);
    ex.launch("look_back_probe", look_back_probe<T>, {1}, {64}, 0, st, out, tile);
    std::vector<T> got(1);
    ex.download(std::span<T>(got), out);
    return got[0];
}

}  // namespace

// The look-back's paths that the simulated scan never takes (blocks run in
// order there, so tile t-1 always holds its prefix): aggregates summed over
// several windows down to the nearest prefix, and unpublished tiles beyond
// that prefix, which must not make it wait.
TEST(ScanLookBack, SumsAggregatesDownToTheNearestPrefix) {
    std::mt19937_64 rng(5);
    for (const char* dev : devices)
        for (std::uint64_t tile : {1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 130, 1000}) {
            for (int pattern = 0; pattern < 4; ++pattern) {
                std::string flags(tile, 'A');
                std::vector<std::uint64_t> agg(tile), inc(tile);
                for (std::uint64_t t = 0; t < tile; ++t) {
                    agg[t] = rng() % 1000;
                    inc[t] = rng() % 1000000;
                }
                // 0: only tile 0 has its prefix; 1: every tile; 2: random; 3: one prefix, unpublished beyond it.
                flags[0] = 'P';
                std::uint64_t nearest = 0;
                if (pattern == 1) flags.assign(tile, 'P');
                for (std::uint64_t t = 1; t < tile; ++t)
                    if (pattern == 2 && rng() % 7 == 0) flags[t] = 'P';
                if (pattern == 3) {
                    nearest = tile / 2;
                    for (std::uint64_t t = 0; t < nearest; ++t) flags[t] = rng() % 2 ? 'X' : 'A';
                    flags[nearest] = 'P';
                }
                for (std::uint64_t t = tile; t-- > 0;)
                    if (flags[t] == 'P') {
                        nearest = t;
                        break;
                    }
                std::uint64_t want = inc[nearest];
                for (std::uint64_t t = nearest + 1; t < tile; ++t) want += agg[t];
                EXPECT_EQ(look_back_on<std::uint64_t>(dev, flags, agg, inc, tile), want)
                    << dev << " tile " << tile << " pattern " << pattern << " u64";
                std::vector<std::uint32_t> agg32(agg.begin(), agg.end()), inc32(inc.begin(), inc.end());
                EXPECT_EQ(look_back_on<std::uint32_t>(dev, flags, agg32, inc32, tile), std::uint32_t(want))
                    << dev << " tile " << tile << " pattern " << pattern << " u32";
            }
        }
}

// An unpublished tile nearer than the nearest prefix is waited for: in the
// simulator the wait can never end, so the run stops.
TEST(ScanLookBack, WaitsForAnUnpublishedNearerTile) {
    const std::string flags = "PAXA";
    const std::vector<std::uint32_t> v(4, 1);
    EXPECT_THROW(look_back_on<std::uint32_t>("h100", flags, v, v, 4), std::runtime_error);
}
