#include "agpu/validate/cuda_executor.hpp"

#include <algorithm>

namespace agpu::validate {

cuda_executor::cuda_executor(model::device dev) : m_dev(std::move(dev)) {}

cuda_executor::~cuda_executor() {
    for (auto& e : m_events) {
        cudaEventDestroy(e.start);
        cudaEventDestroy(e.stop);
    }
    for (void* p : m_allocations) cudaFree(p);
    if (m_l2_scratch) cudaFree(m_l2_scratch);
}

void* cuda_executor::allocate_bytes(std::size_t bytes) {
    void* p = nullptr;
    const std::size_t n = std::max<std::size_t>(bytes, 1);
    AGPU_CUDA_CHECK(cudaMalloc(&p, n));
    m_allocations.push_back(p);
    if (m_poison) AGPU_CUDA_CHECK(cudaMemset(p, 0xA5, n));  // poisoned, as in the simulator
    return p;
}

void cuda_executor::copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    if (bytes) AGPU_CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
}

void cuda_executor::synchronize() { AGPU_CUDA_CHECK(cudaDeviceSynchronize()); }

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
    if (smem > 48 * 1024)
        AGPU_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    begin_launch(name);
    AGPU_CUDA_CHECK(cudaLaunchKernel(kernel, grid, block, args, smem, nullptr));
    AGPU_CUDA_CHECK(cudaGetLastError());
    end_launch();
}

void cuda_executor::begin_launch(std::string_view name) {
    if (m_timing && m_flush_pending) {
        flush_l2();
        m_flush_pending = false;
    }
    m_open = {std::string(name), nullptr, nullptr};
    if (m_timing) {
        AGPU_CUDA_CHECK(cudaEventCreate(&m_open.start));
        AGPU_CUDA_CHECK(cudaEventCreate(&m_open.stop));
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
        cudaEventDestroy(e.start);
        cudaEventDestroy(e.stop);
    }
    m_events.clear();
    m_timing = false;
    return out;
}

}  // namespace agpu::validate
