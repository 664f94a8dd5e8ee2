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

std::uint64_t strided_units(std::uint64_t lanes, std::uint64_t stride_bytes, std::uint64_t bytes, std::uint64_t unit) {
    if (lanes == 0) return 0;
    if (stride_bytes >= unit) return lanes * ((bytes + unit - 1) / unit);
    return (stride_bytes * (lanes - 1) + bytes + unit - 1) / unit;
}

std::uint64_t live_warps(std::uint64_t n, std::uint64_t block, std::uint64_t b) {
    const std::uint64_t full = n / block, rest = n % block;
    return full * ((block + b - 1) / b) + (rest + b - 1) / b;
}

}  // namespace agpu::model
