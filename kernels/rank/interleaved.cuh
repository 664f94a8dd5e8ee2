// rank/interleaved: a rank directory in which one 64-byte line answers a rank
// (rank9/poppy family): each line holds a 64-bit header and the 448 bits it
// covers, so a query touches one line, its header and its target word in two
// 16-byte reads.
//
// Line j (8 words): word 0 the header, words 1..7 the bits [448 j, 448 j + 448)
// (d0..d6, each 64 positions, little-endian). Header:
//   bits  0-39  ones before the line (absolute; n <= 2^34 < 2^40)
//   bits 40-46  r1 = ones in d0          (<= 64)
//   bits 47-54  r2 = ones in d0..d2      (<= 192)
//   bits 55-63  r3 = ones in d0..d4      (<= 320)
// so the 16-byte pieces of a line, (header, d0), (d1, d2), (d3, d4), (d5, d6),
// each start at a known count: 0, r1, r2, r3. rank1(i): line = i / 448, word
// w = (i mod 448) / 64, piece p = (w + 1) / 2; read piece 0 and piece p;
// rank = count + r_p + (ones of d_{w-1} when w is the piece's second word,
// p > 0) + ones of d_w below i. Lines: n / 448 + 1 (positions 0..n);
// space 64/448 = 14.3% over the bits.
//
// Build, one launch (interleaved_build): a thread writes one 16-byte piece; a
// warp covers b/4 lines per step and 8 steps; a block's tile is 512 lines,
// claimed in launch order. Each thread reads its piece's one or two input
// words (8-byte loads, the warp's lanes covering 14b consecutive bytes) for all
// 8 steps before using them; a warp scan of piece counts gives r1..r3 and each
// line's count within the warp; the warps' totals and the chained prefix of
// earlier tiles (rank_common.cuh) make them absolute; then the 8 pieces are
// stored, each warp-store 16b consecutive bytes. Bytes moved: n/8 read,
// (64/56) n/8 written, a few atomics per tile.
//
// Queries, one per thread: rank reads the position, two 16-byte pieces of one
// line, writes the result; select binary-searches the line headers
// (ceil(log2 lines) + 1 steps, clamped reads) and reads the line's header and
// target piece.
#pragma once

#include <cstdint>

#include "rank/jacobson.cuh"
#include "rank/rank_common.cuh"

