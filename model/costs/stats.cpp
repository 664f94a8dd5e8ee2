// Closed-form AGPU costs of the stats family (kernels/stats/): written with its kernels.
//
// Every count here is exact, for every n and every machine whose b divides
// 256 and whose global block (b w/8 bytes) divides 4096 (all presets): the
// kernels' access patterns repeat block after block, so a launch's cost is a
// few kinds of thread block (data, boundary, padding, last) each costed warp by
// warp with the simulator's rules (sim/README.md) and multiplied by how many
// there are. Time places blocks on the k MPs greedily in block order, as the
// simulator does; runs of alike blocks are placed a round of k at a time.
//
// The policies below repeat the kernels' (fused_policy, pairwise_policy in
// kernels/stats/*.cuh); kernels/stats/tests/stats_test.cpp checks every
// counter against the simulator, so a change to one side shows.
#include <algorithm>
#include <bit>
#include <vector>

#include "agpu/model/closed_form.hpp"

namespace agpu::model {
namespace {

constexpr std::uint64_t pairwise_block = 256;  // pairwise_policy::block_threads
constexpr std::uint64_t fused_block = 256;     // fused_policy::block_threads
constexpr std::uint64_t fused_per_mp = 4;      // fused_policy::blocks_per_mp
constexpr std::uint64_t fused_unroll = 4;      // fused_policy::unroll
constexpr std::uint64_t merge_block = 256;     // fused_policy::merge_threads
constexpr std::uint64_t vector_bytes = 16;     // vec16<T>
constexpr std::uint64_t fields = 5;            // count, mean, M2, min, max per partial
constexpr std::uint64_t results = 8;           // enum field

std::uint64_t value_bytes(const param_values& p) { return p.text("type") == "double" ? 8 : 4; }

// Units of `unit` bytes touched by [first, end) (a contiguous access).
std::uint64_t span_units(std::uint64_t first, std::uint64_t end, std::uint64_t unit) {
    return end <= first ? 0 : units(first, end - first, unit);
}

// log2 b rounds of a shuffle reduction (off = b/2, b/4, ..., 1).
std::uint64_t shuffle_rounds(std::uint64_t b) {
    std::uint64_t r = 0;
    for (std::uint64_t off = b / 2; off > 0; off /= 2) ++r;
    return r;
}

// One warp-instruction of each kind: adds its counters, returns its steps.
struct tally {
    const machine& m;
    counts c;

