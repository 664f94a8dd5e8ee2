#include "agpu/validate/suite.hpp"

#include <map>

#include "agpu/errors.hpp"

namespace agpu::validate {
namespace {

std::map<std::string, suite>& registry() {
    static std::map<std::string, suite> r;
    return r;
}

}  // namespace

suite_registrar::suite_registrar(suite s) {
    AGPU_CHECK(!registry().count(s.name), "suite registered twice: " + s.name);
    registry().emplace(s.name, std::move(s));
}

std::vector<const suite*> suites() {
    std::vector<const suite*> out;
    for (const auto& [k, s] : registry()) out.push_back(&s);
    return out;
}

const suite& find_suite(const std::string& name) {
    auto it = registry().find(name);
    if (it != registry().end()) return it->second;
    std::string known;
    for (const auto& [k, s] : registry()) known += (known.empty() ? "" : ", ") + k;
    throw input_error("option --suite " + name, "unknown suite (known: " + known + ")");
}

}  // namespace agpu::validate
