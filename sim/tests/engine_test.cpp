// The engine on small hand-written kernels: functional results, grouping of
// lanes into warp-instructions, barriers, collectives, and the errors.
#include <gtest/gtest.h>

#include <numeric>

#include "agpu/kl/kl.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/sim/executor.hpp"

namespace kl = agpu::kl;
namespace sim = agpu::sim;
using sim::counter;

namespace {

AGPU_KERNEL void add_one(kl::gspan<const int> in, kl::gspan<int> out) {
    const unsigned i = kl::block_idx().x * kl::block_dim().x + kl::thread_idx().x;
    if (i < out.size()) out.store(i, in.load(i) + 1);
}

AGPU_KERNEL void block_reverse(kl::gspan<int> data) {
    AGPU_SHARED(int, tile, 256);
    const unsigned t = kl::thread_idx().x, n = kl::block_dim().x;
    tile.store(t, data.load(t));
    kl::sync_threads();
    data.store(t, tile.load(n - 1 - t));
}

AGPU_KERNEL void warp_sum(kl::gspan<const int> in, kl::gspan<int> out) {
    const unsigned i = kl::thread_idx().x;
    int v = in.load(i);
    for (unsigned d = kl::warp_size() / 2; d > 0; d /= 2) v += kl::shfl_down(v, d);
    if (kl::lane_id() == 0) out.store(kl::warp_id(), v);
}

// Lane l of each warp: the sum of its warp's values, and of its half-warp's
// (a mask of the lanes of l's half).
AGPU_KERNEL void warp_reduce_add(kl::gspan<const int> in, kl::gspan<int> out, kl::gspan<int> halves) {
    const unsigned i = kl::thread_idx().x, b = kl::warp_size(), lane = kl::lane_id();
    const auto v = std::uint32_t(in.load(i));
    out.store(i, int(kl::reduce_add(v)));
    const kl::lane_mask lower = (kl::lane_mask{1} << (b / 2)) - 1, half = lane < b / 2 ? lower : lower << (b / 2);
    halves.store(i, int(kl::reduce_add(v, half)));
}

AGPU_KERNEL void out_of_bounds(kl::gspan<int> out) { out.store(kl::thread_idx().x + 1, 0); }

AGPU_KERNEL void divergent_barrier(kl::gspan<int> out) {
    if (kl::thread_idx().x < 5) return;
    kl::sync_threads();
    out.store(kl::thread_idx().x, 1);
}

AGPU_KERNEL void odd_even(kl::gspan<int> out) {
    const unsigned t = kl::thread_idx().x;
    if (t % 2) out.store(t, 1);
    else out.store(t, 2);
}

AGPU_KERNEL void too_much_shared(kl::gspan<int> out) {
    AGPU_SHARED(int, big, 70000);
    big.store(0, 1);
    out.store(0, big.load(0));
}

sim::executor make(const char* dev = "h100") { return sim::executor(agpu::model::resolve_device(dev)); }

}  // namespace

TEST(Engine, ComputesRealResultsOnPartialBlocks) {
    auto ex = make();
    const std::size_t n = 1000;
    std::vector<int> h(n);
    std::iota(h.begin(), h.end(), 7);
    auto in = ex.alloc<int>(n);
    auto out = ex.alloc<int>(n);
    ex.upload(in, std::span<const int>(h));
    ex.launch("add_one", add_one, {(n + 127) / 128}, {128}, 0, kl::gspan<const int>(in), out);
    std::vector<int> r(n);
    ex.download(std::span<int>(r), out);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(r[i], h[i] + 1) << i;
    const auto c = ex.record().totals();
    // 8 blocks of 128 threads = 32 warps; the last block has 1000 - 896 = 104 live threads:
    // warps with live lanes: 7 blocks x 4 + ceil(104/32) = 28 + 4 = 32 load instructions.
    EXPECT_EQ(c[counter::global_load_instructions], 32u);
    EXPECT_EQ(c[counter::global_store_instructions], 32u);
    EXPECT_EQ(c[counter::lane_accesses], 2 * n);
    EXPECT_EQ(c[counter::global_load_sectors], n * 4 / 32);  // 4000 bytes = 125 sectors
    EXPECT_EQ(c[counter::global_load_blocks], (n * 4 + 127) / 128);
    EXPECT_EQ(c[counter::launches], 1u);
}

TEST(Engine, BarrierAndSharedMemory) {
    auto ex = make();
    std::vector<int> h(256);
    std::iota(h.begin(), h.end(), 0);
    auto d = ex.alloc<int>(256);
    ex.upload(d, std::span<const int>(h));
    ex.launch("block_reverse", block_reverse, {1}, {256}, 0, d);
    std::vector<int> r(256);
    ex.download(std::span<int>(r), d);
    for (int i = 0; i < 256; ++i) ASSERT_EQ(r[i], 255 - i);
    const auto c = ex.record().totals();
    EXPECT_EQ(c[counter::barrier_instructions], 8u);
    EXPECT_EQ(c[counter::shared_store_instructions], 8u);
    EXPECT_EQ(c[counter::shared_load_wavefronts], 8u);  // reversed but consecutive: conflict-free
    EXPECT_EQ(c[counter::bank_conflicts], 0u);
    EXPECT_EQ(c[counter::shared_words_max], 256u);
}

