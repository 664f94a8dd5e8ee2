// Simulator speed: simulated lane memory accesses per second on streaming
// kernels (each access coalesced, no barriers): exact on one host thread (the
// per-core figure) and on two, and sampled (the lane accesses a sampled run
// accounts for, extrapolated, per second of its time), with the unrecorded
// blocks run or, declared data-independent, skipped. The figures and what
// limits them are recorded in sim/README.md.
#include <benchmark/benchmark.h>

#include "agpu/kl/kl.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/sim/executor.hpp"

namespace kl = agpu::kl;
namespace sim = agpu::sim;

namespace {

// One element per thread: the usual streaming kernel.
AGPU_KERNEL void copy_one(kl::gspan<const float> in, kl::gspan<float> out) {
    const std::uint64_t i = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_idx().x;
    if (i < out.size()) out.store(i, in.load(i));
}

// Grid-stride loop: each thread copies many elements.
AGPU_KERNEL void copy_grid_stride(kl::gspan<const float> in, kl::gspan<float> out) {
    const std::uint64_t stride = std::uint64_t(kl::grid_dim().x) * kl::block_dim().x;
    for (std::uint64_t i = std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_idx().x; i < out.size();
         i += stride)
        out.store(i, in.load(i));
}

// Args: n, host threads, mode (0 exact, 1 sampled, 2 sampled with the launch declared data-independent).
template <bool GridStride>
void bm_stream(benchmark::State& state) {
    const std::size_t n = static_cast<std::size_t>(state.range(0));
    sim::engine_options opt;
    opt.threads = static_cast<unsigned>(state.range(1));
    opt.mode = state.range(2) ? sim::sim_mode::sampled : sim::sim_mode::exact;
    sim::executor ex(agpu::model::resolve_device("h100"), opt);
    ex.set_skip_unrecorded(state.range(2) == 2);
    auto in = ex.alloc<float>(n);
    auto out = ex.alloc<float>(n);
    std::vector<float> h(n, 1.5f);
    ex.upload(in, std::span<const float>(h));
    const unsigned block = 256;
    const unsigned grid = GridStride ? 132 * 4 : static_cast<unsigned>((n + block - 1) / block);
    for (auto _ : state) {
        ex.clear_record();
        if (GridStride)
            ex.launch("copy_grid_stride", copy_grid_stride, {grid}, {block}, 0, kl::gspan<const float>(in), out);
        else ex.launch("copy_one", copy_one, {grid}, {block}, 0, kl::gspan<const float>(in), out);
    }
    const auto lane_accesses = ex.record().totals()[agpu::model::counter::lane_accesses];
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * lane_accesses));
    state.counters["lane_accesses"] = static_cast<double>(lane_accesses);
}

}  // namespace

BENCHMARK(bm_stream<false>)
    ->Name("stream/one_element_per_thread")
    ->ArgNames({"n", "threads", "mode"})
    ->Args({1 << 22, 1, 0})
    ->Args({1 << 22, 2, 0})
    ->Args({1 << 22, 1, 1})
    ->Args({1 << 22, 1, 2})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(bm_stream<true>)
    ->Name("stream/grid_stride")
    ->ArgNames({"n", "threads", "mode"})
    ->Args({1 << 22, 1, 0})
    ->Args({1 << 22, 2, 0})
    ->Args({1 << 22, 1, 1})
    ->Args({1 << 22, 1, 2})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
