#include "agpu/validate/cuda_executor.hpp"

#include <algorithm>
#include <atomic>

#include "stream_hold.hpp"

namespace agpu::validate {
namespace {

// Timing events are made once and reused: cudaEventCreate costs the host
// microseconds, and a run whose launches are each timed made two per launch
// while the GPU waited for the next one (on the H100 the two-launch scans at
// 10^6 take 20-27 µs that way, 13-19 µs with the events reused).
std::vector<cudaEvent_t>& event_pool() {
    static std::vector<cudaEvent_t> pool;
    return pool;
}

cudaEvent_t take_event() {
    auto& pool = event_pool();
    if (pool.empty()) {
        cudaEvent_t e = nullptr;
        AGPU_CUDA_CHECK(cudaEventCreate(&e));
        return e;
    }
    const cudaEvent_t e = pool.back();
    pool.pop_back();
    return e;
}

void give_event(cudaEvent_t e) {
    if (e) event_pool().push_back(e);
}

// The hold's flag, in host memory the GPU reads, and its device address (made once).
struct mapped_flag {
    volatile unsigned* host = nullptr;
    const volatile unsigned* device = nullptr;
};
const mapped_flag& hold_flag() {
    static const mapped_flag flag = [] {
        void *p = nullptr, *d = nullptr;
        AGPU_CUDA_CHECK(cudaHostAlloc(&p, sizeof(unsigned), cudaHostAllocMapped));
        AGPU_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
        return mapped_flag{static_cast<volatile unsigned*>(p), static_cast<const volatile unsigned*>(d)};
    }();
    return flag;
}

// Longer than any run here takes to submit its launches; a run that
// submits more than the driver queues (or waits for the GPU) goes on after it.
constexpr unsigned long long hold_timeout_ns = 20'000'000;

}  // namespace

cuda_executor::cuda_executor(model::device dev) : m_dev(std::move(dev)) {}

cuda_executor::~cuda_executor() {
    recycle_events();
    release_hold();
    for (void* p : m_allocations) cudaFree(p);
    if (m_l2_scratch) cudaFree(m_l2_scratch);
}

void* cuda_executor::allocate_bytes(std::size_t bytes) {
    release_hold();
    void* p = nullptr;
    const std::size_t n = std::max<std::size_t>(bytes, 1);
    AGPU_CUDA_CHECK(cudaMalloc(&p, n));
    m_allocations.push_back(p);
    if (m_poison) AGPU_CUDA_CHECK(cudaMemset(p, 0xA5, n));  // poisoned, as in the simulator
    return p;
}

void cuda_executor::copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    release_hold();
    if (bytes) AGPU_CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
}

void cuda_executor::hold() {
    *hold_flag().host = 0;
    AGPU_CUDA_CHECK(detail::launch_stream_hold(hold_flag().device, hold_timeout_ns));
    m_held = true;
}

void cuda_executor::release_hold() {
    if (!m_held) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *hold_flag().host = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    m_held = false;
}

void cuda_executor::synchronize() {
    release_hold();
    AGPU_CUDA_CHECK(cudaDeviceSynchronize());
}

void cuda_executor::flush_l2() {
    int l2 = 0;
    AGPU_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    const std::size_t want = std::size_t(std::max(l2, 1)) * 2;
    if (m_l2_scratch_bytes < want) {
        if (m_l2_scratch) AGPU_CUDA_CHECK(cudaFree(m_l2_scratch));
        AGPU_CUDA_CHECK(cudaMalloc(&m_l2_scratch, want));
        m_l2_scratch_bytes = want;
    }
    AGPU_CUDA_CHECK(cudaMemsetAsync(m_l2_scratch, 0x5A, m_l2_scratch_bytes));
}

void cuda_executor::launch_raw(std::string_view name, const void* kernel, ::dim3 grid, ::dim3 block, std::size_t smem,
                               void** args) {
    // Beyond 48 KiB a block (static and dynamic shared memory together) the kernel must opt in.
    if (smem > 0) {
        cudaFuncAttributes attr{};
        AGPU_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
        if (smem + attr.sharedSizeBytes > 48 * 1024)
            AGPU_CUDA_CHECK(
                cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    }
    begin_launch(name);
    AGPU_CUDA_CHECK(cudaLaunchKernel(kernel, grid, block, args, smem, nullptr));
    AGPU_CUDA_CHECK(cudaGetLastError());
    end_launch();
}

void cuda_executor::begin_launch(std::string_view name) {
    if (m_timing) {
        if (m_flush_pending) {
            flush_l2();
            m_flush_pending = false;
        }
        // Held behind the flush at a run's first launch, and again after a copy or an allocation released
        // the hold (they wait for the GPU), so that no start event is recorded on an idle GPU.
        if (!m_held) hold();
    }
    m_open = {std::string(name), nullptr, nullptr};
    if (m_timing) {
        m_open.start = take_event();
        m_open.stop = take_event();
        AGPU_CUDA_CHECK(cudaEventRecord(m_open.start));
    }
}

void cuda_executor::end_launch() {
    if (m_timing) {
        AGPU_CUDA_CHECK(cudaEventRecord(m_open.stop));
        m_events.push_back(m_open);
    }
    m_launches.push_back(std::move(m_open.kernel));
}

void cuda_executor::recycle_events() {
    for (auto& e : m_events) {
        give_event(e.start);
        give_event(e.stop);
    }
    m_events.clear();
}

void cuda_executor::start_timing() {
    m_timing = true;
    m_flush_pending = true;
}

std::vector<launch_timing> cuda_executor::stop_timing() {
    synchronize();
    std::vector<launch_timing> out;
    for (auto& e : m_events) {
        float ms = 0;
        AGPU_CUDA_CHECK(cudaEventElapsedTime(&ms, e.start, e.stop));
        out.push_back({e.kernel, ms});
    }
    recycle_events();
    m_timing = false;
    return out;
}

}  // namespace agpu::validate
