// stats/serial: the source's baseline, one GPU thread looping over the data.
//
// One launch of one block of one thread. It reads x[0] (the shift), then
// every value in order, keeping the same shifted double sums as one thread of
// stats/fused (moments.cuh), and writes the eight results (enum field) one by
// one. The source does not say how its baseline accumulates; these sums make
// its results as accurate as stats/fused's, so that the comparison is of time
// alone.
//
// AGPU cost: n + 1 load instructions and 8 store instructions of one lane
// each, one sector and one block apiece; time n + 9 steps on one MP (the
// other k - 1 idle); one launch.
#pragma once

#include <cstdint>

#include "agpu/kl/kl.hpp"
#include "stats/moments.cuh"

namespace agpu::kernels::stats {

template <class T>
AGPU_KERNEL void serial_stats(kl::gspan<const T> x, kl::gspan<double> out) {
    const std::size_t n = x.size();
    thread_sums<T> acc;
    acc.start(x.load(0));
    for (std::size_t i = 0; i < n; ++i) acc.add0(x.load(i));
    acc.count = static_cast<unsigned>(n);
    const moments<T> m = acc.result();
    for (unsigned f = 0; f < field_count; ++f) out.store(f, result_field(m, f));
}

}  // namespace agpu::kernels::stats
