// The sort family on the simulator: every algorithm against the CPU reference
// (the stable order by the key order, checked against std::stable_sort) over key
// types, key-value pairs, input kinds and awkward sizes on b = 32, 16 and 64
// and a device with small M; the closed forms against the simulator's counts
// (equal where exact, within the stated bounds elsewhere); the plan's shared
// memory against the kernels' layouts; bad parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/model/sort_plan.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/executor.hpp"
#include "agpu/validate/suite.hpp"
#include "common/tests/closed_form_check.hpp"
#include "sort/sort_runs.hpp"

namespace model = agpu::model;
namespace sim = agpu::sim;
namespace sort = agpu::kernels::sort;
using model::counter;

namespace {

// b = 32, 16, 64; and the H100 with 4 K words of shared memory (d = 4 at chunk 64 for u64 pairs).
model::device device(const std::string& id) {
    if (id == "small-m") {
        auto d = model::resolve_device("h100");
        d.agpu.M = 4096;
        return d;
    }
    return model::resolve_device(id);
}
const char* devices[] = {"h100", "geforce-gtx280", "h100-b64", "small-m"};

sim::simulation run(const std::string& dev, const std::string& algo, std::uint64_t n,
                    const std::vector<std::string>& sets, std::uint64_t seed = 7) {
    const auto& a = sim::find_algorithm(algo);
    return sim::simulate(a, device(dev), n, model::parse_params(a.spec, sets), seed);
}

void expect_sorted(const std::string& dev, const std::string& algo, std::uint64_t n,
                   const std::vector<std::string>& sets) {
    const auto s = run(dev, algo, n, sets);
    EXPECT_TRUE(s.check.passed) << algo << " " << ::testing::PrintToString(sets) << " on " << dev << " n=" << n << ": "
                                << s.check.detail;
}

// The simulated counts against the closed form (exact counters) and the bounds.
void expect_counts_match(const std::string& dev, const std::string& algo, std::uint64_t n,
                         const std::vector<std::string>& sets) {
    agpu::kernels::testing::expect_counts_match(device(dev), dev, algo, n, sets);
}

}  // namespace

TEST(SortCorrect, MultiwayEveryTypeValuesAndInput) {
    for (const char* dev : {"h100", "geforce-gtx280"}) {
        const std::uint64_t b = device(dev).agpu.b;
        for (const char* type : {"u32", "u64", "float"})
            for (const char* values : {"0", "1"})
                for (const auto& input : sort::input_kinds())
                    for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(1), b - 1, b + 1, std::uint64_t(3001)})
                        expect_sorted(dev, "sort/multiway", n,
                                      {std::string("type=") + type, std::string("values=") + values, "input=" + input,
                                       "tile=256", "chunk=64", "d=4"});
    }
}

TEST(SortCorrect, MultiwayShapes) {
    // d, chunk and parts over sizes that leave partial tiles, runs and groups; every device.
    for (const char* dev : devices)
        for (const char* d : {"2", "4", "auto"})
            for (const char* parts : {"0", "1", "3"})
                for (std::uint64_t n :
                     {std::uint64_t(255), std::uint64_t(257), std::uint64_t(2049), std::uint64_t(6000)})
                    expect_sorted(dev, "sort/multiway", n,
                                  {"type=u64", "values=1", "input=few", "tile=256", "chunk=64", std::string("d=") + d,
                                   std::string("parts=") + parts});
    for (const char* chunk : {"32", "128", "256"})
        for (const char* dev : {"h100", "h100-b64"})
            expect_sorted(dev, "sort/multiway", 9001, {"values=1", "tile=512", std::string("chunk=") + chunk, "d=8"});
    // Keys alone move by the bitonic network (R = 2, 4, 8 outputs per lane): many keys equal to the largest one,
    // which the network also pads a ring's absent elements with, over sizes whose last moves are partial.
    for (const char* chunk : {"64", "128", "256"})
        for (const char* type : {"u32", "float"})
            for (std::uint64_t n : {std::uint64_t(4097), std::uint64_t(9001)})
                expect_sorted("h100", "sort/multiway", n,
                              {std::string("type=") + type, "values=0", "input=extremes", "tile=256",
                               std::string("chunk=") + chunk, "d=4"});
    // Several warps per heap (a move's outputs shared by more lanes; a leaf's read by more warps).
    for (const char* warps : {"2", "8"})
        for (const char* dev : {"h100", "geforce-gtx280"})
            expect_sorted(dev, "sort/multiway", 7001,
                          {"type=float", "values=1", "tile=256", "chunk=64", "d=4", std::string("warps=") + warps});
    // Every tile size of block_sort (1 to 16 elements per thread), keys and pairs.
    for (const char* tile : {"256", "512", "1024", "2048", "4096"})
        for (const char* values : {"0", "1"})
            expect_sorted("h100", "sort/multiway", 5000,
                          {"type=float", std::string("values=") + values, std::string("tile=") + tile, "d=4"});
}

