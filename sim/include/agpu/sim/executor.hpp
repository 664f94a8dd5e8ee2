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
#include "agpu/sim/estimator.hpp"
#include "agpu/sim/record.hpp"
#include "agpu/sim/sass_profiles.hpp"

namespace agpu::sim {

// How a launch's thread blocks are simulated. exact: every block recorded
// and costed. sampled: a launch of more than 2·sample_strata + 2 blocks has
// its first and last block and one block drawn at random (fixed seed) from
// each of sample_strata equal strata of the others recorded; the other blocks
// run without recording (their outputs feed later launches) and the counts
// are extrapolated (see sim/README.md).
enum class sim_mode : std::uint8_t { exact, sampled };
std::string to_string(sim_mode m);

struct engine_options {
    std::size_t stack_bytes = 256 * 1024;  // per simulated thread; kernels with big local arrays need more
    std::size_t chunk_records = 256;       // a thread yields after this many records (bounds memory)
    sim_mode mode = sim_mode::exact;
    std::uint64_t sample_strata = 48;    // sampled mode: strata (one recorded block each) per launch
    std::uint64_t sample_seed = 0x5eed;  // sampled mode: which block of each stratum
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
    const engine_options& options() const { return m_opt; }
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
    // Simulated device memory that fills itself: fill(first, count, dst)
    // writes elements [first, first + count) when a kernel first touches them
    // (units of synth_unit_bytes; from any of the threads running blocks, so
    // it must be thread-safe, and it must give the same values whichever units
    // were filled before). Memory no kernel touches costs no host memory, and
    // it is not counted against the limit. Without fill: zeros, for outputs
    // no one reads. For drivers that synthesize a sampled run's inputs
    // (sim/estimators/sort_sampled.hpp); a kernel reads real values, never poison.
    static constexpr std::size_t synth_unit_bytes = 128;
    template <class T, class Fill>
    kl::gspan<T> alloc_synthesized(std::size_t n, Fill fill) {
        return {static_cast<T*>(allocate_synthesized(n * sizeof(T), typed_fill<T>(std::move(fill)))), n};
    }
    // The same memory filling itself afresh with other values (no unit filled
    // yet): its pages stay, so a driver that synthesizes one input after
    // another pays the host's page clearing once.
    template <class T, class Fill>
    void refill_synthesized(kl::gspan<T> s, Fill fill) {
        refill_synthesized(static_cast<const void*>(s.data()), typed_fill<T>(std::move(fill)));
    }
    template <class T>
    kl::gspan<T> alloc_synthesized(std::size_t n) {
        return {static_cast<T*>(allocate_synthesized(n * sizeof(T), {})), n};
    }
    // Gives self-filling memory back to the host (its spans must not be used
    // again): a driver's input it is done with.
    template <class T>
    void release_synthesized(kl::gspan<T> s) {
        if (s.data()) release_synthesized(static_cast<const void*>(s.data()));
    }
    // Fills what the host is about to read of self-filling memory (s.data()).
    template <class T>
    void materialize(kl::gspan<T> s) {
        materialize_bytes(s.data(), s.size() * sizeof(T));
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
        const std::string symbol = cuda_symbol_of(reinterpret_cast<const void*>(kernel));
        erased([&](void (*body)(void*),
                   void* arg) { run_launch(name, symbol, grid, block, dynamic_shared_bytes, body, arg); },
               kernel, std::forward<A>(args)...);
    }

    // Declares that nothing needs the outputs of the unrecorded blocks of the
    // launches that follow (until turned off): their addresses and control flow
    // do not depend on the values they read, nor on values an earlier declared
    // launch wrote (data-independent launches), or the driver synthesizes what
    // later launches read. In sampled mode their unrecorded blocks are skipped,
    // not run, so their outputs are incomplete (simulate() then reports the
    // check as not made). Drivers use kernels/common/sampling.hpp, which is a
    // no-op on the GPU.
    void set_skip_unrecorded(bool on) { m_skip_unrecorded = on; }

    // Sampled runs on synthesized inputs. A driver that makes each launch's
    // inputs itself, in distribution those the run would have computed (sorted
    // runs of random keys: sim/estimators/sort_sampled.hpp), declares the
    // launches that follow synthesized: since their recorded blocks see a
    // sample of the data's distribution rather than the run's own data, each
    // counter's variance takes the deviation of the run's own blocks from their
    // expectation too (factor 1 + S/N instead of 1 - S/N).
    bool sampled() const { return m_opt.mode == sim_mode::sampled; }
    void set_synthesized(bool on) { m_synthesized = on; }
    // Strata of the sampled launches that follow (0: engine_options::sample_strata).
    void set_sample_strata(std::uint64_t strata) { m_strata = strata; }
    // `count` blocks of a launch of `nblocks` to sample (record_work_launch,
    // plan_probes):
    // one drawn at random (fixed seed, per launch) from each of `count` equal
    // strata, so that every block is as likely to be probed; every block when
    // count >= nblocks.
    std::vector<std::uint64_t> probe_blocks(std::uint64_t nblocks, std::uint64_t count) const;

