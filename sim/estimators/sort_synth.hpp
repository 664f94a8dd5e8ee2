// The state of a merge sort of random keys, synthesized instead of computed,
// for the simulator's sampled mode (sort_sampled.hpp).
//
// With i.i.d. uniform keys (input=random, 32-bit keys: every bit pattern
// equally likely, so the keys' order values are uniform over 2^32), the array
// after a merge pass of run length L is, in distribution, n/L independent runs
// of L sorted i.i.d. uniform keys. Such a run is generated directly:
// U_i = S_i / S_{L+1}, S_i the sum of i i.i.d. Exp(1) spacings, are L sorted
// uniforms on (0, 1), and floor(2^32 U_i), floor being monotone, are L sorted
// i.i.d. discrete uniform keys: ties appear exactly as often as in the real
// sort. A simulated kernel touches a few scattered elements of a 2^28-key
// array (pivot probes) or a few segments (sampled thread blocks), so a run is
// generated a unit of `unit` elements at a time, and any unit by itself: the
// spacings are grouped into units, and a binary tree over a run's units holds
// how the run's total splits: a node covering units [a, b) passes the share
// Beta(α(a, m), α(m, b)) of its interval to [a, m), m the midpoint and α the
// spacings below (the sum of Gamma(α) and Gamma(β) variables splits that
// way); a unit's interval then takes log2(L/unit) Beta draws, and its values
// the unit's own exponentials scaled into it. Every draw is seeded by what it
// is (seed, run, node or unit), so a unit's values do not depend on which
// units were made before, or on which thread made them.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "agpu/errors.hpp"
#include "common/site_rng.hpp"
#include "sort/sort_common.cuh"

namespace agpu::sim::sort_estimator {

// The sort's key order and the seeded generators (kernels/), which the synthesized state follows.
using namespace ::agpu::kernels;
using namespace ::agpu::kernels::sort;

// A 32-bit key from its order value (u32: itself; float: the totalOrder bits mapped back).
template <class K>
K key_from_order(std::uint32_t u) {
    static_assert(sizeof(K) == 4, "synthesized keys are 32-bit");
    if constexpr (std::is_same_v<K, float>) return std::bit_cast<float>(u & 0x80000000u ? u ^ 0x80000000u : ~u);
    else return static_cast<K>(u);
}

// n i.i.d. uniform keys (the unsorted input): unit j from its own generator.
template <class K>
class random_keys_synth {
public:
    explicit random_keys_synth(std::uint64_t seed) : m_seed(seed) {}
    // Keys [first, first + count).
    void fill(std::uint64_t first, std::uint64_t count, K* dst) const {
        for (std::uint64_t i = first; i < first + count; ++i) {
            site_rng g(mix_seed(m_seed, i));
            dst[i - first] = key_from_order<K>(static_cast<std::uint32_t>(g() >> 32));
        }
    }

private:
    std::uint64_t m_seed;
};

// The array after a merge pass: runs of run_len sorted i.i.d. uniform keys
// (the last run shorter when run_len does not divide n).
template <class K>
class sorted_runs_synth {
public:
    static constexpr std::uint64_t unit = 32;  // elements generated together

    sorted_runs_synth(std::uint64_t n, std::uint64_t run_len, std::uint64_t seed)
        : m_n(n), m_len(run_len), m_seed(seed) {
        AGPU_CHECK(run_len > 0, "sorted_runs_synth: empty runs");
    }
    std::uint64_t n() const { return m_n; }
    std::uint64_t run_len() const { return m_len; }

    // Keys [first, first + count), any range.
    void fill(std::uint64_t first, std::uint64_t count, K* dst) const {
        std::uint32_t buf[unit];
        std::uint64_t i = first;
        const std::uint64_t end = first + count;
        while (i < end) {
            const std::uint64_t r = i / m_len, at = i - r * m_len, u = at / unit;
            const std::uint64_t u_first = u * unit, u_len = std::min(unit, run_length(r) - u_first);
            const leaf l = descend(r, nullptr, [&](std::uint64_t m, double) { return u < m; });
            make_unit(r, u, u_len, l.lo, l.hi, buf);
            const std::uint64_t from = at - u_first, take = std::min(u_len - from, end - i);
            for (std::uint64_t k = 0; k < take; ++k) dst[i - first + k] = key_from_order<K>(buf[from + k]);
            i += take;
        }
    }
    // The order value (32-bit) of element i.
    std::uint32_t order_at(std::uint64_t i) const { return order_at(i, nullptr); }

    // The splits on the last path down one run's tree, for host queries that
    // go down it in order (a group's samples, its pivots' searches): each
    // query draws only the splits below where its path leaves the last one's.
    // One cache per run.
    class split_cache {
    public:
        void clear() { m_path.clear(); }

    private:
        friend class sorted_runs_synth;
        std::vector<std::pair<std::uint64_t, double>> m_path;  // (node, share) by depth
    };

