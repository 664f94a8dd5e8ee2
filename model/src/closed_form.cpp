#include "agpu/model/closed_form.hpp"

#include <algorithm>
#include <queue>

#include "agpu/registry.hpp"

namespace agpu::model {

using registry = keyed_registry<closed_form>;

const std::map<std::string, closed_form>& closed_forms() { return registry::all(); }

const closed_form* find_closed_form(const std::string& key) { return registry::find(key); }

closed_form_registrar::closed_form_registrar(closed_form f) {
    const std::string key = f.key;  // read before the move below
    registry::add(key, std::move(f));
}

counts as_counts(const partial_counts& p) {
    counts c;
    for (const auto& [k, v] : p) c[k] = v;
    return c;
}

partial_counts every_counter(const counts& c) {
    partial_counts p;
    for (std::size_t i = 0; i < counter_count; ++i) p[counter(i)] = c.v[i];
    return p;
}

std::uint64_t strided_units(std::uint64_t lanes, std::uint64_t stride_bytes, std::uint64_t bytes, std::uint64_t unit) {
    if (lanes == 0) return 0;
    if (stride_bytes >= unit) return lanes * ((bytes + unit - 1) / unit);
    return (stride_bytes * (lanes - 1) + bytes + unit - 1) / unit;
}

std::uint64_t live_warps(std::uint64_t n, std::uint64_t block, std::uint64_t b) {
    const std::uint64_t full = n / block, rest = n % block;
    return full * ((block + b - 1) / b) + (rest + b - 1) / b;
}

std::uint64_t units(std::uint64_t start, std::uint64_t bytes, std::uint64_t unit) {
    return bytes == 0 ? 0 : (start + bytes - 1) / unit - start / unit + 1;
}

std::uint64_t greedy_makespan(const std::vector<std::uint64_t>& block_steps, std::uint64_t k) {
    using mp = std::pair<std::uint64_t, std::uint64_t>;
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

bank_cost shared_bank_cost(std::vector<std::uint64_t> words, std::uint64_t b) {
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::vector<std::uint64_t> bank(b, 0);
    std::uint64_t most = 0;
    for (auto w : words) most = std::max(most, ++bank[w % b]);
    return {most, std::max<std::uint64_t>(1, (words.size() + b - 1) / b)};
}

}  // namespace agpu::model
