// Running a launch, the engine's entry point. Every thread block runs on its
// own, block 0 first, the rest claimed in block order by one block_runner per
// host thread (one thread only if block 0 made a global atomic); inside a
// block every thread runs on a fiber (Boost.Context) that yields at a
// barrier, a warp collective, or after a chunk of recorded accesses. A warp's
// lanes run one after another; each lane's records carry a key (source site,
// how many times this lane has reached that site), and the records of one key
// across the lanes of a warp form one warp-instruction: lanes executing the
// same access in program order, the lanes that took another path forming
// instructions of their own. Each instruction is costed on the machine
// (warp_costing.hpp), and each block's steps are placed on the k MPs greedily
// in block order; the launch's time is the busiest MP's.
//
// Sampled mode (plan_stratified): only the first, the last and one random
// block per stratum are recorded; the others run with recording off (hooks
// only check spans) or, in a launch declared data-independent, not at all;
// the recorded blocks' counters are extrapolated per stratum with a variance
// estimate (estimate_stratified), and unrecorded blocks take their stratum's
// steps on the MPs.
//
// Assumptions: a barrier must be reached by every thread of the block, at the
// same site (CUDA leaves the rest undefined); a collective must be reached by
// every lane of its mask. Both are checked and reported as kernel errors.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "agpu/sim/estimator.hpp"
#include "agpu/sim/executor.hpp"
#include "engine_state.hpp"
#include "sampling.hpp"

namespace agpu::sim {

std::string to_string(sim_mode m) { return m == sim_mode::exact ? "exact" : "sampled"; }

void executor::check_launch(const std::string& kname, kl::dim3 grid, kl::dim3 block,
                            std::size_t dynamic_shared_bytes) const {
    const model::machine& m = m_dev.agpu;
    const std::uint64_t nthreads = std::uint64_t(block.x) * block.y * block.z;
    const std::uint64_t nblocks = std::uint64_t(grid.x) * grid.y * grid.z;
    if (nthreads == 0 || nblocks == 0)
        throw kernel_error("kernel " + kname + ": empty launch (grid " + std::to_string(nblocks) + " blocks of " +
                           std::to_string(nthreads) + " threads)");
    if (nthreads > m_dev.hw.max_threads_per_block)
        throw kernel_error("kernel " + kname + ": a block of " + std::to_string(nthreads) +
                           " threads exceeds the device's " + std::to_string(m_dev.hw.max_threads_per_block) +
                           " (device " + m_dev.id + ")");
    if (grid.y > 65535 || grid.z > 65535 || block.z > 64)
        throw kernel_error("kernel " + kname + ": grid or block dimensions beyond CUDA's limits");
    if (dynamic_shared_bytes > m.shared_bytes())
        throw kernel_error("kernel " + kname + ": dynamic shared memory of " +
                           std::to_string((dynamic_shared_bytes + m.word_bytes() - 1) / m.word_bytes()) +
                           " words exceeds M = " + std::to_string(m.M) + " words (device " + m_dev.id + ")");
}

unsigned executor::workers_for(std::uint64_t blocks) const {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned want = m_opt.threads ? m_opt.threads : cores;
    return unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>(want, blocks)));
}

