// What every apsp kernel shares: the distance encoding, 16-byte vectors, and
// the relaxation d = min(d, a + b) in its three spellings.
//
// Distances are signed integers; a missing edge is the value `inf` below, a
// finite number chosen so that inf + inf does not overflow (2·inf <= the type's
// maximum). Every kernel relaxes with plain (or DPX) addition and minimum, no
// saturation: a stored value never rises above its initial value (<= inf), so a
// candidate a + b is at most 2·inf and never wraps. The result is therefore the
// exact shortest-path matrix of the *completed* graph in which every missing
// edge weighs inf. Without negative edges an unreachable pair stays exactly
// inf; with negative edges it may end slightly below inf (inf plus a negative
// path), and "no path" is read as any value above inf / 2 (the tests and the
// runs check that finite distances stay below it). Because the completed graph
// has no negative cycle, that matrix is unique: every variant, in any order of
// updates, produces the same values, bit for bit, as a CPU Floyd-Warshall run
// with the same rule (apsp_graph.hpp).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "agpu/kl/kl.hpp"

namespace agpu::kernels::apsp {

namespace kl = agpu::kl;

// int32: 2^30 - 1, the largest x with 2x <= INT32_MAX (2^30 itself would make
// inf + inf = 2^31 wrap to a negative number).
inline constexpr std::int32_t inf32 = 0x3fffffff;
// int16 (the packed dpx variant): 2^14 - 1, for the same reason.
inline constexpr std::int16_t inf16 = 0x3fff;

// 16 bytes of words: one LDG.128 / LDS.128 / STG.128 / STS.128 under nvcc.
template <class W>
struct alignas(16) word4 {
    W w[4];
};

// The relaxations. `word` is what a 32-bit register holds; `per_word`
// distances share it. `spread(word, h)` is the word that multiplies as the
// left operand: distance h of `word` in every slot.

// min(c, a + b) written plainly (method A, B, the recursive and naive
// variants). nvcc for sm_90 fuses it into one VIADDMNMX as well.
struct relax_plain {
    using word = std::int32_t;
    static constexpr unsigned per_word = 1;
    static constexpr word inf_word = inf32;
    AGPU_HOST_DEVICE static word spread(word w, unsigned) { return w; }
    AGPU_DEVICE static word relax(word a, word b, word c) { return kl::min(c, a + b); }
};

// The same through the DPX intrinsic (apsp/dpx, width=32).
struct relax_dpx32 {
    using word = std::int32_t;
    static constexpr unsigned per_word = 1;
    static constexpr word inf_word = inf32;
    AGPU_HOST_DEVICE static word spread(word w, unsigned) { return w; }
    AGPU_DEVICE static word relax(word a, word b, word c) { return kl::add_min(a, b, c); }
};

// Two 16-bit distances per word, two updates per DPX instruction (apsp/dpx,
// width=16): the word holds columns j and j + 1 of one row; the left operand
// holds one distance in both halves.
struct relax_dpx16x2 {
    using word = std::uint32_t;
    static constexpr unsigned per_word = 2;
    static constexpr word inf_word = 0x3fff3fffu;
    AGPU_HOST_DEVICE static word spread(word w, unsigned h) { return ((w >> (16 * h)) & 0xffffu) * 0x10001u; }
    AGPU_DEVICE static word relax(word a, word b, word c) { return kl::add_min_s16x2(a, b, c); }
};

// N int32 words as one access (N = 2: 8 bytes, 4: 16 bytes).
template <unsigned N>
struct alignas(4 * N) ivec {
    std::int32_t w[N];
};

template <class W>
AGPU_HOST_DEVICE word4<W> splat4(W v) {
    return {{v, v, v, v}};
}

// Calls f(integral_constant<unsigned, U>) for U = 0 .. N-1, unrolled at
// compile time on both backends (no pragma: the host compiler would warn).
template <unsigned N, class F>
AGPU_DEVICE void unrolled(F&& f) {
    [&]<unsigned... U>(std::integer_sequence<unsigned, U...>) { (f(std::integral_constant<unsigned, U>{}), ...); }
    (std::make_integer_sequence<unsigned, N>{});
}

}  // namespace agpu::kernels::apsp
