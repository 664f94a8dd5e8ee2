// The block runner (block_runner.hpp): a block's fibers, the resolution of
// its warps' collectives, its barriers and the errors they report.
#include "block_runner.hpp"

#include <string>

namespace agpu::sim::detail {
namespace {

// Resolves the collectives of one warp whose lanes have all arrived.
// Returns true if some lane became runnable.
bool resolve_collectives(std::vector<sim_thread*>& lanes, const block_context& bc) {
    bool progressed = false;
    const unsigned b = static_cast<unsigned>(lanes.size());
    for (unsigned l = 0; l < b; ++l) {
        sim_thread* t = lanes[l];
        if (t->state != thread_state::at_collective) continue;
        const kl::lane_mask mask = t->coll_mask;
        bool ready = true;
        for (unsigned o = 0; o < b && ready; ++o)
            if (mask >> o & 1)
                ready = lanes[o]->state == thread_state::at_collective && lanes[o]->coll_mask == mask &&
                        lanes[o]->wait_site == t->wait_site;
        if (!ready) continue;
        const int width = t->coll_width > 0 ? t->coll_width : static_cast<int>(b);
        kl::lane_mask votes = 0;
        std::uint32_t sum = 0;
        for (unsigned o = 0; o < b; ++o)
            if (mask >> o & 1) {
                if (lanes[o]->coll_value) votes |= kl::lane_mask{1} << o;
                sum += std::uint32_t(lanes[o]->coll_value);
            }
        for (unsigned o = 0; o < b; ++o) {
            if (!(mask >> o & 1)) continue;
            sim_thread* u = lanes[o];
            const unsigned seg = o / unsigned(width) * unsigned(width);
            auto value_of = [&](long src) -> std::uint64_t {
                if (src < 0 || src >= long(b) || !(mask >> src & 1)) return u->coll_value;
                return lanes[std::size_t(src)]->coll_value;
            };
            switch (u->coll_op) {
                case kl::hook::coll_op::sync: u->coll_result = 0; break;
                case kl::hook::coll_op::shfl_idx:
                    u->coll_result = value_of(long(seg) + ((u->coll_arg % width) + width) % width);
                    break;
                case kl::hook::coll_op::shfl_up:
                    u->coll_result =
                        long(o) - u->coll_arg >= long(seg) ? value_of(long(o) - u->coll_arg) : u->coll_value;
                    break;
                case kl::hook::coll_op::shfl_down:
                    u->coll_result =
                        long(o) + u->coll_arg < long(seg) + width ? value_of(long(o) + u->coll_arg) : u->coll_value;
                    break;
                case kl::hook::coll_op::shfl_xor: {
                    const long src = long(o ^ unsigned(u->coll_arg));
                    u->coll_result = src < long(seg) + width ? value_of(src) : u->coll_value;
                    break;
                }
                case kl::hook::coll_op::ballot: u->coll_result = votes; break;
                case kl::hook::coll_op::any: u->coll_result = votes != 0; break;
                case kl::hook::coll_op::all: u->coll_result = votes == mask; break;
                case kl::hook::coll_op::reduce_add: u->coll_result = sum; break;
            }
            if (u->coll_op != t->coll_op)
                bc.fail(*u, "warp collective at " + where(u->wait_loc) +
                                ": lanes of one mask called different collectives");
            u->state = thread_state::runnable;
        }
        // A collective of the whole warp (every lane still running) aligns its
        // lanes as a barrier aligns the block's: occurrences count afresh.
        bool whole = true;
        for (unsigned o = 0; o < b; ++o) whole &= (mask >> o & 1) || lanes[o]->state == thread_state::finished;
        if (whole)
            for (unsigned o = 0; o < b; ++o)
                if (mask >> o & 1) lanes[o]->sites.clear();
        progressed = true;
    }
    return progressed;
}

std::string thread_name(const sim_thread& t) {
    const auto& i = t.info;
    return "(" + std::to_string(i.thread_idx.x) + "," + std::to_string(i.thread_idx.y) + "," +
           std::to_string(i.thread_idx.z) + ")";
}

}  // namespace

void block_runner::prepare(std::string_view kernel, kl::dim3 g, kl::dim3 b, std::size_t dyn, void (*f)(void*), void* a,
                           synth_regions* synth) {
    bc.kernel = kernel;
    bc.synth = synth;
    grid = g;
    block = b;
    dynamic_shared_bytes = dyn;
    body = f;
    arg = a;
    const std::uint64_t nthreads = std::uint64_t(b.x) * b.y * b.z;
    const unsigned wb = bc.m->b;
    threads.clear();
    threads.resize(nthreads);
    warps.assign((nthreads + wb - 1) / wb, {});
    for (std::uint64_t r = 0; r < nthreads; ++r) warps[r / wb].push_back(&threads[r]);
    tally.clear();
    cst.tally = &tally;
    groupers.clear();
    groupers.reserve(warps.size());
    for (std::size_t w = 0; w < warps.size(); ++w) groupers.emplace_back(cst, bcounts);
}

std::uint64_t block_runner::run(std::uint64_t bid, bool record) {
    g_block = &bc;
    bc.recording = record;
    bc.global_atomic = false;
    try {
        const std::uint64_t steps = run_block(bid);  // every thread finished: no fiber is left
        if (record) {
            tally.warps += warps.size();
            tally.warp_instructions += bcounts[counter::warp_instructions];
        }
        return steps;
    } catch (...) {
        // Unwind every suspended thread while the block context lives.
        for (auto& t : threads) {
            t.abandoned = true;
            while (t.fiber) switch_to(t);
        }
        g_current = nullptr;
        throw;
    }
}

// Runs thread t until it yields or ends.
void block_runner::switch_to(sim_thread& t) {
    void* fake_stack = nullptr;
    g_current = &t;
    leaving_stack(&fake_stack, t.stack);
    t.fiber = std::move(t.fiber).resume();
    arrived_on_stack(fake_stack, nullptr);
    g_current = nullptr;
}

std::uint64_t block_runner::run_block(std::uint64_t bid) {
    const std::uint64_t nthreads = threads.size();
    const unsigned b = bc.m->b;
    const kl::uint3 bidx{unsigned(bid % grid.x), unsigned(bid / grid.x % grid.y), unsigned(bid / grid.x / grid.y)};
    bc.statics.clear();
    bc.shared_used = dynamic_shared_bytes;
    for (std::uint64_t r = 0; r < nthreads; ++r) {
        sim_thread& t = threads[r];
        t.state = thread_state::runnable;
        t.log.clear();
        t.sites.clear();
        t.static_shared_next = 0;
        t.error = nullptr;
        t.abandoned = false;
        t.info.thread_idx = {unsigned(r % block.x), unsigned(r / block.x % block.y), unsigned(r / block.x / block.y)};
        t.info.block_idx = bidx;
        t.info.block_dim = block;
        t.info.grid_dim = grid;
        t.info.rank = unsigned(r);
        t.info.lane = unsigned(r % b);
        t.info.warp = unsigned(r / b);
        t.info.warp_size = b;
        t.info.dynamic_shared = bc.shared.data();
        t.info.dynamic_shared_bytes = dynamic_shared_bytes;
        const ctx::stack_context sc = stacks.get(r);
        t.stack = {static_cast<char*>(sc.sp) - sc.size, sc.size};
        auto* f = body;
        auto* a = arg;
        t.fiber = ctx::fiber(std::allocator_arg, ctx::preallocated(sc.sp, sc.size, sc), pooled_stack{},
                             [&t, f, a](ctx::fiber&& caller) {
                                 arrived_on_stack(nullptr, &t.caller_stack);
                                 t.caller = std::move(caller);
                                 g_current = &t;
                                 try {
                                     if (!t.abandoned) f(a);
                                 } catch (const block_abandoned&) {
                                     // another thread's error ended the block: it is reported
                                 } catch (...) {
                                     t.error = std::current_exception();
                                 }
                                 t.state = thread_state::finished;
                                 leaving_stack(nullptr, t.caller_stack);
                                 return std::move(t.caller);
                             });
    }

    bcounts = counts{};
    std::uint64_t steps = 0;

    auto resume = [&](sim_thread& t) {
        t.state = thread_state::runnable;
        switch_to(t);
        if (t.error) std::rethrow_exception(t.error);
    };

    while (true) {
        for (std::size_t w = 0; w < warps.size(); ++w) {
            auto& lanes = warps[w];
            while (true) {
                bool ran = false;
                for (sim_thread* t : lanes)
                    if (t->state == thread_state::runnable || t->state == thread_state::yielded) {
                        resume(*t);
                        ran = true;
                    }
                if (bc.recording) steps += groupers[w].process(lanes);
                const bool woke = resolve_collectives(lanes, bc);
                if (!ran && !woke) break;
            }
        }
        // Every thread is finished, at a barrier, or stuck at a collective.
        std::size_t finished = 0, at_barrier = 0;
        const sim_thread* waiting = nullptr;
        const sim_thread* done = nullptr;
        for (const auto& t : threads) {
            if (t.state == thread_state::finished) {
                ++finished;
                done = &t;
            } else if (t.state == thread_state::at_barrier) {
                ++at_barrier;
                waiting = &t;
            }
        }
        if (finished == nthreads) break;
        if (at_barrier + finished == nthreads && finished == 0) {
            for (const auto& t : threads)
                if (t.wait_site != waiting->wait_site)
                    bc.fail(t, "waits at the barrier at " + where(t.wait_loc) + " while thread " +
                                   thread_name(*waiting) + " waits at the barrier at " + where(waiting->wait_loc) +
                                   ": a barrier must be reached by every thread of the block");
            // Past a barrier every thread stands at the same point of the
            // program, and every warp's instructions are complete (no lane
            // was running): occurrences count afresh, so a lane that made
            // more trips of a loop before the barrier (a binary search)
            // still meets its warp's other lanes at each site after it.
            for (auto& t : threads) {
                t.state = thread_state::runnable;
                t.sites.clear();
            }
            continue;
        }
        if (at_barrier > 0 && finished > 0)
            bc.fail(*waiting, "waits at the barrier at " + where(waiting->wait_loc) + " that thread " +
                                  thread_name(*done) +
                                  " never reaches (it has exited): a barrier must be reached "
                                  "by every thread of the block");
        for (const auto& t : threads)
            if (t.state == thread_state::at_collective)
                bc.fail(t, "waits at the warp collective at " + where(t.wait_loc) +
                               " for lanes of its mask that never reach it (exited or at a barrier)");
        throw internal_error("kernel " + std::string(bc.kernel) + ": the block can make no progress");
    }
    return steps;
}

}  // namespace agpu::sim::detail
