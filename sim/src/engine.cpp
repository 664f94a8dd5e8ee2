// The AGPU execution engine.
//
// What it does for one launch: every thread block runs on its own, block 0
// first, the rest claimed in block order by one block_runner per host thread
// (one thread only if block 0 made a global atomic); inside a block every
// thread runs on a fiber (Boost.Context) that
// yields at a barrier, a warp collective, or after a chunk of recorded
// accesses. A warp's lanes run one after another; each lane's records carry a
// key (source site, how many times this lane has reached that site), and the
// records of one key across the lanes of a warp form one warp-instruction:
// lanes executing the same access in program order, the lanes that took
// another path forming instructions of their own. Each instruction is costed
// on the machine (see coster), and each block's steps are placed on the k
// MPs greedily in block order; the launch's time is the busiest MP's.
//
// Sampled mode (plan_sample): only the first, the last and one random block
// per stratum are recorded; the others run with recording off (hooks only
// check spans) or, in a launch declared data-independent, not at all; the
// recorded blocks' counters are extrapolated per stratum with a variance
// estimate, and unrecorded blocks take their stratum's steps on the MPs.
//
// Assumptions: a barrier must be reached by every thread of the block, at the
// same site (CUDA leaves the rest undefined); a collective must be reached by
// every lane of its mask. Both are checked and reported as kernel errors.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <numeric>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <random>
#include <fstream>
#include <mutex>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define AGPU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AGPU_ASAN 1
#endif
#endif
#ifdef AGPU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#include "agpu/model/costing.hpp"
#include "agpu/sim/executor.hpp"