// Keys alone take tiles of 8192 and 16384 on b = 32 (blocks of 512 and 1024
// threads of 16 keys: sort_plan::block_threads): every key type and input
// kind, a size below one tile and one that leaves a partial tile (6 tiles,
// two passes at d = 4); sort/pairwise once.
TEST(SortCorrect, BigTilesKeysAlone) {
    for (std::uint64_t tile : {8192u, 16384u})
        for (const char* type : {"u32", "u64", "float"})
            for (const auto& input : sort::input_kinds())
                for (std::uint64_t n : {tile / 2 + 1, 5 * tile + 333})
                    expect_sorted("h100", "sort/multiway", n,
                                  {std::string("type=") + type, "values=0", "input=" + input,
                                   "tile=" + std::to_string(tile), "chunk=256", "d=4"});
    expect_sorted("h100", "sort/pairwise", 40000, {"type=float", "values=0", "tile=16384", "chunk=128"});
}

TEST(SortCorrect, PairwiseAndBitonic) {
    for (const char* dev : devices) {
        const std::uint64_t b = device(dev).agpu.b;
        for (std::uint64_t n : {std::uint64_t(1), b - 1, b + 1, std::uint64_t(1000), std::uint64_t(4097)}) {
            for (const char* input : {"random", "reverse", "equal"}) {
                expect_sorted(dev, "sort/pairwise", n,
                              {"values=1", "tile=256", "chunk=64", std::string("input=") + input});
                expect_sorted(dev, "sort/bitonic", n, {"type=float", "tile=256", std::string("input=") + input});
            }
            expect_sorted(dev, "sort/bitonic", n, {"type=u64", "tile=256", "input=few"});
        }
    }
    expect_sorted("h100", "sort/bitonic", 0, {});
}

namespace {

// block_sort alone on `keys` (u32, u64 or float), keys alone: every tile of
// the output must be its input tile sorted, bit for bit.
template <class K>
void expect_tiles_sorted(const std::string& dev, const std::vector<K>& keys, std::uint64_t tile,
                         const std::string& what) {
    model::sort_plan::sort_shape shape;
    shape.key = "sort/multiway";
    shape.key_bytes = sizeof(K);
    shape.tile = tile;
    sim::executor ex(device(dev));
    const std::uint64_t n = keys.size();
    const auto pl = model::sort_plan::make_plan(ex.machine(), n, shape);
    auto in = ex.alloc<K>(n);
    ex.upload(in, std::span<const K>(keys));
    const sort::sorted_spans<K, std::uint32_t> out{ex.alloc<K>(n), {}};
    sort::launch_block_sort<sim::executor, K, std::uint32_t, false>(ex, pl, shape, agpu::kl::gspan<const K>(in), {},
                                                                    out);
    std::vector<K> got(n);
    ex.download(std::span<K>(got), out.keys);
    for (std::uint64_t t0 = 0; t0 < n; t0 += tile) {
        std::vector<K> want(keys.begin() + t0, keys.begin() + std::min(n, t0 + tile));
        std::sort(want.begin(), want.end(), sort::ref_less<K>);
        for (std::size_t i = 0; i < want.size(); ++i)
            if (sort::order_bits(got[t0 + i]) != sort::order_bits(want[i])) {
                ADD_FAILURE() << what << " on " << dev << ": tile " << tile << ", n " << n << ": element " << t0 + i
                              << " differs";
                return;
            }
    }
}

// Keys that test the key order at its edges: both zeros and NaNs of both
// signs for float, the smallest and largest keys for the integers, repeated
// in a fixed shuffled order.
template <class K>
std::vector<K> edge_keys(std::uint64_t n) {
    using U = sort::key_bits<K>;
    std::vector<U> bits{U(0), U(1), ~U(0) - 1, ~U(0), U(~U(0) >> 1), U(U(1) << (sizeof(U) * 8 - 1))};
    if constexpr (std::is_same_v<K, float>)
        bits = {0x00000000u, 0x80000000u, 0x7fc00000u, 0xffc00000u, 0x7fffffffu, 0xffffffffu, 0x7f800001u,
                0x7f800000u, 0xff800000u, 0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u};
    const auto pick = agpu::kernels::random_values<std::uint32_t>(n, 5, 0, std::uint32_t(bits.size() - 1));
    std::vector<K> v(n);
    for (std::uint64_t i = 0; i < n; ++i) v[i] = std::bit_cast<K>(bits[(*pick)[i]]);
    return v;
}

template <class K>
void expect_block_sort_sorts(const char* type) {
    for (std::uint64_t tile : {256u, 512u, 1024u, 2048u, 4096u, 8192u, 16384u}) {
        const std::uint64_t run = 32 * std::min<std::uint64_t>(tile / 256, 16);  // one warp's network on the H100
        for (std::uint64_t n : {std::uint64_t(1), run - 1, run + 1, tile - 1, 3 * tile + 77}) {
            for (const auto& kind : sort::input_kinds())
                expect_tiles_sorted("h100", sort::sort_input<K>(n, 11, kind), tile, std::string(type) + " " + kind);
            expect_tiles_sorted("h100", edge_keys<K>(n), tile, std::string(type) + " edges");
        }
    }
}

}  // namespace

