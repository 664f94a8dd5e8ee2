// apsp: plain Floyd-Warshall on one Tile x Tile diagonal tile, on chip. Phase
// 1 of the blocked algorithm (the pivot tile) and the base case of the
// recursive one.
//
// One block of tile_fw_policy::threads(Tile) threads: (Tile/4)² for Tile = 64
// and 128 (256 and 1024), each keeping a 4 x 4 part of the tile in registers
// (rows 4ty.., columns 4tx..; warps of 4 ty x 8 tx); 256 for Tile = 16 and 32,
// thread r keeping column r mod Tile of rows r / Tile + e·(256 / Tile).
//
// Tile >= 64, registers: step k needs row k and column k of the tile; their
// owners publish them in shared memory, double-buffered (rowbuf[k mod 2],
// colbuf[k mod 2]): in step k every thread reads its 4 values of column k and
// its 4 of row k (two 16-byte loads), relaxes its 16, and the owners of row
// and column k + 1 write their new values into the other buffer; one barrier
// per k. Row k and column k do not change during step k (d[k][k] = 0: no
// negative cycle), so the published copies are exact.
//
// Tile <= 32, shared: the tile in shared memory, double-buffered: step k
// reads copy k mod 2 and writes the other, so no thread writes a word that
// another reads in the same step (compute-sanitizer's racecheck flagged the
// single copy: the owners of column k rewrote it while others read it, with
// the same values, but a race all the same); per k a thread reads d[k][j]
// once, then for each owned row d[i][j] = min(d[i][j], d[i][k] + d[k][j]) and
// writes it to the next copy; one barrier per k. The copies are Tile² words
// apart, a multiple of every bank count, so the banks are those of one copy.
//
// AGPU cost, Tile >= 64 (b = 32, W = threads / 32 warps): global 4 vector
// loads and 4 vector stores of 16 (int32) or 8 (int16) bytes per thread;
// shared per k per warp 2 loads (a half-warp's 2 column vectors: 1 wavefront
// per half, its 8 row vectors: 1 per half) and the owners' stores (a row: 8
// lanes, 1 wavefront; a column: 4 lanes, 1); Tile + 1 barriers; 16 compute
// instructions per k per thread. Shared footprint 4·Tile words.
// Tile <= 32 (E = Tile²/256): global Tile² words read and written once; shared
// per k and thread 1 + E loads and E stores, one wavefront each (d[i][k] is a
// broadcast, the rest contiguous); Tile + 1 barriers; Tile·E compute
// instructions per thread. Shared footprint 2·Tile² words.
#pragma once

#include "apsp/apsp_common.cuh"

