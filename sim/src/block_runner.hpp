// The block runner: runs the thread blocks of a launch on one host thread.
// Each simulated thread is a fiber on a pooled stack; a warp's lanes run one
// after another until each reaches a barrier, a warp collective or a chunk of
// records; the warp's records go to its grouper; collectives are resolved
// once every lane of their mask has arrived; barriers release the block once
// every thread stands at the same one. Kernel errors (a barrier or collective
// not every thread reaches) name the block and thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "agpu/sim/executor.hpp"
#include "block_context.hpp"
#include "fiber_stacks.hpp"
#include "synth_memory.hpp"
#include "warp_costing.hpp"

namespace agpu::sim::detail {

// Runs blocks of a launch on one host thread: its fibers' stacks, threads,
// warps and their groupers, and the block's shared memory.
struct block_runner {
    block_runner(const model::machine& m, const engine_options& opt) : stacks(opt.stack_bytes), cst(m) {
        bc.m = &m;
        bc.chunk_records = opt.chunk_records;
        bc.shared.assign(m.shared_bytes(), std::byte{0xA5});
    }
    block_runner(const block_runner&) = delete;
    block_runner& operator=(const block_runner&) = delete;

    stack_pool stacks;
    coster cst;
    site_tally tally;  // the recorded blocks' instructions by site, since prepare()
    block_context bc;
    counts bcounts;  // the last block's counters
    std::vector<sim_thread> threads;
    std::vector<std::vector<sim_thread*>> warps;
    std::vector<warp_grouper> groupers;
    kl::dim3 grid, block;
    std::size_t dynamic_shared_bytes = 0;
    void (*body)(void*) = nullptr;
    void* arg = nullptr;

    // Sets the launch every block that follows belongs to.
    void prepare(std::string_view kernel, kl::dim3 g, kl::dim3 b, std::size_t dyn, void (*f)(void*), void* a,
                 synth_regions* synth);
    // Runs block `bid` (recorded or not); returns its steps (0 unrecorded),
    // its counters in bcounts.
    std::uint64_t run(std::uint64_t bid, bool record);

private:
    void switch_to(sim_thread& t);
    std::uint64_t run_block(std::uint64_t bid);
};

}  // namespace agpu::sim::detail
