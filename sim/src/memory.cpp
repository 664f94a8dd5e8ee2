// The executor's simulated device memory: allocations against the host's
// limit, poisoned; self-filling memory (mapped, filled where a kernel first
// touches it); the executor's construction.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>

#include <sys/mman.h>
#include <unistd.h>

#include "agpu/sim/executor.hpp"
#include "engine_state.hpp"

namespace agpu::sim {

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
            "host memory", "the run needs more than " + gib(m_allocated + rounded) +
                               " of simulated device memory (an allocation of " + gib(rounded) + " after " +
                               gib(m_allocated) +
                               "), and the simulator needs about twice that on the host "
                               "(the simulated memory plus the inputs and CPU reference): " +
                               gib(2 * (m_allocated + rounded)) + ", more than this host's " + gib(2 * m_memory_limit) +
                               " available; use a smaller n, or agpu predict, whose closed forms need no memory");
    void* p = std::aligned_alloc(4096, rounded);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0xA5, rounded);
    m_allocations.emplace_back(p, rounded);
    m_allocated += rounded;
    return p;
}

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
        auto r = std::make_unique<detail::synth_region>();
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

}  // namespace agpu::sim
