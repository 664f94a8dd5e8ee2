#include "agpu/validate/suite.hpp"

#include "agpu/registry.hpp"

namespace agpu::validate {

using registry = keyed_registry<suite>;

suite_registrar::suite_registrar(suite s) {
    const std::string key = s.name;  // read before the move below
    registry::add(key, std::move(s));
}

std::vector<const suite*> suites() {
    std::vector<const suite*> out;
    for (const auto& [k, s] : registry::all()) out.push_back(&s);
    return out;
}

const suite& find_suite(const std::string& name) { return registry::get(name, "option --suite", "suite"); }

}  // namespace agpu::validate
