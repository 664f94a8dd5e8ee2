// stats/pairwise: the source's algorithm, reproduced as it is (docs/design.md).
//
// Min and max: with N values, log2 N rounds of two kernels: pairwise_copy
// copies the work array a to a second array c; pairwise_minmax has thread i
// (i < N/2) compare c[2i] and c[2i+1] and write the larger to a[i] and the
// smaller to a[N/2 + i]. After round r the maxima of groups of 2^r values lie
// in a[0, N/2^r) and their minima in a[N - N/2^r, N): after log2 N rounds the
// maximum is a[0] and the minimum a[N - 1]. Mean and variance: the same
// rounds with pairwise_sum (a[i] = c[2i] + c[2i+1]) on the values and on
// x^2 / N, giving S = sum x and Q = sum x^2 / N in a[0]; then, on the host
// and in T as the source does, mean = S / N and variance = Q - mean^2
// (population), std = sqrt(variance), sample variance = variance N / (N - 1).
// That formula cancels: its error is about eps_T * Q, huge against the
// variance when |mean| >> std (the tests show it).
//
// Any N: the arrays are padded to P = max(2, 2^ceil(log2 N)) elements. The
// first round's copy reads the input and writes the tail c[N, P) with a
// neutral value: x[0] for min/max (a duplicate changes neither), 0 for the
// sums; it also squares and divides by N for the second sum. For N a power of
// two (N >= 2) this is exactly the source; otherwise every round moves P < 2N
// elements.
//
// AGPU cost (P elements of s bytes, blocks of 256 threads, p = k b cores):
// per round, the copy reads and writes P values (2 instructions per warp of
// P/b warps) and the compare reads P (two stride-2 loads) and writes P
// (min/max) or P/2 (sums) from P/(2b) warps. Three passes of log2 P rounds:
// 6 log2 P launches, I/O exactly 14 P s log2 P / (b w/8) blocks, time about
// 11 P log2 P / p steps. The source's "O(log N)" counts rounds, but each
// round moves the whole array: Theta((N/p) log N) time and Theta((N/b) log N)
// I/O, against Theta(N/p) and Theta(N/b) for one pass (stats/fused).
// Exact counts: model/costs/stats.cpp.
#pragma once

#include <cstdint>

#include "agpu/kl/kl.hpp"

namespace agpu::kernels::stats {

struct pairwise_policy {
    // One element (copy) or one pair (compare) per thread, 256 threads per
    // block, as the source's one-thread-per-pair kernels.
    static constexpr unsigned block_threads = 256;
};

AGPU_DEVICE std::uint64_t pairwise_index() {
    return std::uint64_t(kl::block_idx().x) * kl::block_dim().x + kl::thread_idx().x;
}

// c[j] = src[j] (j < count), then the neutral tail: src[0] if pad_first, else 0.
// square: src[j]^2 / count instead of src[j] (the first round of the x^2/N sum).
template <class T>
AGPU_KERNEL void pairwise_copy(kl::gspan<const T> src, kl::gspan<T> c, std::uint64_t count, bool square,
                               bool pad_first) {
    const std::uint64_t j = pairwise_index();
    if (j >= c.size()) return;
    T v = T(0);
    if (j < count) {
        v = src.load(j);
        if (square) v = v * v / static_cast<T>(count);
    } else if (pad_first) {
        v = src.load(0);
    }
    c.store(j, v);
}

// Thread i < P/2: the larger of c[2i], c[2i+1] to a[i], the smaller to a[P/2 + i].
template <class T>
AGPU_KERNEL void pairwise_minmax(kl::gspan<const T> c, kl::gspan<T> a) {
    const std::uint64_t i = pairwise_index(), half = a.size() / 2;
    if (i >= half) return;
    const T x0 = c.load(2 * i);
    const T x1 = c.load(2 * i + 1);
    a.store(i, kl::max(x0, x1));
    a.store(half + i, kl::min(x0, x1));
}

// Thread i < P/2: a[i] = c[2i] + c[2i+1].
template <class T>
AGPU_KERNEL void pairwise_sum(kl::gspan<const T> c, kl::gspan<T> a) {
    const std::uint64_t i = pairwise_index();
    if (i >= a.size() / 2) return;
    const T x0 = c.load(2 * i);
    const T x1 = c.load(2 * i + 1);
    a.store(i, x0 + x1);
}

}  // namespace agpu::kernels::stats