namespace agpu::sim {

namespace ctx = boost::context;

struct block_context;

counts run_record::totals() const {
    counts t;
    for (const auto& l : launches) t.merge(l.c);
    return t;
}

namespace {

// What a record is.
enum class what : std::uint8_t {
    global_load, global_store, global_atomic, shared_load, shared_store, shared_atomic, barrier, collective, compute
};

struct record {
    std::uint64_t site;
    std::uint32_t occurrence;
    what w;
    std::uint32_t size;  // bytes of an access; n of a compute note
    std::uint64_t addr;  // global: address; shared: byte offset in the block's shared memory
};

enum class thread_state : std::uint8_t { runnable, yielded, at_barrier, at_collective, finished };

// AddressSanitizer and the fibers. ASan keeps one stack per host thread; it
// follows a switch to a fiber only when told, on both sides: the side that
// leaves calls leaving_stack (naming the stack it goes to), the side that
// arrives calls arrived_on_stack. Boost.Context as Debian builds it (fcontext)
// does not, so the engine does, at every switch it makes: the scheduler
// resuming a fiber, a fiber starting, yielding and ending. Without this a
// kernel error thrown in a fiber makes ASan unpoison the wrong stack and
// report the frames it unwinds (google/sanitizers#189). Without ASan these
// are empty.
struct stack_span {
    const void* bottom = nullptr;
    std::size_t size = 0;
};

// fake_stack: where ASan keeps the leaving side's fake frames (nullptr: the
// leaving fiber ends, and they are freed).
void leaving_stack([[maybe_unused]] void** fake_stack, [[maybe_unused]] stack_span to) {
#ifdef AGPU_ASAN
    __sanitizer_start_switch_fiber(fake_stack, to.bottom, to.size);
#endif
}

// from: if not null, receives the stack that was left.
void arrived_on_stack([[maybe_unused]] void* fake_stack, [[maybe_unused]] stack_span* from) {
#ifdef AGPU_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, from ? &from->bottom : nullptr, from ? &from->size : nullptr);
#endif
}

// A fiber stack's shadow cleared when the stack is mapped and before it is
// unmapped: frames that never returned (at its address before, or Boost's
// fiber_entry) leave redzones poisoned. Not between blocks: with the switches
// annotated every frame a fiber pushes returns or is unwound, except
// fiber_entry, which the stack's next fiber re-creates in the same place (no
// other poison was left after any block of the asan tests). Clearing every
// stack for every block took half the time of the longest tests under ASan.
void unpoison_stack([[maybe_unused]] void* bottom, [[maybe_unused]] std::size_t bytes) {
#ifdef AGPU_ASAN
    __asan_unpoison_memory_region(bottom, bytes);
#endif
}

std::uint64_t site_key(const std::source_location& l) {
    // file_name() is one string literal per translation unit: its address,
    // line and column identify the site.
    auto h = reinterpret_cast<std::uintptr_t>(l.file_name());
    h ^= (std::uint64_t(l.line()) << 20) ^ (std::uint64_t(l.column()) << 48) ^ (std::uint64_t(l.line()) >> 44);
    return h * 0x9E3779B97F4A7C15ull;
}

std::string where(const std::source_location& l) {
    std::string f = l.file_name();
    const auto slash = f.find_last_of('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    return f + ":" + std::to_string(l.line());
}

// Occurrences of each site in one lane: a small open-addressing table whose
// clear() is O(1) (a generation number marks the live slots).
class site_counter {
public:
    std::uint32_t next(std::uint64_t site) {
        if (m_used * 2 >= m_slots.size()) grow();
        std::size_t i = site & (m_slots.size() - 1);
        while (true) {
            auto& s = m_slots[i];
            if (s.generation != m_generation) {
                s = {site, 1, m_generation};
                ++m_used;
                return 0;
            }
            if (s.site == site) return s.count++;
            i = (i + 1) & (m_slots.size() - 1);
        }
    }
    std::uint32_t count(std::uint64_t site) const {
        std::size_t i = site & (m_slots.size() - 1);
        while (true) {
            const auto& s = m_slots[i];
            if (s.generation != m_generation) return 0;
            if (s.site == site) return s.count;
            i = (i + 1) & (m_slots.size() - 1);
        }
    }
    void clear() {
        m_used = 0;
        if (++m_generation == 0) {  // wrapped: really clear
            std::fill(m_slots.begin(), m_slots.end(), slot{});
            m_generation = 1;
        }
    }

private:
    struct slot {
        std::uint64_t site = 0;
        std::uint32_t count = 0;
        std::uint32_t generation = 0;
    };
    void grow() {
        std::vector<slot> old = std::move(m_slots);
        m_slots.assign(old.size() * 2, slot{});
        m_used = 0;
        for (const auto& s : old)
            if (s.generation == m_generation) {
                std::size_t i = s.site & (m_slots.size() - 1);
                while (m_slots[i].generation == m_generation) i = (i + 1) & (m_slots.size() - 1);
                m_slots[i] = s;
                ++m_used;
            }
    }
    std::vector<slot> m_slots = std::vector<slot>(16);
    std::size_t m_used = 0;
    std::uint32_t m_generation = 1;
};

struct sim_thread {
    kl::hook::thread_info info;
    thread_state state = thread_state::runnable;
    ctx::fiber fiber;   // the thread's own context while suspended
    ctx::fiber caller;  // the scheduler's context while the thread runs
    stack_span stack;          // the fiber's stack
    stack_span caller_stack;   // the scheduler's, as ASan saw it when the fiber arrived
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

// Stacks for the fibers of one block, reused across blocks and launches.
class stack_pool {
public:
    explicit stack_pool(std::size_t bytes) : m_bytes(round_up(bytes)) {}
    ~stack_pool() {
        for (void* p : m_stacks) {
            unpoison_stack(p, m_bytes + page());
            munmap(p, m_bytes + page());
        }
    }
    stack_pool(const stack_pool&) = delete;
    stack_pool& operator=(const stack_pool&) = delete;
    // Stack i: a guard page below m_bytes of usable stack.
    ctx::stack_context get(std::size_t i) {
        while (m_stacks.size() <= i) {
            void* p = mmap(nullptr, m_bytes + page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED) throw std::bad_alloc();
            mprotect(p, page(), PROT_NONE);
            unpoison_stack(p, m_bytes + page());
            m_stacks.push_back(p);
        }
        ctx::stack_context sc;
        sc.size = m_bytes;
        sc.sp = static_cast<char*>(m_stacks[i]) + page() + m_bytes;
        return sc;
    }

private:
    static std::size_t page() {
        static const std::size_t bytes = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        return bytes;
    }
    static std::size_t round_up(std::size_t b) { return (b + page() - 1) / page() * page(); }
    std::size_t m_bytes;
    std::vector<void*> m_stacks;
};

// The stack allocator a fiber is given: stacks belong to the pool.
struct pooled_stack {
    ctx::stack_context allocate() { return {}; }
    void deallocate(ctx::stack_context&) noexcept {}
};

thread_local sim_thread* g_current = nullptr;
thread_local block_context* g_block = nullptr;

// Simulated memory that fills itself (executor::alloc_synthesized): a unit of
// synth_unit_bytes is filled on its first touch, under one of the region's
// locks (units spread over them, so the threads running blocks fill in
// parallel); a flag per unit (acquire/release) lets later touches skip the
// lock.
struct synth_region {
    static constexpr std::size_t locks = 64;
    std::byte* base = nullptr;
    std::size_t bytes = 0;
    std::function<void(std::uint64_t, std::uint64_t, void*)> fill;
    std::unique_ptr<std::atomic<std::uint8_t>[]> ready;
    std::array<std::mutex, locks> m;

    std::size_t units() const { return (bytes + executor::synth_unit_bytes - 1) / executor::synth_unit_bytes; }
    bool holds(const void* p) const {
        const auto* q = static_cast<const std::byte*>(p);
        return q >= base && q < base + bytes;
    }
    void touch(const void* p, std::size_t n) {
        constexpr std::size_t unit = executor::synth_unit_bytes;
        const std::size_t first = std::size_t(static_cast<const std::byte*>(p) - base);
        const std::size_t last = std::min(bytes, first + std::max<std::size_t>(n, 1)) - 1;
        for (std::size_t u = first / unit; u <= last / unit; ++u) {
            if (ready[u].load(std::memory_order_acquire)) continue;
            std::lock_guard<std::mutex> lock(m[u % locks]);
            if (ready[u].load(std::memory_order_relaxed)) continue;
            fill(u * unit, std::min(unit, bytes - u * unit), base + u * unit);
            ready[u].store(1, std::memory_order_release);
        }
    }
};
using synth_regions = std::vector<std::unique_ptr<synth_region>>;

}  // namespace

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
    bool global_atomic = false;  // some thread of the block made a global atomic
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

namespace {

// Thrown in a fiber of a failed block when the scheduler resumes it, so that
// its frames unwind; caught where the fiber starts.
struct block_abandoned {};

void yield_to_scheduler(sim_thread& t, thread_state s) {
    t.state = s;
    leaving_stack(&t.fake_stack, t.caller_stack);
    t.caller = std::move(t.caller).resume();
    arrived_on_stack(t.fake_stack, &t.caller_stack);
    g_current = &t;  // resumed: this thread runs again
    if (t.abandoned) throw block_abandoned{};
}

sim_thread& current_thread() {
    if (!g_current) throw internal_error("the kernel layer was called outside the simulator");
    return *g_current;
}

// Records in place (a record assembled on the stack and copied made the
// copy's wide loads wait on its narrow stores: a fifth of the engine's time).
void push_record(sim_thread& t, std::uint64_t site, std::uint32_t occurrence, what w, std::uint32_t size,
                 std::uint64_t addr) {
    t.log.emplace_back(site, occurrence, w, size, addr);
    if (t.log.size() >= g_block->chunk_records) yield_to_scheduler(t, thread_state::yielded);
}

}  // namespace
}  // namespace agpu::sim

// ---- the kernel layer's hooks ----
namespace agpu::kl::inline sim_backend::hook {

using namespace agpu::sim;

const thread_info& current() { return current_thread().info; }

void access(space s, kind k, const void* p, std::size_t bytes, std::size_t index, std::size_t size,
            const std::source_location& l) {
    auto& t = current_thread();
    if (index >= size) {
        static const char* space_name[] = {"global", "shared"};
        static const char* kind_name[] = {"load", "store", "atomic"};
        g_block->fail(t, std::string(space_name[int(s)]) + " " + kind_name[int(k)] + " at index " +
                             std::to_string(index) + " outside its span of " + std::to_string(size) +
                             " elements (" + where(l) + ")");
    }
    if (s == space::global) g_block->touch_global(p, bytes);
    if (!g_block->recording) {
        if (s == space::global) {
            g_block->global_atomic |= k == kind::atomic;
        } else {
            const auto* base = g_block->shared.data();
            const auto* q = static_cast<const std::byte*>(p);
            AGPU_CHECK(q >= base && q + bytes <= base + g_block->shared.size(),
                       "shared access outside the block's shared memory");
        }
        return;
    }
    const std::uint64_t site = site_key(l);
    const std::uint32_t occurrence = t.sites.next(site);
    if (s == space::global) {
        g_block->global_atomic |= k == kind::atomic;
        push_record(t, site, occurrence,
                    k == kind::load ? what::global_load : k == kind::store ? what::global_store : what::global_atomic,
                    static_cast<std::uint32_t>(bytes), reinterpret_cast<std::uintptr_t>(p));
    } else {
        const auto* base = g_block->shared.data();
        const auto* q = static_cast<const std::byte*>(p);
        AGPU_CHECK(q >= base && q + bytes <= base + g_block->shared.size(), "shared access outside the block's shared memory");
        push_record(t, site, occurrence,
                    k == kind::load ? what::shared_load : k == kind::store ? what::shared_store : what::shared_atomic,
                    static_cast<std::uint32_t>(bytes), static_cast<std::uint64_t>(q - base));
    }
}

void skip(space s, kind k, const std::source_location& l) {
    auto& t = current_thread();
    if (!g_block->recording) return;
    const std::uint64_t site = site_key(l);
    const std::uint32_t occurrence = t.sites.next(site);
    const what w = s == space::global
                       ? (k == kind::load ? what::global_load : k == kind::store ? what::global_store : what::global_atomic)
                       : (k == kind::load ? what::shared_load : k == kind::store ? what::shared_store : what::shared_atomic);
    push_record(t, site, occurrence, w, 0, 0);
}

void barrier(const std::source_location& l) {
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    if (g_block->recording) t.log.push_back({site, t.sites.next(site), what::barrier, 0, 0});
    t.wait_site = site;
    t.wait_loc = l;
    yield_to_scheduler(t, thread_state::at_barrier);
}

std::uint64_t collective(coll_op op, std::uint64_t value, int arg, lane_mask mask, int width,
                         const std::source_location& l) {
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    if (g_block->recording) t.log.push_back({site, t.sites.next(site), what::collective, 0, 0});
    t.wait_site = site;
    t.wait_loc = l;
    t.coll_op = op;
    t.coll_value = value;
    t.coll_arg = arg;
    t.coll_width = width;
    const unsigned b = t.info.warp_size;
    t.coll_mask = b >= 64 ? mask : (mask & ((lane_mask{1} << b) - 1));
    if (!(t.coll_mask >> t.info.lane & 1))
        g_block->fail(t, "warp collective at " + where(l) + ": the calling lane is not in its mask");
    yield_to_scheduler(t, thread_state::at_collective);
    return t.coll_result;
}

void compute(unsigned n, const std::source_location& l) {
    if (n == 0 || !g_block->recording) return;
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    push_record(t, site, t.sites.next(site), what::compute, n, 0);
}

void* static_shared(std::size_t bytes, std::size_t align, const char* name) {
    auto& t = current_thread();
    auto& b = *g_block;
    const std::size_t i = t.static_shared_next++;
    if (i < b.statics.size()) {
        if (b.statics[i].bytes != bytes || b.statics[i].name != name)
            b.fail(t, std::string("static shared array '") + name + "' differs from the block's " + std::to_string(i) +
                          "-th ('" + b.statics[i].name + "'): every thread must declare the same arrays in the same order");
        return b.shared.data() + b.statics[i].offset;
    }
    const std::size_t offset = (b.shared_used + align - 1) / align * align;
    if (offset + bytes > b.shared.size()) {
        const auto wb = b.m->word_bytes();
        b.fail(t, "shared memory of " + std::to_string((offset + bytes + wb - 1) / wb) + " words (static array '" + name +
                      "' included) exceeds M = " + std::to_string(b.m->M) + " words");
    }
    b.statics.push_back({offset, bytes, name});
    b.shared_used = offset + bytes;
    return b.shared.data() + offset;
}

}  // namespace agpu::kl::inline sim_backend::hook

namespace agpu::sim {
namespace {

// One warp-instruction being assembled: the accesses of its lanes.
struct instruction {
    what w{};
    std::uint32_t compute_n = 0;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> accesses;  // (addr, bytes) per lane
    std::vector<std::uint32_t> lanes;                               // the lane of each access
};

// Costs one warp-instruction: adds to the block's counters, returns its steps.
class coster {
public:
    explicit coster(const model::machine& m) : m_rules(m) {}
    std::uint64_t cost(const instruction& in, counts& c) {
        c[counter::warp_instructions] += in.w == what::compute ? in.compute_n : 1;
        switch (in.w) {
            case what::barrier: c[counter::barrier_instructions] += 1; return 1;
            case what::collective: c[counter::collective_instructions] += 1; return 1;
            case what::compute: c[counter::compute_instructions] += in.compute_n; return in.compute_n;
            default: break;
        }
        // Lanes predicated off (load_if/store_if) join with accesses of no
        // bytes: the warp issues the instruction whatever its lanes do; an
        // instruction with no lane on moves nothing (no request, no wavefront).
        const instruction* real = &in;
        if (std::any_of(in.accesses.begin(), in.accesses.end(), [](const auto& a) { return a.second == 0; })) {
            m_on.w = in.w;
            m_on.accesses.clear();
            m_on.lanes.clear();
            for (std::size_t i = 0; i < in.accesses.size(); ++i)
                if (in.accesses[i].second != 0) {
                    m_on.accesses.push_back(in.accesses[i]);
                    m_on.lanes.push_back(in.lanes[i]);
                }
            real = &m_on;
        }
        c[counter::lane_accesses] += real->accesses.size();
        if (real->accesses.empty()) {
            switch (in.w) {
                case what::global_load: c[counter::global_load_instructions] += 1; break;
                case what::global_store: c[counter::global_store_instructions] += 1; break;
                case what::global_atomic: c[counter::global_atomic_instructions] += 1; break;
                case what::shared_load: c[counter::shared_load_instructions] += 1; break;
                case what::shared_store: c[counter::shared_store_instructions] += 1; break;
                default: c[counter::shared_atomic_instructions] += 1; break;
            }
            return 1;
        }
        return cost_accesses(*real, c);
    }

private:
    std::uint64_t cost_accesses(const instruction& in, counts& c) {
        if (in.w == what::global_load || in.w == what::global_store || in.w == what::global_atomic) {
            const auto blocks = m_rules.blocks(in.accesses);
            c[counter::io_blocks] += blocks;
            if (in.w == what::global_atomic) {
                c[counter::global_atomic_instructions] += 1;
                c[counter::global_atomic_sectors] += m_rules.atomic_sectors(in.accesses);
                c[counter::global_atomic_blocks] += blocks;
            } else {
                model::add_global(c, in.w == what::global_load, 1, m_rules.sectors(in.accesses), blocks);
            }
            return 1;
        }
        const model::bank_cost cost = m_rules.shared(in.accesses, in.lanes);
        model::add_shared(c, in.w == what::shared_load    ? model::shared_op::load
                             : in.w == what::shared_store ? model::shared_op::store
                                                          : model::shared_op::atomic,
                          1, cost);
        return cost.wf;
    }
    model::access_coster m_rules;
    instruction m_on;  // the lanes that are on, where some are predicated off
};

// A warp's pending instructions by (site, occurrence): an open-addressing
// index over a pool of instructions whose buffers are reused, so a divergent
// warp allocates nothing per instruction once warm. An instruction completed
// stays in the pool, marked, until every one has completed (its key cannot
// recur before: no running lane can reach it, and occurrences count afresh
// only at a barrier or collective, when every instruction completes).
class pending_instructions {
public:
    struct entry {
        std::uint64_t site = 0;
        std::uint32_t occurrence = 0;
        bool done = false;
        std::size_t slot = 0;
        instruction in;
    };