void executor::run_blocks_of(const std::string& kname, kl::dim3 grid, kl::dim3 block, std::size_t dynamic_shared_bytes,
                             void (*body)(void*), void* arg, std::uint64_t count,
                             const std::function<std::uint64_t(std::uint64_t)>& block_at,
                             const std::function<bool(std::uint64_t)>& recorded, unsigned workers,
                             const block_done& done) {
    if (count == 0) return;
    const model::machine& m = m_dev.agpu;
    auto& runners = m_engine->runners;
    while (runners.size() < workers) runners.push_back(std::make_unique<detail::block_runner>(m, m_opt));
    detail::synth_regions* synth = m_engine->synth.empty() ? nullptr : &m_engine->synth;
    for (unsigned w = 0; w < workers; ++w)
        runners[w]->prepare(kname, grid, block, dynamic_shared_bytes, body, arg, synth);
    struct reset_globals {
        ~reset_globals() {
            detail::g_block = nullptr;
            detail::g_current = nullptr;
        }
    } reset;
    auto run_one = [&](unsigned w, std::uint64_t bid) {
        auto& r = *runners[w];
        const bool record = recorded(bid);
        const std::uint64_t steps = r.run(bid, record);
        done(w, bid, record, steps, r.bcounts, r.bc.shared_used);
    };

    // The first block alone: blocks that made a global atomic may wait on each
    // other in block order (a decoupled look-back), so then the rest run in order.
    run_one(0, block_at(0));
    const bool parallel = workers > 1 && !runners[0]->bc.global_atomic;
    if (!parallel) {
        for (std::uint64_t i = 1; i < count; ++i) run_one(0, block_at(i));
        return;
    }
    // Blocks are claimed in order; after a kernel error no block beyond the
    // failing one starts, and the lowest failing block's error is thrown, so
    // errors too are the same for any number of threads.
    std::atomic<std::uint64_t> next{1}, stop{count};
    std::mutex error_mutex;
    std::uint64_t error_at = count;
    std::exception_ptr error;
    auto work = [&](unsigned w) {
        while (true) {
            const std::uint64_t i = next.fetch_add(1);
            if (i >= count || i > stop.load()) break;
            try {
                run_one(w, block_at(i));
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (i < error_at) {
                    error_at = i;
                    error = std::current_exception();
                    stop = i;
                }
            }
        }
        detail::g_block = nullptr;
        detail::g_current = nullptr;
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

std::vector<std::uint64_t> executor::probe_blocks(std::uint64_t nblocks, std::uint64_t count) const {
    return plan_probes(nblocks, count, m_opt.sample_seed, m_record.launches.size());
}

std::vector<block_sample> executor::run_listed_blocks(std::span<const std::uint64_t> blocks, std::string_view name,
                                                      const std::string& symbol, kl::dim3 grid, kl::dim3 block,
                                                      std::size_t dynamic_shared_bytes, void (*body)(void*),
                                                      void* arg) {
    const std::string kname(name);
    check_launch(kname, grid, block, dynamic_shared_bytes);
    const std::uint64_t nblocks = std::uint64_t(grid.x) * grid.y * grid.z;
    std::vector<block_sample> out(blocks.size());
    std::vector<std::pair<std::uint64_t, std::size_t>> at;  // (block, position), sorted
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        AGPU_CHECK(blocks[i] < nblocks, "run_blocks: a block beyond the grid");
        out[i].block = blocks[i];
        at.emplace_back(blocks[i], i);
    }
    std::sort(at.begin(), at.end());
    AGPU_CHECK(std::adjacent_find(at.begin(), at.end(), [](auto x, auto y) { return x.first == y.first; }) == at.end(),
               "run_blocks: a block listed twice");
    const std::uint64_t wb = m_dev.agpu.word_bytes();
    run_blocks_of(
        kname, grid, block, dynamic_shared_bytes, body, arg, blocks.size(), [&](std::uint64_t i) { return blocks[i]; },
        [](std::uint64_t) { return true; }, workers_for(blocks.size()),
        [&](unsigned, std::uint64_t bid, bool, std::uint64_t steps, const counts& c, std::uint64_t shared_bytes) {
            auto& s = out[std::lower_bound(at.begin(), at.end(), std::pair{bid, std::size_t(0)})->second];
            s.c = c;  // each block's own slot: no lock needed
            s.c[counter::shared_words_max] = (shared_bytes + wb - 1) / wb;
            s.steps = steps;
            if (m_opt.progress) m_opt.progress(std::uint64_t(block.x) * block.y * block.z);
        });
    auto& pending = m_engine->listed[kname];
    pending.first = symbol;
    for (unsigned w = 0; w < workers_for(blocks.size()) && w < m_engine->runners.size(); ++w)
        pending.second.merge(m_engine->runners[w]->tally);
    return out;
}

void executor::run_launch(std::string_view name, const std::string& symbol, kl::dim3 grid, kl::dim3 block,
                          std::size_t dynamic_shared_bytes, void (*body)(void*), void* arg) {
    const model::machine& m = m_dev.agpu;
    const std::string kname(name);
    check_launch(kname, grid, block, dynamic_shared_bytes);
    const std::uint64_t nthreads = std::uint64_t(block.x) * block.y * block.z;
    const std::uint64_t nblocks = std::uint64_t(grid.x) * grid.y * grid.z;

    launch_record rec;
    rec.kernel = kname;
    rec.grid = grid;
    rec.block = block;
    rec.dynamic_shared_bytes = dynamic_shared_bytes;
    rec.c[counter::launches] = 1;
    rec.c[counter::thread_blocks] = nblocks;
    rec.c[counter::threads] = nblocks * nthreads;

    const stratified_sample plan = m_opt.mode == sim_mode::sampled
                                       ? plan_stratified(nblocks, m_strata ? m_strata : m_opt.sample_strata,
                                                         m_opt.sample_seed, m_record.launches.size())
                                       : stratified_sample{};
    const bool sampled = plan.strata > 0;
    const unsigned workers = workers_for(nblocks);

    // Per block: steps, waits, collectives (recorded blocks). Exact: each
    // worker's summed counters; sampled: each recorded block's counters.
    recorded_blocks blocks;
    blocks.steps.assign(nblocks, 0);
    blocks.waits.assign(nblocks, 0);
    blocks.collectives.assign(nblocks, 0);
    std::vector<counts> sums(workers);
    // A small launch on synthesized inputs, every block recorded: each block's counters (for the variance).
    const bool whole_synth = !sampled && m_synthesized && m_opt.mode == sim_mode::sampled;
    blocks.c.resize(sampled ? plan.recorded.size() : whole_synth ? nblocks : 0);
    std::vector<std::uint64_t> shared_bytes_max(workers, 0);

    // The blocks to run, in order: all, or in a sampled launch whose
    // unrecorded blocks need not run (data-independent, synthesized inputs)
    // only the recorded ones.
    const bool skip = sampled && m_skip_unrecorded;
    const std::uint64_t runs = skip ? plan.recorded.size() : nblocks;
    rec.blocks_skipped = nblocks - runs;
    run_blocks_of(
        kname, grid, block, dynamic_shared_bytes, body, arg, runs,
        [&](std::uint64_t i) { return skip ? plan.recorded[i] : i; },
        [&](std::uint64_t bid) { return plan.is_recorded(bid); }, workers,
        [&](unsigned w, std::uint64_t bid, bool record, std::uint64_t steps, const counts& c, std::uint64_t shared) {
            if (record) {
                blocks.steps[bid] = steps;
                blocks.waits[bid] = model::block_waits(c);
                blocks.collectives[bid] = model::block_collectives(c);
                if (sampled) {
                    const auto at =
                        std::lower_bound(plan.recorded.begin(), plan.recorded.end(), bid) - plan.recorded.begin();
                    blocks.c[std::size_t(at)] = c;
                } else {
                    sums[w].merge(c);
                    if (whole_synth) blocks.c[bid] = c;
                }
            }
            shared_bytes_max[w] = std::max<std::uint64_t>(shared_bytes_max[w], shared);
            if (m_opt.progress) m_opt.progress(nthreads);
        });

    if (m_opt.progress && rec.blocks_skipped) m_opt.progress(nthreads * rec.blocks_skipped);  // done, at no cost
    std::uint64_t shared_max = 0;
    for (auto v : shared_bytes_max) shared_max = std::max(shared_max, v);
    const std::uint64_t k = std::min<std::uint64_t>(m.k(), nblocks);
    if (!sampled) {
        for (const auto& s : sums) rec.c.merge(s);
        rec.c[counter::time_steps] = model::greedy_makespan(blocks.steps, k);
        rec.c[counter::chain_waits] = detail::heaviest_chain(blocks.waits, nthreads, m);
        rec.c[counter::chain_collectives] = detail::heaviest_chain(blocks.collectives, nthreads, m);
        rec.blocks_recorded = nblocks;
        if (whole_synth) add_synthesized_variance(m, blocks, rec);
    } else {
        estimate_stratified(m, plan, blocks, nthreads, m_synthesized, rec);
    }
    rec.c[counter::shared_words_max] = (shared_max + m.word_bytes() - 1) / m.word_bytes();
    rec.mps_used = k;
    detail::site_tally tally;
    for (unsigned w = 0; w < workers && w < m_engine->runners.size(); ++w) tally.merge(m_engine->runners[w]->tally);
    detail::add_instruction_counts(rec, symbol, tally, m_dev);
    m_record.launches.push_back(std::move(rec));
}

void executor::record_work_launch(const work_launch& w) {
    const std::string kname(w.name);
    check_launch(kname, w.grid, w.block, w.dynamic_shared_bytes);
    launch_record rec;
    rec.kernel = kname;
    rec.grid = w.grid;
    rec.block = w.block;
    rec.dynamic_shared_bytes = w.dynamic_shared_bytes;
    estimate_linear(m_dev.agpu, w, m_synthesized, rec);
    if (const auto it = m_engine->listed.find(kname); it != m_engine->listed.end()) {
        detail::add_instruction_counts(rec, it->second.first, it->second.second, m_dev);
        m_engine->listed.erase(it);
    }
    const std::uint64_t nthreads = std::uint64_t(w.block.x) * w.block.y * w.block.z;
    if (m_opt.progress && rec.blocks_skipped) m_opt.progress(nthreads * rec.blocks_skipped);
    m_record.launches.push_back(std::move(rec));
}

}  // namespace agpu::sim