// Keys alone: block_sort's warps sort their elements by the bitonic network
// on a machine of b = 32 (sort_plan::block_network_items), then merge; every
// key type and input kind, every tile (8192 and 16384 by blocks of 512 and
// 1024 threads), sizes below one warp's run, within one tile and across
// partial tiles.
TEST(SortCorrect, BlockSortNetworkEveryTypeInputAndTile) {
    expect_block_sort_sorts<std::uint32_t>("u32");
    expect_block_sort_sorts<std::uint64_t>("u64");
    expect_block_sort_sorts<float>("float");
}

namespace {

// select_pivots on runs of L = ps.run_len elements of `keys` (each sorted
// first: a merge pass's input) against the host's reference: every group's
// present samples (sample j of a run of len elements at j·len/per_run; an
// empty run has none) sorted by (key, run, sample), pivot q the one at
// q·present/P, its tag run·per_run + sample. Keys compared bit for bit.
template <class K>
void expect_pivots(const std::string& dev, std::vector<K> keys, model::sort_plan::merge_pass ps,
                   const std::string& what) {
    const std::uint64_t n = keys.size(), L = ps.run_len, d = ps.d, P = ps.parts, per_run = ps.per_run;
    for (std::uint64_t r0 = 0; r0 < n; r0 += L)
        std::stable_sort(keys.begin() + std::ptrdiff_t(r0), keys.begin() + std::ptrdiff_t(std::min(n, r0 + L)),
                         sort::ref_less<K>);
    ps.runs = (n + L - 1) / L;
    ps.groups = (ps.runs + d - 1) / d;
    sim::executor ex(device(dev));
    auto in = ex.alloc<K>(n);
    ex.upload(in, std::span<const K>(keys));
    const sort::merge_shape s{n, L, unsigned(d), 64, unsigned(P)};
    const auto pivots = sort::alloc_pivots<sim::executor, K>(ex, ps);
    sort::launch_select_pivots(ex, ps, s, agpu::kl::gspan<const K>(in), pivots);
    std::vector<K> got_keys(pivots.keys.size());
    std::vector<std::uint32_t> got_tags(pivots.tags.size());
    ex.download(std::span<K>(got_keys), agpu::kl::gspan<const K>(pivots.keys));
    ex.download(std::span<std::uint32_t>(got_tags), agpu::kl::gspan<const std::uint32_t>(pivots.tags));
    using bits = sort::key_bits<K>;
    for (std::uint64_t g = 0; g < ps.groups; ++g) {
        std::vector<std::tuple<bits, std::uint64_t, std::uint64_t>> samples;  // (key's order bits, run, sample)
        for (std::uint64_t r = 0; r < d; ++r) {
            const std::uint64_t lo = std::min(n, (g * d + r) * L), len = std::min(n, lo + L) - lo;
            for (std::uint64_t j = 0; len > 0 && j < per_run; ++j)
                samples.emplace_back(sort::order_bits(keys[lo + j * len / per_run]), r, j);
        }
        std::sort(samples.begin(), samples.end());
        for (std::uint64_t q = 1; q < P; ++q) {
            const auto& [key, r, j] = samples[q * samples.size() / P];
            const std::uint64_t at = g * (P - 1) + q - 1;
            if (sort::order_bits(got_keys[at]) != key || got_tags[at] != r * per_run + j) {
                ADD_FAILURE() << what << " on " << dev << ": n " << n << ", L " << L << ", d " << d << ", P " << P
                              << ", per_run " << per_run << ": group " << g << "'s pivot " << q << " has tag "
                              << got_tags[at] << ", want " << r * per_run + j;
                return;
            }
        }
    }
}

model::sort_plan::merge_pass pivot_pass(std::uint64_t d, std::uint64_t run_len, std::uint64_t parts,
                                        std::uint64_t per_run) {
    model::sort_plan::merge_pass ps;
    ps.d = d;
    ps.run_len = run_len;
    ps.parts = parts;
    ps.per_run = per_run;
    return ps;
}

template <class K>
void expect_pivots_every_input(const char* type) {
    // (d, L, P, per_run, n): a last group with fewer runs (and a short last run), n a multiple of nothing;
    // a last group of one run of 5 elements (its samples repeat elements) with P above its samples (pivots
    // repeated); one sample per run; samples as many as the run's elements.
    const std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t> shapes[] = {
        {2, 256, 3, 8, 3001},   {4, 256, 16, 32, 7001}, {8, 256, 100, 256, 7001}, {16, 512, 7, 16, 10007},
        {4, 256, 40, 16, 2053}, {8, 128, 2, 1, 5000},   {32, 256, 5, 4, 9001}};
    for (const auto& [d, L, P, per_run, n] : shapes) {
        const auto ps = pivot_pass(d, L, P, per_run);
        const std::string what = std::string(type) + " d " + std::to_string(d);
        for (const auto& kind : sort::input_kinds())
            expect_pivots("h100", sort::sort_input<K>(n, 13, kind), ps, what + " " + kind);
        expect_pivots("h100", edge_keys<K>(n), ps, what + " edges");
    }
}

}  // namespace

