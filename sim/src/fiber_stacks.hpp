// Fiber stacks and AddressSanitizer's view of them: the stacks the simulated
// threads run on (a pool per host thread, reused across blocks and launches)
// and the annotations ASan needs at every switch between stacks.
#pragma once

#include <cstddef>
#include <vector>

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

namespace agpu::sim::detail {

namespace ctx = boost::context;

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
inline void leaving_stack([[maybe_unused]] void** fake_stack, [[maybe_unused]] stack_span to) {
#ifdef AGPU_ASAN
    __sanitizer_start_switch_fiber(fake_stack, to.bottom, to.size);
#endif
}

// from: if not null, receives the stack that was left.
inline void arrived_on_stack([[maybe_unused]] void* fake_stack, [[maybe_unused]] stack_span* from) {
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
inline void unpoison_stack([[maybe_unused]] void* bottom, [[maybe_unused]] std::size_t bytes) {
#ifdef AGPU_ASAN
    __asan_unpoison_memory_region(bottom, bytes);
#endif
}

// Stacks for the fibers of one block, reused across blocks and launches.
class stack_pool {
public:
    explicit stack_pool(std::size_t bytes);
    ~stack_pool();
    stack_pool(const stack_pool&) = delete;
    stack_pool& operator=(const stack_pool&) = delete;
    // Stack i: a guard page below the usable stack.
    ctx::stack_context get(std::size_t i);

private:
    std::size_t m_bytes;
    std::vector<void*> m_stacks;
};

// The stack allocator a fiber is given: stacks belong to the pool.
struct pooled_stack {
    ctx::stack_context allocate() { return {}; }
    void deallocate(ctx::stack_context&) noexcept {}
};

}  // namespace agpu::sim::detail
