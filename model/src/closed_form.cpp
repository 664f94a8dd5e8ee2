#include "agpu/model/closed_form.hpp"

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

std::uint64_t live_warps(std::uint64_t n, std::uint64_t block, std::uint64_t b) {
    const std::uint64_t full = n / block, rest = n % block;
    return full * ((block + b - 1) / b) + (rest + b - 1) / b;
}

}  // namespace agpu::model