// select_pivots ranks every sample among its group's by binary searches over
// the other runs' samples; its pivots and tags must be those of the samples
// sorted by (key, run, sample), as when one block sorted them on chip: every
// key type (float with NaNs and both zeros), input kind, several d, a last
// group with fewer runs, pivots repeated; and the plans of keys and pairs on
// two machines.
TEST(SortPivots, EqualTheSortedSamples) {
    expect_pivots_every_input<std::uint32_t>("u32");
    expect_pivots_every_input<std::uint64_t>("u64");
    expect_pivots_every_input<float>("float");
    const auto& a = sim::find_algorithm("sort/multiway");
    const std::pair<std::string, std::string> kinds[] = {{"u32", "0"}, {"u64", "1"}, {"float", "1"}};
    for (const char* dev : {"h100", "small-m"})
        for (const auto& [type, values] : kinds) {
            const auto shape = model::sort_plan::shape_of(
                "sort/multiway",
                model::parse_params(a.spec, {"tile=256", "chunk=64", "type=" + type, "values=" + values}));
            const std::uint64_t n = 300007;
            const std::string what = type + " values=" + values;
            std::size_t split = 0;
            for (const auto& ps : model::sort_plan::make_plan(device(dev).agpu, n, shape).passes) {
                if (ps.parts == 1) continue;
                ++split;
                if (type == "u64") expect_pivots(dev, sort::sort_input<std::uint64_t>(n, 3, "few"), ps, what);
                else if (type == "float") expect_pivots(dev, sort::sort_input<float>(n, 3, "random"), ps, what);
                else expect_pivots(dev, sort::sort_input<std::uint32_t>(n, 3, "random"), ps, what);
            }
            EXPECT_GE(split, 2u) << what << " on " << dev;
        }
}

TEST(SortReference, FloatTotalOrder) {
    const float nan = std::nanf(""), inf = INFINITY;
    const std::vector<float> want{-nan, -inf, -1.0f, -0.0f, 0.0f, 1e-45f, 1.0f, inf, nan};
    for (std::size_t i = 0; i + 1 < want.size(); ++i) {
        EXPECT_TRUE(sort::ref_less(want[i], want[i + 1])) << i;
        EXPECT_FALSE(sort::ref_less(want[i + 1], want[i])) << i;
    }
}

