// The calibration probes: GPU-only microbenchmarks, one physical quantity
// each, that `agpu calibrate` turns into a device's time constants
// (validate/include/agpu/validate/calibrate.hpp, docs/measuring.md
// "Calibrating a device"). Each is a run like any other: inputs from the
// seed, launches through the executor (CUDA-event timed, CUPTI counted), and
// a check of what it computed against the host's own arithmetic, so the
// compiler cannot drop the work and a wrong run is visible.
//
//   probe/launch     n launches of an empty one-block kernel: time per launch in a stream
//   probe/blocks     one launch of n empty blocks: the dispatch time per block (slope over n)
//   probe/stream     read, write or copy n 4-byte words, 16-byte accesses, grid-stride
//   probe/l2         n bytes read, repeatedly, from a buffer the L2 holds (loads that skip the L1)
//   probe/chase      one thread's n dependent loads over random cache lines in DRAM or the L2 (clock64)
//   probe/shared     shared loads with `ways` distinct words in one bank: wavefronts per clock
//   probe/atomic     n atomic adds to one global address
//   probe/issue      independent chains of one instruction class: the issue rate of its pipe
//   probe/dependent  one warp's chain of n dependent FFMA, IADD3, SHFL or barriers (clock64;
//                    dependent.gpu.cu)
//
// Shapes (blocks an SM, chains, loop bodies) are declared in model/probe_shape.hpp,
// where the derivation reads them. Rates that need the SM clock also record it
// in the run: block 0's clock64 cycles over %globaltimer nanoseconds around
// its loop (the value sm_clock_mhz).
#include "probes/probe_helpers.gpu.cuh"

// ---- probe/launch ----

// Empty but for the last launch, which writes n: the host sees that all ran.
__global__ void launch_empty(u32* out, u32 mark) {
    if (mark != 0 && threadIdx.x == 0) out[0] = mark;
}

check_result run_launch(cuda_executor& ex, u64 n, const param_values&, u64) {
    auto out = zeroed_word(ex);
    const std::size_t before = ex.launches().size();
    for (u64 i = 0; i < n; ++i)
        ex.launch("probe_launch", launch_empty, dim3(1), dim3(32), 0, out.data(), i + 1 == n ? u32(n) : 0u);
    const u64 launched = ex.launches().size() - before;
    const u32 got = fetch_one(ex, out);
    const bool ok = got == n && launched == n;
    return {ok, std::to_string(launched) + " launches, the last wrote " + std::to_string(got) + " (want " +
                    std::to_string(n) + ")"};
}

// ---- probe/blocks ----

__global__ void blocks_empty(u32* out) {
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) out[0] = gridDim.x;
}

check_result run_blocks(cuda_executor& ex, u64 n, const param_values& p, u64) {
    auto out = zeroed_word(ex);
    ex.launch("probe_blocks", blocks_empty, dim3(u32(n)), dim3(unsigned(p.integer("threads"))), 0, out.data());
    const u32 got = fetch_one(ex, out);
    return {got == n, "the last of " + std::to_string(n) + " blocks wrote " + std::to_string(got)};
}

// ---- probe/stream ----

// Sum of n words (16-byte loads, four in flight a thread), added into *sum.
__global__ void stream_read(const u32* __restrict__ in, u64 n, u32* sum) {
    const uint4* v = reinterpret_cast<const uint4*>(in);
    const u64 vecs = n / 4, stride = u64(gridDim.x) * blockDim.x;
    u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
    const u64 tail = 4 * vecs + i;
    u32 acc = 0;
    for (; i + 3 * stride < vecs; i += 4 * stride) {
        const uint4 a = v[i], b = v[i + stride], c = v[i + 2 * stride], d = v[i + 3 * stride];
        acc += sum4(a) + sum4(b) + sum4(c) + sum4(d);
    }
    for (; i < vecs; i += stride) acc += sum4(v[i]);
    if (tail < n) acc += in[tail];
    warp_add(sum, acc);
}

