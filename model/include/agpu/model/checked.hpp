// Checked 64-bit arithmetic for counts (closed forms, conversions from
// doubles): an operation that would wrap or lose the value throws
// count_overflow naming what was being counted, never a wrong number.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "agpu/errors.hpp"

namespace agpu::model {

inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
    std::uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw count_overflow(what, std::to_string(a) + " x " + std::to_string(b) + " overflows a 64-bit count");
    return r;
}

inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const char* what) {
    std::uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        throw count_overflow(what, std::to_string(a) + " + " + std::to_string(b) + " overflows a 64-bit count");
    return r;
}

// A non-negative integral double as a count; NaN, negative, fractional or
// at least 2^64 throws (the plain conversion is undefined behaviour there).
inline std::uint64_t checked_count(double x, const char* what) {
    if (!(x >= 0) || x >= 18446744073709551616.0 || x != std::floor(x))
        throw count_overflow(what, "the value " + std::to_string(x) + " is not a count below 2^64");
    return static_cast<std::uint64_t>(x);
}

}  // namespace agpu::model