namespace agpu::kernels::apsp {

struct tile_fw_policy {
    static constexpr unsigned threads(unsigned tile) { return tile >= 64 ? tile * tile / 16 : 256; }
    static constexpr std::size_t shared_bytes(unsigned tile) {
        return std::size_t(tile >= 64 ? 4 * tile : 2 * tile * tile) * 4;
    }
    // Tile >= 64: the thread's (ty, tx) in the (Tile/4)² grid, warps of 4 ty x 8 tx.
    static AGPU_HOST_DEVICE unsigned ty(unsigned tid, unsigned tile) {
        return tid / 32 / (tile / 32) * 4 + tid % 32 / 8;
    }
    static AGPU_HOST_DEVICE unsigned tx(unsigned tid, unsigned tile) { return tid / 32 % (tile / 32) * 8 + tid % 8; }
};

// Four distances of one row: one 16-byte (int32) or 8-byte (int16) access.
template <class T>
struct alignas(4 * sizeof(T)) quad {
    T v[4];
};

// d: the padded matrix (`pitch` elements per row); the tile's first row and
// column are `origin`. T is int32 or int16; arithmetic in int32 is exact for
// both (values stay within [-inf, inf], sums within 2·inf).
template <class T, unsigned Tile>
// (clang-format 14 reads AGPU_BOUNDS(...) as a call)
// clang-format off
AGPU_KERNEL AGPU_BOUNDS(tile_fw_policy::threads(Tile), 1) void tile_fw(kl::gspan<T> d, std::uint64_t pitch,
                                                                        std::uint32_t origin) {
    // clang-format on
    constexpr unsigned threads = tile_fw_policy::threads(Tile);
    const auto s = kl::dynamic_shared<std::int32_t>();
    const unsigned tid = kl::thread_rank();
    if constexpr (Tile >= 64) {
        using Q = quad<T>;
        using I4 = word4<std::int32_t>;
        const kl::gspan<Q> dq(reinterpret_cast<Q*>(d.data()), d.size() / 4);
        const auto sv = kl::dynamic_shared<I4>();  // rowbuf[2][Tile/4] then colbuf[2][Tile/4] vectors
        constexpr unsigned V = Tile / 4;
        const auto row_at = [](unsigned buf, unsigned x) { return buf * V + x; };
        const auto col_at = [](unsigned buf, unsigned y) { return 2 * V + buf * V + y; };
        const unsigned ty = tile_fw_policy::ty(tid, Tile), tx = tile_fw_policy::tx(tid, Tile);
        // In quads (32-bit: the matrix has at most 2^30 distances).
        const std::uint32_t qp = std::uint32_t(pitch / 4), q0 = (origin + 4 * ty) * qp + (origin + 4 * tx) / 4;
        std::int32_t v[4][4];
        for (unsigned r = 0; r < 4; ++r) {
            const Q q = dq.load(q0 + r * qp);
            for (unsigned c = 0; c < 4; ++c) v[r][c] = q.v[c];
        }
        // Publishes row 4ty + r (as the owner of row k + 1) or column 4tx + c.
        const auto publish = [&](unsigned buf, unsigned r, unsigned c, unsigned k) {
            sv.store_if(ty == k / 4, row_at(buf, tx), I4{{v[r][0], v[r][1], v[r][2], v[r][3]}});
            sv.store_if(tx == k / 4, col_at(buf, ty), I4{{v[0][c], v[1][c], v[2][c], v[3][c]}});
        };
        publish(0, 0, 0, 0);
        kl::sync_threads();
        for (unsigned k4 = 0; k4 < Tile; k4 += 4)
            unrolled<4>([&](auto u) {
                const unsigned k = k4 + u, buf = u % 2;
                const I4 a = sv.load(col_at(buf, ty)), b = sv.load(row_at(buf, tx));
                for (unsigned r = 0; r < 4; ++r)
                    for (unsigned c = 0; c < 4; ++c) v[r][c] = kl::min(v[r][c], a.w[r] + b.w[c]);
                kl::compute(16);
                if (k + 1 < Tile) publish(1 - buf, (u + 1) % 4, (u + 1) % 4, k + 1);
                kl::sync_threads();
            });
        const std::uint32_t q1 = kl::opaque(q0), qp1 = kl::opaque(qp);  // addresses again, not kept through the loop
        for (unsigned r = 0; r < 4; ++r) {
            Q q;
            for (unsigned c = 0; c < 4; ++c) q.v[c] = static_cast<T>(v[r][c]);
            dq.store(q1 + r * qp1, q);
        }
    } else {
        constexpr unsigned per = Tile * Tile / threads, row_step = threads / Tile;
        const unsigned j = tid % Tile, i0 = tid / Tile;
        std::int32_t v[per];
        for (unsigned e = 0; e < per; ++e) {
            const unsigned i = i0 + e * row_step;
            v[e] = d.load((origin + i) * pitch + origin + j);
            s.store(i * Tile + j, v[e]);
        }
        kl::sync_threads();
        for (unsigned k = 0; k < Tile; ++k) {
            const unsigned from = k % 2 * Tile * Tile, to = (k + 1) % 2 * Tile * Tile;
            const std::int32_t dkj = s.load(from + k * Tile + j);
            for (unsigned e = 0; e < per; ++e) {
                const unsigned i = i0 + e * row_step;
                v[e] = kl::min(v[e], s.load(from + i * Tile + k) + dkj);
                s.store(to + i * Tile + j, v[e]);
            }
            kl::compute(per);
            kl::sync_threads();
        }
        for (unsigned e = 0; e < per; ++e)
            d.store((origin + i0 + e * row_step) * pitch + origin + j, static_cast<T>(v[e]));
    }
}

}  // namespace agpu::kernels::apsp
