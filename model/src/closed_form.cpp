#include "agpu/model/closed_form.hpp"

#include <iterator>

#include "agpu/registry.hpp"

namespace agpu::model {

using registry = keyed_registry<closed_form>;

const std::map<std::string, closed_form>& closed_forms() { return registry::all(); }

const closed_form* find_closed_form(const std::string& key) { return registry::find(key); }

namespace {

// Closed forms give no SASS instruction counts (only the simulator, from the
// kernels' SASS profiles, does): whatever a form's tally holds for them is dropped.
void drop_sass_counters(partial_counts& p) {
    for (auto it = p.begin(); it != p.end();) it = is_sass_instruction_counter(it->first) ? p.erase(it) : std::next(it);
}

}  // namespace

closed_form_registrar::closed_form_registrar(closed_form f) {
    const std::string key = f.key;  // read before the move below
    f.costs = [costs = std::move(f.costs)](const machine& m, std::uint64_t n, const param_values& p) {
        auto c = costs(m, n, p);
        drop_sass_counters(c);
        return c;
    };
    if (f.bounds)
        f.bounds = [bounds = std::move(f.bounds)](const machine& m, std::uint64_t n, const param_values& p) {
            auto b = bounds(m, n, p);
            drop_sass_counters(b.low);
            drop_sass_counters(b.high);
            return b;
        };
    registry::add(key, std::move(f));
}

counts as_counts(const partial_counts& p) {
    counts c;
    for (const auto& [k, v] : p) c[k] = v;
    return c;
}

partial_counts every_counter(const counts& c) {
    partial_counts p;
    for (std::size_t i = 0; i < counter_count; ++i)
        if (!is_sass_instruction_counter(counter(i))) p[counter(i)] = c.v[i];
    return p;
}

std::uint64_t live_warps(std::uint64_t n, std::uint64_t block, std::uint64_t b) {
    const std::uint64_t full = n / block, rest = n % block;
    return full * ((block + b - 1) / b) + (rest + b - 1) / b;
}

}  // namespace agpu::model
