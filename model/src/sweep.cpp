#include "agpu/model/sweep.hpp"

#include <cctype>
#include <cmath>
#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/model/derivation.hpp"

namespace agpu::model {
namespace {

std::string number_text(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

bool is_integer_param(const std::string& p) { return p == "b" || p == "M" || p == "p"; }

// A swept value: positive, an integer for b, M and p, and within the device
// rules' own bounds (2^53 for integers, 1e9 for MHz and GB/s), so that no
// value reaches a conversion it would overflow. `text` is the value as given.
void check_value(const std::string& param, double v, const std::string& text) {
    const bool integer = is_integer_param(param);
    if (!std::isfinite(v) || v <= 0 || (integer && v != std::floor(v)))
        throw input_error("option --sweep " + param, std::string("values must be positive ") +
                                                         (integer ? "integers" : "numbers") + ", got '" + text + "'");
    if (v > (integer ? 9007199254740992.0 : 1e9))
        throw input_error("option --sweep " + param,
                          std::string("values must be at most ") + (integer ? "2^53" : "1e9") + ", got '" + text + "'");
}

void check_param(const std::string& param) {
    bool known = false;
    for (const auto& p : sweep_parameters()) known |= p == param;
    if (!known) throw input_error("option --sweep " + param, "unknown parameter (known: b, M, p, clock, bandwidth)");
}

}  // namespace

const std::vector<std::string>& sweep_parameters() {
    static const std::vector<std::string> p = {"b", "M", "p", "clock", "bandwidth"};
    return p;
}

sweep_spec parse_sweep(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw input_error("option --sweep " + text,
                          "must be PARAM=v1,v2,... with PARAM one of b, M, p, clock, bandwidth");
    sweep_spec s;
    s.param = text.substr(0, eq);
    check_param(s.param);
    std::stringstream list(text.substr(eq + 1));
    for (std::string item; std::getline(list, item, ',');) {
        double v = 0;
        std::size_t used = 0;
        try {
            v = std::stod(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size()) v = std::nan("");
        check_value(s.param, v, item);
        s.values.push_back(v);
    }
    if (s.values.empty()) throw input_error("option --sweep " + s.param, "needs at least one value");
    return s;
}

device with_parameter(const device& base, const std::string& param, double value) {
    // Validates the parameter and value the same way as parse_sweep; the
    // fields tied to the parameter follow it (derivation.hpp).
    check_param(param);
    check_value(param, value, number_text(value));
    device_setting s;
    s.name = param;
    s.field = device_setting_field(param, "option --sweep");
    s.value = value;
    s.text = "--sweep " + param + "=" + number_text(value);
    return with_settings(base, {s}, "--sweep " + param + "=" + number_text(value));
}

}  // namespace agpu::model