// The radix-sort reference gives std::stable_sort's order on every key type and input kind.
template <class K>
void expect_reference_is_stable_sort(std::uint64_t n) {
    for (const auto& kind : sort::input_kinds()) {
        const auto keys = sort::sort_input<K>(n, 7, kind);
        std::vector<std::uint32_t> want(n);
        std::iota(want.begin(), want.end(), 0u);
        std::stable_sort(want.begin(), want.end(), [&](auto a, auto b) { return sort::ref_less(keys[a], keys[b]); });
        EXPECT_EQ(sort::reference_order(keys), want) << kind << " n=" << n;
        const auto c = sort::cached_case<K>(n, 7, kind);
        EXPECT_EQ(c->order(), want) << kind;
        EXPECT_EQ(sort::cached_case<K>(n, 7, kind), c) << "the same case is kept, not rebuilt";
    }
}

TEST(SortReference, RadixOrderIsTheStableSortOrder) {
    for (std::uint64_t n : {0u, 1u, 1000u, 70001u}) {
        expect_reference_is_stable_sort<std::uint32_t>(n);
        expect_reference_is_stable_sort<std::uint64_t>(n);
        expect_reference_is_stable_sort<float>(n);
    }
}

TEST(SortClosedForm, MatchesTheSimulator) {
    for (const char* dev : devices) {
        const std::uint64_t b = device(dev).agpu.b;
        for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(1), b + 1, std::uint64_t(256), std::uint64_t(2049),
                                std::uint64_t(5000)}) {
            for (const char* parts : {"1", "0"})
                for (const char* values : {"0", "1"}) {
                    expect_counts_match(
                        dev, "sort/multiway", n,
                        {"type=u64", std::string("values=") + values, "tile=256", "chunk=64", "d=4",
                         std::string("parts=") + parts, std::string("warps=") + (parts[0] == '1' ? "1" : "2")});
                    expect_counts_match(dev, "sort/pairwise", n,
                                        {std::string("values=") + values, "tile=256", "chunk=128",
                                         std::string("parts=") + parts, "input=few"});
                }
            expect_counts_match(dev, "sort/bitonic", n, {"tile=256"});
            expect_counts_match(dev, "sort/bitonic", n, {"type=u64", "tile=512", "input=sorted"});
        }
    }
    // Keys alone in big tiles (blocks of 512 and 1024 threads, no positions in
    // shared memory): below one tile, and a partial tile after whole ones.
    for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(8191), std::uint64_t(40000)}) {
        expect_counts_match("h100", "sort/multiway", n, {"values=0", "tile=16384", "chunk=256", "d=4", "parts=1"});
        expect_counts_match("h100", "sort/pairwise", n, {"type=u64", "values=0", "tile=8192", "chunk=64"});
    }
}

TEST(SortClosedForm, EveryAlgorithmHasOne) {
    for (const char* algo : {"sort/multiway", "sort/pairwise", "sort/bitonic"})
        EXPECT_NE(model::find_closed_form(algo), nullptr) << algo;
}

TEST(SortPlan, SharedBytesEqualTheKernelsLayouts) {
    for (unsigned d : {2u, 4u, 64u, 256u})
        for (unsigned chunk : {32u, 128u, 256u}) {
            for (bool bitonic : {false, true}) {
                EXPECT_EQ((sort::heap_layout<std::uint32_t, std::uint32_t, false>{d, chunk, bitonic}.bytes()),
                          model::sort_plan::heap_bytes(d, chunk, 4, 4, false, bitonic));
                EXPECT_EQ((sort::heap_layout<std::uint64_t, std::uint32_t, false>{d, chunk, bitonic}.bytes()),
                          model::sort_plan::heap_bytes(d, chunk, 8, 4, false, bitonic));
            }
            EXPECT_EQ((sort::heap_layout<std::uint64_t, std::uint32_t, true>{d, chunk}.bytes()),
                      model::sort_plan::heap_bytes(d, chunk, 8, 4, true, false));
            EXPECT_EQ((sort::heap_layout<float, std::uint32_t, true>{d, chunk}.bytes()),
                      model::sort_plan::heap_bytes(d, chunk, 4, 4, true, false));
        }
    for (unsigned tile : {256u, 4096u}) {
        EXPECT_EQ((sort::tile_shared_bytes<std::uint64_t, std::uint32_t, true>(tile)),
                  model::sort_plan::tile_bytes(tile, 8, 4, true, true));
        EXPECT_EQ((sort::tile_shared_bytes<std::uint32_t, std::uint32_t, false, true>(tile)),  // sort/bitonic
                  model::sort_plan::tile_bytes(tile, 4, 4, false, true));
    }
    for (unsigned tile : {256u, 4096u, 16384u}) {  // keys alone: no positions
        EXPECT_EQ((sort::tile_shared_bytes<std::uint32_t, std::uint32_t, false>(tile)),
                  model::sort_plan::tile_bytes(tile, 4, 4, false, false));
        EXPECT_EQ((sort::tile_shared_bytes<float, std::uint32_t, false>(tile)),
                  model::sort_plan::tile_bytes(tile, 4, 4, false, false));
    }
    EXPECT_EQ(model::sort_plan::tile_bytes(16384, 4, 4, false, false), 16896u * 4);
}

