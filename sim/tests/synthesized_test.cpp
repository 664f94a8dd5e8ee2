// The engine's pieces for sampled runs on synthesized inputs: self-filling
// memory, running chosen blocks, launches estimated from work samples, and the
// occurrence counts that start afresh at a barrier (so that a block's cost per
// unit of work does not drift along it).
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <set>

#include "agpu/kl/kl.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/sim/executor.hpp"

namespace kl = agpu::kl;
namespace sim = agpu::sim;
using sim::counter;

namespace {

sim::executor make(sim::sim_mode mode = sim::sim_mode::exact) {
    sim::engine_options opt;
    opt.mode = mode;
    return sim::executor(agpu::model::resolve_device("h100"), opt);
}

// Each round, lane 0 of every warp loads twice and the others once, then the block meets at a barrier.
AGPU_KERNEL void uneven_rounds(kl::gspan<const int> in, kl::gspan<int> out, unsigned rounds) {
    int s = 0;
    for (unsigned r = 0; r < rounds; ++r) {
        const unsigned trips = kl::lane_id() == 0 ? 2 : 1;
        for (unsigned j = 0; j < trips; ++j) s += in.load((r + j) % in.size());
        kl::sync_threads();
    }
    out.store(kl::thread_idx().x, s);
}

// Block b copies work[b] elements, a warp-instruction per 32 of them, all in step.
AGPU_KERNEL void copy_work(kl::gspan<const float> in, kl::gspan<float> out, kl::gspan<const std::uint32_t> work) {
    const std::uint32_t w = work.load(kl::block_idx().x);
    const std::uint64_t base = std::uint64_t(kl::block_idx().x) * 65536;
    for (std::uint32_t i = kl::thread_idx().x; i < w; i += kl::block_dim().x)
        out.store(base + i, 2 * in.load(base + i));
}

// copy_work's launch: the executor, its spans, and the counters of the launch (every block recorded).
struct copy_launch {
    sim::executor ex;
    kl::gspan<float> in, out;
    kl::gspan<std::uint32_t> w;
    sim::counts whole;
    copy_launch(const std::vector<std::uint32_t>& work, unsigned threads, sim::sim_mode mode)
        : ex(make(mode)), in(ex.alloc<float>(work.size() * 65536)), out(ex.alloc<float>(work.size() * 65536)),
          w(ex.alloc<std::uint32_t>(work.size())) {
        ex.upload(w, std::span<const std::uint32_t>(work));
        ex.launch("copy_work", copy_work, {unsigned(work.size())}, {threads}, 0, kl::gspan<const float>(in), out,
                  kl::gspan<const std::uint32_t>(w));
        whole = ex.record().launches.back().c;
    }
};

// Work of 4096·(2 + 7b mod 9) elements for block b < blocks: uneven, linear.
std::vector<std::uint32_t> uneven_work(unsigned blocks) {
    std::vector<std::uint32_t> work(blocks);
    for (unsigned b = 0; b < blocks; ++b) work[b] = 4096 * (2 + (7 * b) % 9);
    return work;
}

AGPU_KERNEL void read_some(kl::gspan<const std::uint32_t> in, kl::gspan<std::uint32_t> out) {
    const unsigned t = kl::thread_idx().x;
    out.store(t, in.load(std::uint64_t(t) * 1000 + 7));
}

}  // namespace

TEST(Occurrences, CountAfreshAfterEveryBarrier) {
    auto ex = make();
    auto in = ex.alloc<int>(64);
    auto out = ex.alloc<int>(64);
    ex.upload(in, std::span<const int>(std::vector<int>(64, 1)));
    ex.launch("uneven_rounds", uneven_rounds, {1}, {64}, 0, kl::gspan<const int>(in), out, 10u);
    // Per warp and round the GPU issues the load twice (lane 0's second trip
    // alone): 2 warps x 10 rounds x 2, not the 3 a round that pairing lanes by
    // their count since the block's start would give once lane 0 ran ahead.
    const auto c = ex.record().totals();
    EXPECT_EQ(c[counter::global_load_instructions], 2u * 10 * 2);
    EXPECT_EQ(c[counter::barrier_instructions], 2u * 10);
}

