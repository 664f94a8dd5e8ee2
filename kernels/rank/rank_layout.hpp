// The layouts of the rank structures for n bits (jacobson.cuh,
// interleaved.cuh), computed on the host: the block sizes, the tables'
// lengths and the build's tiles. Bad n throws.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "agpu/errors.hpp"
#include "rank/interleaved.cuh"
#include "rank/jacobson.cuh"

namespace agpu::kernels::rank {

// ceil(log2 n), 0 for n = 1.
inline unsigned ceil_log2(std::uint64_t n) {
    unsigned l = 0;
    while ((std::uint64_t(1) << l) < n) ++l;
    return l;
}

// The power of two nearest x on a log scale, as an exponent within [lo, hi].
inline unsigned nearest_pow2_exponent(double x, unsigned lo, unsigned hi) {
    const long e = x <= 1 ? 0 : std::lround(std::log2(x));
    return static_cast<unsigned>(std::min<long>(std::max<long>(e, long(lo)), long(hi)));
}

inline jacobson_layout jacobson_layout_for(std::uint64_t n) {
    AGPU_CHECK(n >= 1, "rank/jacobson needs at least one bit");
    const double lg = std::max(1u, ceil_log2(n));
    jacobson_layout j;
    j.n = n;
    j.log_s = nearest_pow2_exponent(lg / 2, 3, 4);    // S in {8, 16}: enough for lg <= 45 (n < 2^45)
    j.log_l = nearest_pow2_exponent(lg * lg, 7, 10);  // L in [128, 1024]: g = L/128 <= 8 lanes <= b
    j.data_chunks = (n + 127) / 128;
    j.superblocks = (n >> j.log_l) + 1;
    j.chunks = j.superblocks << (j.log_l - 7);
    j.small_blocks = j.chunks << (7 - j.log_s);
    j.tiles = (j.chunks + jacobson_tile_chunks - 1) / jacobson_tile_chunks;
    return j;
}

inline interleaved_layout interleaved_layout_for(std::uint64_t n) {
    AGPU_CHECK(n >= 1 && n <= (std::uint64_t(1) << 34), "rank/interleaved covers 1 to 2^34 bits");
    interleaved_layout l;
    l.n = n;
    l.data_words = 2 * ((n + 127) / 128);
    l.lines = n / line_bits + 1;
    l.tiles = (l.lines + interleaved_tile_lines - 1) / interleaved_tile_lines;
    return l;
}

}  // namespace agpu::kernels::rank
