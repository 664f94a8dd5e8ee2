// Runs kernels on the GPU with the same interface as sim::executor, so an
// algorithm's run (a template on the executor) is the same code on both.
// Plain C++ over the CUDA runtime API: kernels are launched with
// cudaLaunchKernel (what <<<...>>> expands to), so the measurement code builds
// with the host compiler and only the kernels' own files need nvcc.
//
// Timing: with timing on, every launch is bracketed by CUDA events; the L2
// cache is flushed (a write of twice its size) before a run's first launch,
// so that inputs small enough to stay in L2 after their upload are not timed
// from the cache (nvbench's approach; it stands in for rotating inputs among
// buffers); and the stream is held behind the flush until the run's launches
// are all submitted, so that no launch is timed waiting for the host's
// submission (validate/src/stream_hold.hpp), and held again at the next
// launch after a copy or an allocation released it (otherwise the launch
// after an upload is timed on an idle GPU while the host submits it: 7-28 µs
// on the rank queries). The events are made once and reused.
#pragma once

#include <cuda_runtime_api.h>

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "agpu/kl/kl.hpp"
#include "agpu/model/device.hpp"
#include "agpu/validate/cuda_check.hpp"

namespace agpu::validate {

struct launch_timing {
    std::string kernel;
    float ms = 0;
};

class cuda_executor {
public:
    // `dev` is the preset describing this GPU (its machine gives b = 32).
    explicit cuda_executor(model::device dev);
    ~cuda_executor();
    cuda_executor(const cuda_executor&) = delete;
    cuda_executor& operator=(const cuda_executor&) = delete;

    const model::device& device() const { return m_dev; }
    const model::machine& machine() const { return m_dev.agpu; }
    static constexpr const char* backend_name = "cuda";

    template <class T>
    kl::gspan<T> alloc(std::size_t n) {
        return {static_cast<T*>(allocate_bytes(n * sizeof(T))), n};
    }
    template <class T>
    void upload(kl::gspan<T> dst, std::span<const T> src) {
        copy(dst.data(), src.data(), src.size_bytes(), cudaMemcpyHostToDevice);
    }
    template <class T>
    void download(std::span<T> dst, kl::gspan<const T> src) {
        copy(dst.data(), src.data(), dst.size_bytes(), cudaMemcpyDeviceToHost);
    }
    template <class T>
    void download(std::span<T> dst, kl::gspan<T> src) {
        download(dst, kl::gspan<const T>(src));
    }
    void synchronize();

    template <class... P, class... A>
    void launch(std::string_view name, void (*kernel)(P...), ::dim3 grid, ::dim3 block,
                std::size_t dynamic_shared_bytes, A&&... args) {
        static_assert(sizeof...(P) == sizeof...(A), "launch: wrong number of kernel arguments");
        std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
        void* ptrs[sizeof...(P) + 1] = {};
        std::apply(
            [&](auto&... p) {
                std::size_t i = 0;
                ((ptrs[i++] = static_cast<void*>(&p)), ...);
            },
            params);
        launch_raw(name, reinterpret_cast<const void*>(kernel), grid, block, dynamic_shared_bytes, ptrs);
    }

    // Runs `work`, which puts GPU work on the default stream (a CUB or Thrust
    // call, a copy), as one launch named `name`: timed like a kernel and
    // listed in launches(). For the GPU-only baselines.
    template <class F>
    void timed(std::string_view name, F&& work) {
        begin_launch(name);
        release_hold();  // the work may wait for the GPU (a Thrust result, a temporary's allocation)
        work();
        AGPU_CUDA_CHECK(cudaGetLastError());
        end_launch();
    }
    // The stream kernels and timed work run on (the default stream).
    cudaStream_t stream() const { return nullptr; }

    // Timing: on from now; times() gives each launch's milliseconds since.
    void start_timing();
    std::vector<launch_timing> stop_timing();
    // Poisoning new allocations (on by default) uses cudaMemset, which may
    // show up as profiler ranges: the profiled run turns it off.
    void set_poison(bool on) { m_poison = on; }
    // Kernel names in launch order (CUPTI ranges are matched to them).
    const std::vector<std::string>& launches() const { return m_launches; }

private:
    void* allocate_bytes(std::size_t bytes);
    void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
    void launch_raw(std::string_view name, const void* kernel, ::dim3 grid, ::dim3 block, std::size_t smem,
                    void** args);
    void flush_l2();
    // Holds the stream until release_hold() (validate/src/stream_hold.hpp);
    // everything that may wait for the GPU releases it first.
    void hold();
    void release_hold();
    void begin_launch(std::string_view name);
    void end_launch();
    // Returns the timed launches' events to the pool (they are made once).
    void recycle_events();

    model::device m_dev;
    std::vector<void*> m_allocations;
    std::vector<std::string> m_launches;
    bool m_timing = false;
    bool m_poison = true;
    bool m_flush_pending = false;
    bool m_held = false;
    void* m_l2_scratch = nullptr;
    std::size_t m_l2_scratch_bytes = 0;
    struct event_pair {
        std::string kernel;
        cudaEvent_t start, stop;
    };
    std::vector<event_pair> m_events;
    event_pair m_open{};
};

}  // namespace agpu::validate