TEST(Synthesized, MemoryFillsWhatKernelsTouchOnly) {
    auto ex = make();
    std::atomic<std::uint64_t> filled{0};
    auto in =
        ex.alloc_synthesized<std::uint32_t>(1 << 20, [&](std::uint64_t first, std::uint64_t count, std::uint32_t* d) {
            filled += count;
            for (std::uint64_t i = 0; i < count; ++i) d[i] = std::uint32_t(first + i) * 3;
        });
    auto out = ex.alloc<std::uint32_t>(256);
    ex.launch("read_some", read_some, {1}, {256}, 0, kl::gspan<const std::uint32_t>(in), out);
    std::vector<std::uint32_t> got(256);
    ex.download(std::span<std::uint32_t>(got), kl::gspan<const std::uint32_t>(out));
    for (unsigned t = 0; t < 256; ++t) EXPECT_EQ(got[t], (t * 1000 + 7) * 3) << t;
    // 256 loads in distinct units of 32 elements (128 bytes): 256 units filled.
    EXPECT_EQ(filled.load(), 256u * (sim::executor::synth_unit_bytes / 4));
    ex.materialize(in.subspan(5000, 100));  // the host's reads fill too, once
    EXPECT_EQ(in.data()[5050], 5050u * 3);
    const auto after = filled.load();
    ex.materialize(in.subspan(5000, 100));
    EXPECT_EQ(filled.load(), after);
}

TEST(Synthesized, RefilledMemoryFillsAfreshAndReleasedMemoryGoes) {
    auto ex = make();
    auto in =
        ex.alloc_synthesized<std::uint32_t>(1 << 18, [](std::uint64_t first, std::uint64_t count, std::uint32_t* d) {
            for (std::uint64_t i = 0; i < count; ++i) d[i] = std::uint32_t(first + i);
        });
    ex.materialize(in.subspan(100, 1));
    EXPECT_EQ(in.data()[100], 100u);
    ex.refill_synthesized(in, [](std::uint64_t first, std::uint64_t count, std::uint32_t* d) {
        for (std::uint64_t i = 0; i < count; ++i) d[i] = std::uint32_t(first + i) + 7;
    });
    ex.materialize(in.subspan(100, 1));  // filled before, filled again with the new values
    EXPECT_EQ(in.data()[100], 107u);
    auto out = ex.alloc<std::uint32_t>(256);
    ex.launch("read_some", read_some, {1}, {256}, 0, kl::gspan<const std::uint32_t>(in), out);
    std::vector<std::uint32_t> got(256);
    ex.download(std::span<std::uint32_t>(got), kl::gspan<const std::uint32_t>(out));
    EXPECT_EQ(got[3], 3007u + 7);
    ex.release_synthesized(in);
    EXPECT_THROW(ex.release_synthesized(in), agpu::internal_error);  // released once
}

// Known parts given per block (an expectation, say) are added to every
// block's modeled rest, a block counted as itself included (its sample less
// the sample's own known part), and their variance to the total's.
TEST(Synthesized, WorkLaunchAddsTheKnownPartsGiven) {
    const unsigned blocks = 40, threads = 128;
    const std::vector<std::uint32_t> work = uneven_work(blocks);
    copy_launch l(work, threads, sim::sim_mode::sampled);
    auto& ex = l.ex;
    std::vector<std::uint64_t> ids{0, 5, 17, 30, blocks - 1};
    const auto got = ex.run_blocks(std::span<const std::uint64_t>(ids), "copy_work", copy_work, {blocks}, {threads}, 0,
                                   kl::gspan<const float>(l.in), l.out, kl::gspan<const std::uint32_t>(l.w));
    // Each sample's own known part: 3 sectors; the one given for every block: 5.
    sim::block_sample own, given;
    own.c[counter::global_load_sectors] = 3;
    given.c[counter::global_load_sectors] = 5;
    std::vector<sim::work_sample> samples;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        sim::block_sample at = got[i];
        at.c[counter::global_load_sectors] += 3;  // the sample saw its own known part
        samples.push_back({ids[i], work[ids[i]], at, own});
    }
    const std::vector<std::uint64_t> work64(work.begin(), work.end()), themselves{0, blocks - 1};
    const std::vector<sim::block_sample> known(blocks, given);
    std::vector<double> known_variance(agpu::model::counter_count, 0.0);
    known_variance[std::size_t(counter::global_load_sectors)] = 49;
    sim::work_launch launch{"copy_work", {blocks}, {threads}};
    launch.work = work64;
    launch.known = known;
    launch.samples = samples;
    launch.themselves = themselves;
    launch.known_variance = known_variance;
    ex.record_work_launch(launch);
    const auto& est = ex.record().launches.back();
    EXPECT_EQ(est.c[counter::global_load_sectors], l.whole[counter::global_load_sectors] + 5 * blocks);
    EXPECT_NEAR(est.variance[std::size_t(counter::global_load_sectors)], 49.0, 1e-6);
    EXPECT_EQ(est.c[counter::global_store_sectors], l.whole[counter::global_store_sectors]);
}