// Keys alone on b = 32 take tiles of 8192 and 16384: at 2^26 u32 keys (chunk
// 256, d = 4) the runs after block_sort are 4^6 = 4096 tiles long at 16384, so
// six merge passes in place of seven at 4096; at 2^28 seven in place of eight.
TEST(SortPlan, BigTilesSaveMergePasses) {
    const auto& a = sim::find_algorithm("sort/multiway");
    const auto h100 = device("h100").agpu;
    namespace plan = model::sort_plan;
    auto plan_of = [&](std::uint64_t n, const std::string& tile) {
        return plan::make_plan(
            h100, n,
            plan::shape_of("sort/multiway",
                           model::parse_params(a.spec, {"type=u32", "values=0", "chunk=256", "d=4", "tile=" + tile})));
    };
    const std::uint64_t n26 = std::uint64_t(1) << 26, n28 = std::uint64_t(1) << 28;
    EXPECT_EQ(plan_of(n26, "4096").passes.size(), 7u);
    EXPECT_EQ(plan_of(n26, "8192").passes.size(), 7u);
    EXPECT_EQ(plan_of(n26, "16384").passes.size(), 6u);
    EXPECT_EQ(plan_of(n28, "4096").passes.size(), 8u);
    EXPECT_EQ(plan_of(n28, "16384").passes.size(), 7u);
    const auto big = plan_of(n26, "16384");
    EXPECT_EQ(big.tiles, n26 / 16384);
    EXPECT_EQ(big.block_threads, 1024u);
    EXPECT_EQ(plan_of(n26, "8192").block_threads, 512u);
    EXPECT_EQ(plan_of(n26, "4096").block_threads, 256u);
    // 16384 u32 keys and their padding, no positions: three tiles fit in an H100 SM's shared memory.
    EXPECT_EQ(big.tile_bytes, 16896u * 4);
    EXPECT_EQ(h100.shared_bytes() / big.tile_bytes, 3u);
    plan::sort_shape keys;
    keys.tile = 16384;
    keys.key = "sort/multiway";
    EXPECT_EQ(plan::block_network_items(h100, keys), 16u);
    EXPECT_EQ(plan::max_tile(h100, keys), 16384u);
    // Pairs, sort/bitonic and machines of b != 32 keep 4096.
    plan::sort_shape pairs = keys;
    pairs.pairs = true;
    EXPECT_EQ(plan::max_tile(h100, pairs), 4096u);
    plan::sort_shape bitonic = keys;
    bitonic.key = "sort/bitonic";
    EXPECT_EQ(plan::max_tile(h100, bitonic), 4096u);
    EXPECT_EQ(plan::max_tile(device("h100-b64").agpu, keys), 4096u);
}

