// The pool of fiber stacks (fiber_stacks.hpp): mapped with a guard page each.
#include "fiber_stacks.hpp"

#include <new>

#include <sys/mman.h>
#include <unistd.h>

namespace agpu::sim::detail {
namespace {

std::size_t page() {
    static const std::size_t bytes = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return bytes;
}

std::size_t round_up(std::size_t b) { return (b + page() - 1) / page() * page(); }

}  // namespace

stack_pool::stack_pool(std::size_t bytes) : m_bytes(round_up(bytes)) {}

stack_pool::~stack_pool() {
    for (void* p : m_stacks) {
        unpoison_stack(p, m_bytes + page());
        munmap(p, m_bytes + page());
    }
}

ctx::stack_context stack_pool::get(std::size_t i) {
    while (m_stacks.size() <= i) {
        void* p =
            mmap(nullptr, m_bytes + page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
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

}  // namespace agpu::sim::detail
