#include "agpu/model/algorithm.hpp"

#include <charconv>

#include "agpu/errors.hpp"

namespace agpu::model {
namespace {

bool parse_int(const std::string& s, std::int64_t& out) {
    const char* b = s.data();
    const char* e = s.data() + s.size();
    auto [p, ec] = std::from_chars(b, e, out);
    return ec == std::errc() && p == e && !s.empty();
}

}  // namespace

bool parse_unsigned(const std::string& s, std::uint64_t& out) {
    const char* e = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), e, out);
    return ec == std::errc() && p == e && !s.empty();
}

std::int64_t param_values::integer(const std::string& name) const {
    auto it = m_values.find(name);
    AGPU_CHECK(it != m_values.end(), "parameter " + name + " is not declared");
    std::int64_t v = 0;
    AGPU_CHECK(parse_int(it->second, v), "parameter " + name + " is not an integer");
    return v;
}

const std::string& param_values::text(const std::string& name) const {
    auto it = m_values.find(name);
    AGPU_CHECK(it != m_values.end(), "parameter " + name + " is not declared");
    return it->second;
}

param_values parse_params(const algo_spec& spec, const std::vector<std::string>& settings) {
    param_values pv;
    for (const auto& p : spec.params) pv.m_values[p.name] = p.default_value;
    for (const auto& s : settings) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0) throw input_error("option --set " + s, "must be NAME=VALUE");
        const std::string name = s.substr(0, eq), value = s.substr(eq + 1);
        const param_spec* p = nullptr;
        for (const auto& q : spec.params)
            if (q.name == name) p = &q;
        if (!p) {
            std::string known;
            for (const auto& q : spec.params) known += (known.empty() ? "" : ", ") + q.name;
            throw input_error(
                "option --set " + name,
                "unknown parameter of " + spec.key + (known.empty() ? " (it has none)" : " (known: " + known + ")"));
        }
        if (!p->choices.empty()) {
            bool ok = false;
            std::string list;
            for (const auto& c : p->choices) {
                ok |= c == value;
                list += (list.empty() ? "" : "|") + c;
            }
            if (!ok) throw input_error("option --set " + name, "must be one of " + list + ", got '" + value + "'");
        } else {
            std::int64_t v = 0;
            if (!parse_int(value, v))
                throw input_error("option --set " + name, "must be an integer, got '" + value + "'");
            if (v < p->min || v > p->max)
                throw input_error("option --set " + name, "must be in [" + std::to_string(p->min) + ", " +
                                                              std::to_string(p->max) + "], got " + value);
        }
        pv.m_values[name] = value;
    }
    return pv;
}

void check_n(const algo_spec& spec, std::uint64_t n) {
    if (n < spec.min_n || n > spec.max_n)
        throw input_error("option --n", spec.key + " takes n (" + spec.n_means + ") in [" + std::to_string(spec.min_n) +
                                            ", " + std::to_string(spec.max_n) + "], got " + std::to_string(n));
}

}  // namespace agpu::model
