// The sort family's inputs and CPU reference, shared by the algorithms and
// the GPU baselines (kernels/baselines/), so both sort the same keys.
//
// Kinds: random (uniform over every bit pattern: for float every value,
// NaNs, infinities, -0.0 and denormals included), sorted, reverse (sorted
// descending), equal (one value n times), few (16 distinct values),
// extremes (16 distinct values, two of them the smallest and the largest key
// in the key order: the keys the merges pad absent elements with). Values,
// for key-value sorts, are the input positions, so a stable sort's output is
// unique.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/host_util.hpp"
#include "sort/sort_common.cuh"

namespace agpu::kernels::sort {

inline const std::vector<std::string>& input_kinds() {
    static const std::vector<std::string> kinds{"random", "sorted", "reverse", "equal", "few", "extremes"};
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
    const auto bits_values = random_values<U>(kind == "random" ? n : std::min<std::uint64_t>(n, 16), seed, U(0), ~U(0));
    const auto& bits = *bits_values;
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
    if (kind == "few" || kind == "extremes") {
        std::vector<U> values(bits.begin(), bits.end());  // at most 16
        if (kind == "extremes") {  // two of them the smallest and the largest key (what the merges pad with)
            values[0] = std::is_same_v<K, float> ? ~U(0) : U(0);  // float: −NaN, every payload bit set
            if (values.size() > 1) values[1] = std::bit_cast<U>(key_order<K>::largest());
        }
        const auto pick_values = random_values<std::uint32_t>(n, seed + 1, 0, std::uint32_t(values.size() - 1));
        const auto& pick = *pick_values;
        for (std::uint64_t i = 0; i < n; ++i) v[i] = std::bit_cast<K>(values[pick[i]]);
        return v;
    }
    const auto all_values = random_values<U>(n, seed, U(0), ~U(0));
    const auto& all = *all_values;
    for (std::uint64_t i = 0; i < n; ++i) v[i] = std::bit_cast<K>(all[i]);
    std::sort(v.begin(), v.end(), ref_less<K>);
    if (kind == "reverse") std::reverse(v.begin(), v.end());
    return v;
}

// K's bits mapped so that unsigned order is the key order (float: totalOrder).
template <class K>
key_bits<K> order_bits(K x) {
    if constexpr (std::is_same_v<K, float>) return key_order<float>::ordered(x);
    else return static_cast<key_bits<K>>(x);
}

// The CPU reference: the stable order of the positions by the key order (what
// std::stable_sort of (key, position) gives), by an LSD radix sort of 16-bit
// digits of order_bits: linear, so the reference of a 2^28-key run takes
// seconds, not minutes.
template <class K>
std::vector<std::uint32_t> reference_order(const std::vector<K>& keys) {
    const std::size_t n = keys.size();
    std::vector<std::uint32_t> idx(n), tmp(n);
    std::iota(idx.begin(), idx.end(), 0u);
    std::vector<std::size_t> count(std::size_t(1) << 16);
    for (unsigned shift = 0; shift < 8 * sizeof(K); shift += 16) {
        std::fill(count.begin(), count.end(), 0);
        for (const K k : keys) ++count[(order_bits(k) >> shift) & 0xffffu];
        std::size_t sum = 0;
        for (auto& c : count) sum += std::exchange(c, sum);
        for (const std::uint32_t i : idx) tmp[count[(order_bits(keys[i]) >> shift) & 0xffffu]++] = i;
        idx.swap(tmp);
    }
    return idx;
}

// One sort case: the input and, made on first use, its reference order and
// sorted keys (after the run, so a run stopped early never pays for them).
// Every repetition of a measured run (and the baselines, which sort the same
// keys) asks for the same case, so the last one of each key type is kept.
template <class K>
class sort_case {
public:
    sort_case(std::uint64_t n, std::uint64_t seed, std::string kind)
        : n_(n), seed_(seed), kind_(std::move(kind)), keys_(sort_input<K>(n, seed, kind_)) {}

    bool is(std::uint64_t n, std::uint64_t seed, const std::string& kind) const {
        return n_ == n && seed_ == seed && kind_ == kind;
    }
    const std::vector<K>& keys() const { return keys_; }
    const std::vector<std::uint32_t>& order() const { return reference().order; }
    const std::vector<key_bits<K>>& sorted_bits() const { return reference().sorted_bits; }

private:
    struct ref {
        std::vector<std::uint32_t> order;
        std::vector<key_bits<K>> sorted_bits;  // the keys in `order`, as bit patterns
    };
    const ref& reference() const {
        std::call_once(once_, [&] {
            ref_.order = reference_order(keys_);
            ref_.sorted_bits.resize(keys_.size());
            for (std::size_t i = 0; i < keys_.size(); ++i)
                ref_.sorted_bits[i] = std::bit_cast<key_bits<K>>(keys_[ref_.order[i]]);
        });
        return ref_;
    }

    std::uint64_t n_, seed_;
    std::string kind_;
    std::vector<K> keys_;
    mutable std::once_flag once_;
    mutable ref ref_;
};

template <class K>
std::shared_ptr<const sort_case<K>> cached_case(std::uint64_t n, std::uint64_t seed, const std::string& kind) {
    static std::mutex m;
    static std::shared_ptr<const sort_case<K>> last;
    std::lock_guard lock(m);
    if (!last || !last->is(n, seed, kind)) {
        last.reset();  // free the old case before building the new one
        last = std::make_shared<const sort_case<K>>(n, seed, kind);
    }
    return last;
}

// Keys as their bit patterns, so NaNs compare equal to themselves.
template <class K>
std::vector<key_bits<K>> as_bits(const std::vector<K>& v) {
    std::vector<key_bits<K>> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = std::bit_cast<key_bits<K>>(v[i]);
    return out;
}

}  // namespace agpu::kernels::sort