// out[i] = pattern(i), 16-byte stores.
__global__ void stream_write(u32* __restrict__ out, u64 n, u32 salt) {
    uint4* v = reinterpret_cast<uint4*>(out);
    const u64 vecs = n / 4, stride = u64(gridDim.x) * blockDim.x;
    const u64 first = u64(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll 4
    for (u64 i = first; i < vecs; i += stride) {
        const u32 w = pattern(4 * i, salt);
        v[i] = make_uint4(w, w + pattern_step, w + 2 * pattern_step, w + 3 * pattern_step);
    }
    if (4 * vecs + first < n) out[4 * vecs + first] = pattern(4 * vecs + first, salt);
}

// out = in, 16-byte loads and stores, four in flight a thread.
__global__ void stream_copy(const u32* __restrict__ in, u32* __restrict__ out, u64 n) {
    const uint4* s = reinterpret_cast<const uint4*>(in);
    uint4* d = reinterpret_cast<uint4*>(out);
    const u64 vecs = n / 4, stride = u64(gridDim.x) * blockDim.x;
    u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
    const u64 tail = 4 * vecs + i;
    for (; i + 3 * stride < vecs; i += 4 * stride) {
        const uint4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
        d[i] = a;
        d[i + stride] = b;
        d[i + 2 * stride] = c;
        d[i + 3 * stride] = e;
    }
    for (; i < vecs; i += stride) d[i] = s[i];
    if (tail < n) out[tail] = in[tail];
}

check_result run_stream(cuda_executor& ex, u64 n, const param_values& p, u64 seed) {
    const std::string& op = p.text("op");
    const u32 salt = salt_of(seed);
    const dim3 grid = stream_grid(), block(shape::block_threads);
    auto sum = zeroed_word(ex);
    auto a = ex.alloc<u32>(n);
    if (op == "read") {
        ex.launch("fill", fill, grid, block, 0, a.data(), n, salt);
        ex.launch("stream_read", stream_read, grid, block, 0, a.data(), n, sum.data());
    } else if (op == "write") {
        ex.launch("stream_write", stream_write, grid, block, 0, a.data(), n, salt);
        ex.launch("check_sum", stream_read, grid, block, 0, a.data(), n, sum.data());
    } else {
        auto b = ex.alloc<u32>(n);
        ex.launch("fill", fill, grid, block, 0, a.data(), n, salt);
        ex.launch("stream_copy", stream_copy, grid, block, 0, a.data(), b.data(), n);
        ex.launch("check_sum", stream_read, grid, block, 0, b.data(), n, sum.data());
    }
    const u32 got = fetch_one(ex, sum), want = pattern_sum(n, salt);
    return {got == want, "sum of the " + std::to_string(n) + " words " + (op == "read" ? "read" : "written") + ": " +
                             std::to_string(got) + " (want " + std::to_string(want) + ")"};
}

// ---- probe/l2 ----

// Reads vecs 16-byte vectors, vector i at i & mask of buf (a power of two
// the L2 holds), with loads that skip the L1 (ld.global.cg); sums them.
__global__ void l2_read(const uint4* __restrict__ buf, u64 mask, u64 vecs, u32* sum) {
    const u64 stride = u64(gridDim.x) * blockDim.x;
    u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
    u32 acc = 0;
    for (; i + 3 * stride < vecs; i += 4 * stride) {
        const uint4 a = __ldcg(buf + (i & mask)), b = __ldcg(buf + ((i + stride) & mask)),
                    c = __ldcg(buf + ((i + 2 * stride) & mask)), d = __ldcg(buf + ((i + 3 * stride) & mask));
        acc += sum4(a) + sum4(b) + sum4(c) + sum4(d);
    }
    for (; i < vecs; i += stride) acc += sum4(__ldcg(buf + (i & mask)));
    warp_add(sum, acc);
}

check_result run_l2(cuda_executor& ex, u64 n, const param_values& p, u64 seed) {
    const u64 footprint = u64(p.integer("footprint"));
    const u64 fvecs = footprint / 16, vecs = n / 16;
    const u32 salt = salt_of(seed);
    auto sum = zeroed_word(ex);
    auto buf = ex.alloc<u32>(footprint / 4);
    ex.launch("fill", fill, stream_grid(), dim3(shape::block_threads), 0, buf.data(), footprint / 4, salt);
    ex.launch("l2_read", l2_read, stream_grid(), dim3(shape::block_threads), 0,
              reinterpret_cast<const uint4*>(buf.data()), fvecs - 1, vecs, sum.data());
    // Each vector j of the buffer is read vecs / fvecs times, once more if j < vecs % fvecs.
    const u32 want = u32(vecs / fvecs) * pattern_sum(footprint / 4, salt) + pattern_sum(4 * (vecs % fvecs), salt);
    const u32 got = fetch_one(ex, sum);
    return {got == want, "sum of " + std::to_string(16 * vecs) + " bytes read: " + std::to_string(got) + " (want " +
                             std::to_string(want) + ")"};
}

// ---- probe/chase ----

// Writes the links: line order[i] holds the address of line order[i + 1]
// (the last of order[0]).
__global__ void chase_link(unsigned char* base, const u32* order, u32 len) {
    const u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= len) return;
    const u32 next = order[i + 1 == len ? 0 : i + 1];
    *reinterpret_cast<u64*>(base + u64(order[i]) * shape::chase_line_bytes) =
        reinterpret_cast<u64>(base + u64(next) * shape::chase_line_bytes);
}

