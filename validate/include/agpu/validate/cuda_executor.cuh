// Runs kernels on the GPU with the same interface as sim::executor, so an
// algorithm's run (a template on the executor) is the same code on both.
// Compiled by nvcc only (a .cu file includes it).
#pragma once

#include <cuda_runtime.h>

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "agpu/kl/kl.hpp"
#include "agpu/model/device.hpp"

namespace agpu::validate {

// A CUDA call failed: the message has the call, its error code and name.
class cuda_error : public std::runtime_error {
public:
    cuda_error(cudaError_t code, const std::string& what)
        : std::runtime_error(what + ": " + cudaGetErrorName(code) + " (" + std::to_string(int(code)) + "): " +
                             cudaGetErrorString(code)),
          m_code(code) {}
    cudaError_t code() const { return m_code; }

private:
    cudaError_t m_code;
};

inline void cuda_check(cudaError_t e, const char* call, const char* file, int line) {
    if (e != cudaSuccess) throw cuda_error(e, std::string(call) + " at " + file + ":" + std::to_string(line));
}

}  // namespace agpu::validate

// Every CUDA runtime call goes through this (STYLE.md 6).
#define AGPU_CUDA_CHECK(call) ::agpu::validate::cuda_check((call), #call, __FILE__, __LINE__)

namespace agpu::validate {

class cuda_executor {
public:
    // `dev` is the preset describing this GPU (its machine gives b = 32).
    explicit cuda_executor(model::device dev) : m_dev(std::move(dev)) {}
    ~cuda_executor() {
        for (void* p : m_allocations) cudaFree(p);
    }
    cuda_executor(const cuda_executor&) = delete;
    cuda_executor& operator=(const cuda_executor&) = delete;

    const model::device& device() const { return m_dev; }
    const model::machine& machine() const { return m_dev.agpu; }
    static constexpr const char* backend_name = "cuda";

    template <class T>
    kl::gspan<T> alloc(std::size_t n) {
        void* p = nullptr;
        AGPU_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(n * sizeof(T), 1)));
        m_allocations.push_back(p);
        AGPU_CUDA_CHECK(cudaMemset(p, 0xA5, std::max<std::size_t>(n * sizeof(T), 1)));  // poison, as the simulator
        return {static_cast<T*>(p), n};
    }
    template <class T>
    void upload(kl::gspan<T> dst, std::span<const T> src) {
        AGPU_CUDA_CHECK(cudaMemcpy(dst.data(), src.data(), src.size_bytes(), cudaMemcpyHostToDevice));
    }
    template <class T>
    void download(std::span<T> dst, kl::gspan<const T> src) {
        AGPU_CUDA_CHECK(cudaMemcpy(dst.data(), src.data(), dst.size_bytes(), cudaMemcpyDeviceToHost));
    }
    template <class T>
    void download(std::span<T> dst, kl::gspan<T> src) {
        download(dst, kl::gspan<const T>(src));
    }
    void synchronize() { AGPU_CUDA_CHECK(cudaDeviceSynchronize()); }

    template <class... P, class... A>
    void launch(std::string_view name, void (*kernel)(P...), dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                A&&... args) {
        static_assert(sizeof...(P) == sizeof...(A), "launch: wrong number of kernel arguments");
        if (dynamic_shared_bytes > 48 * 1024)
            AGPU_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(dynamic_shared_bytes)));
        kernel<<<grid, block, dynamic_shared_bytes>>>(P(std::forward<A>(args))...);
        AGPU_CUDA_CHECK(cudaGetLastError());
        m_launches.emplace_back(name);
    }

    // Kernel names in launch order (the CUPTI ranges are matched to them).
    const std::vector<std::string>& launches() const { return m_launches; }

private:
    model::device m_dev;
    std::vector<void*> m_allocations;
    std::vector<std::string> m_launches;
};

}  // namespace agpu::validate