    bool empty() const { return m_live == 0; }
    instruction& at(std::uint64_t site, std::uint32_t occurrence) {
        if (2 * (m_used + 1) > m_index.size()) grow();
        std::size_t i = slot_of(site, occurrence);
        while (m_index[i] != none) {
            auto& e = m_pool[m_index[i]];
            if (e.site == site && e.occurrence == occurrence) return e.in;
            i = (i + 1) & (m_index.size() - 1);
        }
        if (m_used == m_pool.size()) m_pool.emplace_back();
        auto& e = m_pool[m_used];
        e.site = site;
        e.occurrence = occurrence;
        e.done = false;
        e.slot = i;
        e.in.w = {};
        e.in.compute_n = 0;
        e.in.accesses.clear();
        e.in.lanes.clear();
        m_index[i] = static_cast<std::uint32_t>(m_used++);
        ++m_live;
        return e.in;
    }
    // complete(entry) -> whether it completes now; cost(instruction) for each that does.
    template <class Complete, class Cost>
    void settle(Complete complete, Cost cost) {
        for (std::size_t j = 0; j < m_used; ++j) {
            auto& e = m_pool[j];
            if (e.done || !complete(e)) continue;
            cost(e.in);
            e.done = true;
            --m_live;
        }
        if (m_live == 0) {
            for (std::size_t j = 0; j < m_used; ++j) m_index[m_pool[j].slot] = none;
            m_used = 0;
        }
    }

private:
    static constexpr std::uint32_t none = ~std::uint32_t(0);
    std::size_t slot_of(std::uint64_t site, std::uint32_t occurrence) const {
        const std::uint64_t h = (site ^ (std::uint64_t(occurrence) * 0xff51afd7ed558ccdull)) * 0x9E3779B97F4A7C15ull;
        return std::size_t(h >> 32) & (m_index.size() - 1);
    }
    void grow() {
        m_index.assign(std::max<std::size_t>(64, 2 * m_index.size()), none);
        for (std::size_t j = 0; j < m_used; ++j) {
            auto& e = m_pool[j];
            std::size_t i = slot_of(e.site, e.occurrence);
            while (m_index[i] != none) i = (i + 1) & (m_index.size() - 1);
            m_index[i] = std::uint32_t(j);
            e.slot = i;
        }
    }
    std::vector<entry> m_pool;
    std::vector<std::uint32_t> m_index;
    std::size_t m_used = 0, m_live = 0;
};

// Groups one warp's lane records into warp-instructions.
class warp_grouper {
public:
    warp_grouper(coster& cst, counts& c) : m_coster(cst), m_c(c) {}