// The tuned shape (chunk=256;tile=16384;d=4) on the H100: select_pivots ranks
// samples over the whole grid, so no pass caps its samples; the last pass
// splits its one group into min(4x the heaps, L/(8·chunk)) ranges rounded
// down to a power of two (8192 at 2^26 and 2^28; 2048 while a block sorted
// at most 8192 samples) from 2 samples of every run per range.
TEST(SortPlan, PivotSamplesUncapped) {
    const auto& a = sim::find_algorithm("sort/multiway");
    const auto h100 = device("h100").agpu;
    namespace plan = model::sort_plan;
    const auto shape = plan::shape_of(
        "sort/multiway", model::parse_params(a.spec, {"type=u32", "values=0", "chunk=256", "tile=16384", "d=4"}));
    // The last pass: one group in min(4x the heaps, L/(8C)) ranges, rounded down to a power of two (2^26: L/(8C)
    // = 8192; 2^28: 4x the 18 heaps of 12.3 kB that M holds on each of 132 MPs, 9504, rounded down to 8192).
    for (const auto& [log2n, parts, per_run] : {std::tuple{26, 8192u, 16384u}, std::tuple{28, 8192u, 16384u}}) {
        const auto pl = plan::make_plan(h100, std::uint64_t(1) << log2n, shape);
        const auto& last = pl.passes.back();
        EXPECT_EQ(last.groups, 1u) << log2n;
        EXPECT_EQ(last.parts, std::bit_floor(std::min<std::uint64_t>(plan::waves * last.resident,
                                                                     last.run_len / (plan::range_chunks * 256))))
            << log2n;
        EXPECT_EQ(last.parts, parts) << log2n;
        EXPECT_EQ(last.per_run, per_run) << log2n;
        for (const auto& ps : pl.passes) {
            ASSERT_GT(ps.parts, 1u) << log2n;  // every pass splits: groups < 4x the heaps
            EXPECT_TRUE(std::has_single_bit(ps.parts)) << log2n;
            EXPECT_EQ(ps.per_run, plan::samples_per_part * ps.parts) << log2n;  // exactly 2 samples a range
            EXPECT_LE(ps.per_run, ps.run_len) << log2n;
        }
    }
}

TEST(SortPlan, DFromMAndPhases) {
    const auto& a = sim::find_algorithm("sort/multiway");
    const auto h100 = device("h100").agpu;
    namespace plan = model::sort_plan;
    // 2^28 u32 keys on the H100, the defaults (tile 1024, chunk 128): d = 4, the largest whose heap (a ring of
    // 2C per child) fits in M/16 (16 heaps, one warp each, share an MP): 2^18 tiles take 9 passes; the first
    // with groups >= 4x the heaps the MPs hold at once (no splits), the last one group split into 4x the heaps
    // rounded down to a power of two, with 2 samples of every run per range: one pivot per d samples does not
    // bind.
    const auto pl =
        plan::make_plan(h100, std::uint64_t(1) << 28, plan::shape_of("sort/multiway", model::parse_params(a.spec, {})));
    ASSERT_EQ(pl.passes.size(), 9u);
    const auto& first = pl.passes[0];
    EXPECT_EQ(first.d, 4u);
    EXPECT_LE(first.heap_bytes * plan::heaps_per_mp, h100.shared_bytes());
    EXPECT_GT(plan::heap_bytes(8, 128, 4, 4, false, true) * plan::heaps_per_mp, h100.shared_bytes());
    EXPECT_EQ(first.resident, h100.k() * std::min(plan::max_blocks_per_mp, h100.shared_bytes() / first.heap_bytes));
    EXPECT_EQ(first.parts, 1u);
    EXPECT_GE(first.groups, plan::waves * first.resident);
    EXPECT_EQ(pl.passes.back().groups, 1u);
    const auto& last = pl.passes.back();
    EXPECT_EQ(last.parts, std::bit_floor(plan::waves * first.resident));  // 16896 -> 16384
    EXPECT_EQ(last.per_run, plan::samples_per_part * last.parts);
    EXPECT_LT(last.parts, last.per_run);
    // Some split pass of several groups takes the 4x, rounded up to whole ranges a group and down to a power of
    // two (its samples allow it): at least half the 4x, less than the 4x and a range a group.
    bool rounded = false;
    for (const auto& ps : pl.passes)
        if (ps.parts > 1 && ps.groups > 1 &&
            ps.parts == std::bit_floor((plan::waves * ps.resident + ps.groups - 1) / ps.groups)) {
            rounded = true;
            EXPECT_GE(2 * ps.parts * ps.groups, plan::waves * ps.resident);
            EXPECT_LT(ps.parts * ps.groups, plan::waves * ps.resident + ps.groups);
        }
    EXPECT_TRUE(rounded);
    EXPECT_EQ(plan::merge_threads(h100, 1), 32u);
    EXPECT_EQ(plan::merge_threads(h100, 4), 128u);
    EXPECT_EQ(plan::merge_threads(device("h100-b64").agpu, 2), 128u);
    EXPECT_EQ(plan::merge_threads(device("geforce-gtx280").agpu, 1), 32u);
}

