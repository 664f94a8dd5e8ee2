#include "agpu/model/closed_form.hpp"

#include "agpu/errors.hpp"

namespace agpu::model {
namespace {

std::map<std::string, closed_form>& registry() {
    static std::map<std::string, closed_form> r;
    return r;
}

}  // namespace

const std::map<std::string, closed_form>& closed_forms() { return registry(); }

const closed_form* find_closed_form(const std::string& key) {
    auto it = registry().find(key);
    return it == registry().end() ? nullptr : &it->second;
}

closed_form_registrar::closed_form_registrar(closed_form f) {
    AGPU_CHECK(!registry().count(f.key), "closed form registered twice: " + f.key);
    registry().emplace(f.key, std::move(f));
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
