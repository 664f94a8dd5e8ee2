// Session 19 device experiment (not project code): which part of a
// decoupled look-back scan's block life costs the 2^26 scans their bandwidth.
// One tile per block (THREADS x ITEMS u32, 16-byte vectors, warp-striped as
// kernels/scan/work_efficient.cuh), with switches:
//   CLAIM   1: tile id from an atomic counter (ours); 0: blockIdx.x (CUB's)
//   LOOK    1: decoupled look-back (warp 0 polls 32 status words); 0: none
//           (every tile's prefix taken as 0: timing only, result wrong)
//   SCAN    1: in-block scan (shuffles, barriers); 0: store the loads back
// Timed with CUDA events around one launch (plus the status clear where the
// variant needs it, as its own launch like ours), median of 30 after 5 warm-ups.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

struct alignas(16) v4 { uint32_t x[4]; };

template <int THREADS, int VEC, bool CLAIM, bool LOOK, bool SCAN, bool EARLY = false, int ATOM = 0>
__global__ void __launch_bounds__(THREADS) scan_tile(const v4* __restrict__ in, v4* __restrict__ out,
        unsigned long long* status, unsigned* counter) {
    __shared__ unsigned tile_s, warp_tot[32];
    __shared__ unsigned before_s;
    const unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;
    unsigned tile;
    if (CLAIM) { if (t == 0) tile_s = atomicAdd(counter, 1u); __syncthreads(); tile = tile_s; }
    else tile = blockIdx.x;
    const size_t first = size_t(tile) * THREADS * VEC + size_t(warp) * 32 * VEC + lane;
    v4 x[VEC];
#pragma unroll
    for (int j = 0; j < VEC; ++j) x[j] = in[first + size_t(j) * 32];
    if (!SCAN && !LOOK) {
#pragma unroll
        for (int j = 0; j < VEC; ++j) out[first + size_t(j) * 32] = x[j];
        return;
    }
    unsigned li[VEC];
#pragma unroll
    for (int j = 0; j < VEC; ++j) { _Pragma("unroll") for (int e = 1; e < 4; ++e) x[j].x[e] += x[j].x[e - 1]; li[j] = x[j].x[3]; }
#pragma unroll
    for (int d = 1; d < 32; d *= 2)
#pragma unroll
        for (int j = 0; j < VEC; ++j) { unsigned y = __shfl_up_sync(~0u, li[j], d); if (lane >= d) li[j] += y; }
    unsigned vb[VEC], wt = 0;
#pragma unroll
    for (int j = 0; j < VEC; ++j) { unsigned pt = __shfl_sync(~0u, li[j], 31); vb[j] = wt + li[j] - x[j].x[3]; wt += pt; }
    if (lane == 0) warp_tot[warp] = wt;
    __syncthreads();
    constexpr int W = THREADS / 32;
    unsigned wi = lane < W ? warp_tot[lane] : 0;
#pragma unroll
    for (int d = 1; d < W; d *= 2) { unsigned y = __shfl_up_sync(~0u, wi, d); if (lane >= d) wi += y; }
    const unsigned prev = __shfl_sync(~0u, wi, warp > 0 ? warp - 1 : 0), agg = __shfl_sync(~0u, wi, W - 1);
    const unsigned wb = warp > 0 ? prev : 0;
    if (EARLY) {  // the stores first (without the tile's prefix: timing only), then the look-back
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
            const unsigned p = wb + vb[j];
            v4 o; for (int e = 0; e < 4; ++e) o.x[e] = p + (e > 0 ? x[j].x[e - 1] : 0u);
            out[first + size_t(j) * 32] = o;
        }
    }
    if (LOOK) {
        if (warp == 0) {
            volatile unsigned long long* st = status;
            // ATOM 0: volatile loads and stores; 1: atomics (polls atomicAdd(p, 0), publishes atomicExch),
            // as rank_common.cuh's chained_prefix; 2: volatile polls, atomic publishes
            auto put = [&](unsigned long long i, unsigned long long v) { if (ATOM) atomicExch(status + i, v); else st[i] = v; };
            auto get = [&](long long i) -> unsigned long long { return ATOM == 1 ? atomicAdd(status + i, 0ull) : st[i]; };
            unsigned before = 0;
            if (tile == 0) { if (lane == 0) put(0, (2ull << 32) | agg); }
            else {
                if (lane == 0) put(tile, (1ull << 32) | agg);
                for (long long end = tile;; end -= 32) {
                    const long long p = end - 1 - lane;
                    unsigned long long w = p >= 0 ? get(p) : (2ull << 32);
                    unsigned pref, unpub;
                    while (true) {
                        pref = __ballot_sync(~0u, (w >> 32) == 2);
                        unpub = __ballot_sync(~0u, (w >> 32) == 0);
                        if (unpub == 0 || (pref && (pref & -pref) < (unpub & -unpub))) break;
                        if (p >= 0) w = get(p);
                    }
                    const unsigned last = pref ? __popc((pref & -pref) - 1) : 31;
                    unsigned v = (p >= 0 && lane <= last) ? unsigned(w) : 0;
                    for (int d = 16; d; d >>= 1) v += __shfl_xor_sync(~0u, v, d);
                    before += v;
                    if (pref) break;
                }
                if (lane == 0) put(tile, (2ull << 32) | (before + agg));
            }
            if (lane == 0) before_s = before;
        }
        __syncthreads();
    } else if (t == 0) before_s = 0;
    if (EARLY) return;
    if (!LOOK) __syncthreads();
    const unsigned base = before_s + wb;
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
        const unsigned p = base + vb[j];
        v4 o; for (int e = 0; e < 4; ++e) o.x[e] = p + (e > 0 ? x[j].x[e - 1] : 0u);
        out[first + size_t(j) * 32] = o;
    }
}