    // Processes the lanes' current logs; `running[l]` says lane l may still
    // record more before the warp's next reconvergence. Returns steps.
    std::uint64_t process(std::vector<sim_thread*>& lanes) {
        std::uint64_t steps = 0;
        m_part.clear();
        for (auto* t : lanes)
            if (!t->log.empty()) m_part.push_back(t);
        if (!m_part.empty()) steps += m_pending.empty() && lockstep() ? process_lockstep() : process_divergent();
        for (auto* t : m_part) t->log.clear();
        // Pending instructions complete once no running lane can still join them.
        if (m_pending.empty()) return steps;
        bool any_running = false;
        for (auto* t : lanes) any_running |= t->state == thread_state::yielded;
        m_pending.settle(
            [&](const pending_instructions::entry& e) {
                if (any_running)
                    for (auto* t : lanes)
                        if (t->state == thread_state::yielded && t->sites.count(e.site) <= e.occurrence) return false;
                return true;
            },
            [&](const instruction& in) { steps += m_coster.cost(in, m_c); });
        return steps;
    }

private:
    bool lockstep() const {
        const auto& first = m_part.front()->log;
        for (auto* t : m_part) {
            if (t->log.size() != first.size()) return false;
            for (std::size_t j = 0; j < first.size(); ++j)
                if (t->log[j].site != first[j].site || t->log[j].occurrence != first[j].occurrence) return false;
        }
        return true;
    }
    std::uint64_t process_lockstep() {
        std::uint64_t steps = 0;
        const std::size_t len = m_part.front()->log.size();
        for (std::size_t j = 0; j < len; ++j) {
            const record& r0 = m_part.front()->log[j];
            m_in.w = r0.w;
            m_in.compute_n = r0.w == what::compute ? r0.size : 0;
            m_in.accesses.clear();
            m_in.lanes.clear();
            if (r0.w != what::barrier && r0.w != what::collective && r0.w != what::compute)
                for (auto* t : m_part) {
                    m_in.accesses.emplace_back(t->log[j].addr, t->log[j].size);
                    m_in.lanes.push_back(t->info.lane);
                }
            steps += m_coster.cost(m_in, m_c);
        }
        return steps;
    }
    std::uint64_t process_divergent() {
        for (auto* t : m_part)
            for (const record& r : t->log) {
                auto& in = m_pending.at(r.site, r.occurrence);
                in.w = r.w;
                if (r.w == what::compute) in.compute_n = std::max(in.compute_n, r.size);
                else if (r.w != what::barrier && r.w != what::collective) {
                    in.accesses.emplace_back(r.addr, r.size);
                    in.lanes.push_back(t->info.lane);
                }
            }
        return 0;
    }
    coster& m_coster;
    counts& m_c;
    std::vector<sim_thread*> m_part;
    instruction m_in;
    pending_instructions m_pending;
};

}  // namespace

std::uint64_t host_available_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : ~std::uint64_t{0};
}

std::string gib(std::uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / double(1ull << 30));
    return buf;
}

std::uint64_t device_memory_limit(const engine_options& opt) {
    return opt.device_memory_limit ? opt.device_memory_limit : host_available_bytes() / 2;
}

void* executor::allocate_bytes(std::size_t bytes) {
    const std::size_t rounded = std::max<std::size_t>(4096, (bytes + 4095) / 4096 * 4096);
    if (m_allocated + rounded > m_memory_limit)
        throw host_memory_error(
            "host memory",
            "the run needs more than " + gib(m_allocated + rounded) + " of simulated device memory (an allocation of " +
                gib(rounded) + " after " + gib(m_allocated) + "), and the simulator needs about twice that on the host "
                "(the simulated memory plus the inputs and CPU reference): " + gib(2 * (m_allocated + rounded)) +
                ", more than this host's " + gib(2 * m_memory_limit) +
                " available; use a smaller n, or agpu predict, whose closed forms need no memory");
    void* p = std::aligned_alloc(4096, rounded);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0xA5, rounded);
    m_allocations.emplace_back(p, rounded);
    m_allocated += rounded;
    return p;
}

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
            if (mask >> o & 1) ready = lanes[o]->state == thread_state::at_collective && lanes[o]->coll_mask == mask &&
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
                    u->coll_result = long(o) - u->coll_arg >= long(seg) ? value_of(long(o) - u->coll_arg) : u->coll_value;
                    break;
                case kl::hook::coll_op::shfl_down:
                    u->coll_result = long(o) + u->coll_arg < long(seg) + width ? value_of(long(o) + u->coll_arg) : u->coll_value;
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
                bc.fail(*u, "warp collective at " + where(u->wait_loc) + ": lanes of one mask called different collectives");
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
    block_context bc;
    counts bcounts;  // the last block's counters
    std::vector<sim_thread> threads;
    std::vector<std::vector<sim_thread*>> warps;
    std::vector<warp_grouper> groupers;
    kl::dim3 grid, block;
    std::size_t dynamic_shared_bytes = 0;
    void (*body)(void*) = nullptr;
    void* arg = nullptr;

    void prepare(std::string_view kernel, kl::dim3 g, kl::dim3 b, std::size_t dyn, void (*f)(void*), void* a,
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
        groupers.clear();
        groupers.reserve(warps.size());
        for (std::size_t w = 0; w < warps.size(); ++w) groupers.emplace_back(cst, bcounts);
    }

    // Runs block `bid` (recorded or not); returns its steps (0 unrecorded),
    // its counters in bcounts.
    std::uint64_t run(std::uint64_t bid, bool record) {
        g_block = &bc;
        bc.recording = record;
        bc.global_atomic = false;
        try {
            return run_block(bid);  // every thread finished: no fiber is left
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

private:
    // Runs thread t until it yields or ends.
    void switch_to(sim_thread& t) {
        void* fake_stack = nullptr;
        g_current = &t;
        leaving_stack(&fake_stack, t.stack);
        t.fiber = std::move(t.fiber).resume();
        arrived_on_stack(fake_stack, nullptr);
        g_current = nullptr;
    }

    std::uint64_t run_block(std::uint64_t bid) {
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
                        bc.fail(t, "waits at the barrier at " + where(t.wait_loc) + " while thread " + thread_name(*waiting) +
                                       " waits at the barrier at " + where(waiting->wait_loc) +
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
                                      thread_name(*done) + " never reaches (it has exited): a barrier must be reached "
                                      "by every thread of the block");
            for (const auto& t : threads)
                if (t.state == thread_state::at_collective)
                    bc.fail(t, "waits at the warp collective at " + where(t.wait_loc) +
                                   " for lanes of its mask that never reach it (exited or at a barrier)");
            throw internal_error("kernel " + std::string(bc.kernel) + ": the block can make no progress");
        }
        return steps;
    }
};

std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Which blocks of a sampled launch are recorded: the first, the last, and one
// drawn from each of `strata` equal strata of the blocks between.
struct sample_plan {
    std::vector<std::uint64_t> recorded;  // ascending block ids
    std::uint64_t strata = 0;             // 0: every block recorded (exact)
    std::uint64_t interior = 0;           // blocks between the first and the last
    // The stratum of interior block `bid` (1 <= bid <= interior).
    std::uint64_t stratum_of(std::uint64_t bid) const {
        // Stratum h covers [1 + floor(h·N/S), 1 + floor((h+1)·N/S)).
        std::uint64_t h = ((bid - 1) * strata + strata - 1) / interior;
        while (h > 0 && 1 + h * interior / strata > bid) --h;
        while (h + 1 < strata && 1 + (h + 1) * interior / strata <= bid) ++h;
        return h;
    }
    std::uint64_t stratum_begin(std::uint64_t h) const { return 1 + h * interior / strata; }
    bool is_recorded(std::uint64_t bid) const {
        return strata == 0 || std::binary_search(recorded.begin(), recorded.end(), bid);
    }
};