__device__ __forceinline__ u64 load_link(u64 p) {
    u64 v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
    return v;
}

// One thread follows `loads` links from `start`, each load's address the
// value of the one before; out[0] = SM clocks, out[1] = where it ended.
__global__ void chase(u64 start, u64 loads, u64* out) {
    u64 p = start, s = 0;
    const u64 c0 = clock_now();
    for (; s + 8 <= loads; s += 8) {
#pragma unroll
        for (int k = 0; k < 8; ++k) p = load_link(p);
    }
    for (; s < loads; ++s) p = load_link(p);
    const u64 c1 = clock_now();
    out[0] = c1 - c0;
    out[1] = p;
}

check_result run_chase(cuda_executor& ex, u64 n, const param_values& p, u64 seed) {
    const bool dram = p.text("space") == "dram";
    const u64 region = dram ? shape::chase_dram_bytes : shape::chase_l2_bytes;
    const u64 lines = region / shape::chase_line_bytes;
    std::mt19937_64 rng(seed);
    std::vector<u32> order;
    if (dram) {
        // n + 1 distinct random lines: the n loads never meet a line twice.
        std::unordered_set<u32> seen;
        std::uniform_int_distribution<u64> pick(0, lines - 1);
        while (order.size() < n + 1)
            if (const u32 l = u32(pick(rng)); seen.insert(l).second) order.push_back(l);
    } else {
        order.resize(lines);
        for (u64 i = 0; i < lines; ++i) order[i] = u32(i);
        std::shuffle(order.begin(), order.end(), rng);
    }
    const u32 len = u32(order.size());
    auto buf = ex.alloc<unsigned char>(region);
    auto links = ex.alloc<u32>(len);
    auto out = ex.alloc<u64>(2);
    ex.upload(links, std::span<const u32>(order));
    ex.launch("chase_link", chase_link, dim3(blocks_for(len, 256)), dim3(256), 0, buf.data(), links.data(), len);
    if (dram) {
        // Read evict_l2_factor times the L2 elsewhere: the links just written leave it.
        const u64 words = shape::evict_l2_factor * l2_bytes() / 4;
        auto scratch = ex.alloc<u32>(words);
        auto sum = ex.alloc<u32>(1);
        ex.launch("evict", stream_read, stream_grid(), dim3(shape::block_threads), 0, scratch.data(), words,
                  sum.data());
    }
    const u64 base = reinterpret_cast<u64>(buf.data());
    ex.launch("chase", chase, dim3(1), dim3(1), 0, base + u64(order[0]) * shape::chase_line_bytes, n, out.data());
    const auto r = fetch(ex, out, 2);
    const u64 want = base + u64(order[n % len]) * shape::chase_line_bytes;
    const double per_load = double(r[0]) / double(n);
    return {r[1] == want,
            std::to_string(n) + " loads ended at line " + std::to_string((r[1] - base) / shape::chase_line_bytes) +
                " (want " + std::to_string(order[n % len]) + "), " + std::to_string(per_load) + " clocks a load",
            {{"clocks_per_load", per_load, "clocks"}}};
}