namespace agpu::kernels::rank {

inline constexpr unsigned line_bits = 448;
inline constexpr std::uint64_t header_count_mask = (std::uint64_t(1) << 40) - 1;
inline constexpr std::uint64_t interleaved_tile_lines =
    std::uint64_t(rank_policy::block_threads) * rank_policy::items / 4;

struct interleaved_layout {
    std::uint64_t n = 0;
    std::uint64_t data_words = 0;  // words of the bit vector read: 2 ceil(n / 128)
    std::uint64_t lines = 0;       // n / 448 + 1
    std::uint64_t tiles = 0;
};

// The header's count before piece p (0 for p = 0): r1, r2, r3.
AGPU_HOST_DEVICE std::uint64_t piece_base(std::uint64_t header, unsigned p) {
    const unsigned shift = (0x372f2800u >> (8 * p)) & 0xffu;  // 0, 40, 47, 55
    return p == 0 ? 0 : (header >> shift) & ((std::uint64_t(1) << (6 + p)) - 1);
}

// ---- build ----

// `words` holds the bit vector (2 ceil(n/128) words; positions >= n ignored);
// `out` 4 * lines pieces; status tiles + 1 words uploaded as zeros.
AGPU_KERNEL void interleaved_build(kl::gspan<const std::uint64_t> words, std::uint64_t n, kl::gspan<u64x2> out,
                                   std::uint64_t lines, kl::gspan<unsigned long long> status, std::uint64_t tiles) {
    constexpr unsigned B = rank_policy::block_threads, I = rank_policy::items, tile_lines = B * I / 4;
    AGPU_SHARED(unsigned long long, slot, 1);
    AGPU_SHARED(std::uint32_t, warp_total, rank_policy::max_warps);
    AGPU_SHARED(unsigned long long, warp_base, rank_policy::max_warps);
    const unsigned b = kl::warp_size(), lane = kl::lane_id(), warp = kl::warp_id(), p = lane % 4;
    const unsigned long long tile = tile_claim(status, tiles, slot);
    const std::uint64_t first = tile * tile_lines + std::uint64_t(warp) * I * (b / 4);

    // Piece p of line j is (d_{2p-1}, d_{2p}), or (header, d0) for p = 0: words
    // x - 1 and x of the bit vector, x = 7j + 2p.
    std::uint64_t a[I], d[I];
    for (unsigned it = 0; it < I; ++it) {
        const std::uint64_t x = 7 * (first + std::uint64_t(it) * (b / 4) + lane / 4) + 2 * p;
        a[it] = p > 0 && x - 1 < words.size() ? words.load(x - 1) : 0;
        d[it] = x < words.size() ? words.load(x) : 0;
    }
    // Lanes p = 0 keep their line's header in a[] (count relative to the warp):
    // each lane then holds exactly the piece it stores.
    std::uint32_t running = 0;
    for (unsigned it = 0; it < I; ++it) {
        const std::uint64_t x = 7 * (first + std::uint64_t(it) * (b / 4) + lane / 4) + 2 * p;
        const std::uint64_t lo = p > 0 ? clip_word(a[it], x - 1, n) : 0;
        d[it] = clip_word(d[it], x, n);
        const auto t = static_cast<std::uint32_t>(kl::popc(lo) + kl::popc(d[it]));
        const std::uint32_t incl = warp_inclusive_scan(t), excl = incl - t;
        const std::uint32_t next1 = kl::shfl_down(incl, 1), next2 = kl::shfl_down(incl, 2);
        a[it] = p > 0 ? lo
                      : std::uint64_t(running + excl) | std::uint64_t(t) << 40 | std::uint64_t(next1 - excl) << 47 |
                            std::uint64_t(next2 - excl) << 55;
        running += kl::shfl(incl, int(b - 1));
    }

    tile_warp_bases(warp_total, warp_base, status, tile, running);
    const std::uint64_t base = warp_base.load(warp);
    for (unsigned it = 0; it < I; ++it) {
        const std::uint64_t j = first + std::uint64_t(it) * (b / 4) + lane / 4;
        if (j < lines) out.store(4 * j + p, u64x2{p == 0 ? a[it] + base : a[it], d[it]});
    }
}

// ---- queries ----

// Rank of a position given its line's pieces 0 and p, its word w (0..6) and bit.
AGPU_DEVICE std::uint64_t line_rank(u64x2 head, u64x2 piece, unsigned w, unsigned bit) {
    const unsigned slot = w + 1, p = slot / 2;
    const bool second = (slot & 1) != 0;
    const std::uint64_t target = second ? piece.hi : piece.lo;
    const std::uint64_t before = second && p > 0 ? std::uint64_t(kl::popc(piece.lo)) : 0;
    return (head.lo & header_count_mask) + piece_base(head.lo, p) + before +
           std::uint64_t(kl::popc(low_bits(target, bit)));
}

// out[q] = rank1(pos[q]) (or rank0), 0 <= pos[q] <= n <= 2^34.
AGPU_KERNEL void interleaved_rank(kl::gspan<const u64x2> lines, kl::gspan<const std::uint64_t> pos,
                                  kl::gspan<std::uint64_t> out, bool zeros) {
    const std::uint64_t q = query_index();
    if (q >= pos.size()) return;
    const std::uint64_t i = pos.load(q);
    const auto word = static_cast<std::uint32_t>(i >> 6);  // < 2^28: a 32-bit division by 7
    const std::uint32_t j = word / 7, w = word - 7 * j;
    const u64x2 head = lines.load(4 * std::uint64_t(j));
    const u64x2 piece = lines.load(4 * std::uint64_t(j) + (w + 1) / 2);
    const std::uint64_t r = line_rank(head, piece, w, unsigned(i & 63));
    out.store(q, zeros ? i - r : r);
}

// out[q] = select1(pos[q]), or n when there is none. `headers` views the lines
// as 64-bit words (line j's header is word 8j).
AGPU_KERNEL void interleaved_select(kl::gspan<const u64x2> lines, kl::gspan<const std::uint64_t> headers,
                                    kl::gspan<const unsigned long long> status, std::uint64_t tiles, std::uint64_t n,
                                    kl::gspan<const std::uint64_t> pos, kl::gspan<std::uint64_t> out) {
    const std::uint64_t q = query_index();
    if (q >= pos.size()) return;
    const std::uint64_t k = pos.load(q);
    const std::uint64_t ones = status.load(tiles - 1) & status_value;
    const bool valid = k >= 1 && k <= ones;
    const std::uint64_t kk = valid ? k : 1;
    // The last line whose count is below kk (line 0's is 0): fixed steps, clamped reads.
    const std::uint64_t nlines = lines.size() / 4;
    std::uint64_t j = 0;
    for (std::uint64_t step = pow2_floor(nlines); step >= 1; step /= 2) {
        const std::uint64_t probe = j + step;
        const std::uint64_t h = headers.load(8 * kl::min(probe, nlines - 1));
        if (probe < nlines && (h & header_count_mask) < kk) j = probe;
    }
    const u64x2 head = lines.load(4 * j);
    std::uint64_t rest = kk - (head.lo & header_count_mask);  // 1 <= rest <= ones of the line
    const unsigned p = unsigned(rest > piece_base(head.lo, 1)) + unsigned(rest > piece_base(head.lo, 2)) +
                       unsigned(rest > piece_base(head.lo, 3));
    rest -= piece_base(head.lo, p);
    const u64x2 piece = lines.load(4 * j + p);
    const std::uint64_t first_ones = p > 0 ? std::uint64_t(kl::popc(piece.lo)) : 0;
    const bool second = rest > first_ones;
    const unsigned w = 2 * p - (second ? 0 : 1);  // data word d_w: piece p holds d_{2p-1}, d_{2p}
    const unsigned bit = select_in_word(second ? piece.hi : piece.lo, unsigned(second ? rest - first_ones : rest));
    out.store(q, valid ? j * line_bits + 64 * std::uint64_t(w) + bit : n);
}

}  // namespace agpu::kernels::rank
