// The kernel layer's hooks (kernels/layer/include/agpu/kl/sim_hooks.hpp): what
// a kernel compiled for the simulator calls at every access, barrier,
// collective, compute note and static shared array. They check the access
// against its span, record it with its site and occurrence, and suspend the
// thread where the block runner must step in.
#include <string>

#include "agpu/kl/sim_hooks.hpp"
#include "block_context.hpp"
#include "instructions.hpp"

namespace agpu::kl::inline sim_backend::hook {

using namespace agpu::sim::detail;

const thread_info& current() { return current_thread().info; }

void access(space s, kind k, const void* p, std::size_t bytes, std::size_t index, std::size_t size,
            const std::source_location& l) {
    auto& t = current_thread();
    if (index >= size) {
        static const char* space_name[] = {"global", "shared"};
        static const char* kind_name[] = {"load", "store", "atomic"};
        g_block->fail(t, std::string(space_name[int(s)]) + " " + kind_name[int(k)] + " at index " +
                             std::to_string(index) + " outside its span of " + std::to_string(size) + " elements (" +
                             where(l) + ")");
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
    if (occurrence == 0 && t.info.lane == 0) note_site(site, l);
    if (s == space::global) {
        g_block->global_atomic |= k == kind::atomic;
        push_record(t, site, occurrence,
                    k == kind::load    ? what::global_load
                    : k == kind::store ? what::global_store
                                       : what::global_atomic,
                    static_cast<std::uint32_t>(bytes), reinterpret_cast<std::uintptr_t>(p));
    } else {
        const auto* base = g_block->shared.data();
        const auto* q = static_cast<const std::byte*>(p);
        AGPU_CHECK(q >= base && q + bytes <= base + g_block->shared.size(),
                   "shared access outside the block's shared memory");
        push_record(t, site, occurrence,
                    k == kind::load    ? what::shared_load
                    : k == kind::store ? what::shared_store
                                       : what::shared_atomic,
                    static_cast<std::uint32_t>(bytes), static_cast<std::uint64_t>(q - base));
    }
}

void skip(space s, kind k, const std::source_location& l) {
    auto& t = current_thread();
    if (!g_block->recording) return;
    const std::uint64_t site = site_key(l);
    const std::uint32_t occurrence = t.sites.next(site);
    if (occurrence == 0) note_site(site, l);
    const what w = s == space::global ? (k == kind::load    ? what::global_load
                                         : k == kind::store ? what::global_store
                                                            : what::global_atomic)
                                      : (k == kind::load    ? what::shared_load
                                         : k == kind::store ? what::shared_store
                                                            : what::shared_atomic);
    push_record(t, site, occurrence, w, 0, 0);
}

void barrier(const std::source_location& l) {
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    if (g_block->recording) {
        const std::uint32_t occurrence = t.sites.next(site);
        if (occurrence == 0 && t.info.lane == 0) note_site(site, l);
        t.log.push_back({site, occurrence, what::barrier, 0, 0});
    }
    t.wait_site = site;
    t.wait_loc = l;
    yield_to_scheduler(t, thread_state::at_barrier);
}

std::uint64_t collective(coll_op op, std::uint64_t value, int arg, lane_mask mask, int width, unsigned bytes,
                         const std::source_location& l) {
    auto& t = current_thread();
    const std::uint64_t site = site_key(l);
    if (g_block->recording && op != coll_op::sync) {
        const std::uint32_t occurrence = t.sites.next(site);
        if (occurrence == 0 && t.info.lane == 0) note_site(site, l);
        t.log.push_back({site, occurrence, what::collective, bytes, 0});
    } else if (g_block->recording) {
        t.log.push_back({site, t.sites.next(site), what::collective, 0, 0});
    }
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
                          "-th ('" + b.statics[i].name +
                          "'): every thread must declare the same arrays in the same order");
        return b.shared.data() + b.statics[i].offset;
    }
    const std::size_t offset = (b.shared_used + align - 1) / align * align;
    if (offset + bytes > b.shared.size()) {
        const auto wb = b.m->word_bytes();
        b.fail(t, "shared memory of " + std::to_string((offset + bytes + wb - 1) / wb) + " words (static array '" +
                      name + "' included) exceeds M = " + std::to_string(b.m->M) + " words");
    }
    b.statics.push_back({offset, bytes, name});
    b.shared_used = offset + bytes;
    return b.shared.data() + offset;
}

}  // namespace agpu::kl::inline sim_backend::hook