// ---- probe/shared ----

// Each warp loads shared words `ways` to a bank (lane l reads row l mod ways
// of bank l / ways), shared_loads loads an iteration: `ways` wavefronts each.
__global__ void __launch_bounds__(256, 4) shared_ways(u32 ways, u32 iters, u32 salt, u32* out, u64* clk) {
    __shared__ u32 words[32 * 32];
    for (u32 i = threadIdx.x; i < 32 * 32; i += blockDim.x) words[i] = pattern(i, salt);
    __syncthreads();
    const u32 lane = threadIdx.x & 31;
    const u32 addr = u32(__cvta_generic_to_shared(&words[(lane % ways) * 32 + lane / ways]));
    u32 acc = 0;
    run_clock rc;
    rc.begin();
    for (u32 it = 0; it < iters; ++it) {
#pragma unroll
        for (unsigned k = 0; k < shape::shared_loads; ++k) {
            u32 v;
            asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
            acc += v;
        }
    }
    rc.end(clk);
    out[u64(blockIdx.x) * blockDim.x + threadIdx.x] = acc;
}

check_result run_shared(cuda_executor& ex, u64 n, const param_values& p, u64 seed) {
    const u32 ways = u32(p.integer("ways")), salt = salt_of(seed);
    const dim3 grid = wave_grid(), block(shape::block_threads);
    const u64 threads = u64(grid.x) * block.x;
    auto out = ex.alloc<u32>(threads);
    auto clk = ex.alloc<u64>(2);
    ex.launch("shared_ways", shared_ways, grid, block, wave_shared_bytes(), ways, u32(n), salt, out.data(), clk.data());
    const auto got = fetch(ex, out, threads);
    std::vector<u32> want(threads);
    for (u64 t = 0; t < threads; ++t) {
        const u32 lane = u32(t % 32);
        want[t] = u32(n * shape::shared_loads) * pattern((lane % ways) * 32 + lane / ways, salt);
    }
    return with_values(compare(got, want, "threads' sums of their shared loads"), clock_value(ex, clk));
}

// ---- probe/atomic ----

// Every lane adds 1 to *counter. `zero` is 0, but the compilers cannot know:
// with an address they see is the same for the warp, nvcc and ptxas add a
// warp's lanes first (one RED of +32 a warp), which is not what the probe
// measures. (No run_clock: a thread's REDs do not wait for the L2, so its
// loop ends long before the kernel does.)
__global__ void atomic_one(u32* counter, u32 zero, u64 n) {
    const u64 stride = u64(gridDim.x) * blockDim.x;
    u32* at = counter + (threadIdx.x & zero);
    for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(at, 1u);
}

check_result run_atomic(cuda_executor& ex, u64 n, const param_values&, u64) {
    auto counter = zeroed_word(ex);
    ex.launch("atomic_one", atomic_one, stream_grid(), dim3(shape::block_threads), 0, counter.data(), 0u, n);
    const u32 got = fetch_one(ex, counter);
    return {got == n, "the address holds " + std::to_string(got) + " after " + std::to_string(n) + " adds"};
}

// ---- probe/issue ----

// Kernel arguments every op reads from (so that nothing is a compile-time constant).
struct issue_args {
    float f1, f2;
    double d1, d2;
    u32 u1, u2;
};

issue_args make_issue_args(u64 seed) { return {0.5f, 0.5f, 0.5, 0.5, salt_of(seed) | 1u, 1u}; }

// IEEE half from a float in the normal half range, rounded to nearest even.
std::uint16_t half_bits(float x) {
    u32 b;
    std::memcpy(&b, &x, 4);
    const u32 sign = (b >> 16) & 0x8000u, exp = ((b >> 23) & 0xffu) - 127 + 15, mant = b & 0x7fffffu;
    u32 h = sign | (exp << 10) | (mant >> 13);
    const u32 rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return std::uint16_t(h);
}
float half_value(std::uint16_t h) {
    const int exp = (h >> 10) & 0x1f;
    const float m = 1.0f + float(h & 0x3ff) / 1024.0f;
    return std::ldexp((h & 0x8000) ? -m : m, exp - 15);
}