__global__ void clear_status(unsigned long long* s, size_t n, unsigned* c) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) s[i] = 0;
    if (i == 0) *c = 0;
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

template <int THREADS, int VEC, bool CLAIM, bool LOOK, bool SCAN, bool EARLY = false, int ATOM = 0>
void run(const char* name, size_t n, const uint32_t* din, uint32_t* dout, unsigned long long* status, unsigned* counter,
         const std::vector<uint32_t>& ref) {
    const size_t tile = size_t(THREADS) * VEC * 4, tiles = n / tile;
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    std::vector<float> ms, ms_clear;
    for (int r = 0; r < 35; ++r) {
        CK(cudaEventRecord(a));
        if (CLAIM || LOOK) clear_status<<<(tiles + 255) / 256, 256>>>(status, tiles, counter);
        scan_tile<THREADS, VEC, CLAIM, LOOK, SCAN, EARLY, ATOM><<<tiles, THREADS>>>((const v4*)din, (v4*)dout, status, counter);
        CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        float t; CK(cudaEventElapsedTime(&t, a, b)); if (r >= 5) ms.push_back(t);
    }
    CK(cudaGetLastError());
    int regs = 0; cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, scan_tile<THREADS, VEC, CLAIM, LOOK, SCAN, EARLY, ATOM>)); regs = fa.numRegs;
    int per_sm = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_tile<THREADS, VEC, CLAIM, LOOK, SCAN, EARLY, ATOM>, THREADS, 0));
    const char* check = "-";
    if (LOOK && SCAN && !EARLY) {
        const size_t m = tiles * tile;  // the whole tiles (a partial last tile is not run)
        std::vector<uint32_t> got(m); CK(cudaMemcpy(got.data(), dout, m * 4, cudaMemcpyDeviceToHost));
        check = std::equal(got.begin(), got.end(), ref.begin()) ? "passed" : "FAILED";
    }
    const double m = median(ms);
    printf("%-34s n=%zu threads=%d items=%d regs=%d blocks/SM=%d tiles=%zu waves=%.1f median_ms=%.4f GB/s=%.0f check=%s\n", name, n,
           THREADS, VEC * 4, regs, per_sm, tiles, double(tiles) / (132.0 * per_sm), m, 8.0 * double(tiles * tile) / m / 1e6, check);
}

