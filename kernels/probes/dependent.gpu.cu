// probe/dependent: one warp's chain of n dependent FFMA, IADD3, SHFL or
// barriers, timed by clock64 (dependent_clocks, shuffle_clocks,
// barrier_clocks of `agpu calibrate`; probes.gpu.cu lists every probe).
#include "probes/probe_helpers.gpu.cuh"

// ---- probe/dependent ----

// One warp; out[0] = SM clocks for the n links, out[1 + lane] = the lane's value.
__global__ void dependent_ffma(u32 n, float a, float b, u64* out) {
    float x = 1.0f + float(threadIdx.x) / 64.0f;
    const u64 c0 = clock_now();
    u32 s = 0;
    for (; s + shape::dependent_unroll <= n; s += shape::dependent_unroll) {
#pragma unroll
        for (unsigned k = 0; k < shape::dependent_unroll; ++k) x = fmaf(x, a, b);
    }
    for (; s < n; ++s) x = fmaf(x, a, b);
    const u64 c1 = clock_now();
    if (threadIdx.x == 0) out[0] = c1 - c0;
    out[1 + threadIdx.x] = __float_as_uint(x);
}

// (x, y) <- (y, x + y + c): each link's IADD3 waits for the one before, and a
// Fibonacci recurrence has no closed form a compiler folds the loop into.
__global__ void dependent_iadd3(u32 n, u32 c, u64* out) {
    u32 x = threadIdx.x, y = threadIdx.x + 1;
    const u64 c0 = clock_now();
    u32 s = 0;
    for (; s + shape::dependent_unroll <= n; s += shape::dependent_unroll) {
#pragma unroll
        for (unsigned k = 0; k < shape::dependent_unroll; ++k) {
            const u32 z = x + y + c;
            x = y;
            y = z;
        }
    }
    for (; s < n; ++s) {
        const u32 z = x + y + c;
        x = y;
        y = z;
    }
    const u64 c1 = clock_now();
    if (threadIdx.x == 0) out[0] = c1 - c0;
    out[1 + threadIdx.x] = y;
}

// x <- the next lane's x (SHFL.IDX).
__global__ void dependent_shfl(u32 n, u64* out) {
    u32 x = threadIdx.x * 7 + 3;
    const u32 src = (threadIdx.x + 1) & 31;
    const u64 c0 = clock_now();
    u32 s = 0;
    for (; s + shape::dependent_unroll <= n; s += shape::dependent_unroll) {
#pragma unroll
        for (unsigned k = 0; k < shape::dependent_unroll; ++k) x = __shfl_sync(0xffffffffu, x, src);
    }
    for (; s < n; ++s) x = __shfl_sync(0xffffffffu, x, src);
    const u64 c1 = clock_now();
    if (threadIdx.x == 0) out[0] = c1 - c0;
    out[1 + threadIdx.x] = x;
}

// n block barriers in a one-warp block.
__global__ void dependent_bar(u32 n, u64* out) {
    const u64 c0 = clock_now();
    u32 s = 0;
    for (; s + shape::dependent_unroll <= n; s += shape::dependent_unroll) {
#pragma unroll
        for (unsigned k = 0; k < shape::dependent_unroll; ++k) __syncthreads();
    }
    for (; s < n; ++s) __syncthreads();
    const u64 c1 = clock_now();
    if (threadIdx.x == 0) out[0] = c1 - c0;
    out[1 + threadIdx.x] = s;
}

check_result run_dependent(cuda_executor& ex, u64 n, const param_values& p, u64 seed) {
    const std::string& op = p.text("op");
    auto out = ex.alloc<u64>(33);
    const u32 links = u32(n), c = salt_of(seed);
    std::vector<u64> want(32);
    if (op == "ffma") {
        const float a = 0.5f, b = 0.5f;
        ex.launch("dependent_ffma", dependent_ffma, dim3(1), dim3(32), 0, links, a, b, out.data());
        for (u32 l = 0; l < 32; ++l) {
            float x = 1.0f + float(l) / 64.0f;
            for (u32 s = 0; s < links; ++s) x = std::fmaf(x, a, b);
            u32 bits;
            std::memcpy(&bits, &x, 4);
            want[l] = bits;
        }
    } else if (op == "iadd3") {
        ex.launch("dependent_iadd3", dependent_iadd3, dim3(1), dim3(32), 0, links, c, out.data());
        for (u32 l = 0; l < 32; ++l) {
            u32 x = l, y = l + 1;
            for (u32 s = 0; s < links; ++s) {
                const u32 z = x + y + c;
                x = y;
                y = z;
            }
            want[l] = y;
        }
    } else if (op == "shfl") {
        ex.launch("dependent_shfl", dependent_shfl, dim3(1), dim3(32), 0, links, out.data());
        for (u32 l = 0; l < 32; ++l) want[l] = ((l + links) % 32) * 7 + 3;
    } else {
        ex.launch("dependent_bar", dependent_bar, dim3(1), dim3(32), 0, links, out.data());
        for (u32 l = 0; l < 32; ++l) want[l] = links;
    }
    const auto got = fetch(ex, out, 33);
    const double per_link = double(got[0]) / double(n);
    auto r = compare(std::vector<u64>(got.begin() + 1, got.end()), want, "the lanes' values after the chain");
    r.values = {{"clocks_per_link", per_link, "clocks"}};
    return r;
}

AGPU_REGISTER_GPU_BASELINE(dependent_spec(), run_dependent);

}  // namespace
}  // namespace agpu::kernels::probes
