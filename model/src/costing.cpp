#include "agpu/model/costing.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace agpu::model {
namespace {

// True when the lanes' accesses are back to back in lane order (the
// coalesced case); then [first, end) is the range they cover.
bool contiguous(const lane_accesses& acc, std::uint64_t& first, std::uint64_t& end) {
    first = acc.front().first;
    end = first;
    for (auto [a, n] : acc) {
        if (a != end) return false;
        end = a + n;
    }
    return true;
}

std::uint64_t count_unique(std::vector<std::uint64_t>& v) {
    // Fast path: non-decreasing ids (the common, coalesced case).
    bool sorted = true;
    std::uint64_t n = v.empty() ? 0 : 1;
    for (std::size_t i = 1; i < v.size(); ++i) {
        if (v[i] < v[i - 1]) {
            sorted = false;
            break;
        }
        n += v[i] != v[i - 1];
    }
    if (sorted) return n;
    std::sort(v.begin(), v.end());
    return static_cast<std::uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
}

// Distinct units the accesses touch (ids: a buffer).
std::uint64_t distinct_of(const lane_accesses& acc, const fast_div& unit, std::vector<std::uint64_t>& ids) {
    std::uint64_t first = 0, end = 0;
    if (contiguous(acc, first, end)) return unit.div(end - 1) - unit.div(first) + 1;
    ids.clear();
    for (auto [a, n] : acc)
        for (std::uint64_t u = unit.div(a), last = unit.div(a + n - 1); u <= last; ++u) ids.push_back(u);
    return count_unique(ids);
}

// A global atomic's sectors: per sector, the most lanes on one address (ids: a buffer).
std::uint64_t atomic_sectors_of(const lane_accesses& acc, std::vector<std::uint64_t>& ids) {
    ids.clear();
    for (auto [a, n] : acc) ids.push_back(a);
    std::sort(ids.begin(), ids.end());
    std::uint64_t total = 0, sector_most = 0, run = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        run = (i > 0 && ids[i] == ids[i - 1]) ? run + 1 : 1;
        const bool new_sector = i == 0 || ids[i] / sector_bytes != ids[i - 1] / sector_bytes;
        if (new_sector) {
            total += sector_most;
            sector_most = 0;
        }
        sector_most = std::max(sector_most, run);
    }
    return total + sector_most;
}

// The bank rule: the most distinct words any one bank is asked for, and
// ceil(distinct words / b) (at least 1). each_word(f) calls f(word) for every
// word asked for (repeats included) until f returns false. Distinct words per
// bank are kept in a few slots per bank (no sort); a bank asked for more
// distinct words than that takes the sort below.
template <class EachWord>
bank_cost count_banks(EachWord each_word, std::uint64_t b, const fast_div& banks, std::vector<std::uint32_t>& bank,
                      std::vector<std::uint64_t>& bank_words, std::vector<std::uint64_t>& ids) {
    constexpr std::uint32_t slots = 4;
    bank.assign(b, 0);
    bank_words.resize(std::size_t(b) * slots);
    std::uint64_t distinct = 0, most = 0;
    bool overflow = false;
    each_word([&](std::uint64_t wd) {
        const std::size_t k = std::size_t(banks.mod(wd));
        const std::uint32_t have = bank[k];
        const std::uint64_t* w = &bank_words[k * slots];
        if (std::find(w, w + have, wd) != w + have) return true;
        if (have == slots) {
            overflow = true;
            return false;
        }
        bank_words[k * slots + have] = wd;
        bank[k] = have + 1;
        ++distinct;
        most = std::max<std::uint64_t>(most, have + 1);
        return true;
    });
    if (!overflow) return {most, std::max<std::uint64_t>(1, (distinct + b - 1) / b)};
    ids.clear();
    each_word([&](std::uint64_t wd) {
        ids.push_back(wd);
        return true;
    });
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    bank.assign(b, 0);
    most = 0;
    for (auto wd : ids) most = std::max<std::uint64_t>(most, ++bank[banks.mod(wd)]);
    return {most, std::max<std::uint64_t>(1, (ids.size() + b - 1) / b)};
}

}  // namespace

// ---------------------------------------------------------------- coalescing

std::uint64_t units(std::uint64_t start, std::uint64_t bytes, std::uint64_t unit) {
    return bytes == 0 ? 0 : (start + bytes - 1) / unit - start / unit + 1;
}

std::uint64_t strided_units(std::uint64_t lanes, std::uint64_t stride_bytes, std::uint64_t bytes, std::uint64_t unit) {
    if (lanes == 0) return 0;
    if (stride_bytes >= unit) return lanes * ((bytes + unit - 1) / unit);
    return (stride_bytes * (lanes - 1) + bytes + unit - 1) / unit;
}

std::uint64_t distinct_units(const lane_accesses& acc, std::uint64_t unit) {
    if (acc.empty()) return 0;
    std::vector<std::uint64_t> ids;
    return distinct_of(acc, fast_div(unit), ids);
}

std::uint64_t atomic_sectors(const lane_accesses& acc) {
    std::vector<std::uint64_t> ids;
    return atomic_sectors_of(acc, ids);
}

// ---------------------------------------------------------------- shared memory

bank_cost shared_bank_cost(const std::vector<std::uint64_t>& words, std::uint64_t b) {
    std::vector<std::uint32_t> bank;
    std::vector<std::uint64_t> bank_words, ids;
    return count_banks(
        [&](auto&& f) {
            for (auto w : words)
                if (!f(w)) return;
        },
        b, fast_div(b), bank, bank_words, ids);
}