TEST(SortParams, BadValuesAreTypedErrors) {
    const auto& a = sim::find_algorithm("sort/multiway");
    EXPECT_THROW(model::parse_params(a.spec, {"d=3"}), agpu::input_error);
    EXPECT_THROW(model::parse_params(a.spec, {"type=i32"}), agpu::input_error);
    EXPECT_THROW(model::parse_params(a.spec, {"parts=-1"}), agpu::input_error);
    // A heap or a tile beyond M names the parameter and M.
    auto tiny = device("h100").agpu;
    tiny.M = 1024;
    try {
        model::sort_plan::make_plan(
            tiny, 100000,
            model::sort_plan::shape_of("sort/multiway", model::parse_params(a.spec, {"d=64", "tile=256"})));
        FAIL() << "no error";
    } catch (const agpu::input_error& e) {
        EXPECT_NE(std::string(e.what()).find("d=64"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("M = 1024 words"), std::string::npos) << e.what();
    }
    EXPECT_THROW(
        model::sort_plan::make_plan(
            tiny, 100000, model::sort_plan::shape_of("sort/multiway", model::parse_params(a.spec, {"tile=4096"}))),
        agpu::input_error);
    // A tile above 4096 needs keys alone on b = 32: refused, naming the tile and the rule, for pairs and on
    // b = 64; sort/bitonic does not list it.
    auto refused = [&](const std::string& dev, const std::vector<std::string>& sets) {
        try {
            model::sort_plan::make_plan(device(dev).agpu, 100000,
                                        model::sort_plan::shape_of("sort/multiway", model::parse_params(a.spec, sets)));
            ADD_FAILURE() << "no error for " << ::testing::PrintToString(sets) << " on " << dev;
        } catch (const agpu::input_error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("tile=16384"), std::string::npos) << what;
            EXPECT_NE(what.find("at most 4096"), std::string::npos) << what;
            EXPECT_NE(what.find("keys alone"), std::string::npos) << what;
        }
    };
    refused("h100", {"values=1", "tile=16384"});
    refused("h100-b64", {"values=0", "tile=16384"});
    EXPECT_THROW(model::parse_params(sim::find_algorithm("sort/bitonic").spec, {"tile=8192"}), agpu::input_error);
    // u64 keys in 16384 take 132 kB: beyond M on a half-size H100.
    EXPECT_THROW(
        model::sort_plan::make_plan(
            device("h100-half-smem").agpu, 100000,
            model::sort_plan::shape_of("sort/multiway", model::parse_params(a.spec, {"type=u64", "tile=16384"}))),
        agpu::input_error);
}

TEST(SortSuites, EntriesParseAndGoalsNameEntries) {
    for (const char* name : {"sort", "sort-bench", "sort-tune"}) {
        const auto& suite = agpu::validate::find_suite(name);
        EXPECT_NO_THROW(agpu::validate::check_targets(suite)) << name;
        for (const auto& e : suite.entries) {
            ASSERT_TRUE(e.bytes && e.items) << agpu::validate::entry_label(e);
            if (e.algo.starts_with("baseline/")) continue;  // GPU-only
            EXPECT_NO_THROW(model::parse_params(sim::find_algorithm(e.algo).spec, e.sets)) << name;
        }
    }
}

// The hidden constant of the I/O bound: sort/multiway reads and writes every
// key once per pass (block_sort and each merge pass), plus the pivots'
// searches and samples and the ranges' partial moves; the two-way sort takes
// log2 instead of log_d passes. (A table over n and devices: README.md.)
TEST(SortIo, MultiwayNearItsPassesAndBelowPairwise) {
    const std::uint64_t n = 65536;
    for (const char* dev : {"h100", "geforce-gtx280"}) {
        const auto d = device(dev);
        const auto& a = sim::find_algorithm("sort/multiway");
        const auto pl = model::sort_plan::make_plan(
            d.agpu, n, model::sort_plan::shape_of("sort/multiway", model::parse_params(a.spec, {})));
        const double pass_blocks = 2.0 * double(n) / double(d.agpu.b);  // u32 keys: one word each
        const double passes = 1.0 + double(pl.passes.size());
        const auto multi = run(dev, "sort/multiway", n, {}).record.totals();
        const auto pair = run(dev, "sort/pairwise", n, {}).record.totals();
        EXPECT_GE(double(multi[counter::io_blocks]), passes * pass_blocks) << dev;
        EXPECT_LE(double(multi[counter::io_blocks]), 1.5 * passes * pass_blocks) << dev;
        EXPECT_LT(multi[counter::io_blocks], pair[counter::io_blocks]) << dev;
    }
}