TEST(Synthesized, RunBlocksGivesEachBlocksCountsAsTheLaunch) {
    const unsigned blocks = 12, threads = 128;
    std::vector<std::uint32_t> work(blocks);
    for (unsigned b = 0; b < blocks; ++b) work[b] = 1024 * (1 + b % 5);
    copy_launch l(work, threads, sim::sim_mode::exact);
    auto& ex = l.ex;
    const auto in = l.in, out = l.out;
    const auto w = l.w;
    const auto whole = l.whole;
    std::vector<std::uint64_t> ids(blocks);
    std::iota(ids.rbegin(), ids.rend(), 0);  // any order
    const auto got = ex.run_blocks(std::span<const std::uint64_t>(ids), "copy_work", copy_work, {blocks}, {threads}, 0,
                                   kl::gspan<const float>(in), out, kl::gspan<const std::uint32_t>(w));
    EXPECT_EQ(ex.record().launches.size(), 1u);  // nothing recorded
    sim::counts sum;
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].block, ids[i]);
        sum.merge(got[i].c);
    }
    for (auto c : {counter::global_load_sectors, counter::global_store_instructions, counter::lane_accesses,
                   counter::warp_instructions})
        EXPECT_EQ(sum[c], whole[c]) << agpu::model::info(c).name;
    EXPECT_THROW(
        (void)ex.run_blocks(std::span<const std::uint64_t>(std::vector<std::uint64_t>{1, 1}), "copy_work", copy_work,
                            {blocks}, {threads}, 0, kl::gspan<const float>(in), out, kl::gspan<const std::uint32_t>(w)),
        agpu::internal_error);
}

// A kernel whose counters are exactly linear in each block's work: the
// estimate from two probes of shortened work equals the exact launch, and the
// error it reports is 0.
TEST(Synthesized, WorkLaunchIsExactWhereCostsAreLinear) {
    const unsigned blocks = 40, threads = 128;
    const std::vector<std::uint32_t> work = uneven_work(blocks);
    copy_launch l(work, threads, sim::sim_mode::sampled);
    auto& ex = l.ex;
    const auto in = l.in, out = l.out;
    ASSERT_EQ(ex.record().launches.back().estimate, sim::launch_estimate::exact);  // 40 blocks: recorded in full
    const auto exact = l.whole;

    const auto chosen = ex.probe_blocks(blocks, 3);
    ASSERT_EQ(chosen.size(), 3u);
    EXPECT_EQ(std::set<std::uint64_t>(chosen.begin(), chosen.end()).size(), 3u);
    std::vector<sim::work_sample> samples;
    for (std::uint32_t x : {4096u, 8192u}) {
        std::vector<std::uint32_t> shortened(blocks, 0);
        for (auto b : chosen) shortened[b] = x;
        auto sw = ex.alloc<std::uint32_t>(blocks);
        ex.upload(sw, std::span<const std::uint32_t>(shortened));
        const auto got =
            ex.run_blocks(std::span<const std::uint64_t>(chosen), "copy_work", copy_work, {blocks}, {threads}, 0,
                          kl::gspan<const float>(in), out, kl::gspan<const std::uint32_t>(sw));
        for (std::size_t i = 0; i < chosen.size(); ++i) samples.push_back({chosen[i], x, got[i]});
    }
    const std::vector<std::uint64_t> work64(work.begin(), work.end());
    sim::work_launch launch{"copy_work", {blocks}, {threads}};
    launch.work = work64;
    launch.samples = samples;
    ex.record_work_launch(launch);
    const auto& est = ex.record().launches.back();
    EXPECT_EQ(est.estimate, sim::launch_estimate::linear);
    EXPECT_EQ(est.blocks_recorded, 3u);
    EXPECT_EQ(est.blocks_skipped, blocks - 3u);
    // Every count but the work lookup's (one load a block, the same for all) grows with the work.
    for (auto c : {counter::global_load_sectors, counter::global_store_sectors, counter::global_store_instructions,
                   counter::lane_accesses, counter::warp_instructions, counter::time_steps})
        EXPECT_EQ(est.c[c], exact[c]) << agpu::model::info(c).name;
    for (double v : est.variance) EXPECT_NEAR(v, 0.0, 1e-6);
    EXPECT_EQ(est.c[counter::thread_blocks], blocks);
}