bank_cost shared_vector_cost(const std::vector<std::uint64_t>& vectors, const machine& m) {
    lane_accesses acc;
    std::vector<std::uint32_t> lanes;
    for (std::size_t l = 0; l < vectors.size(); ++l)
        if (vectors[l] != vector_off) {
            acc.emplace_back(vectors[l] * 16, 16);
            lanes.push_back(std::uint32_t(l));
        }
    if (acc.empty()) return {};
    access_coster c(m);
    return c.shared(acc, lanes);
}

access_coster::access_coster(const machine& m)
    : m_b(m.b), m_word(m.word_bytes()), m_banks(m.b), m_sector(sector_bytes), m_block(m.block_bytes()) {}

std::uint64_t access_coster::distinct(const lane_accesses& acc, const fast_div& unit) {
    return distinct_of(acc, unit, m_ids);
}

std::uint64_t access_coster::atomic_sectors(const lane_accesses& acc) { return atomic_sectors_of(acc, m_ids); }

bank_cost access_coster::shared(const lane_accesses& acc, const std::vector<std::uint32_t>& lanes) {
    bool wide = !acc.empty();
    for (auto [a, n] : acc) wide &= n == 16;
    if (!wide || m_b < 4) return bank_rule(acc);
    const std::uint64_t q = m_b / 4;
    bank_cost total;
    for (std::uint32_t half = 0; half < 2; ++half) {
        for (std::uint32_t part = 0; part < 2; ++part) {
            auto& quarter = m_quarter[part];
            quarter.clear();
            for (std::size_t i = 0; i < acc.size(); ++i)
                if (lanes[i] / q == 2 * half + part) quarter.push_back(acc[i]);
            std::sort(quarter.begin(), quarter.end());
        }
        const bool same = m_quarter[0] == m_quarter[1];
        for (std::uint32_t part = 0; part < (same ? 1u : 2u); ++part) {
            if (m_quarter[part].empty()) continue;
            std::uint64_t ideal = 1;
            total.wf += bank_wavefronts(m_quarter[part], ideal);
            total.ideal += ideal;
        }
    }
    return total;
}

bank_cost access_coster::bank_rule(const lane_accesses& acc) {
    std::uint64_t ideal = 1;
    const std::uint64_t wf = bank_wavefronts(acc, ideal);
    return {wf, ideal};
}

std::uint64_t access_coster::bank_wavefronts(const lane_accesses& acc, std::uint64_t& ideal) {
    std::uint64_t first = 0, end = 0;
    if (contiguous(acc, first, end)) {  // distinct consecutive words: spread evenly over the banks
        const std::uint64_t words = m_word.div(end - 1) - m_word.div(first) + 1;
        ideal = (words + m_b - 1) / m_b;
        return ideal;
    }
    const bank_cost c = count_banks(
        [&](auto&& f) {
            for (auto [a, n] : acc)
                for (std::uint64_t wd = m_word.div(a), last = m_word.div(a + n - 1); wd <= last; ++wd)
                    if (!f(wd)) return;
        },
        m_b, m_banks, m_bank, m_bank_words, m_ids);
    ideal = c.ideal;
    return c.wf;
}

bank_cost access_coster::bank_rule_words(const std::vector<std::uint64_t>& words) {
    return count_banks(
        [&](auto&& f) {
            for (auto w : words)
                if (!f(w)) return;
        },
        m_b, m_banks, m_bank, m_bank_words, m_ids);
}

// ---------------------------------------------------------------- placement

std::uint64_t greedy_makespan(const std::vector<std::uint64_t>& block_steps, std::uint64_t k) {
    using mp = std::pair<std::uint64_t, std::uint64_t>;  // (steps, MP index)
    std::priority_queue<mp, std::vector<mp>, std::greater<>> q;
    for (std::uint64_t i = 0; i < std::min<std::uint64_t>(k, block_steps.size()); ++i) q.push({0, i});
    for (auto s : block_steps) {
        auto [l, i] = q.top();
        q.pop();
        q.push({l + s, i});
    }
    std::uint64_t m = 0;
    for (; !q.empty(); q.pop()) m = std::max(m, q.top().first);
    return m;
}

std::uint64_t greedy_makespan_runs(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& runs, std::uint64_t k) {
    std::uint64_t blocks = 0;
    for (auto [s, c] : runs) blocks += c;
    k = std::min(k, blocks);
    if (k == 0) return 0;
    std::vector<std::uint64_t> load(k, 0);  // kept as a min-heap
    std::uint64_t highest = 0;
    auto cmp = std::greater<>();
    for (auto [s, c] : runs) {
        while (c > 0) {
            if (highest - load.front() <= s && c >= k) {
                const std::uint64_t rounds = c / k;
                for (auto& l : load) l += rounds * s;
                highest += rounds * s;
                c -= rounds * k;
                continue;
            }
            std::pop_heap(load.begin(), load.end(), cmp);
            load.back() += s;
            highest = std::max(highest, load.back());
            std::push_heap(load.begin(), load.end(), cmp);
            --c;
        }
    }
    return highest;
}

// ---------------------------------------------------------------- algorithm-level counts

double floyd_warshall_bytes(std::uint64_t n, std::uint64_t t, double d) {
    const double np = double((n + t - 1) / t * t);
    return d * (4 * np * np * np / double(t) - 2 * np * np);
}

double floyd_warshall_operations(std::uint64_t n, std::uint64_t t) {
    const double np = double((n + t - 1) / t * t);
    return 2 * np * (np * np - 2 * double(t) + 1);
}

double sort_io_lower_bound(double n_words, double b, double M) {
    const double blocks = n_words / b;
    const double fan = M / b;
    if (blocks <= 1 || fan <= 1) return blocks;
    return blocks * std::max(1.0, std::log(blocks) / std::log(fan));
}

}  // namespace agpu::model