sample_plan plan_sample(std::uint64_t nblocks, std::uint64_t strata, std::uint64_t seed, std::uint64_t launch_index) {
    sample_plan p;
    if (strata == 0 || nblocks <= 2 * strata + 2) return p;
    p.strata = strata;
    p.interior = nblocks - 2;
    p.recorded.push_back(0);
    for (std::uint64_t h = 0; h < p.strata; ++h) {
        const std::uint64_t lo = p.stratum_begin(h), hi = p.stratum_begin(h + 1);
        p.recorded.push_back(lo + splitmix(seed ^ splitmix(launch_index * 0x100000001ull + h)) % (hi - lo));
    }
    p.recorded.push_back(nblocks - 1);
    return p;
}

// Student's t 97.5% quantile for df degrees of freedom over 1.96: how much a
// normal 95% interval widens when its variance is estimated from few samples.
double t_factor(std::uint64_t df) {
    static constexpr double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                   2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                   2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    const double q = df == 0 ? t[0] : df <= 30 ? t[df - 1] : 1.96 + 2.4 / double(df);
    return q / 1.96;
}

// A launch's chain_waits: its heaviest block's waits per warp.
std::uint64_t heaviest_chain(const std::vector<std::uint64_t>& block_waits, std::uint64_t block_threads,
                             const model::machine& m) {
    std::uint64_t most = 0;
    for (auto s : block_waits) most = std::max(most, s);
    return model::launch_chain(most, block_threads, m.b);
}
// Where the chain comes from sampled blocks only, the heaviest of the others
// is unseen: its variance is taken as the sampled blocks' spread (per warp).
double chain_variance(const std::vector<std::uint64_t>& sampled_waits, std::uint64_t block_threads,
                      const model::machine& m) {
    if (sampled_waits.size() < 2) return 0;
    double mean = 0, ss = 0;
    for (auto w : sampled_waits) mean += double(w);
    mean /= double(sampled_waits.size());
    for (auto w : sampled_waits) ss += (double(w) - mean) * (double(w) - mean);
    const double warps = double(std::max<std::uint64_t>(1, (block_threads + m.b - 1) / m.b));
    return ss / double(sampled_waits.size() - 1) / (warps * warps);
}

// The counters a launch knows exactly, whatever it sampled.
bool exact_counter(counter c) {
    return c == counter::launches || c == counter::thread_blocks || c == counter::threads;
}

// s² of values in a sequence from their successive differences,
// Σ(y_{i+1} - y_i)² / (2(n - 1)): robust to a smooth trend along the sequence.
template <class Value>
double successive_variance(std::size_t n, Value value) {
    if (n < 2) return 0;
    double sq = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) sq += (value(i + 1) - value(i)) * (value(i + 1) - value(i));
    return sq / (2.0 * double(n - 1));
}

// The makespan of a launch whose blocks' steps are random: its mean and
// variance over replications of them (replicate(rng, steps) draws one; fixed
// seed). The busiest MP's load is a maximum, so noise in the blocks raises
// it: the makespan of the blocks' expected steps alone is low.
struct makespan_spread {
    double mean = 0, var = 0;
};
template <class Replicate>
makespan_spread replicated_makespan(std::size_t nblocks, std::uint64_t k, Replicate replicate) {
    const std::uint64_t reps = std::clamp<std::uint64_t>((std::uint64_t(1) << 20) / std::max<std::size_t>(1, nblocks), 8, 64);
    std::mt19937_64 rng(0x5eed);
    std::vector<std::uint64_t> v(nblocks);
    double sum = 0, sq = 0;
    for (std::uint64_t r = 0; r < reps; ++r) {
        replicate(rng, v);
        const double m = double(model::greedy_makespan(v, k));
        sum += m;
        sq += m * m;
    }
    const double mean = sum / double(reps);
    return {mean, std::max(0.0, (sq - double(reps) * mean * mean) / double(reps - 1))};
}

std::uint64_t nonnegative(double x) { return static_cast<std::uint64_t>(std::llround(std::max(0.0, x))); }

}  // namespace

struct executor::engine {
    // One runner per host thread that runs blocks (created on first use).
    std::vector<std::unique_ptr<block_runner>> runners;
    synth_regions synth;                               // self-filling memory with a fill
    std::vector<std::pair<void*, std::size_t>> maps;   // every self-filling region's mapping
};

executor::executor(model::device dev, engine_options opt)
    : m_dev(std::move(dev)), m_opt(std::move(opt)), m_engine(std::make_unique<engine>()) {
    m_dev.agpu.validate("device " + m_dev.id);
    m_memory_limit = device_memory_limit(m_opt);
}

executor::~executor() {
    for (auto [p, n] : m_allocations) std::free(p);
    for (auto [p, n] : m_engine->maps) munmap(p, n);
}

void* executor::allocate_synthesized(std::size_t bytes, std::function<void(std::uint64_t, std::uint64_t, void*)> fill) {
    const std::size_t rounded = std::max<std::size_t>(4096, (bytes + 4095) / 4096 * 4096);
    // Pages come from the kernel zeroed on first touch: untouched ones cost nothing.
    void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    m_engine->maps.emplace_back(p, rounded);
    if (fill) {
        auto r = std::make_unique<synth_region>();
        r->base = static_cast<std::byte*>(p);
        r->bytes = bytes;
        r->fill = std::move(fill);
        r->ready = std::make_unique<std::atomic<std::uint8_t>[]>(r->units());
        m_engine->synth.push_back(std::move(r));
    }
    return p;
}

void executor::refill_synthesized(const void* p, std::function<void(std::uint64_t, std::uint64_t, void*)> fill) {
    auto& synth = m_engine->synth;
    const auto r = std::find_if(synth.begin(), synth.end(), [&](const auto& e) { return e->base == p; });
    AGPU_CHECK(r != synth.end(), "refill_synthesized: not the start of self-filling memory with a fill");
    (*r)->fill = std::move(fill);
    (*r)->ready = std::make_unique<std::atomic<std::uint8_t>[]>((*r)->units());
}

void executor::release_synthesized(const void* p) {
    auto& maps = m_engine->maps;
    const auto m = std::find_if(maps.begin(), maps.end(), [&](const auto& e) { return e.first == p; });
    AGPU_CHECK(m != maps.end(), "release_synthesized: not the start of self-filling memory");
    auto& synth = m_engine->synth;
    synth.erase(std::remove_if(synth.begin(), synth.end(), [&](const auto& r) { return r->base == p; }), synth.end());
    munmap(m->first, m->second);
    maps.erase(m);
}

void executor::materialize_bytes(const void* p, std::size_t bytes) {
    if (bytes == 0) return;
    for (auto& r : m_engine->synth)
        if (r->holds(p)) r->touch(p, bytes);
}

std::string to_string(sim_mode m) { return m == sim_mode::exact ? "exact" : "sampled"; }

std::string to_string(launch_estimate e) {
    switch (e) {
        case launch_estimate::exact: return "exact";
        case launch_estimate::stratified: return "stratified";
        case launch_estimate::linear: break;
    }
    return "linear";
}

bool launch_record::sampled() const {
    return blocks_recorded > 0 && blocks_recorded < std::uint64_t(grid.x) * grid.y * grid.z;
}

std::uint64_t run_record::blocks_skipped() const {
    std::uint64_t n = 0;
    for (const auto& l : launches) n += l.blocks_skipped;
    return n;
}

