// apsp/naive: Floyd-Warshall with one kernel per k.
//
// Launch k (k = 0 .. n-1) runs one thread per matrix element (i, j):
// d[i][j] = min(d[i][j], d[i][k] + d[k][j]), stored unconditionally. Row k and
// column k do not change during launch k (d[k][k] = 0), so updating in place
// while other threads read them is exact. The host's wait between launches is
// the only synchronisation.
//
// AGPU cost per launch, with blocks of naive_policy::bx x naive_policy::by
// threads and b-lane warps: every live warp issues 3 loads (d[i][j] and
// d[k][j] coalesced, d[i][k] one word for the whole warp when a warp lies in
// one row) and 1 store. Over the n launches: n³ updates, 4n³/b
// warp-instructions (more when rows are not a multiple of b), global I/O
// about 3n³/b blocks read (of which n³/b are the broadcast d[i][k]) and n³/b
// written; n launches. No shared memory.
#pragma once

#include "apsp/apsp_common.cuh"

namespace agpu::kernels::apsp {

struct naive_policy {
    // 64 x 4 threads: a block row spans 64 consecutive columns (two 32-lane
    // warps, four 16-lane ones), so every warp lies in one matrix row.
    static constexpr unsigned bx = 64, by = 4;
};

AGPU_KERNEL void naive_step(kl::gspan<std::int32_t> d, std::uint32_t n, std::uint32_t k) {
    const std::uint32_t j = kl::block_idx().x * kl::block_dim().x + kl::thread_idx().x;
    const std::uint32_t i = kl::block_idx().y * kl::block_dim().y + kl::thread_idx().y;
    if (i < n && j < n) {
        const std::uint64_t row = std::uint64_t(i) * n;
        const std::int32_t dij = d.load(row + j), dik = d.load(row + k), dkj = d.load(std::uint64_t(k) * n + j);
        kl::compute(1);
        d.store(row + j, kl::min(dij, dik + dkj));
    }
}

}  // namespace agpu::kernels::apsp
