// The AGPU execution engine.
//
// What it does for one launch: every thread block runs on its own, in block
// order; inside a block every thread runs on a fiber (Boost.Context) that
// yields at a barrier, a warp collective, or after a chunk of recorded
// accesses. A warp's lanes run one after another; each lane's records carry a
// key (source site, how many times this lane has reached that site), and the
// records of one key across the lanes of a warp form one warp-instruction:
// lanes executing the same access in program order, the lanes that took
// another path forming instructions of their own. Each instruction is costed
// on the machine (see cost_instruction), and each block's steps are placed on
// the k MPs greedily in block order; the launch's time is the busiest MP's.
//
// Assumptions: a barrier must be reached by every thread of the block, at the
// same site (CUDA leaves the rest undefined); a collective must be reached by
// every lane of its mask. Both are checked and reported as kernel errors.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <numeric>
#include <queue>
#include <sstream>
#include <unordered_map>

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>

// Under AddressSanitizer (the asan preset) a fiber stack reused for the next
// block keeps the shadow of the frames its last fiber left (Debian's Boost is
// built without ASan's fiber-switch annotations), which ASan then reports as
// stack-buffer-overflows that are not there: each stack is unpoisoned before
// it is reused.
#if defined(__SANITIZE_ADDRESS__)
#define AGPU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AGPU_ASAN 1
#endif
#endif
#ifdef AGPU_ASAN
#include <sanitizer/asan_interface.h>
#endif

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

constexpr std::uint64_t sector_bytes = 32;  // the L1/L2 sector of every NVIDIA GPU since Fermi

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
#ifdef AGPU_ASAN
            __asan_unpoison_memory_region(p, m_bytes + page());  // the next mapping here starts clean
#endif
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

    [[noreturn]] void fail(const sim_thread& t, const std::string& what) const {
        const auto& i = t.info;
        std::ostringstream os;
        os << "kernel " << kernel << ": block (" << i.block_idx.x << "," << i.block_idx.y << "," << i.block_idx.z
           << ") thread (" << i.thread_idx.x << "," << i.thread_idx.y << "," << i.thread_idx.z << "): " << what;
        throw kernel_error(os.str());
    }
};