    // `times` alike instructions whose lanes touch the bytes [first, end), no gap wider than a sector.
    std::uint64_t global(bool load, std::uint64_t lanes, std::uint64_t first, std::uint64_t end,
                         std::uint64_t times = 1) {
        const std::uint64_t sectors = times * span_units(first, end, sector_bytes);
        const std::uint64_t blocks = times * span_units(first, end, m.block_bytes());
        add_global(c, load, times, sectors, blocks);
        c[counter::io_blocks] += blocks;
        c[counter::lane_accesses] += times * lanes;
        c[counter::warp_instructions] += times;
        return times;
    }
    // Lanes reading or writing consecutive doubles [first, first + lanes) of shared memory.
    std::uint64_t shared(bool load, std::uint64_t lanes, std::uint64_t first_double) {
        const std::uint64_t words = span_units(first_double * 8, (first_double + lanes) * 8, m.word_bytes());
        const std::uint64_t wf = (words + m.b - 1) / m.b;  // consecutive words: the fewest possible, no conflict
        add_shared(c, load ? shared_op::load : shared_op::store, 1, {wf, wf});
        c[counter::lane_accesses] += lanes;
        c[counter::warp_instructions] += 1;
        return wf;
    }
    std::uint64_t collectives(std::uint64_t k) {
        c[counter::collective_instructions] += k;
        c[counter::warp_instructions] += k;
        return k;
    }
    std::uint64_t barrier() {
        c[counter::barrier_instructions] += 1;
        c[counter::warp_instructions] += 1;
        return 1;
    }
};

// The k MPs' loads under greedy placement (each block to the least-loaded MP).
class mp_loads {
public:
    explicit mp_loads(std::uint64_t k) : m_load(std::max<std::uint64_t>(k, 1), 0) {}
    // `count` blocks of `steps` each, in order. While the loads differ by at
    // most `steps`, k blocks in a row go one to each MP: a whole round at once.
    void add(std::uint64_t count, std::uint64_t steps) {
        if (steps == 0) return;
        const std::uint64_t k = m_load.size();
        while (count > 0) {
            const auto [lo, hi] = std::minmax_element(m_load.begin(), m_load.end());
            if (count >= k && *hi - *lo <= steps) {
                const std::uint64_t rounds = count / k;
                for (auto& l : m_load) l += rounds * steps;
                count -= rounds * k;
            } else {
                *lo += steps;
                --count;
            }
        }
    }
    std::uint64_t makespan() const { return *std::max_element(m_load.begin(), m_load.end()); }

private:
    std::vector<std::uint64_t> m_load;
};

// One launch of `blocks` blocks of `block` threads. block_cost(blk, tally)
// costs block blk and returns its steps; blocks strictly between two special
// ones (each containing a thread index in `breaks`, the first and the last)
// are alike, so one of them is costed for all.
template <class Fn>
counts launch(const machine& m, std::uint64_t blocks, std::uint64_t block, std::vector<std::uint64_t> breaks,
              Fn block_cost) {
    std::vector<std::uint64_t> special{0, blocks - 1};
    for (auto t : breaks)
        if (t / block < blocks) special.push_back(t / block);
    std::sort(special.begin(), special.end());
    special.erase(std::unique(special.begin(), special.end()), special.end());
    tally t{m, {}};
    mp_loads mps(m.k());
    std::uint64_t heaviest = 0, heaviest_collectives = 0;  // the most waits (collectives) of a block
    for (std::size_t i = 0; i < special.size(); ++i) {
        tally own{m, {}};
        mps.add(1, block_cost(special[i], own));
        for (std::size_t c = 0; c < counter_count; ++c) t.c.v[c] += own.c.v[c];
        heaviest = std::max(heaviest, block_waits(own.c));
        heaviest_collectives = std::max(heaviest_collectives, block_collectives(own.c));
        const std::uint64_t next = i + 1 < special.size() ? special[i + 1] : blocks;
        if (next > special[i] + 1) {
            tally one{m, {}};
            const std::uint64_t steps = block_cost(special[i] + 1, one);
            const std::uint64_t alike = next - special[i] - 1;
            for (std::size_t c = 0; c < counter_count; ++c) t.c.v[c] += alike * one.c.v[c];
            mps.add(alike, steps);
            heaviest = std::max(heaviest, block_waits(one.c));
            heaviest_collectives = std::max(heaviest_collectives, block_collectives(one.c));
        }
    }
    t.c[counter::launches] = 1;
    t.c[counter::thread_blocks] = blocks;
    t.c[counter::threads] = blocks * block;
    t.c[counter::time_steps] = mps.makespan();
    t.c[counter::chain_waits] = launch_chain(heaviest, block, m.b);
    t.c[counter::chain_collectives] = launch_chain(heaviest_collectives, block, m.b);
    return t.c;
}

// Calls fn(first thread, live lanes) for each warp of block blk with live threads (< threads).
template <class Fn>
std::uint64_t each_warp(const machine& m, std::uint64_t blk, std::uint64_t block, std::uint64_t threads, Fn fn) {
    std::uint64_t steps = 0;
    for (std::uint64_t first = blk * block; first < (blk + 1) * block && first < threads; first += m.b)
        steps += fn(first, std::min<std::uint64_t>(m.b, threads - first));
    return steps;
}

partial_counts as_partial(const counts& c) {
    partial_counts p;
    for (const auto& i : counter_table)
        if (i.id != counter::compute_instructions) p[i.id] = c[i.id];
    p[counter::compute_instructions] = 0;
    return p;
}

// ---- stats/pairwise ----

counts pairwise_copy(const machine& m, std::uint64_t P, std::uint64_t count, bool pad_first, std::uint64_t s) {
    const std::uint64_t blocks = (P + pairwise_block - 1) / pairwise_block;
    return launch(m, blocks, pairwise_block, {count}, [&](std::uint64_t blk, tally& t) {
        return each_warp(m, blk, pairwise_block, P, [&](std::uint64_t g, std::uint64_t L) {
            const std::uint64_t data = g >= count ? 0 : std::min(L, count - g);
            std::uint64_t steps = 0;
            if (data > 0) steps += t.global(true, data, g * s, (g + data) * s);
            if (data < L && pad_first) steps += t.global(true, L - data, 0, s);  // src[0], one word for all
            return steps + t.global(false, L, g * s, (g + L) * s);
        });
    });
}

counts pairwise_combine(const machine& m, std::uint64_t P, bool minmax, std::uint64_t s) {
    const std::uint64_t half = P / 2, blocks = (half + pairwise_block - 1) / pairwise_block;
    return launch(m, blocks, pairwise_block, {}, [&](std::uint64_t blk, tally& t) {
        return each_warp(m, blk, pairwise_block, half, [&](std::uint64_t g, std::uint64_t L) {
            const std::uint64_t last = 2 * (g + L - 1);  // lanes 2s bytes apart: every unit between is touched
            std::uint64_t steps =
                t.global(true, L, 2 * g * s, last * s + s) + t.global(true, L, (2 * g + 1) * s, (last + 2) * s);
            steps += t.global(false, L, g * s, (g + L) * s);
            if (minmax) steps += t.global(false, L, (half + g) * s, (half + g + L) * s);
            return steps;
        });
    });
}

partial_counts pairwise(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t s = value_bytes(p), P = std::max<std::uint64_t>(2, std::bit_ceil(n));
    const int rounds = std::countr_zero(P);
    counts total;
    for (int pass = 0; pass < 3; ++pass) {  // min/max, sum of x, sum of x^2/N
        const bool minmax = pass == 0;
        const counts first = pairwise_copy(m, P, n, minmax, s), later = pairwise_copy(m, P, P, false, s);
        const counts combine = pairwise_combine(m, P, minmax, s);
        total.merge(first);
        for (int r = 1; r < rounds; ++r) total.merge(later);
        for (int r = 0; r < rounds; ++r) total.merge(combine);
    }
    return as_partial(total);
}

// ---- stats/serial ----

partial_counts serial(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t s = value_bytes(p);
    tally t{m, {}};
    // x[0] (the shift), then x[0..n): one value each, one sector and one block apiece.
    std::uint64_t steps = t.global(true, 1, 0, s, n + 1);
    for (std::uint64_t f = 0; f < results; ++f) steps += t.global(false, 1, 8 * f, 8 * f + 8);
    t.c[counter::launches] = 1;
    t.c[counter::thread_blocks] = 1;
    t.c[counter::threads] = 1;
    t.c[counter::time_steps] = steps;
    t.c[counter::chain_waits] = launch_chain(block_waits(t.c), 1, m.b);
    return as_partial(t.c);
}

// ---- stats/fused ----

// block_merge (moments.cuh) in one warp: shuffles, lane 0's five shared
// stores, the barrier; in warp 0 also the reads of the warps' partials and
// the second round of shuffles.
std::uint64_t block_merge(tally& t, std::uint64_t block, std::uint64_t warp) {
    const std::uint64_t b = t.m.b, nw = (block + b - 1) / b, rounds = shuffle_rounds(b);
    std::uint64_t steps = t.collectives(fields * rounds);
    for (std::uint64_t f = 0; f < fields; ++f) steps += t.shared(false, 1, f * nw + warp);
    steps += t.barrier();
    if (warp == 0) {
        for (std::uint64_t j = 0; j < nw; j += b)
            for (std::uint64_t f = 0; f < fields; ++f) steps += t.shared(true, std::min(b, nw - j), f * nw + j);
        steps += t.collectives(fields * rounds);
    }
    return steps;
}

std::uint64_t fused_blocks(const machine& m, std::uint64_t n, std::uint64_t per_vector) {
    const std::uint64_t per_block = fused_block * per_vector * fused_unroll;
    return std::min(std::max<std::uint64_t>(1, (n + per_block - 1) / per_block), fused_per_mp * m.k());
}

counts fused_partials(const machine& m, std::uint64_t n, std::uint64_t s) {
    const std::uint64_t V = vector_bytes / s, G = fused_blocks(m, n, V), nvec = n / V, tail = n - nvec * V;
    const std::uint64_t stride = G * fused_block, U = fused_unroll;
    // Vectors of thread g: g, g + stride, ... below nvec.
    const auto vectors = [&](std::uint64_t g) { return g < nvec ? (nvec - g + stride - 1) / stride : 0; };
    // Blocks differ only in where the tail and the last vectors fall: cost every one (G <= 4k).
    std::vector<std::uint64_t> breaks;
    for (std::uint64_t blk = 1; blk + 1 < G; ++blk) breaks.push_back(blk * fused_block);
    return launch(m, G, fused_block, breaks, [&](std::uint64_t blk, tally& t) {
        return each_warp(m, blk, fused_block, G * fused_block, [&](std::uint64_t g, std::uint64_t L) {
            std::uint64_t steps = 0;
            if (g < tail) {
                const std::uint64_t lanes = std::min(L, tail - g), e = nvec * V + g;
                steps += t.global(true, lanes, e * s, (e + lanes) * s);
            }
            // The unrolled loop: occurrence o reads vector g + l + o * stride in lane l, for the lanes
            // still in the loop: a prefix of the warp (a lane's count of vectors never grows with l).
            std::uint64_t done = 0;
            for (std::uint64_t l = L; l-- > 0;) {
                const std::uint64_t level = U * (vectors(g + l) / U);
                if (level > done) {  // occurrences [done, level): lanes 0..l (stride * 16 bytes keeps alignment)
                    steps += t.global(true, l + 1, g * vector_bytes, (g + l + 1) * vector_bytes, level - done);
                    done = level;
                }
            }
            // The remainder loop: occurrence r in the lanes with more than r vectors left; they
            // are consecutive lanes that made the same number of unrolled iterations.
            for (std::uint64_t r = 0; r + 1 < U; ++r) {
                std::uint64_t lanes = 0, first = 0;
                for (std::uint64_t l = 0; l < L; ++l) {
                    const std::uint64_t v = vectors(g + l);
                    if (v % U > r) {
                        if (lanes++ == 0) first = g + l + (U * (v / U) + r) * stride;
                    }
                }
                if (lanes > 0) steps += t.global(true, lanes, first * vector_bytes, (first + lanes) * vector_bytes);
            }
            steps += block_merge(t, fused_block, (g % fused_block) / m.b);
            if (g % fused_block == 0)  // thread 0: the block's five fields
                for (std::uint64_t f = 0; f < fields; ++f)
                    steps += t.global(false, 1, (f * G + blk) * 8, (f * G + blk) * 8 + 8);
            return steps;
        });
    });
}

counts fused_merge(const machine& m, std::uint64_t G) {
    return launch(m, 1, merge_block, {}, [&](std::uint64_t, tally& t) {
        return each_warp(m, 0, merge_block, merge_block, [&](std::uint64_t g, std::uint64_t L) {
            std::uint64_t steps = 0;
            for (std::uint64_t o = 0; o * merge_block + g < G; ++o) {  // partials g + l + o * B2
                const std::uint64_t j = o * merge_block + g, lanes = std::min(L, G - j);
                for (std::uint64_t f = 0; f < fields; ++f)
                    steps += t.global(true, lanes, (f * G + j) * 8, (f * G + j + lanes) * 8);
            }
            const std::uint64_t warp = g / m.b;
            steps += block_merge(t, merge_block, warp);
            if (warp == 0) {
                steps += t.collectives(fields);  // lane 0's result to every lane
                const std::uint64_t lanes = std::min<std::uint64_t>(L, results);
                steps += t.global(false, lanes, 0, lanes * 8);
            }
            return steps;
        });
    });
}

partial_counts fused(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t s = value_bytes(p);
    counts c = fused_partials(m, n, s);
    c.merge(fused_merge(m, fused_blocks(m, n, vector_bytes / s)));
    const std::uint64_t nw = (fused_block + m.b - 1) / m.b;
    c[counter::shared_words_max] = span_units(0, fields * nw * 8, m.word_bytes());
    return as_partial(c);
}

AGPU_REGISTER_CLOSED_FORM({"stats/pairwise",
                           "P = max(2, 2^ceil(log2 n)); 6 log2 P launches; I/O 14 P s log2 P / (b w/8) blocks; time "
                           "per pass log2 P (ceil(P/256k) 512/b + ceil(P/512k) (1024 or 768)/b) steps (P >= 512)",
                           pairwise});
AGPU_REGISTER_CLOSED_FORM({"stats/serial",
                           "1 launch of 1 thread: n + 1 loads and 8 stores of one lane (1 sector, 1 block each); "
                           "time n + 9 steps",
                           serial});
AGPU_REGISTER_CLOSED_FORM({"stats/fused",
                           "2 launches; G = min(4k, ceil(n/(1024 V))) blocks, V = 16/s; ~n/(V b) 16-byte loads, I/O "
                           "n s/(b w/8) + O(G) blocks; time ceil(G/k)(256/b) ceil(n/(256 V G)) + per block "
                           "(256/b)(5 log2 b + 6) + 5 log2 b + 10 steps",
                           fused});

}  // namespace
}  // namespace agpu::model