TEST(Engine, WarpShuffleReduction) {
    for (const char* dev : {"h100", "h100-b64", "geforce-gtx280"}) {
        auto ex = make(dev);
        const unsigned b = ex.machine().b;
        std::vector<int> h(256);
        std::iota(h.begin(), h.end(), 1);
        auto in = ex.alloc<int>(256);
        auto out = ex.alloc<int>(256 / b);
        ex.upload(in, std::span<const int>(h));
        ex.launch("warp_sum", warp_sum, {1}, {256}, 0, kl::gspan<const int>(in), out);
        std::vector<int> r(256 / b);
        ex.download(std::span<int>(r), out);
        for (unsigned w = 0; w < 256 / b; ++w) {
            int want = 0;
            for (unsigned l = 0; l < b; ++l) want += h[w * b + l];
            EXPECT_EQ(r[w], want) << dev << " warp " << w;
        }
        unsigned steps = 0;
        for (unsigned d = b / 2; d > 0; d /= 2) ++steps;
        EXPECT_EQ(ex.record().totals()[counter::collective_instructions], steps * (256 / b)) << dev;
    }
}

TEST(Engine, WarpReduceAdd) {
    for (const char* dev : {"h100", "h100-b64"}) {
        auto ex = make(dev);
        const unsigned b = ex.machine().b;
        std::vector<int> h(256);
        for (unsigned i = 0; i < 256; ++i) h[i] = int(i * i % 97) - 40;
        auto in = ex.alloc<int>(256);
        auto out = ex.alloc<int>(256), halves = ex.alloc<int>(256);
        ex.upload(in, std::span<const int>(h));
        ex.launch("warp_reduce_add", warp_reduce_add, {1}, {256}, 0, kl::gspan<const int>(in), out, halves);
        std::vector<int> r(256), rh(256);
        ex.download(std::span<int>(r), out);
        ex.download(std::span<int>(rh), halves);
        for (unsigned i = 0; i < 256; ++i) {
            int want = 0, want_half = 0;
            for (unsigned l = 0; l < b; ++l) want += h[i / b * b + l];
            for (unsigned l = 0; l < b / 2; ++l) want_half += h[i / (b / 2) * (b / 2) + l];
            EXPECT_EQ(r[i], want) << dev << " thread " << i;
            EXPECT_EQ(rh[i], want_half) << dev << " thread " << i;
        }
        // One warp-instruction a call: the halves' masks differ by lane, not by instruction.
        EXPECT_EQ(ex.record().totals()[counter::collective_instructions], 2 * 256 / b) << dev;
    }
}

TEST(Engine, DivergentPathsAreSeparateInstructions) {
    auto ex = make();
    auto d = ex.alloc<int>(64);
    ex.launch("odd_even", odd_even, {1}, {64}, 0, d);
    const auto c = ex.record().totals();
    EXPECT_EQ(c[counter::global_store_instructions], 4u);  // 2 warps x 2 paths
    EXPECT_EQ(c[counter::global_store_sectors], 16u);      // each path's 16 lanes span all 4 of its warp's sectors
}

TEST(Engine, OutOfBoundsNamesKernelBlockThreadIndexAndBound) {
    auto ex = make();
    auto d = ex.alloc<int>(32);
    try {
        ex.launch("out_of_bounds", out_of_bounds, {1}, {32}, 0, d);
        FAIL() << "no error";
    } catch (const agpu::kernel_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("kernel out_of_bounds"), std::string::npos) << m;
        EXPECT_NE(m.find("block (0,0,0) thread (31,0,0)"), std::string::npos) << m;
        EXPECT_NE(m.find("index 32 outside its span of 32"), std::string::npos) << m;
    }
    // The executor stays usable after a failed run.
    auto e2 = ex.alloc<int>(32);
    ex.launch("odd_even", odd_even, {1}, {32}, 0, e2);
}

TEST(Engine, BarrierNotReachedByEveryThreadIsAnError) {
    auto ex = make();
    auto d = ex.alloc<int>(64);
    try {
        ex.launch("divergent_barrier", divergent_barrier, {1}, {64}, 0, d);
        FAIL() << "no error";
    } catch (const agpu::kernel_error& e) {
        EXPECT_NE(std::string(e.what()).find("kernel divergent_barrier"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("never reaches"), std::string::npos) << e.what();
    }
}

TEST(Engine, SharedMemoryAboveMIsAnError) {
    auto ex = make();
    auto d = ex.alloc<int>(1);
    EXPECT_THROW(ex.launch("too_much_shared", too_much_shared, {1}, {32}, 0, d), agpu::kernel_error);
    EXPECT_THROW(ex.launch("add_one", add_one, {1}, {2048}, 0, kl::gspan<const int>(d), d), agpu::kernel_error);
    EXPECT_THROW(ex.launch("add_one", add_one, {1}, {32}, 58113 * 4, kl::gspan<const int>(d), d), agpu::kernel_error);
}