    // Runs only `blocks` of kernel<<<grid, block, dynamic_shared_bytes>>>(args...),
    // each recorded, and returns each one's counters and steps in the order
    // given; nothing is added to record(). For probes of shortened blocks.
    template <class... P, class... A>
    std::vector<block_sample> run_blocks(std::span<const std::uint64_t> blocks, std::string_view name,
                                         void (*kernel)(P...), kl::dim3 grid, kl::dim3 block,
                                         std::size_t dynamic_shared_bytes, A&&... args) {
        const std::string symbol = cuda_symbol_of(reinterpret_cast<const void*>(kernel));
        return erased(
            [&](void (*body)(void*), void* arg) {
                return run_listed_blocks(blocks, name, symbol, grid, block, dynamic_shared_bytes, body, arg);
            },
            kernel, std::forward<A>(args)...);
    }
    // Adds to record() a launch estimated from samples of its blocks, each
    // block's counters taken as linear in its work (estimator.hpp,
    // estimate_linear); the launch is checked as a launch would be.
    void record_work_launch(const work_launch& w);

    const run_record& record() const { return m_record; }
    void clear_record() { m_record = {}; }

private:
    // Calls run(body, arg), body(arg) being kernel(args...) with the arguments held here.
    template <class Run, class... P, class... A>
    static decltype(auto) erased(Run&& run, void (*kernel)(P...), A&&... args) {
        static_assert(sizeof...(P) == sizeof...(A), "wrong number of kernel arguments");
        std::tuple<std::decay_t<P>...> params(std::forward<A>(args)...);
        struct closure {
            void (*k)(P...);
            std::tuple<std::decay_t<P>...>* p;
            static void call(void* self) {
                auto* c = static_cast<closure*>(self);
                std::apply(c->k, *c->p);
            }
        } c{kernel, &params};
        return run(&closure::call, static_cast<void*>(&c));
    }
    void* allocate_bytes(std::size_t bytes);
    void* allocate_synthesized(std::size_t bytes, std::function<void(std::uint64_t, std::uint64_t, void*)> fill);
    void materialize_bytes(const void* p, std::size_t bytes);
    void release_synthesized(const void* p);
    void refill_synthesized(const void* p, std::function<void(std::uint64_t, std::uint64_t, void*)> fill);
    template <class T, class Fill>
    static std::function<void(std::uint64_t, std::uint64_t, void*)> typed_fill(Fill fill) {
        static_assert(synth_unit_bytes % sizeof(T) == 0, "an element must not straddle a unit");
        return [fill = std::move(fill)](std::uint64_t first, std::uint64_t bytes, void* dst) {
            fill(first / sizeof(T), bytes / sizeof(T), static_cast<T*>(dst));
        };
    }
    // `symbol`: the kernel's CUDA symbol (cuda_symbol_of), for its SASS profile's instruction counts.
    void run_launch(std::string_view name, const std::string& symbol, kl::dim3 grid, kl::dim3 block,
                    std::size_t dynamic_shared_bytes, void (*body)(void*), void* arg);
    std::vector<block_sample> run_listed_blocks(std::span<const std::uint64_t> blocks, std::string_view name,
                                                const std::string& symbol, kl::dim3 grid, kl::dim3 block,
                                                std::size_t dynamic_shared_bytes, void (*body)(void*), void* arg);
    void check_launch(const std::string& kname, kl::dim3 grid, kl::dim3 block, std::size_t dynamic_shared_bytes) const;
    // Runs `count` blocks of a launch, block_at(i) for i < count, the first alone
    // (see engine_options::threads); after each, done(worker, block, recorded,
    // steps, counters, shared bytes) on the thread that ran it.
    using block_done = std::function<void(unsigned, std::uint64_t, bool, std::uint64_t, const counts&, std::uint64_t)>;
    void run_blocks_of(const std::string& kname, kl::dim3 grid, kl::dim3 block, std::size_t dynamic_shared_bytes,
                       void (*body)(void*), void* arg, std::uint64_t count,
                       const std::function<std::uint64_t(std::uint64_t)>& block_at,
                       const std::function<bool(std::uint64_t)>& recorded, unsigned workers, const block_done& done);
    unsigned workers_for(std::uint64_t blocks) const;

    struct engine;
    model::device m_dev;
    engine_options m_opt;
    std::unique_ptr<engine> m_engine;
    std::vector<std::pair<void*, std::size_t>> m_allocations;
    std::uint64_t m_allocated = 0, m_memory_limit = 0;
    bool m_skip_unrecorded = false, m_synthesized = false;
    std::uint64_t m_strata = 0;
    run_record m_record;
};

}  // namespace agpu::sim
