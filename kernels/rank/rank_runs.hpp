// The rank family's specs and runs: a random bit vector from a seed, the build
// launches, random bulk queries, and the check against the CPU reference (a
// rank9-style broadword directory). Templates on the executor, so the
// simulator (rank.sim.cpp) and the GPU (rank.gpu.cu) run exactly the same thing.
//
// The bit vector is 2 ceil(n/128) 64-bit words (whole 16-byte chunks); the
// generator fills the positions >= n of the last chunk with ones, which every
// kernel must ignore.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "common/host_util.hpp"
#include "rank/interleaved.cuh"
#include "rank/jacobson.cuh"
#include "rank/rank_layout.hpp"

namespace agpu::kernels::rank {

using model::algo_spec;
using model::check_result;
using model::param_values;

inline constexpr std::uint64_t max_bits = std::uint64_t(1) << 34;
inline constexpr std::uint64_t default_query_cap = std::uint64_t(1) << 20;

// ---- parameters ----

inline std::vector<model::param_spec> rank_params() {
    return {{"op",
             "build: the build launches only; rank1, rank0, select1: the build, then `queries` random queries",
             "rank1",
             {"build", "rank1", "rank0", "select1"},
             0,
             0},
            {"queries", "random queries (0: min(n, 2^20))", "0", {}, 0, std::int64_t(1) << 28},
            {"density",
             "percent of ones in the random bit vector: 50 uniform random words, 0 and 100 all zeros and all ones, "
             "others to the nearest 1/256",
             "50",
             {},
             0,
             100}};
}

inline algo_spec jacobson_spec() {
    return {"rank/jacobson",
            "Jacobson's rank directory: LT per L = log^2 n bits, ST per S = (log n)/2 bits (powers of two), built in "
            "one pass; bulk rank1/rank0/select1",
            "bits",
            1 << 20,
            1,
            max_bits,
            rank_params()};
}

inline algo_spec interleaved_spec() {
    return {"rank/interleaved",
            "one 64-byte line per 448 bits (header with the count and three in-line counts): a rank reads one line; "
            "built in one pass; bulk rank1/rank0/select1",
            "bits",
            1 << 20,
            1,
            max_bits,
            rank_params()};
}

inline std::uint64_t query_count(std::uint64_t n, const param_values& p) {
    const auto q = static_cast<std::uint64_t>(p.integer("queries"));
    return q != 0 ? q : std::min(n, default_query_cap);
}

// ---- inputs ----

inline std::uint64_t bit_words(std::uint64_t n) { return 2 * ((n + 127) / 128); }

// n random bits (density percent ones), positions >= n of the padding set to 1.
inline std::vector<std::uint64_t> random_bits(std::uint64_t n, unsigned density, std::uint64_t seed) {
    std::vector<std::uint64_t> w(bit_words(n));
    std::mt19937_64 rng(seed);
    const unsigned m = (density * 256 + 50) / 100;  // P(one) = m / 256
    for (auto& x : w) {
        if (m == 0 || m == 256) {
            x = m == 0 ? 0 : ~std::uint64_t(0);
        } else if (m == 128) {
            x = rng();
        } else {  // bit-sliced comparison of 8 random bits per position with m
            std::uint64_t less = 0, equal = ~std::uint64_t(0);
            for (int bit = 7; bit >= 0; --bit) {
                const std::uint64_t r = rng();
                if (m >> bit & 1) {
                    less |= equal & ~r;
                    equal &= r;
                } else {
                    equal &= ~r;
                }
            }
            x = less;
        }
    }
    for (std::uint64_t x = n / 64; x < w.size(); ++x) w[x] |= ~clip_word(~std::uint64_t(0), x, n);
    return w;
}

// ---- CPU reference: rank9-style (per 512 bits an absolute count and seven 9-bit in-block counts) ----

class cpu_rank {
public:
    cpu_rank(const std::vector<std::uint64_t>& words, std::uint64_t n) : m_words(words), m_n(n) {
        const std::uint64_t nw = (n + 63) / 64, blocks = nw / 8 + 1;
        m_counts.assign(2 * blocks, 0);
        std::uint64_t total = 0;
        for (std::uint64_t blk = 0; blk < blocks; ++blk) {
            m_counts[2 * blk] = total;
            std::uint64_t rel = 0, packed = 0;
            for (std::uint64_t k = 0; k < 8; ++k) {
                if (k > 0) packed |= rel << (9 * (k - 1));
                rel += std::uint64_t(std::popcount(word(8 * blk + k)));
            }
            m_counts[2 * blk + 1] = packed;
            total += rel;
        }
        m_ones = total;
    }
    std::uint64_t ones() const { return m_ones; }
    std::uint64_t n() const { return m_n; }
    // Word x with positions >= n cleared (0 past the end).
    std::uint64_t word(std::uint64_t x) const { return x < m_words.size() ? clip_word(m_words[x], x, m_n) : 0; }
    // Ones at positions [0, i), 0 <= i <= n.
    std::uint64_t rank1(std::uint64_t i) const {
        const std::uint64_t x = i / 64, blk = x / 8, k = x % 8;
        const std::uint64_t rel = k == 0 ? 0 : m_counts[2 * blk + 1] >> (9 * (k - 1)) & 511;
        return m_counts[2 * blk] + rel + std::uint64_t(std::popcount(low_bits(word(x), unsigned(i % 64))));
    }
    // Position of the k-th one, n if k = 0 or k > ones.
    std::uint64_t select1(std::uint64_t k) const {
        if (k == 0 || k > m_ones) return m_n;
        std::uint64_t lo = 0, hi = m_counts.size() / 2;  // last block with count < k
        while (hi - lo > 1) {
            const std::uint64_t mid = (lo + hi) / 2;
            (m_counts[2 * mid] < k ? lo : hi) = mid;
        }
        std::uint64_t rest = k - m_counts[2 * lo], x = 8 * lo;
        for (;; ++x) {
            const auto c = std::uint64_t(std::popcount(word(x)));
            if (rest <= c) break;
            rest -= c;
        }
        std::uint64_t w = word(x);
        for (; rest > 1; --rest) w &= w - 1;
        return 64 * x + std::uint64_t(std::countr_zero(w));
    }

private:
    const std::vector<std::uint64_t>& m_words;
    std::uint64_t m_n;
    std::vector<std::uint64_t> m_counts;
    std::uint64_t m_ones = 0;
};

// `count` query arguments for op: positions in [0, n] for rank, k in
// [0, ones + 1] for select (0 and ones + 1 have no answer); the first few are
// the extremes.
inline std::vector<std::uint64_t> random_queries(const std::string& op, std::uint64_t count, const cpu_rank& ref,
                                                 std::uint64_t seed) {
    std::mt19937_64 rng(seed ^ 0x5bd1e995a4c3f2b7ull);
    const bool select = op == "select1";
    const std::uint64_t hi = select ? ref.ones() + 1 : ref.n();
    std::uniform_int_distribution<std::uint64_t> d(0, hi);
    std::vector<std::uint64_t> q(count);
    for (auto& x : q) x = d(rng);
    const std::vector<std::uint64_t> edges = select ? std::vector<std::uint64_t>{1, ref.ones(), 0, ref.ones() + 1}
                                                    : std::vector<std::uint64_t>{0, ref.n(), ref.n() - 1, ref.n() / 2};
    for (std::size_t e = 0; e < edges.size() && e < q.size(); ++e) q[e] = edges[e];
    return q;
}

inline std::vector<std::uint64_t> expected_answers(const std::string& op, const std::vector<std::uint64_t>& q,
                                                   const cpu_rank& ref) {
    std::vector<std::uint64_t> want(q.size());
    for (std::size_t i = 0; i < q.size(); ++i)
        want[i] = op == "select1" ? ref.select1(q[i]) : op == "rank0" ? q[i] - ref.rank1(q[i]) : ref.rank1(q[i]);
    return want;
}

// The status words and tile counter of a chained build, all zero.
template <class Exec>
kl::gspan<unsigned long long> zeroed_status(Exec& ex, std::uint64_t tiles) {
    auto s = ex.template alloc<unsigned long long>(tiles + 1);
    const std::vector<unsigned long long> zero(tiles + 1, 0);
    ex.upload(s, std::span<const unsigned long long>(zero));
    return s;
}

// The arguments and CPU answers of a query run. The last large set is kept:
// the repetitions of a timed GPU run regenerate the same inputs, and 2^26
// answers take the CPU seconds.
struct query_case {
    std::string op;
    std::uint64_t count = 0, n = 0, seed = 0;
    unsigned density = 0;
    std::vector<std::uint64_t> args, answers;
};

inline const query_case& queries_for(const std::string& op, std::uint64_t count, const cpu_rank& ref, unsigned density,
                                     std::uint64_t seed) {
    static thread_local query_case last;
    const bool same =
        last.op == op && last.count == count && last.n == ref.n() && last.seed == seed && last.density == density;
    if (same && count >= (std::uint64_t(1) << 20)) return last;
    last = {op, count, ref.n(), seed, density, random_queries(op, count, ref, seed), {}};
    last.answers = expected_answers(op, last.args, ref);
    return last;
}

// Runs the query kernel `launch_queries(pos, out)` on the arguments for op and checks the answers.
template <class Exec, class Launch>
check_result run_queries(Exec& ex, const std::string& op, std::uint64_t count, const cpu_rank& ref, unsigned density,
                         std::uint64_t seed, Launch launch_queries) {
    const query_case& qc = queries_for(op, count, ref, density, seed);
    auto pos = ex.template alloc<std::uint64_t>(count);
    auto out = ex.template alloc<std::uint64_t>(count);
    ex.upload(pos, std::span<const std::uint64_t>(qc.args));
    launch_queries(kl::gspan<const std::uint64_t>(pos), out);
    return compare(fetch(ex, out, count), qc.answers, op + " answers");
}

// ---- rank/jacobson ----

struct jacobson_tables {
    jacobson_layout layout;
    kl::gspan<u64x2> st;  // small_blocks 16-bit entries
    kl::gspan<std::uint64_t> lt;
    kl::gspan<unsigned long long> status;
};

// Builds the directory over `words` (bit_words(n) words): one launch.
template <class Exec>
jacobson_tables jacobson_build_on(Exec& ex, kl::gspan<const std::uint64_t> words, std::uint64_t n) {
    jacobson_tables t;
    t.layout = jacobson_layout_for(n);
    const auto& l = t.layout;
    t.st = ex.template alloc<u64x2>(l.small_blocks / 8);
    t.lt = ex.template alloc<std::uint64_t>(l.superblocks);
    t.status = zeroed_status(ex, l.tiles);
    const kl::gspan<const u64x2> chunks(reinterpret_cast<const u64x2*>(words.data()), l.data_chunks);
    ex.launch("jacobson_build", l.log_s == 3 ? jacobson_build<8> : jacobson_build<16>, {unsigned(l.tiles)},
              {rank_policy::block_threads}, 0, chunks, n, l.log_l, t.st, t.lt, l.superblocks, t.status, l.tiles);
    return t;
}

inline check_result check_jacobson_tables(const jacobson_layout& l, const std::vector<std::uint64_t>& lt,
                                          const std::vector<std::uint16_t>& st, const cpu_rank& ref) {
    const std::uint64_t S = std::uint64_t(1) << l.log_s, L = std::uint64_t(1) << l.log_l;
    std::uint64_t ones = 0, sb_start = 0;
    for (std::uint64_t m = 0; m < l.small_blocks; ++m) {
        const std::uint64_t at = m * S;
        if (at % L == 0) {
            sb_start = ones;
            if (lt[at / L] != ones)
                return {false, "LT[" + std::to_string(at / L) + "] = " + std::to_string(lt[at / L]) + ", expected " +
                                   std::to_string(ones)};
        }
        if (st[m] != ones - sb_start)
            return {false, "ST[" + std::to_string(m) + "] = " + std::to_string(st[m]) + ", expected " +
                               std::to_string(ones - sb_start)};
        ones += std::uint64_t(std::popcount(low_bits(ref.word(at / 64) >> (at % 64), unsigned(S))));
    }
    return {true, "LT (" + std::to_string(l.superblocks) + " entries) and ST (" + std::to_string(l.small_blocks) +
                      " entries) equal the CPU reference"};
}

template <class Exec>
check_result run_jacobson(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const auto density = static_cast<unsigned>(p.integer("density"));
    const auto h = random_bits(n, density, seed);
    const cpu_rank ref(h, n);
    auto words = ex.template alloc<std::uint64_t>(h.size());
    ex.upload(words, std::span<const std::uint64_t>(h));
    const kl::gspan<const std::uint64_t> cwords(words);
    const auto t = jacobson_build_on(ex, cwords, n);
    const auto& l = t.layout;
    const std::string& op = p.text("op");
    const kl::gspan<const std::uint16_t> st16(reinterpret_cast<const std::uint16_t*>(t.st.data()), l.small_blocks);
    const kl::gspan<const std::uint64_t> lt(t.lt);
    const unsigned block = rank_policy::query_threads;
    if (op == "build") {
        const auto st_pairs = fetch(ex, t.st, l.small_blocks / 8);
        std::vector<std::uint16_t> st(l.small_blocks);
        std::memcpy(st.data(), st_pairs.data(), st.size() * 2);
        return check_jacobson_tables(l, fetch(ex, t.lt, l.superblocks), st, ref);
    }
    return run_queries(ex, op, query_count(n, p), ref, density, seed,
                       [&](kl::gspan<const std::uint64_t> pos, kl::gspan<std::uint64_t> out) {
                           const unsigned grid = blocks_for(pos.size(), block);
                           if (op == "select1")
                               ex.launch("jacobson_select", l.log_s == 3 ? jacobson_select<8> : jacobson_select<16>,
                                         {grid}, {block}, 0, cwords, st16, lt, l.log_l,
                                         kl::gspan<const unsigned long long>(t.status), l.tiles, n, pos, out);
                           else
                               ex.launch("jacobson_rank", l.log_s == 3 ? jacobson_rank<8> : jacobson_rank<16>, {grid},
                                         {block}, 0, cwords, st16, lt, l.log_l, pos, out, op == "rank0");
                       });
}

// ---- rank/interleaved ----

struct interleaved_tables {
    interleaved_layout layout;
    kl::gspan<u64x2> lines;  // 4 pieces per line
    kl::gspan<unsigned long long> status;
};

template <class Exec>
interleaved_tables interleaved_build_on(Exec& ex, kl::gspan<const std::uint64_t> words, std::uint64_t n) {
    interleaved_tables t;
    t.layout = interleaved_layout_for(n);
    const auto& l = t.layout;
    t.lines = ex.template alloc<u64x2>(4 * l.lines);
    t.status = zeroed_status(ex, l.tiles);
    ex.launch("interleaved_build", interleaved_build, {unsigned(l.tiles)}, {rank_policy::block_threads}, 0,
              words.subspan(0, l.data_words), n, t.lines, l.lines, t.status, l.tiles);
    return t;
}

inline check_result check_interleaved_lines(const interleaved_layout& l, const std::vector<u64x2>& got,
                                            const cpu_rank& ref) {
    std::uint64_t ones = 0;
    for (std::uint64_t j = 0; j < l.lines; ++j) {
        std::uint64_t d[7], c[7];
        for (unsigned w = 0; w < 7; ++w) {
            d[w] = ref.word(7 * j + w);
            c[w] = std::uint64_t(std::popcount(d[w]));
        }
        const std::uint64_t header =
            ones | c[0] << 40 | (c[0] + c[1] + c[2]) << 47 | (c[0] + c[1] + c[2] + c[3] + c[4]) << 55;
        const std::uint64_t want[8] = {header, d[0], d[1], d[2], d[3], d[4], d[5], d[6]};
        for (unsigned k = 0; k < 8; ++k) {
            const std::uint64_t have = k % 2 == 0 ? got[4 * j + k / 2].lo : got[4 * j + k / 2].hi;
            if (have != want[k])
                return {false, "line " + std::to_string(j) + " word " + std::to_string(k) + " = " +
                                   std::to_string(have) + ", expected " + std::to_string(want[k])};
        }
        for (auto x : c) ones += x;
    }
    return {true, std::to_string(l.lines) + " lines equal the CPU reference"};
}

template <class Exec>
check_result run_interleaved(Exec& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const auto density = static_cast<unsigned>(p.integer("density"));
    const auto h = random_bits(n, density, seed);
    const cpu_rank ref(h, n);
    auto words = ex.template alloc<std::uint64_t>(h.size());
    ex.upload(words, std::span<const std::uint64_t>(h));
    const auto t = interleaved_build_on(ex, kl::gspan<const std::uint64_t>(words), n);
    const auto& l = t.layout;
    const std::string& op = p.text("op");
    const kl::gspan<const u64x2> lines(t.lines);
    const unsigned block = rank_policy::query_threads;
    if (op == "build") return check_interleaved_lines(l, fetch(ex, t.lines, 4 * l.lines), ref);
    return run_queries(
        ex, op, query_count(n, p), ref, density, seed,
        [&](kl::gspan<const std::uint64_t> pos, kl::gspan<std::uint64_t> out) {
            const unsigned grid = blocks_for(pos.size(), block);
            if (op == "select1")
                ex.launch(
                    "interleaved_select", interleaved_select, {grid}, {block}, 0, lines,
                    kl::gspan<const std::uint64_t>(reinterpret_cast<const std::uint64_t*>(t.lines.data()), 8 * l.lines),
                    kl::gspan<const unsigned long long>(t.status), l.tiles, n, pos, out);
            else ex.launch("interleaved_rank", interleaved_rank, {grid}, {block}, 0, lines, pos, out, op == "rank0");
        });
}

}  // namespace agpu::kernels::rank