int main() {
    for (size_t n : {size_t(1) << 26, size_t(1) << 28}) {
        std::vector<uint32_t> h(n), ref(n);
        std::mt19937 g(1); for (auto& v : h) v = g();
        uint32_t acc = 0; for (size_t i = 0; i < n; ++i) { ref[i] = acc; acc += h[i]; }
        uint32_t *din, *dout; unsigned long long* status; unsigned* counter;
        CK(cudaMalloc(&din, n * 4)); CK(cudaMalloc(&dout, n * 4)); CK(cudaMalloc(&status, (n / 256 + 64) * 8)); CK(cudaMalloc(&counter, 4));
        CK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));
        // baselines: D2D copy of n words, CUB exclusive sum
        {
            cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); std::vector<float> ms;
            for (int r = 0; r < 35; ++r) { CK(cudaEventRecord(a)); CK(cudaMemcpyAsync(dout, din, n * 4, cudaMemcpyDeviceToDevice)); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float t; CK(cudaEventElapsedTime(&t, a, b)); if (r >= 5) ms.push_back(t); }
            printf("%-34s n=%zu median_ms=%.4f GB/s=%.0f\n", "baseline/memcpy-d2d", n, median(ms), 8.0 * n / median(ms) / 1e6);
            size_t tb = 0; void* tmp = nullptr; cub::DeviceScan::ExclusiveSum(tmp, tb, din, dout, (int)n); CK(cudaMalloc(&tmp, tb)); ms.clear();
            for (int r = 0; r < 35; ++r) { CK(cudaEventRecord(a)); cub::DeviceScan::ExclusiveSum(tmp, tb, din, dout, (int)n); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float t; CK(cudaEventElapsedTime(&t, a, b)); if (r >= 5) ms.push_back(t); }
            std::vector<uint32_t> got(n); CK(cudaMemcpy(got.data(), dout, n * 4, cudaMemcpyDeviceToHost));
            printf("%-34s n=%zu median_ms=%.4f GB/s=%.0f check=%s\n", "baseline/cub-scan", n, median(ms), 8.0 * n / median(ms) / 1e6, got == ref ? "passed" : "FAILED");
            CK(cudaFree(tmp));
        }
        run<512, 6, true, true, true>("ours: claim+look+scan", n, din, dout, status, counter, ref);
        run<512, 6, false, true, true>("blockIdx+look+scan", n, din, dout, status, counter, ref);
        run<512, 6, true, true, true, false, 1>("ours, look-back by atomics", n, din, dout, status, counter, ref);
        run<512, 6, true, true, true, false, 2>("ours, volatile polls, atomic publish", n, din, dout, status, counter, ref);
        run<512, 2, true, true, true, false, 1>("items8, look-back by atomics", n, din, dout, status, counter, ref);
        run<256, 6, true, true, true, false, 1>("256x24, look-back by atomics", n, din, dout, status, counter, ref);
        run<512, 6, true, true, true, true>("ours, stores before the look-back", n, din, dout, status, counter, ref);
        run<512, 6, true, false, true>("claim+scan (no look-back)", n, din, dout, status, counter, ref);
        run<512, 6, false, false, true>("blockIdx+scan (no look-back)", n, din, dout, status, counter, ref);
        run<512, 6, false, false, false>("blockIdx copy (tile, no scan)", n, din, dout, status, counter, ref);
        run<512, 2, true, true, true>("ours items8: claim+look+scan", n, din, dout, status, counter, ref);
        run<512, 2, false, true, true>("items8 blockIdx+look+scan", n, din, dout, status, counter, ref);
        run<512, 2, false, false, true>("items8 blockIdx+scan (no look)", n, din, dout, status, counter, ref);
        run<512, 2, false, false, false>("items8 blockIdx copy", n, din, dout, status, counter, ref);
        run<256, 6, false, true, true>("256x24 blockIdx+look+scan", n, din, dout, status, counter, ref);
        CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(status)); CK(cudaFree(counter));
    }
    return 0;
}
