// Runs kernels on an AGPU machine: the simulator's executor. It has the same
// interface as kl::cuda_executor, so an algorithm's driver (a template on the
// executor) feeds identical run parameters to the simulator and the GPU.
//
//   sim::executor ex(model::resolve_device("h100"));
//   auto in = ex.alloc<float>(n);             // simulated device memory
//   ex.upload(in, host_values);
//   ex.launch("scale", scale_kernel, grid, block, 0, in, out, 2.0f);
//   ex.download(host_result, out);
//   ex.record().totals();                     // counters of every launch
//
// Every thread of every block executes for real (outputs are real); each
// warp's accesses are grouped into warp-instructions and costed on the
// machine: see sim/README.md for the rules.
#pragma once

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/kl/kl.hpp"
#include "agpu/model/device.hpp"
#include "agpu/model/counters.hpp"

namespace agpu::sim {

using model::counter;
using model::counts;
using model::counter_table;
using model::counter_count;
using model::aggregation;

struct launch_record {
    std::string kernel;
    kl::dim3 grid, block;
    std::size_t dynamic_shared_bytes = 0;
    counts c;          // this launch's counters (launches = 1)
    std::uint64_t mps_used = 0;
};

struct run_record {
    std::vector<launch_record> launches;
    counts totals() const;  // every launch merged by each counter's aggregation
};

struct engine_options {
    std::size_t stack_bytes = 256 * 1024;  // per simulated thread; kernels with big local arrays need more
    std::size_t chunk_records = 256;       // a thread yields after this many records (bounds memory)
};

class executor {
public:
    explicit executor(model::device dev, engine_options opt = {});
    ~executor();
    executor(const executor&) = delete;
    executor& operator=(const executor&) = delete;

    const model::device& device() const { return m_dev; }
    const model::machine& machine() const { return m_dev.agpu; }
    static constexpr const char* backend_name = "simulator";

    // Simulated device memory, aligned to 4096 bytes (so that block and sector
    // boundaries fall where they do on a GPU) and filled with a poison pattern
    // (0xA5 bytes) so that a kernel reading what nothing wrote is caught by the
    // result checks.
    template <class T>
    kl::gspan<T> alloc(std::size_t n) {
        return {static_cast<T*>(allocate_bytes(n * sizeof(T))), n};
    }
    template <class T>
    void upload(kl::gspan<T> dst, std::span<const T> src) {
        AGPU_CHECK(src.size() <= dst.size(), "upload larger than its destination");
        // memcpy of 0 bytes from an empty span's null data is still undefined (UBSan).
        if (src.size_bytes()) std::memcpy(dst.data(), src.data(), src.size_bytes());
    }
    template <class T>
    void download(std::span<T> dst, kl::gspan<const T> src) {
        AGPU_CHECK(dst.size() <= src.size(), "download larger than its source");
        if (dst.size_bytes()) std::memcpy(dst.data(), src.data(), dst.size_bytes());
    }
    template <class T>
    void download(std::span<T> dst, kl::gspan<T> src) {
        download(dst, kl::gspan<const T>(src));
    }
    void synchronize() {}

    // Runs kernel<<<grid, block, dynamic_shared_bytes>>>(args...) on the machine.
    template <class... P, class... A>
    void launch(std::string_view name, void (*kernel)(P...), kl::dim3 grid, kl::dim3 block,
                std::size_t dynamic_shared_bytes, A&&... args) {
        static_assert(sizeof...(P) == sizeof...(A), "launch: wrong number of kernel arguments");
        std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
        struct closure {
            void (*k)(P...);
            std::tuple<std::decay_t<P>...>* p;
            static void call(void* self) {
                auto* c = static_cast<closure*>(self);
                std::apply(c->k, *c->p);
            }
        } c{kernel, &params};
        run_launch(name, grid, block, dynamic_shared_bytes, &closure::call, &c);
    }

    const run_record& record() const { return m_record; }
    void clear_record() { m_record = {}; }

private:
    void* allocate_bytes(std::size_t bytes);
    void run_launch(std::string_view name, kl::dim3 grid, kl::dim3 block, std::size_t dynamic_shared_bytes,
                    void (*body)(void*), void* arg);

    struct engine;
    model::device m_dev;
    engine_options m_opt;
    std::unique_ptr<engine> m_engine;
    std::vector<std::pair<void*, std::size_t>> m_allocations;
    run_record m_record;
};

}  // namespace agpu::sim
