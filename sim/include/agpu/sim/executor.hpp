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

#include <array>
#include <cstring>
#include <functional>
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

// How a launch's thread blocks are simulated. exact: every block recorded
// and costed. sampled: a launch of more than 2·sample_strata + 2 blocks has
// its first and last block and one block drawn at random (fixed seed) from
// each of sample_strata equal strata of the others recorded; the other blocks
// run without recording (their outputs feed later launches) and the counts
// are extrapolated (see sim/README.md).
enum class sim_mode : std::uint8_t { exact, sampled };
std::string to_string(sim_mode m);

struct launch_record {
    std::string kernel;
    kl::dim3 grid, block;
    std::size_t dynamic_shared_bytes = 0;
    counts c;          // this launch's counters (launches = 1); extrapolated where sampled
    std::uint64_t mps_used = 0;
    std::uint64_t blocks_recorded = 0;  // recorded in full; the rest ran unrecorded or were skipped
    std::uint64_t blocks_skipped = 0;   // not run (sampled, data-independent launches)
    // Sampled launches: the estimated variance of each counter's extrapolated
    // value (0 where exact: every counter of an exact launch, and launches,
    // thread blocks, threads, shared words always).
    std::array<double, counter_count> variance{};
    bool sampled() const;
};

struct run_record {
    std::vector<launch_record> launches;
    counts totals() const;  // every launch merged by each counter's aggregation
    bool sampled() const;   // some launch was sampled
    std::uint64_t blocks_skipped() const;
    // Half-width of the 95% confidence interval of each total, relative to the
    // total (0 where exact): 1.96·sqrt(sum of the launches' variances)/total.
    std::array<double, counter_count> relative_error_95() const;
};

struct engine_options {
    std::size_t stack_bytes = 256 * 1024;  // per simulated thread; kernels with big local arrays need more
    std::size_t chunk_records = 256;       // a thread yields after this many records (bounds memory)
    sim_mode mode = sim_mode::exact;
    std::uint64_t sample_strata = 48;      // sampled mode: strata (one recorded block each) per launch
    std::uint64_t sample_seed = 0x5eed;    // sampled mode: which block of each stratum
    // Host threads that run the blocks of one launch (0: one per core). Block 0
    // runs first, alone; if it made a global atomic (blocks that talk through
    // atomics, such as a decoupled look-back, depend on running in block
    // order) the others run in order on one thread, else in parallel. The
    // counts are the same for any number of threads.
    unsigned threads = 0;
    // Simulated device memory allowed (bytes); 0: half the host's available
    // memory (the simulator needs about twice the device footprint: the
    // simulated memory plus the driver's host inputs and CPU reference). An
    // allocation beyond it throws host_memory_error before anything runs on it.
    std::uint64_t device_memory_limit = 0;
    // Called after every block with the threads it ran (from any of the
    // threads running blocks; the callee must be thread-safe).
    std::function<void(std::uint64_t threads)> progress;
};

// The host memory available now (MemAvailable), in bytes.
std::uint64_t host_available_bytes();
// engine_options::device_memory_limit, or half the host's available memory.
std::uint64_t device_memory_limit(const engine_options& opt);
std::string gib(std::uint64_t bytes);  // "1.50 GiB"

// Too little host memory for the simulated device memory a run needs.
class host_memory_error : public input_error {
public:
    using input_error::input_error;
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

    // Declares the launches that follow (until turned off) data-independent:
    // their addresses and control flow do not depend on the values they read,
    // nor on values an earlier declared launch wrote. In sampled mode their
    // unrecorded blocks are skipped, not run, so their outputs are incomplete
    // (simulate() then reports the check as not made). Drivers use
    // kernels/common/sampling.hpp, which is a no-op on the GPU.
    void set_data_independent(bool on) { m_data_independent = on; }

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
    std::uint64_t m_allocated = 0, m_memory_limit = 0;
    bool m_data_independent = false;
    run_record m_record;
};

}  // namespace agpu::sim
