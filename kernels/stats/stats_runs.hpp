// The stats algorithms' specs and runs: the host side of each algorithm (its
// launches, and for stats/pairwise the source's final arithmetic), the CPU
// reference, and the check. Templates on the executor, so the simulator
// (stats.sim.cpp) and the GPU (stats.gpu.cu) run exactly the same thing.
//
// Every algorithm gives the same eight results (enum field in moments.cuh).
// The check: count, min and max exact; mean and variances within an error
// bound that belongs to the algorithm's arithmetic (check_tolerance); the
// standard deviations consistent with the reference variances.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "agpu/model/algorithm.hpp"
#include "common/host_util.hpp"
#include "common/sampling.hpp"
#include "common/site_rng.hpp"
#include "stats/fused.cuh"
#include "stats/moments.cuh"
#include "stats/pairwise.cuh"
#include "stats/serial.cuh"

namespace agpu::kernels::stats {

using model::algo_spec;
using model::check_result;
using model::param_values;

using results = std::array<double, field_count>;

inline constexpr std::uint64_t max_elements = (std::uint64_t(1) << 31) - 1;

inline model::param_spec type_param() {
    return {"type", "element type of the values", "float", {"float", "double"}, 0, 0};
}

inline algo_spec fused_spec() {
    return {"stats/fused",
            "min, max, mean, variance, std in one pass: 16-byte loads, shifted double sums, Chan merges; 2 launches",
            "elements",
            1 << 20,
            1,
            max_elements,
            {type_param()}};
}

inline algo_spec pairwise_spec() {
    return {"stats/pairwise",
            "the source's reduction: log2 N rounds of a whole-array copy and a pairwise compare (min/max) or sum "
            "(x, x^2/N); variance = sum x^2/N - mean^2",
            "elements",
            1 << 14,
            1,
            max_elements,
            {type_param()}};
}

inline algo_spec serial_spec() {
    // One thread: 2^26 values already take seconds on a GPU.
    return {"stats/serial",
            "the source's baseline: one GPU thread looping over the data",
            "elements",
            1 << 14,
            1,
            std::uint64_t(1) << 26,
            {type_param()}};
}

template <class Exec>
results fetch_results(Exec& ex, kl::gspan<double> out) {
    results r{};
    ex.download(std::span<double>(r), out);
    return r;
}

// Blocks of phase 1 of stats/fused (model/costs/stats.cpp repeats this rule).
inline unsigned fused_grid(const model::machine& m, std::uint64_t n, unsigned per_vector) {
    const std::uint64_t per_block = std::uint64_t(fused_policy::block_threads) * per_vector * fused_policy::unroll;
    const std::uint64_t want = std::max<std::uint64_t>(1, (n + per_block - 1) / per_block);
    return static_cast<unsigned>(std::min<std::uint64_t>(want, fused_policy::blocks_per_mp * m.k()));
}

// stats/fused on the n values in x (n >= 1).
template <class T, class Exec>
results fused_stats(Exec& ex, kl::gspan<const T> x) {
    constexpr unsigned V = vec16<T>::size, B = fused_policy::block_threads, B2 = fused_policy::merge_threads;
    const data_independent_launches<Exec> declared(ex);  // addresses and branches from indices only
    const std::uint64_t n = x.size();
    const unsigned grid = fused_grid(ex.machine(), n, V), b = ex.machine().b;
    const kl::gspan<const vec16<T>> xv(reinterpret_cast<const vec16<T>*>(x.data()), n / V);
    auto partials = ex.template alloc<double>(std::size_t(5) * grid);
    auto out = ex.template alloc<double>(field_count);
    ex.launch("fused_partials", fused_partials<T>, {grid}, {B}, block_merge_shared_bytes(B, b), x, xv, partials);
    ex.launch("fused_merge", fused_merge<T>, {1}, {B2}, block_merge_shared_bytes(B2, b),
              kl::gspan<const double>(partials), grid, out);
    return fetch_results(ex, out);
}

// stats/serial on the n values in x (n >= 1).
template <class T, class Exec>
results serial_stats_run(Exec& ex, kl::gspan<const T> x) {
    auto out = ex.template alloc<double>(field_count);
    ex.launch("serial_stats", serial_stats<T>, {1}, {1}, 0, x, out);
    return fetch_results(ex, out);
}

// stats/pairwise on the n values in x (n >= 1): three passes of log2 P
// rounds (min/max, sum of x, sum of x^2/N), then the source's formulas in T.
template <class T, class Exec>
results pairwise_stats(Exec& ex, kl::gspan<const T> x) {
    constexpr unsigned B = pairwise_policy::block_threads;
    const data_independent_launches<Exec> declared(ex);  // addresses and branches from indices only
    const std::uint64_t n = x.size(), P = std::max<std::uint64_t>(2, std::bit_ceil(n));
    const int rounds = std::countr_zero(P);
    auto a = ex.template alloc<T>(P);
    auto c = ex.template alloc<T>(P);
    const unsigned copy_grid = blocks_for(P, B), pair_grid = blocks_for(P / 2, B);
    const auto first = [&](kl::gspan<T> s, std::uint64_t i) {
        T v{};
        ex.download(std::span<T>(&v, 1), s.subspan(i, 1));
        return v;
    };
    // One pass: rounds of copy (a or, first, the input -> c) and combine (c -> a).
    const auto pass = [&](bool minmax, bool square) {
        for (int r = 0; r < rounds; ++r) {
            const kl::gspan<const T> src = r == 0 ? x : kl::gspan<const T>(a);
            ex.launch("pairwise_copy", pairwise_copy<T>, {copy_grid}, {B}, 0, src, c, r == 0 ? n : P, square && r == 0,
                      minmax && r == 0);
            if (minmax) ex.launch("pairwise_minmax", pairwise_minmax<T>, {pair_grid}, {B}, 0, kl::gspan<const T>(c), a);
            else ex.launch("pairwise_sum", pairwise_sum<T>, {pair_grid}, {B}, 0, kl::gspan<const T>(c), a);
        }
    };
    pass(true, false);
    const T hi = first(a, 0), lo = first(a, P - 1);
    pass(false, false);
    const T sum = first(a, 0);
    pass(false, true);
    const T sum_sq_over_n = first(a, 0);

    const T count = static_cast<T>(n);
    const T mean = sum / count;
    const T var = sum_sq_over_n - mean * mean;
    const T var_sample = var * (count / (count - T(1)));
    return {double(count),
            double(lo),
            double(hi),
            double(mean),
            double(var),
            double(var_sample),
            double(std::sqrt(var)),
            double(std::sqrt(var_sample))};
}

// The CPU reference: two passes in long double.
template <class T>
results reference(std::span<const T> x) {
    const std::size_t n = x.size();
    long double sum = 0;
    T lo = x[0], hi = x[0];
    for (T v : x) {
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    const long double mean = sum / static_cast<long double>(n);
    long double m2 = 0;
    for (T v : x) m2 += (v - mean) * (v - mean);
    const long double var = m2 / static_cast<long double>(n);
    const long double var_sample =
        n > 1 ? m2 / static_cast<long double>(n - 1) : std::numeric_limits<long double>::quiet_NaN();
    return {double(n),
            double(lo),
            double(hi),
            double(mean),
            double(var),
            double(var_sample),
            double(std::sqrt(var)),
            double(std::sqrt(var_sample))};
}

// The error an algorithm's arithmetic may make, as a bound: on the mean,
// scale_rel * rms; on the population variance, var_rel * variance +
// scale_rel * E[x^2] (rms^2); sqrt_eps, the rounding of the square root.
struct check_tolerance {
    double var_rel = 0, scale_rel = 0, sqrt_eps = 0;
};

// stats/fused and stats/serial: shifted double sums (relative error far
// below 1e-8 of the variance at any n up to 2^31), Chan merges.
inline check_tolerance stable_tolerance() { return {1e-8, 1e-13, std::numeric_limits<double>::epsilon()}; }

// stats/pairwise in T: pairwise sums of positive terms err by at most
// log2 P eps relative; the mean squared twice that; the squares and the
// division by N one eps each; the subtraction one more: (3 log2 P + 4) eps,
// relative to E[x^2], the scale the formula cancels from.
template <class T>
check_tolerance pairwise_tolerance(std::uint64_t n) {
    const double eps = std::numeric_limits<T>::epsilon();
    const int log2p = std::countr_zero(std::max<std::uint64_t>(2, std::bit_ceil(n)));
    return {0, (3.0 * log2p + 4.0) * eps, eps};
}

// "" when got agrees with want within tol; otherwise the first field that does not.
inline std::string compare_results(const results& got, const results& want, const check_tolerance& tol) {
    static const char* names[field_count] = {"count",           "min", "max",       "mean", "variance",
                                             "sample variance", "std", "sample std"};
    const double n = want[f_count], var = want[f_var_pop];
    const double ex2 = var + want[f_mean] * want[f_mean];
    const double var_err = tol.var_rel * var + tol.scale_rel * ex2;
    const double sample = n > 1 ? n / (n - 1) : 1.0;
    std::ostringstream os;
    os.precision(17);
    const auto fail = [&](unsigned f, double allowed) {
        os << names[f] << " = " << got[f] << ", expected " << want[f];
        if (allowed >= 0) os << " within " << allowed;
        return os.str();
    };
    for (unsigned f : {f_count, f_min, f_max})
        if (!(got[f] == want[f])) return fail(f, -1);
    if (!(std::abs(got[f_mean] - want[f_mean]) <= tol.scale_rel * std::sqrt(ex2) + tol.var_rel * std::sqrt(var)))
        return fail(f_mean, tol.scale_rel * std::sqrt(ex2) + tol.var_rel * std::sqrt(var));
    if (!(std::abs(got[f_var_pop] - var) <= var_err)) return fail(f_var_pop, var_err);
    // The standard deviation: its square within the variance's bound, plus the square root's rounding.
    const auto std_ok = [&](double s, double v, double allowed) {
        return std::abs(s * s - v) <= allowed + 4 * tol.sqrt_eps * s * s;
    };
    if (!std_ok(got[f_std_pop], var, var_err)) return fail(f_std_pop, var_err);
    if (n > 1) {
        if (!(std::abs(got[f_var_sample] - want[f_var_sample]) <= var_err * sample))
            return fail(f_var_sample, var_err * sample);
        if (!std_ok(got[f_std_sample], want[f_var_sample], var_err * sample))
            return fail(f_std_sample, var_err * sample);
    } else {  // undefined for one value: NaN
        if (!std::isnan(got[f_var_sample])) return fail(f_var_sample, -1);
        if (!std::isnan(got[f_std_sample])) return fail(f_std_sample, -1);
    }
    return "";
}

enum class algo { fused, pairwise, serial };

template <class T, class Exec>
results run_algo(algo a, Exec& ex, kl::gspan<const T> x) {
    switch (a) {
        case algo::fused: return fused_stats<T>(ex, x);
        case algo::pairwise: return pairwise_stats<T>(ex, x);
        case algo::serial: break;
    }
    return serial_stats_run<T>(ex, x);
}

template <class T>
check_tolerance tolerance_for(algo a, std::uint64_t n) {
    return a == algo::pairwise ? pairwise_tolerance<T>(n) : stable_tolerance();
}

// The check of got, the results for the values h.
template <class T>
check_result check_results(algo a, const results& got, std::span<const T> h) {
    const std::string m = compare_results(got, reference(h), tolerance_for<T>(a, h.size()));
    return {m.empty(), m.empty() ? std::to_string(h.size()) +
                                       " values: count, min, max exact; mean, variances, std "
                                       "within the algorithm's error bound of the CPU reference"
                                 : m};
}

// The simulator's sampled run of stats/fused or stats/pairwise: their
// launches are data-independent, so unrecorded blocks are skipped and no
// count depends on the values. The input then fills itself where a recorded
// block reads it (uniform on [0, 1) from the seed and the position:
// executor::alloc_synthesized), and no host copy or reference is made (at
// 10^9 values stats/fused held its 4 GB input twice, 7.8 GB peak). A run that
// skipped no block (every launch recorded in full: few blocks) is checked
// as any other, on the values it read.
template <class T, class Exec>
check_result run_self_filling(algo a, Exec& ex, std::uint64_t n, std::uint64_t seed) {
    auto x = ex.template alloc_synthesized<T>(n, [seed](std::uint64_t first, std::uint64_t count, T* dst) {
        for (std::uint64_t i = 0; i < count; ++i) {
            site_rng g(mix_seed(seed, first + i));
            if constexpr (sizeof(T) == 4) dst[i] = T(g() >> 40) * T(0x1.0p-24);
            else dst[i] = T(g() >> 11) * T(0x1.0p-53);
        }
    });
    const results got = run_algo<T>(a, ex, kl::gspan<const T>(x));
    if (const auto skipped = ex.record().blocks_skipped())
        return {true, "not checked: sampled mode skipped " + std::to_string(skipped) +
                          " unrecorded thread blocks of data-independent launches, and the input filled itself "
                          "where the recorded ones read it"};
    ex.materialize(x);
    std::vector<T> h(n);
    ex.download(std::span<T>(h), kl::gspan<const T>(x));
    return check_results<T>(a, got, std::span<const T>(h));
}

// Uniform values in [0, 1) from the seed: E[x^2] / variance = 4, so that
// pairwise's bound is a real test of its rounding.
template <class T, class Exec>
check_result run_typed(algo a, Exec& ex, std::uint64_t n, std::uint64_t seed) {
    if constexpr (requires { ex.sampled(); })
        if (a != algo::serial && ex.sampled()) return run_self_filling<T>(a, ex, n, seed);
    const auto values = random_values<T>(n, seed, T(0), T(1));
    const auto& h = *values;
    auto x = ex.template alloc<T>(n);
    ex.upload(x, std::span<const T>(h));
    const results got = run_algo<T>(a, ex, kl::gspan<const T>(x));
    return check_results<T>(a, got, std::span<const T>(h));
}

template <algo A, class Exec>
check_result run(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return p.text("type") == "double" ? run_typed<double>(A, ex, n, seed) : run_typed<float>(A, ex, n, seed);
}

}  // namespace agpu::kernels::stats
