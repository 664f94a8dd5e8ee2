// A random generator seeded by what a draw is (its site: a seed and an
// index), so that any draw can be made by itself, in any order, on any
// thread, and give the same value: for inputs the simulator synthesizes where
// a kernel touches them (sim/estimators/sort_synth.hpp, stats' sampled runs).
#pragma once

#include <cstdint>

namespace agpu::kernels {

// splitmix64 as a UniformRandomBitGenerator: seeded per draw site, cheap to start.
class site_rng {
public:
    using result_type = std::uint64_t;
    explicit site_rng(std::uint64_t seed) : m_s(seed) {}
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type(0); }
    result_type operator()() {
        std::uint64_t z = (m_s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform on (0, 1].
    double open_unit() { return (double((*this)() >> 11) + 1.0) * 0x1.0p-53; }

private:
    std::uint64_t m_s;
};

inline std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) { return site_rng(a ^ (b * 0xD1B54A32D192ED03ull))(); }

}  // namespace agpu::kernels
