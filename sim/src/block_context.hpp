// What the kernel layer's hooks reach while a block runs: each simulated
// thread (its fiber, its records, its site counts, where it waits), the
// block's shared context (its shared memory and static arrays, whether it
// records), the thread-local pointers to both, and the switch from a thread
// back to the scheduler.
#pragma once

#include <cstdint>
#include <exception>
#include <source_location>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/kl/kl.hpp"
#include "agpu/model/machine.hpp"
#include "fiber_stacks.hpp"
#include "sites.hpp"
#include "synth_memory.hpp"

namespace agpu::sim::detail {

// What a record is.
enum class what : std::uint8_t {
    global_load,
    global_store,
    global_atomic,
    shared_load,
    shared_store,
    shared_atomic,
    barrier,
    collective,
    compute
};

struct record {
    std::uint64_t site;
    std::uint32_t occurrence;
    what w;
    std::uint32_t size;  // bytes of an access; n of a compute note
    std::uint64_t addr;  // global: address; shared: byte offset in the block's shared memory
};

enum class thread_state : std::uint8_t { runnable, yielded, at_barrier, at_collective, finished };

struct sim_thread {
    kl::hook::thread_info info;
    thread_state state = thread_state::runnable;
    ctx::fiber fiber;            // the thread's own context while suspended
    ctx::fiber caller;           // the scheduler's context while the thread runs
    stack_span stack;            // the fiber's stack
    stack_span caller_stack;     // the scheduler's, as ASan saw it when the fiber arrived
    void* fake_stack = nullptr;  // ASan's fake frames of the fiber while it is suspended
    bool abandoned = false;      // the block failed: unwind at the next resume
    std::vector<record> log;
    site_counter sites;
    std::size_t static_shared_next = 0;
    std::exception_ptr error;
    // At a barrier or collective.
    std::uint64_t wait_site = 0;
    std::source_location wait_loc;
    kl::hook::coll_op coll_op{};
    std::uint64_t coll_value = 0, coll_result = 0;
    int coll_arg = 0, coll_width = 0;
    kl::lane_mask coll_mask = 0;
};

// One launch's shared context, reachable from the hooks.
struct block_context {
    const model::machine* m = nullptr;
    std::string_view kernel;
    std::vector<std::byte> shared;  // the block's shared memory
    std::size_t shared_used = 0;    // bytes: dynamic region + static arrays so far
    struct static_array {
        std::size_t offset, bytes;
        std::string name;
    };
    std::vector<static_array> statics;
    std::size_t chunk_records = 256;
    // False while a block runs unrecorded (sampled mode): accesses are checked
    // against their spans but neither recorded nor costed.
    bool recording = true;
    bool global_atomic = false;      // some thread of the block made a global atomic
    synth_regions* synth = nullptr;  // the executor's self-filling memory (null when it has none)

    // Fills what a global access at p touches of self-filling memory first.
    void touch_global(const void* p, std::size_t bytes) const {
        if (!synth) return;
        for (auto& r : *synth)
            if (r->holds(p)) r->touch(p, bytes);
    }

    [[noreturn]] void fail(const sim_thread& t, const std::string& what) const {
        const auto& i = t.info;
        std::ostringstream os;
        os << "kernel " << kernel << ": block (" << i.block_idx.x << "," << i.block_idx.y << "," << i.block_idx.z
           << ") thread (" << i.thread_idx.x << "," << i.thread_idx.y << "," << i.thread_idx.z << "): " << what;
        throw kernel_error(os.str());
    }
};

// The thread running now and its block (set by the block runner; constant
// initialized, so the hooks read them without a guard).
inline constinit thread_local sim_thread* g_current = nullptr;
inline constinit thread_local block_context* g_block = nullptr;

// Thrown in a fiber of a failed block when the scheduler resumes it, so that
// its frames unwind; caught where the fiber starts.
struct block_abandoned {};

inline void yield_to_scheduler(sim_thread& t, thread_state s) {
    t.state = s;
    leaving_stack(&t.fake_stack, t.caller_stack);
    t.caller = std::move(t.caller).resume();
    arrived_on_stack(t.fake_stack, &t.caller_stack);
    g_current = &t;  // resumed: this thread runs again
    if (t.abandoned) throw block_abandoned{};
}

inline sim_thread& current_thread() {
    if (!g_current) throw internal_error("the kernel layer was called outside the simulator");
    return *g_current;
}

// Records in place (a record assembled on the stack and copied made the
// copy's wide loads wait on its narrow stores: a fifth of the engine's time).
inline void push_record(sim_thread& t, std::uint64_t site, std::uint32_t occurrence, what w, std::uint32_t size,
                        std::uint64_t addr) {
    t.log.emplace_back(site, occurrence, w, size, addr);
    if (t.log.size() >= g_block->chunk_records) yield_to_scheduler(t, thread_state::yielded);
}

}  // namespace agpu::sim::detail