// Each op: T, the chains' start (chain j of lane `lane`), one step on the
// device (the chain's value, the next chain's, the round), the same step on
// the host, and whether the host's value is what the GPU must give exactly.
struct op_ffma {
    using T = float;
    static T init(unsigned j, u32) { return 1.0f + 0.125f * float(j); }
    __device__ static T step(T a, T, const issue_args& p, int) { return fmaf(a, p.f1, p.f2); }
    static T host(T a, T, const issue_args& p, int) { return std::fmaf(a, p.f1, p.f2); }
};
struct op_fadd {
    using T = float;
    static T init(unsigned j, u32) { return 1.0f + 0.125f * float(j); }
    __device__ static T step(T a, T, const issue_args& p, int) { return a + p.f1; }
    static T host(T a, T, const issue_args& p, int) { return a + p.f1; }
};
struct op_imad {
    using T = u32;
    static T init(unsigned j, u32) { return 0x1234567u * (j + 1); }
    __device__ static T step(T a, T next, const issue_args& p, int) { return a * p.u1 + next; }
    static T host(T a, T next, const issue_args& p, int) { return a * p.u1 + next; }
};
struct op_iadd3 {
    using T = u32;
    static T init(unsigned j, u32) { return 0x1234567u * (j + 1); }
    __device__ static T step(T a, T next, const issue_args& p, int) { return a + next + p.u1; }
    static T host(T a, T next, const issue_args& p, int) { return a + next + p.u1; }
};
// (a & next) ^ u1: not linear, so no chain of them folds into fewer.
struct op_lop3 {
    using T = u32;
    static T init(unsigned j, u32) { return 0x1234567u * (j + 1); }
    __device__ static T step(T a, T next, const issue_args& p, int) {
        T d;
        asm volatile("lop3.b32 %0, %1, %2, %3, 0x6a;" : "=r"(d) : "r"(a), "r"(next), "r"(p.u1));
        return d;
    }
    static T host(T a, T next, const issue_args& p, int) { return (a & next) ^ p.u1; }
};
struct op_dfma {
    using T = double;
    static T init(unsigned j, u32) { return 1.0 + 0.125 * j; }
    __device__ static T step(T a, T, const issue_args& p, int) { return fma(a, p.d1, p.d2); }
    static T host(T a, T, const issue_args& p, int) { return std::fma(a, p.d1, p.d2); }
};
// x <- rsqrt(x) (MUFU.RSQ) converges to 1; the hardware's approximation is
// checked to a tolerance.
struct op_mufu {
    using T = float;
    static T init(unsigned j, u32) { return 1.0f + 0.125f * float(j); }
    __device__ static T step(T a, T, const issue_args&, int) {
        T d;
        asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(a));
        return d;
    }
    static T host(T a, T, const issue_args&, int) { return 1.0f / std::sqrt(a); }
    static constexpr float tolerance = 1e-5f;
};
// int -> float -> int (cvt.rn.f32.s16 and cvt.rzi.s32.f32): values stay put.
struct op_i2f {
    using T = u32;
    static T init(unsigned j, u32) { return 1000u + 37u * j; }
    __device__ static T step(T a, T, const issue_args&, int) {
        float f;
        T d;
        asm volatile("cvt.rn.f32.s16 %0, %1;" : "=f"(f) : "h"(static_cast<unsigned short>(a)));
        asm volatile("cvt.rzi.s32.f32 %0, %1;" : "=r"(d) : "f"(f));
        return d;
    }
    static T host(T a, T, const issue_args&, int) { return u32(std::int32_t(std::int16_t(a & 0xffffu))); }
};
// half2 x <- x * 0.5 + 0.5 converges to 1 (both halves).
struct op_hfma2 {
    using T = u32;
    static T init(unsigned j, u32) {
        const u32 h = half_bits(1.0f + 0.125f * float(j));
        return h | (h << 16);
    }
    __device__ static T step(T a, T, const issue_args& p, int) {
        T d;
        asm volatile("fma.rn.f16x2 %0, %1, %2, %3;"
                     : "=r"(d)
                     : "r"(a), "r"(p.u2 * 0x38003800u), "r"(p.u2 * 0x38003800u));
        return d;
    }
    static T host(T a, T, const issue_args&, int) {
        const float lo = half_value(std::uint16_t(a & 0xffffu)), hi = half_value(std::uint16_t(a >> 16));
        return u32(half_bits(lo * 0.5f + 0.5f)) | (u32(half_bits(hi * 0.5f + 0.5f)) << 16);
    }
};
// Butterfly shuffles, lane masks 1, 2, 4, 8, 16 by round.
struct op_shfl {
    using T = u32;
    static T init(unsigned j, u32 lane) { return lane * 8 + j; }
    __device__ static T step(T a, T, const issue_args&, int r) { return __shfl_xor_sync(0xffffffffu, a, 1 << (r % 5)); }
};
// sm_90's VIADD is ptxas's add of an immediate; chains of those alone fold
// into one add (ptxas sums the immediates), so each step also mixes in the
// next chain with a LOP3: VIADD and LOP3 in equal numbers.
struct op_viadd {
    using T = u32;
    static T init(unsigned j, u32) { return 0x1234567u * (j + 1); }
    __device__ static T step(T a, T next, const issue_args&, int) { return (a + 0x1234u) ^ next; }
    static T host(T a, T next, const issue_args&, int) { return (a + 0x1234u) ^ next; }
};
struct op_vimnmx {
    using T = u32;
    static T init(unsigned j, u32) { return 1000u - 37u * j; }
    __device__ static T step(T a, T next, const issue_args&, int) { return T(min(int(a), int(next))); }
    static T host(T a, T next, const issue_args&, int) { return T(std::min(int(a), int(next))); }
};
struct op_viaddmnmx {
    using T = u32;
    static T init(unsigned j, u32) { return 1000u + 37u * j; }
    __device__ static T step(T a, T next, const issue_args& p, int) {
        return T(__viaddmin_s32(int(a), int(p.u2), int(next)));
    }
    static T host(T a, T next, const issue_args& p, int) { return T(std::min(int(a) + int(p.u2), int(next))); }
};