    // Element i's order value, with the cache (nullptr: none).
    std::uint32_t order_at(std::uint64_t i, split_cache* cache) const {
        std::uint32_t buf[unit];
        const std::uint64_t r = i / m_len, at = i - r * m_len, u = at / unit;
        const leaf l = descend(r, cache, [&](std::uint64_t m, double) { return u < m; });
        make_unit(r, u, std::min(unit, run_length(r) - u * unit), l.lo, l.hi, buf);
        return buf[at - u * unit];
    }

    // How many elements of run r have an order value below v (inclusive:
    // at most v). One path down the run's tree: the elements of a node's left
    // half are at most its split's order value, those of its right half at
    // least it, so only one half can hold both.
    std::uint64_t rank(std::uint64_t r, std::uint64_t v, bool inclusive, split_cache* cache) const {
        const std::uint64_t len = run_length(r), units = (len + unit - 1) / unit;
        std::uint64_t below = 0, a = 0;
        const leaf l = descend(r, cache, [&](std::uint64_t m, double mid) {
            const std::uint64_t split = order_of(mid);
            if (inclusive ? v < split : v <= split) return true;
            below += std::min(m * unit, len) - std::min(a * unit, len);  // the left half, whole
            a = m;
            return false;
        });
        if (l.u >= units) return below;  // the last spacing's unit holds no element
        std::uint32_t buf[unit];
        const std::uint64_t u_len = std::min(unit, len - l.u * unit);
        make_unit(r, l.u, u_len, l.lo, l.hi, buf);
        for (std::uint64_t k = 0; k < u_len; ++k) below += inclusive ? buf[k] <= v : buf[k] < v;
        return below;
    }

private:
    std::uint64_t run_length(std::uint64_t r) const { return std::min(m_len, m_n - r * m_len); }
    static std::uint32_t order_of(double v) {
        return static_cast<std::uint32_t>(std::min(std::floor(v * 0x1.0p32), 4294967295.0));
    }

    // A unit and its interval: its last element lies at hi.
    struct leaf {
        std::uint64_t u;
        double lo, hi;
    };
    // Down run r's tree from the root to a unit, left where
    // left(midpoint unit, split) says: units 0..units-1 hold the elements'
    // spacings, unit `units` the last one, S_{L+1} - S_L.
    template <class Left>
    leaf descend(std::uint64_t r, split_cache* cache, Left left) const {
        const std::uint64_t len = run_length(r), units = (len + unit - 1) / unit;
        auto alpha = [&](std::uint64_t a, std::uint64_t b) {
            const std::uint64_t hi = std::min(b, units) * unit;
            return double(std::min(hi, len) - std::min(a * unit, len)) + (b > units ? 1.0 : 0.0);
        };
        const std::uint64_t run_seed = mix_seed(m_seed, r);
        std::uint64_t a = 0, b = units + 1;
        double lo = 0, hi = 1;
        for (std::size_t depth = 0; b - a > 1; ++depth) {
            const std::uint64_t m = a + (b - a) / 2, node = a * 0x100000001ull + b;
            double share = 0;
            if (cache && depth < cache->m_path.size() && cache->m_path[depth].first == node) {
                share = cache->m_path[depth].second;
            } else {
                site_rng g(mix_seed(run_seed, node));
                std::gamma_distribution<double> left_g(alpha(a, m)), right_g(alpha(m, b));
                const double x = left_g(g), y = right_g(g);
                share = x / (x + y);
                if (cache) {
                    cache->m_path.resize(depth);
                    cache->m_path.emplace_back(node, share);
                }
            }
            const double mid = lo + (hi - lo) * share;
            if (left(m, mid)) {
                b = m;
                hi = mid;
            } else {
                a = m;
                lo = mid;
            }
        }
        return {a, lo, hi};
    }

    // The sorted order values of unit u (u_len elements) of run r, in (lo, hi]:
    // the unit's own spacings scaled to it, the last element at hi.
    void make_unit(std::uint64_t r, std::uint64_t u, std::uint64_t u_len, double lo, double hi,
                   std::uint32_t* out) const {
        site_rng g(mix_seed(mix_seed(m_seed, r), ~u));
        double e[unit], sum = 0;
        for (std::uint64_t k = 0; k < u_len; ++k) sum += (e[k] = -std::log(g.open_unit()));
        // Within [lo, hi]'s order values even where rounding strays (rank relies on it).
        const std::uint32_t first = order_of(lo), last = order_of(hi);
        double acc = 0;
        for (std::uint64_t k = 0; k < u_len; ++k) {
            acc += e[k];
            out[k] = k + 1 == u_len ? last : std::clamp(order_of(lo + (hi - lo) * (acc / sum)), first, last);
        }
    }

    std::uint64_t m_n, m_len, m_seed;
};

}  // namespace agpu::sim::sort_estimator