namespace {

void yield_to_scheduler(sim_thread& t, thread_state s) {
    t.state = s;
    t.caller = std::move(t.caller).resume();
    g_current = &t;  // resumed: this thread runs again
}

sim_thread& current_thread() {
    if (!g_current) throw internal_error("the kernel layer was called outside the simulator");
    return *g_current;
}

void push_record(sim_thread& t, const record& r) {
    t.log.push_back(r);
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
    const std::uint64_t site = site_key(l);
    record r{site, t.sites.next(site), what::global_load, static_cast<std::uint32_t>(bytes), 0};
    if (s == space::global) {
        r.addr = reinterpret_cast<std::uintptr_t>(p);
        r.w = k == kind::load ? what::global_load : k == kind::store ? what::global_store : what::global_atomic;
    } else {
        const auto* base = g_block->shared.data();
        const auto* q = static_cast<const std::byte*>(p);
        AGPU_CHECK(q >= base && q + bytes <= base + g_block->shared.size(), "shared access outside the block's shared memory");
        r.addr = static_cast<std::uint64_t>(q - base);
        r.w = k == kind::load ? what::shared_load : k == kind::store ? what::shared_store : what::shared_atomic;
    }
    push_record(t, r);
}

void skip(space s, kind k, const std::source_location& l) {
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    record r{site, t.sites.next(site), what::global_load, 0, 0};
    if (s == space::global)
        r.w = k == kind::load ? what::global_load : k == kind::store ? what::global_store : what::global_atomic;
    else
        r.w = k == kind::load ? what::shared_load : k == kind::store ? what::shared_store : what::shared_atomic;
    push_record(t, r);
}

void barrier(const std::source_location& l) {
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    t.log.push_back({site, t.sites.next(site), what::barrier, 0, 0});
    t.wait_site = site;
    t.wait_loc = l;
    yield_to_scheduler(t, thread_state::at_barrier);
}

std::uint64_t collective(coll_op op, std::uint64_t value, int arg, lane_mask mask, int width,
                         const std::source_location& l) {
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    t.log.push_back({site, t.sites.next(site), what::collective, 0, 0});
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
    if (n == 0) return;
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    push_record(t, {site, t.sites.next(site), what::compute, n, 0});
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
    explicit coster(const model::machine& m) : m_m(m) {}

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
            const auto blocks = distinct(in.accesses, m_m.block_bytes());
            const auto sectors = distinct(in.accesses, sector_bytes);
            c[counter::io_blocks] += blocks;
            if (in.w == what::global_load) {
                c[counter::global_load_instructions] += 1;
                c[counter::global_load_requests] += 1;
                c[counter::global_load_sectors] += sectors;
                c[counter::global_load_blocks] += blocks;
                c[counter::global_requests] += 1;
                c[counter::global_sectors] += sectors;
            } else if (in.w == what::global_store) {
                c[counter::global_store_instructions] += 1;
                c[counter::global_store_requests] += 1;
                c[counter::global_store_sectors] += sectors;
                c[counter::global_store_blocks] += blocks;
                c[counter::global_requests] += 1;
                c[counter::global_sectors] += sectors;
            } else {
                c[counter::global_atomic_instructions] += 1;
                c[counter::global_atomic_sectors] += atomic_sectors(in.accesses);
                c[counter::global_atomic_blocks] += blocks;
            }
            return 1;
        }
        std::uint64_t ideal = 1;
        const auto wavefronts = shared_cost(in, ideal);
        const auto conflicts = wavefronts - ideal;
        c[counter::shared_wavefronts] += wavefronts;
        c[counter::bank_conflicts] += conflicts;
        if (in.w == what::shared_load) {
            c[counter::shared_load_instructions] += 1;
            c[counter::shared_load_wavefronts] += wavefronts;
            c[counter::shared_load_bank_conflicts] += conflicts;
        } else if (in.w == what::shared_store) {
            c[counter::shared_store_instructions] += 1;
            c[counter::shared_store_wavefronts] += wavefronts;
            c[counter::shared_store_bank_conflicts] += conflicts;
        } else {
            c[counter::shared_atomic_instructions] += 1;
            c[counter::shared_atomic_wavefronts] += wavefronts;
        }
        return wavefronts;
    }
    // Atomics are not merged like loads: L2 applies one update per address
    // per sector request, so a sector costs as many requests as the most lanes
    // updating one address in it (measured on the H100: 32 lanes on one word,
    // 32 sectors; on 32 consecutive words, 4).
    std::uint64_t atomic_sectors(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& acc) {
        m_ids.clear();
        for (auto [a, n] : acc) m_ids.push_back(a);
        std::sort(m_ids.begin(), m_ids.end());
        std::uint64_t total = 0, sector_most = 0, run = 0;
        for (std::size_t i = 0; i < m_ids.size(); ++i) {
            run = (i > 0 && m_ids[i] == m_ids[i - 1]) ? run + 1 : 1;
            const bool new_sector = i == 0 || m_ids[i] / sector_bytes != m_ids[i - 1] / sector_bytes;
            if (new_sector) {
                total += sector_most;
                sector_most = 0;
            }
            sector_most = std::max(sector_most, run);
        }
        return total + sector_most;
    }
    // True when the lanes' accesses are back to back in lane order (the
    // coalesced case); then [first, end) is the range they cover.
    static bool contiguous(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& acc, std::uint64_t& first,
                           std::uint64_t& end) {
        first = acc.front().first;
        end = first;
        for (auto [a, n] : acc) {
            if (a != end) return false;
            end = a + n;
        }
        return true;
    }
    // Distinct units of `unit` bytes touched by the accesses.
    std::uint64_t distinct(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& acc, std::uint64_t unit) {
        std::uint64_t first = 0, end = 0;
        if (contiguous(acc, first, end)) return (end - 1) / unit - first / unit + 1;
        m_ids.clear();
        for (auto [a, n] : acc)
            for (std::uint64_t u = a / unit, last = (a + n - 1) / unit; u <= last; ++u) m_ids.push_back(u);
        return count_unique(m_ids);
    }
    // A shared warp-instruction's wavefronts. Accesses of 16 bytes per lane
    // are served per quarter-warp (b/4 lanes, 128 bytes), each quarter like a
    // warp of its own, except that the two quarters of a half-warp asking for
    // the same addresses share their wavefronts. Measured on the H100
    // (validate/data/h100/apsp, LDS.128 and STS.128 of the apsp kernels): a
    // half-warp reading one vector takes 1 wavefront, one whose quarters read
    // the same 8 vectors 1, one whose quarters read 2 different vectors 2, one
    // whose quarters read 8 different vectors each 2; the hardware counts no
    // bank conflict in any of these. Narrower accesses are served whole.
    std::uint64_t shared_cost(const instruction& in, std::uint64_t& ideal) {
        bool wide = !in.accesses.empty();
        for (auto [a, n] : in.accesses) wide &= n == 16;
        if (!wide || m_m.b < 4) return shared_wavefronts(in.accesses, ideal);
        const std::uint32_t q = m_m.b / 4;
        std::uint64_t total = 0;
        ideal = 0;
        for (std::uint32_t half = 0; half < 2; ++half) {
            for (std::uint32_t part = 0; part < 2; ++part) {
                auto& quarter = m_quarter[part];
                quarter.clear();
                for (std::size_t i = 0; i < in.accesses.size(); ++i)
                    if (in.lanes[i] / q == 2 * half + part) quarter.push_back(in.accesses[i]);
                std::sort(quarter.begin(), quarter.end());
            }
            const bool same = m_quarter[0] == m_quarter[1];
            for (std::uint32_t part = 0; part < (same ? 1u : 2u); ++part) {
                if (m_quarter[part].empty()) continue;
                std::uint64_t id = 1;
                total += shared_wavefronts(m_quarter[part], id);
                ideal += id;
            }
        }
        return total;
    }
    // The most distinct words any one bank is asked for (a word read by many
    // lanes counts once); `ideal` gets the fewest wavefronts that many
    // distinct words need, ceil(words / b): the wavefronts beyond it are the
    // bank conflicts (the hardware's definition too: a warp's 8-byte loads
    // need 2 wavefronts and have no conflict).
    std::uint64_t shared_wavefronts(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& acc,
                                    std::uint64_t& ideal) {
        const std::uint64_t wb = m_m.word_bytes();
        std::uint64_t first = 0, end = 0;
        if (contiguous(acc, first, end)) {  // distinct consecutive words: spread evenly over the banks
            const std::uint64_t words = (end - 1) / wb - first / wb + 1;
            ideal = (words + m_m.b - 1) / m_m.b;
            return ideal;
        }
        m_ids.clear();
        for (auto [a, n] : acc)
            for (std::uint64_t wd = a / wb, last = (a + n - 1) / wb; wd <= last; ++wd) m_ids.push_back(wd);
        std::sort(m_ids.begin(), m_ids.end());
        m_ids.erase(std::unique(m_ids.begin(), m_ids.end()), m_ids.end());
        m_bank.assign(m_m.b, 0);
        std::uint64_t most = 0;
        for (auto wd : m_ids) most = std::max<std::uint64_t>(most, ++m_bank[wd % m_m.b]);
        ideal = std::max<std::uint64_t>(1, (m_ids.size() + m_m.b - 1) / m_m.b);
        return most;
    }
    static std::uint64_t count_unique(std::vector<std::uint64_t>& v) {
        // Fast path: non-decreasing ids (the common, coalesced case).
        bool sorted = true;
        std::uint64_t n = v.empty() ? 0 : 1;
        for (std::size_t i = 1; i < v.size(); ++i) {
            if (v[i] < v[i - 1]) {
                sorted = false;
                break;
            }
            n += v[i] != v[i - 1];
        }
        if (sorted) return n;
        std::sort(v.begin(), v.end());
        return static_cast<std::uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
    }
    const model::machine& m_m;
    std::vector<std::uint64_t> m_ids;
    std::vector<std::uint32_t> m_bank;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> m_quarter[2];
    instruction m_on;
};

