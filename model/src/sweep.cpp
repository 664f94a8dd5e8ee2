#include "agpu/model/sweep.hpp"
#include "agpu/utc_time.hpp"

#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/checked.hpp"

namespace agpu::model {
namespace {

using json = nlohmann::json;

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
    // Validates the parameter and value the same way as parse_sweep.
    check_param(param);
    check_value(param, value, number_text(value));
    json j = device_to_json(base);
    const std::string why = "hypothetical: --sweep " + param + "=" + number_text(value) + " on " + base.id;
    auto set = [&](const char* section, const char* field, double v) {
        json entry = {{"value", v}, {"source", why}, {"date", utc_now("%Y-%m-%d")}};
        if (std::string(section) == "agpu" || v == std::floor(v)) entry["value"] = checked_count(v, "--sweep value");
        j[section][field] = entry;
    };
    const auto& hw = base.hw;
    if (param == "b") {
        const auto b = checked_count(value, "--sweep b");
        set("agpu", "b", double(b));
        set("agpu", "p", double(b * base.agpu.k()));
        set("hardware", "banks", double(b));
        if (hw.warp_width % b != 0) set("hardware", "warp_width", double(b));
        if (base.agpu.M < b) set("agpu", "M", double(b));
    } else if (param == "M") {
        const double bytes = value * base.agpu.word_bytes();
        set("agpu", "M", value);
        if (bytes > double(hw.smem_per_block_bytes)) set("hardware", "smem_per_block_bytes", bytes);
        if (bytes > double(hw.smem_per_sm_bytes)) set("hardware", "smem_per_sm_bytes", bytes);
    } else if (param == "p") {
        set("agpu", "p", value);
        if (base.agpu.b > 0 && std::fmod(value, double(base.agpu.b)) == 0)
            set("hardware", "sm_count", value / base.agpu.b);
    } else if (param == "clock") {
        set("hardware", "sm_clock_mhz", value);
    } else {
        set("hardware", "mem_bandwidth_gbs", value);
    }
    std::string lower = param;
    for (auto& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    std::string id = base.id + "-" + lower + number_text(value);
    for (auto& ch : id)  // "1e+06" and the like: keep the id to the characters ids allow
        if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) ||
              ch == '-' || ch == '_' || ch == '.'))
            ch = '_';
    j["id"] = id;
    j["kind"] = "hypothetical";
    j["base"] = base.base.empty() ? base.id : base.base;
    j["note"] = base.id + " with " + param + " = " + number_text(value);
    j["name"] = base.name + " (" + param + " = " + number_text(value) + ")";
    return device_from_json(j, "--sweep " + param + "=" + number_text(value));
}

}  // namespace agpu::model
