#include "agpu/validate/suite.hpp"

#include "agpu/errors.hpp"
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

std::string entry_label(const suite_entry& e) {
    std::string l = e.algo;
    for (std::size_t i = 0; i < e.sets.size(); ++i) l += (i ? ";" : " ") + e.sets[i];
    return l;
}

void check_targets(const suite& s) {
    auto named = [&](const std::string& label) {
        for (const auto& e : s.entries)
            if (entry_label(e) == label) return;
        throw internal_error("suite " + s.name + ": a bench target names '" + label +
                             "', which is none of its entries");
    };
    for (const auto& t : s.targets) {
        named(t.subject);
        if (!t.baseline.empty()) named(t.baseline);
        if (t.measure != "time" && t.measure != "bandwidth" && t.measure != "rate" && t.measure != "sectors")
            throw internal_error("suite " + s.name + ": bench target measure '" + t.measure +
                                 "' is not time, bandwidth, rate or sectors");
        if ((t.measure == "rate") != t.baseline.empty())
            throw internal_error("suite " + s.name + ": a " + t.measure + " target " +
                                 (t.baseline.empty() ? "needs" : "takes no") + " baseline");
    }
}

const suite& find_suite(const std::string& name) { return registry::get(name, "option --suite", "suite"); }

}  // namespace agpu::validate