struct key_hash {
    std::size_t operator()(const std::pair<std::uint64_t, std::uint32_t>& k) const {
        return k.first ^ (std::uint64_t(k.second) * 0xff51afd7ed558ccdull);
    }
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
        bool any_running = false;
        for (auto* t : lanes) any_running |= t->state == thread_state::yielded;
        for (auto it = m_pending.begin(); it != m_pending.end();) {
            bool complete = true;
            if (any_running)
                for (auto* t : lanes)
                    if (t->state == thread_state::yielded && t->sites.count(it->first.first) <= it->first.second) {
                        complete = false;
                        break;
                    }
            if (complete) {
                steps += m_coster.cost(it->second, m_c);
                it = m_pending.erase(it);
            } else {
                ++it;
            }
        }
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
                auto& in = m_pending[{r.site, r.occurrence}];
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
    std::unordered_map<std::pair<std::uint64_t, std::uint32_t>, instruction, key_hash> m_pending;
};

}  // namespace

struct executor::engine {
    explicit engine(const engine_options& opt) : stacks(opt.stack_bytes) {}
    stack_pool stacks;
    std::vector<sim_thread> threads;
};

executor::executor(model::device dev, engine_options opt)
    : m_dev(std::move(dev)), m_opt(opt), m_engine(std::make_unique<engine>(opt)) {
    m_dev.agpu.validate("device " + m_dev.id);
}

