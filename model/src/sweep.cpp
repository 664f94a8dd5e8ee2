#include "agpu/model/sweep.hpp"

#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"

namespace agpu::model {
namespace {

using json = nlohmann::json;

std::string number_text(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

std::string today() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

bool is_integer_param(const std::string& p) { return p == "b" || p == "M" || p == "p"; }

}  // namespace

const std::vector<std::string>& sweep_parameters() {
    static const std::vector<std::string> p = {"b", "M", "p", "clock", "bandwidth"};
    return p;
}

sweep_spec parse_sweep(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw input_error("option --sweep " + text, "must be PARAM=v1,v2,... with PARAM one of b, M, p, clock, bandwidth");
    sweep_spec s;
    s.param = text.substr(0, eq);
    bool known = false;
    for (const auto& p : sweep_parameters()) known |= p == s.param;
    if (!known) throw input_error("option --sweep " + s.param, "unknown parameter (known: b, M, p, clock, bandwidth)");
    std::stringstream list(text.substr(eq + 1));
    for (std::string item; std::getline(list, item, ',');) {
        double v = 0;
        std::size_t used = 0;
        try {
            v = std::stod(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || !std::isfinite(v) || v <= 0 ||
            (is_integer_param(s.param) && v != std::floor(v)))
            throw input_error("option --sweep " + s.param,
                              std::string("values must be positive ") + (is_integer_param(s.param) ? "integers" : "numbers") +
                                  ", got '" + item + "'");
        s.values.push_back(v);
    }
    if (s.values.empty()) throw input_error("option --sweep " + s.param, "needs at least one value");
    return s;
}

device with_parameter(const device& base, const std::string& param, double value) {
    // Validates the parameter and value the same way as parse_sweep.
    parse_sweep(param + "=" + number_text(value));
    json j = device_to_json(base);
    const std::string why = "hypothetical: --sweep " + param + "=" + number_text(value) + " on " + base.id;
    auto set = [&](const char* section, const char* field, double v) {
        json entry = {{"value", v}, {"source", why}, {"date", today()}};
        if (std::string(section) == "agpu" || v == std::floor(v)) entry["value"] = std::uint64_t(v);
        j[section][field] = entry;
    };
    const auto& hw = base.hw;
    if (param == "b") {
        const auto b = std::uint64_t(value);
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
        if (base.agpu.b > 0 && std::fmod(value, double(base.agpu.b)) == 0) set("hardware", "sm_count", value / base.agpu.b);
    } else if (param == "clock") {
        set("hardware", "sm_clock_mhz", value);
    } else {
        set("hardware", "mem_bandwidth_gbs", value);
    }
    std::string lower = param;
    for (auto& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    std::string id = base.id + "-" + lower + number_text(value);
    for (auto& ch : id)  // "1e+06" and the like: keep the id to the characters ids allow
        if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' ||
              ch == '_' || ch == '.'))
            ch = '_';
    j["id"] = id;
    j["kind"] = "hypothetical";
    j["base"] = base.base.empty() ? base.id : base.base;
    j["note"] = base.id + " with " + param + " = " + number_text(value);
    j["name"] = base.name + " (" + param + " = " + number_text(value) + ")";
    return device_from_json(j, "--sweep " + param + "=" + number_text(value));
}

}  // namespace agpu::model
