// The sort family's inputs and CPU reference, shared by the algorithms and
// the GPU baselines (kernels/baselines/), so both sort the same keys.
//
// Kinds: random (uniform over every bit pattern: for float every value,
// NaNs, infinities, -0.0 and denormals included), sorted, reverse (sorted
// descending), equal (one value n times), few (16 distinct values). Values,
// for key-value sorts, are the input positions, so a stable sort's output is
// unique.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "common/host_util.hpp"
#include "sort/sort_common.cuh"

namespace agpu::kernels::sort {

inline const std::vector<std::string>& input_kinds() {
    static const std::vector<std::string> kinds{"random", "sorted", "reverse", "equal", "few"};
    return kinds;
}

// The unsigned integer of K's width (float's bits).
template <class K>
using key_bits = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;

template <class K>
bool ref_less(K a, K b) {
    return key_order<K>::less(a, b);
}

template <class K>
std::vector<K> sort_input(std::uint64_t n, std::uint64_t seed, const std::string& kind) {
    using U = key_bits<K>;
    const auto bits = random_values<U>(kind == "random" ? n : std::min<std::uint64_t>(n, 16), seed, U(0), ~U(0));
    std::vector<K> v(n);
    if (kind == "random") {
        for (std::uint64_t i = 0; i < n; ++i) v[i] = std::bit_cast<K>(bits[i]);
        return v;
    }
    if (n == 0) return v;
    if (kind == "equal") {
        std::fill(v.begin(), v.end(), std::bit_cast<K>(bits[0]));
        return v;
    }
    if (kind == "few") {
        const auto pick = random_values<std::uint32_t>(n, seed + 1, 0, std::uint32_t(bits.size() - 1));
        for (std::uint64_t i = 0; i < n; ++i) v[i] = std::bit_cast<K>(bits[pick[i]]);
        return v;
    }
    const auto all = random_values<U>(n, seed, U(0), ~U(0));
    for (std::uint64_t i = 0; i < n; ++i) v[i] = std::bit_cast<K>(all[i]);
    std::sort(v.begin(), v.end(), ref_less<K>);
    if (kind == "reverse") std::reverse(v.begin(), v.end());
    return v;
}

// The CPU reference: std::stable_sort of (key, position) by the key order.
template <class K>
std::vector<std::uint32_t> reference_order(const std::vector<K>& keys) {
    std::vector<std::uint32_t> idx(keys.size());
    std::iota(idx.begin(), idx.end(), 0u);
    std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) { return ref_less(keys[a], keys[b]); });
    return idx;
}

// Keys as their bit patterns, so NaNs compare equal to themselves.
template <class K>
std::vector<key_bits<K>> as_bits(const std::vector<K>& v) {
    std::vector<key_bits<K>> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = std::bit_cast<key_bits<K>>(v[i]);
    return out;
}

}  // namespace agpu::kernels::sort