executor::~executor() {
    for (auto [p, n] : m_allocations) std::free(p);
}

void* executor::allocate_bytes(std::size_t bytes) {
    const std::size_t rounded = std::max<std::size_t>(4096, (bytes + 4095) / 4096 * 4096);
    void* p = std::aligned_alloc(4096, rounded);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0xA5, rounded);
    m_allocations.emplace_back(p, rounded);
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
        for (unsigned o = 0; o < b; ++o)
            if ((mask >> o & 1) && lanes[o]->coll_value) votes |= kl::lane_mask{1} << o;
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
            }
            if (u->coll_op != t->coll_op)
                bc.fail(*u, "warp collective at " + where(u->wait_loc) + ": lanes of one mask called different collectives");
            u->state = thread_state::runnable;
        }
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

void executor::run_launch(std::string_view name, kl::dim3 grid, kl::dim3 block, std::size_t dynamic_shared_bytes,
                          void (*body)(void*), void* arg) {
    const model::machine& m = m_dev.agpu;
    const std::string kname(name);
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

    launch_record rec;
    rec.kernel = kname;
    rec.grid = grid;
    rec.block = block;
    rec.dynamic_shared_bytes = dynamic_shared_bytes;
    rec.c[counter::launches] = 1;
    rec.c[counter::thread_blocks] = nblocks;
    rec.c[counter::threads] = nblocks * nthreads;

    block_context bc;
    bc.m = &m;
    bc.kernel = kname;
    bc.chunk_records = m_opt.chunk_records;
    bc.shared.assign(m.shared_bytes(), std::byte{0xA5});
    g_block = &bc;
    struct reset_block {
        ~reset_block() {
            g_block = nullptr;
            g_current = nullptr;
        }
    } reset;

    auto& threads = m_engine->threads;
    threads.clear();
    threads.resize(nthreads);
    const unsigned b = m.b;
    const std::size_t nwarps = (nthreads + b - 1) / b;
    coster cst(m);
    std::vector<std::uint64_t> block_steps;
    block_steps.reserve(nblocks);
    std::uint64_t shared_words_max = 0;

    // On a kernel error, unwind every suspended thread while the block context lives.
    struct unwind_threads {
        std::vector<sim_thread>& threads;
        ~unwind_threads() {
            for (auto& t : threads) t.fiber = {};
        }
    } unwind{threads};

    // Per launch: the warps' lanes and their groupers, reused by every block.
    std::vector<std::vector<sim_thread*>> warps(nwarps);
    for (std::uint64_t r = 0; r < nthreads; ++r) warps[r / b].push_back(&threads[r]);
    counts bcounts;
    std::vector<warp_grouper> groupers;
    groupers.reserve(nwarps);
    for (std::size_t w = 0; w < nwarps; ++w) groupers.emplace_back(cst, bcounts);

    for (std::uint64_t bid = 0; bid < nblocks; ++bid) {
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
            const ctx::stack_context sc = m_engine->stacks.get(r);
#ifdef AGPU_ASAN
            __asan_unpoison_memory_region(static_cast<char*>(sc.sp) - sc.size, sc.size);
#endif
            t.fiber = ctx::fiber(std::allocator_arg, ctx::preallocated(sc.sp, sc.size, sc), pooled_stack{},
                                 [&t, body, arg](ctx::fiber&& caller) {
                                     t.caller = std::move(caller);
                                     g_current = &t;
                                     try {
                                         body(arg);
                                     } catch (const ctx::detail::forced_unwind&) {
                                         throw;
                                     } catch (...) {
                                         t.error = std::current_exception();
                                     }
                                     t.state = thread_state::finished;
                                     return std::move(t.caller);
                                 });
        }

        bcounts = counts{};
        std::uint64_t steps = 0;

        auto resume = [&](sim_thread& t) {
            t.state = thread_state::runnable;
            g_current = &t;
            t.fiber = std::move(t.fiber).resume();
            g_current = nullptr;
            if (t.error) std::rethrow_exception(t.error);
        };

        while (true) {
            for (std::size_t w = 0; w < nwarps; ++w) {
                auto& lanes = warps[w];
                while (true) {
                    bool ran = false;
                    for (sim_thread* t : lanes)
                        if (t->state == thread_state::runnable || t->state == thread_state::yielded) {
                            resume(*t);
                            ran = true;
                        }
                    steps += groupers[w].process(lanes);
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
                for (auto& t : threads) t.state = thread_state::runnable;
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
            throw internal_error("kernel " + kname + ": the block can make no progress");
        }
        for (auto& t : threads) t.fiber = {};
        block_steps.push_back(steps);
        rec.c.merge(bcounts);
        shared_words_max = std::max<std::uint64_t>(shared_words_max, (bc.shared_used + m.word_bytes() - 1) / m.word_bytes());
    }

    // Place blocks on the k MPs in order, each on the least-loaded MP (as the
    // hardware's dispatcher gives the next block to the first free SM).
    using mp = std::pair<std::uint64_t, std::uint64_t>;  // (steps, MP index)
    std::priority_queue<mp, std::vector<mp>, std::greater<>> mps;
    const std::uint64_t k = std::min<std::uint64_t>(m.k(), nblocks);
    for (std::uint64_t i = 0; i < k; ++i) mps.push({0, i});
    for (auto s : block_steps) {
        auto [load, i] = mps.top();
        mps.pop();
        mps.push({load + s, i});
    }
    std::uint64_t makespan = 0;
    while (!mps.empty()) {
        makespan = std::max(makespan, mps.top().first);
        mps.pop();
    }
    rec.c[counter::time_steps] = makespan;
    rec.c[counter::shared_words_max] = shared_words_max;
    rec.mps_used = k;
    m_record.launches.push_back(std::move(rec));
}

}  // namespace agpu::sim