bool run_record::sampled() const {
    return std::any_of(launches.begin(), launches.end(), [](const launch_record& l) { return l.sampled(); });
}

std::array<double, counter_count> run_record::relative_error_95() const {
    std::array<double, counter_count> var{}, out{};
    for (const auto& l : launches)
        for (std::size_t i = 0; i < counter_count; ++i) var[i] += l.variance[i];
    const counts t = totals();
    for (std::size_t i = 0; i < counter_count; ++i)
        out[i] = var[i] > 0 && t.v[i] > 0 ? 1.96 * std::sqrt(var[i]) / double(t.v[i]) : 0.0;
    return out;
}

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
    while (runners.size() < workers) runners.push_back(std::make_unique<block_runner>(m, m_opt));
    synth_regions* synth = m_engine->synth.empty() ? nullptr : &m_engine->synth;
    for (unsigned w = 0; w < workers; ++w)
        runners[w]->prepare(kname, grid, block, dynamic_shared_bytes, body, arg, synth);
    struct reset_globals {
        ~reset_globals() {
            g_block = nullptr;
            g_current = nullptr;
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
        g_block = nullptr;
        g_current = nullptr;
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

std::vector<std::uint64_t> executor::probe_blocks(std::uint64_t nblocks, std::uint64_t count) const {
    std::vector<std::uint64_t> out;
    if (count >= nblocks) {
        out.resize(nblocks);
        std::iota(out.begin(), out.end(), std::uint64_t(0));
        return out;
    }
    // Stratum h covers [h·N/count, (h+1)·N/count); seeded like the launch's strata.
    const std::uint64_t launch_index = m_record.launches.size();
    for (std::uint64_t h = 0; h < count; ++h) {
        const std::uint64_t lo = h * nblocks / count, hi = (h + 1) * nblocks / count;
        out.push_back(lo + splitmix(m_opt.sample_seed ^ splitmix(launch_index * 0x100000001ull + h)) % (hi - lo));
    }
    return out;
}

std::vector<block_sample> executor::run_listed_blocks(std::span<const std::uint64_t> blocks, std::string_view name,
                                                      kl::dim3 grid, kl::dim3 block, std::size_t dynamic_shared_bytes,
                                                      void (*body)(void*), void* arg) {
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
        kname, grid, block, dynamic_shared_bytes, body, arg, blocks.size(),
        [&](std::uint64_t i) { return blocks[i]; }, [](std::uint64_t) { return true; }, workers_for(blocks.size()),
        [&](unsigned, std::uint64_t bid, bool, std::uint64_t steps, const counts& c, std::uint64_t shared_bytes) {
            auto& s = out[std::lower_bound(at.begin(), at.end(), std::pair{bid, std::size_t(0)})->second];
            s.c = c;  // each block's own slot: no lock needed
            s.c[counter::shared_words_max] = (shared_bytes + wb - 1) / wb;
            s.steps = steps;
            if (m_opt.progress) m_opt.progress(std::uint64_t(block.x) * block.y * block.z);
        });
    return out;
}

void executor::run_launch(std::string_view name, kl::dim3 grid, kl::dim3 block, std::size_t dynamic_shared_bytes,
                          void (*body)(void*), void* arg) {
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

    const sample_plan plan =
        m_opt.mode == sim_mode::sampled
            ? plan_sample(nblocks, m_strata ? m_strata : m_opt.sample_strata, m_opt.sample_seed, m_record.launches.size())
            : sample_plan{};
    const bool sampled = plan.strata > 0;
    const unsigned workers = workers_for(nblocks);

    // Per block: steps (recorded blocks). Exact: each worker's summed counters;
    // sampled: each recorded block's counters.
    std::vector<std::uint64_t> block_steps(nblocks, 0), block_waits(nblocks, 0), block_collectives(nblocks, 0);
    std::vector<counts> sums(workers);
    // A small launch on synthesized inputs, every block recorded: each block's counters (for the variance).
    const bool whole_synth = !sampled && m_synthesized && m_opt.mode == sim_mode::sampled;
    std::vector<counts> recorded_counts(sampled ? plan.recorded.size() : whole_synth ? nblocks : 0);
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
                block_steps[bid] = steps;
                block_waits[bid] = model::block_waits(c);
                block_collectives[bid] = model::block_collectives(c);
                if (sampled) {
                    const auto at =
                        std::lower_bound(plan.recorded.begin(), plan.recorded.end(), bid) - plan.recorded.begin();
                    recorded_counts[std::size_t(at)] = c;
                } else {
                    sums[w].merge(c);
                    if (whole_synth) recorded_counts[bid] = c;
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
        rec.c[counter::time_steps] = model::greedy_makespan(block_steps, k);
        rec.c[counter::chain_waits] = heaviest_chain(block_waits, nthreads, m);
        rec.c[counter::chain_collectives] = heaviest_chain(block_collectives, nthreads, m);
        rec.blocks_recorded = nblocks;
        if (whole_synth && nblocks > 1) {
            // Every block recorded, but on synthesized data: the run's own
            // blocks deviate from their expectation as much as these, so a
            // total's variance is 2·N·s² (s² over the blocks, in order); the
            // makespan's, twice its spread under the blocks' noise.
            const double widen = t_factor(nblocks - 1) * t_factor(nblocks - 1);
            for (std::size_t i = 0; i < counter_count; ++i) {
                if (exact_counter(static_cast<counter>(i)) || counter_table[i].agg != aggregation::sum) continue;
                const double s2 = successive_variance(nblocks, [&](std::size_t b) { return double(recorded_counts[b].v[i]); });
                rec.variance[i] = 2.0 * double(nblocks) * s2 * widen;
            }
            const double sd = std::sqrt(successive_variance(nblocks, [&](std::size_t b) { return double(block_steps[b]); }));
            const auto spread = replicated_makespan(nblocks, k, [&](std::mt19937_64& rng, std::vector<std::uint64_t>& v) {
                std::normal_distribution<double> noise(0.0, sd);
                for (std::size_t b = 0; b < nblocks; ++b) v[b] = nonnegative(double(block_steps[b]) + noise(rng));
            });
            rec.variance[std::size_t(counter::time_steps)] = 2.0 * spread.var * widen;
        }
    } else {
        // Stratified extrapolation: an edge block counts for itself, stratum h's
        // recorded block y_h for the N_h blocks of its stratum. The variance of
        // the sum over the N interior blocks is estimated from successive
        // differences of the strata's samples (robust to a smooth trend across
        // the grid): V = N²(1 ∓ S/N)·s²/S, widened by Student's t for S - 1
        // degrees of freedom. 1 - S/N: the blocks are a sample of the run's
        // own; 1 + S/N: of synthesized data, from which the run's own blocks
        // deviate too.
        const std::uint64_t S = plan.strata, N = plan.interior;
        const double fpc = m_synthesized ? 1.0 + double(S) / double(N) : 1.0 - double(S) / double(N);
        const double widen = t_factor(S - 1) * t_factor(S - 1);
        auto stratum_size = [&](std::uint64_t h) { return plan.stratum_begin(h + 1) - plan.stratum_begin(h); };
        auto extrapolate = [&](auto value, double& variance) {  // value(recorded index) -> double
            double total = value(0) + value(S + 1);
            for (std::uint64_t h = 0; h < S; ++h) total += double(stratum_size(h)) * value(h + 1);
            const double s2 = successive_variance(S, [&](std::size_t h) { return value(h + 1); });
            variance = double(N) * double(N) * fpc * s2 / double(S) * widen;
            return total;
        };
        for (std::size_t i = 0; i < counter_count; ++i) {
            const auto c = static_cast<counter>(i);
            if (exact_counter(c) || c == counter::time_steps || c == counter::chain_waits || c == counter::chain_collectives) continue;
            if (counter_table[i].agg != aggregation::sum) {
                for (const auto& rc : recorded_counts) rec.c.v[i] = std::max(rec.c.v[i], rc.v[i]);
                continue;
            }
            double var = 0;
            const double total = extrapolate([&](std::size_t j) { return double(recorded_counts[j].v[i]); }, var);
            rec.c.v[i] = static_cast<std::uint64_t>(std::llround(total));
            rec.variance[i] = var;
        }
        // Time: every unrecorded block takes its stratum's recorded steps; the
        // blocks go on the MPs as in an exact run. The makespan's variance is
        // taken as the steps sum's, scaled by (makespan / sum)².
        std::vector<std::uint64_t> steps_of(S);
        for (std::uint64_t h = 0; h < S; ++h) steps_of[h] = block_steps[plan.recorded[h + 1]];
        for (std::uint64_t bid = 1; bid + 1 < nblocks; ++bid)
            if (!plan.is_recorded(bid)) block_steps[bid] = steps_of[plan.stratum_of(bid)];
        double steps_var = 0;
        const double steps_sum =
            extrapolate([&](std::size_t j) { return double(block_steps[plan.recorded[j]]); }, steps_var);
        const std::uint64_t makespan = model::greedy_makespan(block_steps, k);
        rec.c[counter::time_steps] = makespan;
        std::vector<std::uint64_t> recorded_waits, recorded_collectives;
        for (auto bid : plan.recorded) recorded_waits.push_back(block_waits[bid]);
        for (auto bid : plan.recorded) recorded_collectives.push_back(block_collectives[bid]);
        rec.c[counter::chain_collectives] = heaviest_chain(recorded_collectives, nthreads, m);
        rec.variance[std::size_t(counter::chain_collectives)] = chain_variance(recorded_collectives, nthreads, m);
        rec.c[counter::chain_waits] = heaviest_chain(recorded_waits, nthreads, m);
        rec.variance[std::size_t(counter::chain_waits)] = chain_variance(recorded_waits, nthreads, m);
        if (steps_sum > 0)
            rec.variance[std::size_t(counter::time_steps)] =
                steps_var * (double(makespan) / steps_sum) * (double(makespan) / steps_sum);
        rec.blocks_recorded = plan.recorded.size();
        rec.estimate = launch_estimate::stratified;
    }
    rec.c[counter::shared_words_max] = (shared_max + m.word_bytes() - 1) / m.word_bytes();
    rec.mps_used = k;
    m_record.launches.push_back(std::move(rec));
}

void executor::record_work_launch(std::string_view name, kl::dim3 grid, kl::dim3 block,
                                  std::size_t dynamic_shared_bytes, std::span<const std::uint64_t> work,
                                  std::span<const std::uint8_t> klass, std::span<const double> typical_work,
                                  std::span<const block_sample> known, std::span<const work_sample> samples,
                                  std::span<const std::uint64_t> themselves, std::span<const double> known_variance) {
    const model::machine& m = m_dev.agpu;
    const std::string kname(name);
    check_launch(kname, grid, block, dynamic_shared_bytes);
    const std::uint64_t nthreads = std::uint64_t(block.x) * block.y * block.z;
    const std::uint64_t nblocks = std::uint64_t(grid.x) * grid.y * grid.z;
    AGPU_CHECK(work.size() == nblocks && (klass.empty() || klass.size() == nblocks) &&
                   (typical_work.empty() || typical_work.size() == nblocks) && (known.empty() || known.size() == nblocks),
               "record_work_launch: one work entry (and class, typical work) per block");
    AGPU_CHECK(known_variance.empty() || known_variance.size() == counter_count,
               "record_work_launch: one known variance per counter");
    auto class_of = [&](std::uint64_t b) { return klass.empty() ? 0u : unsigned(klass[b]); };
    std::vector<const work_sample*> own_of(nblocks, nullptr);  // the whole-block sample of a block counted as itself
    for (const auto& s : samples)
        AGPU_CHECK(s.block < nblocks && s.work <= work[s.block], "record_work_launch: a sample outside its block's work");
    for (auto b : themselves) {
        AGPU_CHECK(b < nblocks, "record_work_launch: a block beyond the grid");
        for (const auto& s : samples)
            if (s.block == b && s.work == work[b]) own_of[b] = &s;
        AGPU_CHECK(own_of[b], "record_work_launch: a block counted as itself needs a sample of its whole work");
    }

    // One class's model: its sampled blocks (ids), the line fitted over their
    // points (least squares; slope 0 where all did the same work), the count
    // and work of the blocks it stands for.
    struct line {
        double a = 0, b = 0;
        double at(double x) const { return a + b * x; }
    };
    struct model_class {
        std::vector<std::uint64_t> ids;
        double n = 0, w = 0, fpc = 0, widen = 0;
        bool lines_each = true;  // every sampled block has points at two works (probes)
    };
    unsigned classes = 1;
    for (std::uint64_t b = 0; b < nblocks; ++b) classes = std::max(classes, class_of(b) + 1);
    std::vector<model_class> cls(classes);
    for (std::uint64_t b = 0; b < nblocks; ++b)
        if (!own_of[b]) {
            cls[class_of(b)].n += 1;
            cls[class_of(b)].w += double(work[b]);
        }
    for (const auto& s : samples)
        if (!own_of[s.block] && std::find(cls[class_of(s.block)].ids.begin(), cls[class_of(s.block)].ids.end(), s.block) ==
                                    cls[class_of(s.block)].ids.end())
            cls[class_of(s.block)].ids.push_back(s.block);
    for (auto& c : cls) {
        if (c.n == 0) continue;
        AGPU_CHECK(c.ids.size() >= 2, "record_work_launch: at least 2 sampled blocks for each class it models");
        const double S = double(c.ids.size());
        c.fpc = m_synthesized ? 1.0 + S / c.n : std::max(0.0, 1.0 - S / c.n);
        c.widen = t_factor(c.ids.size() - 1) * t_factor(c.ids.size() - 1);
        for (auto id : c.ids)
            c.lines_each &= std::count_if(samples.begin(), samples.end(), [&](const work_sample& s) { return s.block == id; }) > 1;
    }
    auto fit = [&](const model_class& c, auto value, std::size_t skip) {  // value(work_sample) -> double
        double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (const auto& s : samples) {
            if (own_of[s.block] || std::find(c.ids.begin(), c.ids.end(), s.block) == c.ids.end()) continue;
            if (skip < c.ids.size() && s.block == c.ids[skip]) continue;
            const double x = double(s.work), y = value(s);
            n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
        }
        const double vx = sxx - sx * sx / n;
        line l;
        l.b = vx > 1e-9 * sxx ? (sxy - sx * sy / n) / vx : 0.0;
        l.a = (sy - l.b * sx) / n;
        return l;
    };
    // A block counted as itself: its sample, with the known part given for it
    // in place of the sample's own.
    auto own_value = [&](auto value, std::uint64_t b) {
        const auto* s = own_of[b];
        return known.empty() ? value(s->at) : value(s->at) - value(s->known) + value(known[b]);
    };
    // A value's total over the launch (the blocks counted as themselves plus
    // each class's line over its blocks) and its variance: a jackknife over
    // each class's sampled blocks. lines: each class's full fit.
    // value(block_sample) -> double; a sample's modeled value is its value less its known part's.
    auto estimate = [&](auto value, double& variance, std::vector<line>& lines) {
        const auto y = [&](const work_sample& s) { return value(s.at) - value(s.known); };
        double total = 0;
        for (auto b : themselves) total += own_value(value, b);
        if (!known.empty())
            for (std::uint64_t b = 0; b < nblocks; ++b)
                if (!own_of[b]) total += value(known[b]);
        variance = 0;
        lines.assign(classes, {});
        for (unsigned k = 0; k < classes; ++k) {
            const auto& c = cls[k];
            if (c.n == 0) continue;
            lines[k] = fit(c, y, c.ids.size());
            total += c.n * lines[k].a + c.w * lines[k].b;
            const std::size_t S = c.ids.size();
            std::vector<double> loo(S);
            double mean = 0;
            for (std::size_t j = 0; j < S; ++j) {
                const line l = fit(c, y, j);
                loo[j] = c.n * l.a + c.w * l.b;
                mean += loo[j] / double(S);
            }
            double sq = 0;
            for (double x : loo) sq += (x - mean) * (x - mean);
            variance += double(S - 1) / double(S) * sq * c.fpc * c.widen;
            // On synthesized data the run's own blocks' known parts differ too:
            // twice the class's spread of known parts about their line in the
            // work, over its blocks (the run's and these deviate alike).
            if (m_synthesized && !known.empty()) {
                double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
                for (std::uint64_t b = 0; b < nblocks; ++b)
                    if (!own_of[b] && class_of(b) == k) {
                        const double x = double(work[b]), v = value(known[b]);
                        n += 1, sx += x, sy += v, sxx += x * x, sxy += x * v, syy += v * v;
                    }
                if (n > 2) {
                    const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
                    const double res = std::max(0.0, vx > 1e-9 * sxx ? vy - cxy * cxy / vx : vy);
                    variance += 2.0 * res / (n - 2) * n;
                }
            }
        }
        return total;
    };

    launch_record rec;
    rec.kernel = kname;
    rec.grid = grid;
    rec.block = block;
    rec.dynamic_shared_bytes = dynamic_shared_bytes;
    rec.estimate = launch_estimate::linear;
    rec.c[counter::launches] = 1;
    rec.c[counter::thread_blocks] = nblocks;
    rec.c[counter::threads] = nblocks * nthreads;
    std::vector<line> lines;
    for (std::size_t i = 0; i < counter_count; ++i) {
        const auto c = static_cast<counter>(i);
        if (exact_counter(c) || c == counter::time_steps || c == counter::chain_waits || c == counter::chain_collectives) continue;
        if (counter_table[i].agg != aggregation::sum) {
            for (const auto& s : samples) rec.c.v[i] = std::max(rec.c.v[i], s.at.c.v[i]);
            continue;
        }
        double var = 0;
        rec.c.v[i] = nonnegative(estimate([&](const block_sample& b) { return double(b.c.v[i]); }, var, lines));
        rec.variance[i] = var + (known_variance.empty() ? 0.0 : known_variance[i]);
    }

    // Time. Each modeled block's steps: its class's line at its work, plus
    // noise of the class's sampled blocks' spread about the line at their
    // whole work (each from its own points); the blocks counted as themselves,
    // their steps (plus that noise, on synthesized data); placed on the MPs as
    // in an exact run. The makespan is the mean over replications; its
    // variance, the steps total's scaled by (makespan / total)², plus the
    // replications' spread.
    auto steps_of = [](const block_sample& b) { return double(b.steps); };
    double steps_var = 0;
    const double steps_total = estimate(steps_of, steps_var, lines);
    if (!known_variance.empty()) steps_var += known_variance[std::size_t(counter::time_steps)];
    auto known_steps = [&](std::uint64_t b) { return known.empty() ? 0.0 : double(known[b].steps); };
    std::vector<double> sd(classes, 0.0);
    for (unsigned k = 0; k < classes; ++k) {
        const auto& c = cls[k];
        if (c.n == 0) continue;
        double res = 0;
        for (auto id : c.ids) {
            double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (const auto& s : samples)
                if (s.block == id) {
                    const double x = double(s.work), y = steps_of(s.at) - steps_of(s.known);
                    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
                }
            const double vx = sxx - sx * sx / n, b = vx > 1e-9 * sxx ? (sxy - sx * sy / n) / vx : lines[k].b;
            const double own = (sy - b * sx) / n + b * double(work[id]);
            res += (own - lines[k].at(double(work[id]))) * (own - lines[k].at(double(work[id])));
        }
        // Degrees of freedom: S - 1 about a mean of per-block lines, S - 2 about a fitted one.
        const std::size_t dof = c.ids.size() - (c.lines_each ? 1 : 2);
        sd[k] = dof > 0 ? std::sqrt(res / double(dof)) : 0.0;
    }
    const std::uint64_t k = std::min<std::uint64_t>(m.k(), nblocks);
    // On synthesized data the run's own blocks have other work too: each
    // replication draws a modeled block's work as its typical work plus a
    // deviation from typical drawn from the launch's.
    std::vector<double> deviations;
    if (m_synthesized && !typical_work.empty())
        for (std::uint64_t b = 0; b < nblocks; ++b)
            if (!own_of[b]) deviations.push_back(double(work[b]) - typical_work[b]);
    const auto spread = replicated_makespan(nblocks, k, [&](std::mt19937_64& rng, std::vector<std::uint64_t>& v) {
        for (std::uint64_t b = 0; b < nblocks; ++b) {
            std::normal_distribution<double> noise(0.0, sd[class_of(b)]);
            if (own_of[b]) {
                v[b] = nonnegative(own_value(steps_of, b) + (m_synthesized ? noise(rng) : 0.0));
                continue;
            }
            const double x = deviations.empty() ? double(work[b])
                                                : std::max(0.0, typical_work[b] + deviations[rng() % deviations.size()]);
            v[b] = nonnegative(known_steps(b) + lines[class_of(b)].at(x) + noise(rng));
        }
    });
    rec.c[counter::time_steps] = nonnegative(spread.mean);
    for (const counter which : {counter::chain_waits, counter::chain_collectives}) {
        const auto waits_of = [&](const block_sample& b) {
            return double(which == counter::chain_waits ? model::block_waits(b.c) : model::block_collectives(b.c));
        };
        std::vector<line> wlines;
        double wvar = 0;
        estimate(waits_of, wvar, wlines);
        std::vector<std::uint64_t> expected(nblocks);
        for (std::uint64_t b = 0; b < nblocks; ++b)
            expected[b] = own_of[b] ? nonnegative(own_value(waits_of, b))
                                    : nonnegative((known.empty() ? 0.0 : waits_of(known[b])) +
                                                  wlines[class_of(b)].at(double(work[b])));
        rec.c[which] = heaviest_chain(expected, nthreads, m);
        // One block's variance, the total's over the blocks, per warp.
        const double warps = double(std::max<std::uint64_t>(1, (nthreads + m.b - 1) / m.b));
        rec.variance[std::size_t(which)] = wvar / double(nblocks) / (warps * warps);
    }
    if (steps_total > 0)
        rec.variance[std::size_t(counter::time_steps)] =
            steps_var * (spread.mean / steps_total) * (spread.mean / steps_total) + spread.var;
    rec.mps_used = k;
    std::uint64_t sampled_blocks = themselves.size();
    for (const auto& c : cls) sampled_blocks += c.ids.size();
    std::set<std::uint64_t> shortened;
    for (const auto& s : samples)
        if (s.work < work[s.block]) shortened.insert(s.block);
    rec.blocks_shortened = shortened.size();
    rec.blocks_recorded = sampled_blocks;
    rec.blocks_skipped = nblocks - sampled_blocks;
    if (m_opt.progress && rec.blocks_skipped) m_opt.progress(nthreads * rec.blocks_skipped);
    m_record.launches.push_back(std::move(rec));
}

}  // namespace agpu::sim