template <class Op>
__global__ void __launch_bounds__(256, 4)
    issue(typename Op::T* out, const typename Op::T* start, issue_args p, u32 iters, u64* clk) {
    using T = typename Op::T;
    constexpr unsigned chains = shape::issue_chains;
    const u64 t = u64(blockIdx.x) * blockDim.x + threadIdx.x;
    const u32 lane = threadIdx.x & 31;
    T acc[chains];
#pragma unroll
    for (unsigned j = 0; j < chains; ++j) acc[j] = start[lane * chains + j];
    run_clock rc;
    rc.begin();
    for (u32 it = 0; it < iters; ++it) {
#pragma unroll
        for (int r = 0; r < int(shape::issue_rounds); ++r) {
#pragma unroll
            for (unsigned j = 0; j < chains; ++j) acc[j] = Op::step(acc[j], acc[(j + 1) % chains], p, r);
        }
    }
    rc.end(clk);
#pragma unroll
    for (unsigned j = 0; j < chains; ++j) out[t * chains + j] = acc[j];
}

// The host's chains of one lane after `iters` iterations (the same in every
// thread but for shuffles, whose lanes trade values).
template <class Op>
std::vector<typename Op::T> host_chains(const issue_args& p, u64 iters, u32 lane) {
    using T = typename Op::T;
    constexpr unsigned chains = shape::issue_chains;
    std::vector<T> acc(chains);
    for (unsigned j = 0; j < chains; ++j) acc[j] = Op::init(j, lane);
    for (u64 it = 0; it < iters; ++it)
        for (int r = 0; r < int(shape::issue_rounds); ++r)
            for (unsigned j = 0; j < chains; ++j) acc[j] = Op::host(acc[j], acc[(j + 1) % chains], p, r);
    return acc;
}

