// Host-side helpers shared by every algorithm's runners (simulator and GPU):
// random inputs from a seed, and comparison with a CPU reference.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "agpu/kl/kl.hpp"
#include "agpu/model/algorithm.hpp"

namespace agpu::kernels {

// n random values of T (never all zeros; METHOD: random inputs, never zeros).
// The same arguments give the same values. The last large vector of each T is
// kept, shared with the caller rather than copied (a copy beside the caller's
// doubled the host memory of a 10^9-value run), so the repetitions of a timed
// GPU run (which regenerate their inputs) do not spend seconds in the
// generator.
template <class T>
std::shared_ptr<const std::vector<T>> random_values(std::size_t n, std::uint64_t seed, T lo, T hi) {
    struct last_large {
        std::size_t n = 0;
        std::uint64_t seed = 0;
        T lo{}, hi{};
        std::shared_ptr<const std::vector<T>> v;
    };
    static thread_local last_large cache;
    constexpr std::size_t large = std::size_t(1) << 20;
    if (n >= large && cache.v && cache.n == n && cache.seed == seed && cache.lo == lo && cache.hi == hi) return cache.v;
    if (n >= large) cache = {};  // the old vector goes before the new one is made
    std::mt19937_64 rng(seed);
    auto v = std::make_shared<std::vector<T>>(n);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<T> d(lo, hi);
        for (auto& x : *v) x = d(rng);
    } else {
        std::uniform_int_distribution<T> d(lo, hi);
        for (auto& x : *v) x = d(rng);
    }
    if (n >= large) cache = {n, seed, lo, hi, v};
    return v;
}

// "" when equal; otherwise where they first differ.
template <class T>
std::string first_mismatch(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
    if (got.size() != want.size())
        return what + ": " + std::to_string(got.size()) + " values, expected " + std::to_string(want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!(got[i] == want[i])) {
            std::ostringstream os;
            os << what << "[" << i << "] = " << +got[i] << ", expected " << +want[i];
            return os.str();
        }
    return "";
}

// A run's check: `got` against the CPU reference `want`.
template <class T>
model::check_result compare(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
    const auto m = first_mismatch(got, want, what);
    return {m.empty(), m.empty() ? what + ": " + std::to_string(want.size()) + " values equal the CPU reference" : m};
}

// The first n values of a device span, on the host (either executor).
template <class Exec, class T>
std::vector<T> fetch(Exec& ex, kl::gspan<T> src, std::size_t n) {
    std::vector<T> h(n);
    ex.download(std::span<T>(h), src);
    return h;
}

// Blocks of `block` threads covering n threads.
inline unsigned blocks_for(std::uint64_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

}  // namespace agpu::kernels
