// What the stats kernels share: the eight results, a 16-byte vector of T,
// one thread's shifted sums, and Chan's merge of (count, mean, M2, min, max)
// across threads, warps and blocks.
//
// Numerics. A thread keeps sums of d = x - shift and d^2 in double, with
// shift = the thread's first value, so the cancellation in M2 = q - s^2/c is
// only that of (mean - shift)^2 against the variance: shift is one of the
// thread's own values, a few standard deviations from their mean at most.
// Partial results then merge with Chan, Golub and LeVeque's pairwise update
// (n = na + nb, delta = mean_b - mean_a, mean = mean_a + delta nb/n,
// M2 = M2a + M2b + delta^2 na nb / n), which never subtracts large sums.
#pragma once

#include <cmath>
#include <cstdint>

#include "agpu/kl/kl.hpp"

namespace agpu::kernels::stats {

namespace kl = agpu::kl;

// The eight results every stats algorithm writes, in this order, as doubles.
// Variances and standard deviations are given for the population (divide M2
// by n) and the sample (by n - 1; NaN for n = 1, as 0/0).
enum field : unsigned { f_count, f_min, f_max, f_mean, f_var_pop, f_var_sample, f_std_pop, f_std_sample, field_count };

// 16 bytes of T, aligned: one 128-bit load per lane (LDG.E.128 on the GPU;
// the simulator counts one 16-byte access).
template <class T>
struct alignas(16) vec16 {
    static constexpr unsigned size = 16 / sizeof(T);
    T v[size];
};

// Partial statistics of `count` values: their mean, the sum of squared
// deviations from it (M2), their minimum and maximum. count == 0: empty (the
// other fields are meaningless and never read).
template <class T>
struct moments {
    unsigned count;
    double mean, m2;
    T min, max;
};

template <class T>
AGPU_HOST_DEVICE moments<T> empty_moments() {
    return {0u, 0.0, 0.0, T(0), T(0)};
}

// min and max that compile to one FMNMX (DMNMX) on the GPU; a NaN loses
// against a number, on the GPU and in the simulator alike.
template <class T>
AGPU_HOST_DEVICE T min_of(T a, T b) {
    return std::fmin(a, b);
}
template <class T>
AGPU_HOST_DEVICE T max_of(T a, T b) {
    return std::fmax(a, b);
}

// Chan's merge of two partials.
template <class T>
AGPU_HOST_DEVICE moments<T> chan_merge(const moments<T>& a, const moments<T>& b) {
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    const double na = a.count, nb = b.count, f = nb / (na + nb);
    const double delta = b.mean - a.mean;
    return {a.count + b.count, a.mean + delta * f, a.m2 + b.m2 + delta * delta * na * f, min_of(a.min, b.min),
            max_of(a.max, b.max)};
}

// One thread's running sums: two independent accumulator pairs (even and odd
// elements of each vector), so that consecutive additions do not wait on each
// other; merged once, at the end, into moments.
template <class T>
struct thread_sums {
    unsigned count = 0;
    T lo = T(0), hi = T(0);
    double shift = 0, s0 = 0, q0 = 0, s1 = 0, q1 = 0;

    // The first value seen: the shift, and the first min and max.
    AGPU_HOST_DEVICE void start(T x) {
        shift = double(x);
        lo = hi = x;
    }
    AGPU_HOST_DEVICE void add0(T x) {
        const double d = double(x) - shift;  // exact for float input
        s0 += d;
        q0 += d * d;
        lo = min_of(lo, x);
        hi = max_of(hi, x);
    }
    AGPU_HOST_DEVICE void add1(T x) {
        const double d = double(x) - shift;
        s1 += d;
        q1 += d * d;
        lo = min_of(lo, x);
        hi = max_of(hi, x);
    }
    AGPU_HOST_DEVICE void add(const vec16<T>& v) {
        for (unsigned e = 0; e + 1 < vec16<T>::size; e += 2) {
            add0(v.v[e]);
            add1(v.v[e + 1]);
        }
        count += vec16<T>::size;
    }
    AGPU_HOST_DEVICE moments<T> result() const {
        if (count == 0) return empty_moments<T>();
        const double s = s0 + s1, c = count;
        return {count, shift + s / c, (q0 + q1) - s * (s / c), lo, hi};
    }
};

// Result field f of the partial m (the statistics of all its values).
template <class T>
AGPU_HOST_DEVICE double result_field(const moments<T>& m, unsigned f) {
    const double n = m.count;
    const double var_pop = m.m2 / n, var_sample = m.m2 / (n - 1.0);
    return f == f_count        ? n
           : f == f_min        ? double(m.min)
           : f == f_max        ? double(m.max)
           : f == f_mean       ? m.mean
           : f == f_var_pop    ? var_pop
           : f == f_var_sample ? var_sample
           : f == f_std_pop    ? std::sqrt(var_pop)
                               : std::sqrt(var_sample);
}

// Merges the partials of a warp's lanes into lane 0 (log2 b shuffle rounds of
// five values each; the other lanes end with partial sums).
template <class T>
AGPU_DEVICE moments<T> warp_merge(moments<T> m) {
    for (unsigned off = kl::warp_size() / 2; off > 0; off /= 2) {
        moments<T> o;
        o.count = kl::shfl_down(m.count, off);
        o.mean = kl::shfl_down(m.mean, off);
        o.m2 = kl::shfl_down(m.m2, off);
        o.min = kl::shfl_down(m.min, off);
        o.max = kl::shfl_down(m.max, off);
        m = chan_merge(m, o);
    }
    return m;
}

// Shared doubles block_merge needs: five per warp.
AGPU_HOST_DEVICE std::size_t block_merge_shared_bytes(unsigned block_threads, unsigned warp) {
    return std::size_t(5) * ((block_threads + warp - 1) / warp) * sizeof(double);
}

// Merges the partials of a block's threads into thread 0: each warp merges by
// shuffles, lane 0 writes its warp's five fields to shared memory (field-major,
// so warp 0 reads each field with consecutive lanes), one barrier, and warp 0
// merges the warps' partials the same way. Every thread of the block must call
// it; `scratch` holds block_merge_shared_bytes.
template <class T>
AGPU_DEVICE moments<T> block_merge(moments<T> m, kl::sspan<double> scratch) {
    const unsigned b = kl::warp_size(), lane = kl::lane_id(), warp = kl::warp_id();
    const unsigned nw = (kl::block_dim().x + b - 1) / b;
    m = warp_merge(m);
    if (lane == 0) {
        scratch.store(warp, double(m.count));
        scratch.store(nw + warp, m.mean);
        scratch.store(2 * nw + warp, m.m2);
        scratch.store(3 * nw + warp, double(m.min));
        scratch.store(4 * nw + warp, double(m.max));
    }
    kl::sync_threads();
    moments<T> r = empty_moments<T>();
    if (warp == 0) {
        for (unsigned j = lane; j < nw; j += b)
            r = chan_merge(
                r, moments<T>{static_cast<unsigned>(scratch.load(j)), scratch.load(nw + j), scratch.load(2 * nw + j),
                              static_cast<T>(scratch.load(3 * nw + j)), static_cast<T>(scratch.load(4 * nw + j))});
        r = warp_merge(r);
    }
    return r;
}

}  // namespace agpu::kernels::stats