template <class Op>
check_result run_issue_op(cuda_executor& ex, u64 n, u64 seed) {
    using T = typename Op::T;
    constexpr unsigned chains = shape::issue_chains;
    const issue_args p = make_issue_args(seed);
    const dim3 grid = wave_grid(), block(shape::block_threads);
    const u64 threads = u64(grid.x) * block.x;
    std::vector<T> start(32 * chains);
    for (u32 lane = 0; lane < 32; ++lane)
        for (unsigned j = 0; j < chains; ++j) start[lane * chains + j] = Op::init(j, lane);
    auto in = ex.alloc<T>(start.size());
    auto out = ex.alloc<T>(threads * chains);
    auto clk = ex.alloc<u64>(2);
    ex.upload(in, std::span<const T>(start));
    ex.launch("issue", issue<Op>, grid, block, wave_shared_bytes(), out.data(), in.data(), p, u32(n), clk.data());
    const auto got = fetch(ex, out, threads * chains);
    std::vector<T> want(threads * chains);
    if constexpr (std::is_same_v<Op, op_shfl>) {
        // A round's butterfly by 1 << (r % 5) is an involution: an iteration
        // moves each value to the lane of its index xor the rounds' masks.
        u32 mask = 0;
        for (int r = 0; r < int(shape::issue_rounds); ++r) mask ^= 1u << (r % 5);
        const u32 moved = n % 2 ? mask : 0;
        for (u64 t = 0; t < threads; ++t)
            for (unsigned j = 0; j < chains; ++j) want[t * chains + j] = Op::init(j, u32(t % 32) ^ moved);
    } else {
        const auto one = host_chains<Op>(p, n, 0);
        for (u64 t = 0; t < threads; ++t) std::copy(one.begin(), one.end(), want.begin() + std::ptrdiff_t(t * chains));
    }
    check_result r;
    if constexpr (std::is_same_v<Op, op_mufu>) {
        std::size_t bad = 0;
        for (std::size_t i = 0; i < got.size(); ++i) bad += !(std::fabs(got[i] - want[i]) <= Op::tolerance);
        r = {bad == 0, std::to_string(got.size() - bad) + " of " + std::to_string(got.size()) + " chains within " +
                           std::to_string(Op::tolerance) + " of the host's rsqrt"};
    } else {
        r = compare(got, want, "every thread's " + std::to_string(chains) + " chains");
    }
    return with_values(r, clock_value(ex, clk));
}

check_result run_issue(cuda_executor& ex, u64 n, const param_values& p, u64 seed) {
    const std::string& op = p.text("op");
    if (op == "ffma") return run_issue_op<op_ffma>(ex, n, seed);
    if (op == "fadd") return run_issue_op<op_fadd>(ex, n, seed);
    if (op == "imad") return run_issue_op<op_imad>(ex, n, seed);
    if (op == "iadd3") return run_issue_op<op_iadd3>(ex, n, seed);
    if (op == "lop3") return run_issue_op<op_lop3>(ex, n, seed);
    if (op == "dfma") return run_issue_op<op_dfma>(ex, n, seed);
    if (op == "mufu") return run_issue_op<op_mufu>(ex, n, seed);
    if (op == "i2f") return run_issue_op<op_i2f>(ex, n, seed);
    if (op == "hfma2") return run_issue_op<op_hfma2>(ex, n, seed);
    if (op == "shfl") return run_issue_op<op_shfl>(ex, n, seed);
    if (op == "viadd") return run_issue_op<op_viadd>(ex, n, seed);
    if (op == "vimnmx") return run_issue_op<op_vimnmx>(ex, n, seed);
    if (op == "viaddmnmx") return run_issue_op<op_viaddmnmx>(ex, n, seed);
    throw internal_error("probe/issue: op " + op + " has no kernel");
}

AGPU_REGISTER_GPU_BASELINE(launch_spec(), run_launch);
AGPU_REGISTER_GPU_BASELINE(blocks_spec(), run_blocks);
AGPU_REGISTER_GPU_BASELINE(stream_spec(), run_stream);
AGPU_REGISTER_GPU_BASELINE(l2_spec(), run_l2);
AGPU_REGISTER_GPU_BASELINE(chase_spec(), run_chase);
AGPU_REGISTER_GPU_BASELINE(shared_spec(), run_shared);
AGPU_REGISTER_GPU_BASELINE(atomic_spec(), run_atomic);
AGPU_REGISTER_GPU_BASELINE(issue_spec(), run_issue);

}  // namespace
}  // namespace agpu::kernels::probes
