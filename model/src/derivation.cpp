#include "agpu/model/derivation.hpp"

#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"

namespace agpu::model {
namespace {

using json = nlohmann::json;

std::string number_text(double v) {
    std::ostringstream s;
    s.precision(15);
    s << v;
    return s.str();
}

bool known_field(const std::string& section, const std::string& name) {
    for (const auto& f : device_field_names())
        if (f == section + "." + name) return true;
    return false;
}

std::string known_fields(const std::string& section) {
    std::string out;
    for (const auto& f : device_field_names())
        if (f.starts_with(section + ".")) out += (out.empty() ? "" : ", ") + f.substr(section.size() + 1);
    return out;
}

// The number a field holds in merged JSON (bare or sourced), if it is one.
std::optional<double> number_at(const json& j, const std::string& dotted) {
    const auto dot = dotted.find('.');
    const std::string section = dotted.substr(0, dot), field = dotted.substr(dot + 1);
    if (!j.contains(section) || !j.at(section).is_object() || !j.at(section).contains(field)) return std::nullopt;
    const json* v = &j.at(section).at(field);
    if (v->is_object()) {
        if (!v->contains("value")) return std::nullopt;
        v = &v->at("value");
    }
    if (!v->is_number()) return std::nullopt;
    const double x = v->get<double>();
    return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

bool is_whole(std::optional<double> v) { return v && *v > 0 && *v == std::floor(*v) && *v <= 9007199254740992.0; }

// Applies the derivations to `merged`; `given` holds the dotted fields the patch sets.
class deriver {
public:
    deriver(json& merged, const json& base, const json& patch, std::string where, std::string prefix)
        : m_merged(merged), m_base(base), m_patch(patch), m_where(std::move(where)), m_prefix(std::move(prefix)) {
        for (const char* section : {"agpu", "hardware", "timing"})
            if (patch.contains(section))
                for (auto it = patch.at(section).begin(); it != patch.at(section).end(); ++it)
                    m_given.insert(std::string(section) + "." + it.key());
    }

    void run() {
        const auto b = value("agpu.b"), p = value("agpu.p"), k = value("hardware.sm_count");
        // p = k b, or k = p / b when p is what changed.
        if (given("agpu.p") && given("hardware.sm_count")) {
            if (is_whole(p) && is_whole(k) && is_whole(b) && *p != *k * *b)
                contradiction("agpu.p", "p = k * b = hardware.sm_count * agpu.b = " + number_text(*k) + " * " +
                                            number_text(*b) + " = " + number_text(*k * *b) + " (an AGPU MP is an SM)");
        } else if (given("agpu.p")) {
            if (is_whole(p) && is_whole(b) && std::fmod(*p, *b) == 0)
                derive("hardware.sm_count", *p / *b,
                       "k = p / b = " + number_text(*p) + " / " + number_text(*b) + " (an AGPU MP is an SM)", "agpu.p");
        } else if (given("agpu.b") || given("hardware.sm_count")) {
            if (is_whole(k) && is_whole(b))
                derive("agpu.p", *k * *b,
                       "p = k * b = " + number_text(*k) + " * " + number_text(*b) + " (an AGPU MP is an SM)",
                       given("agpu.b") ? "agpu.b" : "hardware.sm_count");
        }
        if (given("agpu.b") && is_whole(b)) {
            // banks = b.
            if (given("hardware.banks")) {
                const auto banks = value("hardware.banks");
                if (banks && *banks != *b)
                    contradiction("hardware.banks", "banks = b = " + number_text(*b) + " (shared memory has b banks)");
            } else {
                derive("hardware.banks", *b, "banks = b = " + number_text(*b) + " (shared memory has b banks)",
                       "agpu.b");
            }
            // warp_width a multiple of b.
            const auto warp = value("hardware.warp_width");
            if (given("hardware.warp_width")) {
                if (is_whole(warp) && std::fmod(*warp, *b) != 0)
                    contradiction("hardware.warp_width", "warp_width a multiple of b = " + number_text(*b) +
                                                             " (b lanes execute, coalesce and bank together)");
            } else if (is_whole(warp) && std::fmod(*warp, *b) != 0) {
                const double w = std::ceil(*warp / *b) * *b;
                derive("hardware.warp_width", w,
                       "warp_width = the smallest multiple of b = " + number_text(*b) + " not below the base's " +
                           number_text(*warp) + " (b lanes execute, coalesce and bank together)",
                       "agpu.b");
            }
        }
        // max_threads_per_block a multiple of warp_width.
        if (changed("hardware.warp_width") && !given("hardware.max_threads_per_block")) {
            const auto warp = value("hardware.warp_width"), most = value("hardware.max_threads_per_block");
            if (is_whole(warp) && is_whole(most) && std::fmod(*most, *warp) != 0)
                derive("hardware.max_threads_per_block", std::max(*warp, std::floor(*most / *warp) * *warp),
                       "max_threads_per_block = the largest multiple of warp_width = " + number_text(*warp) +
                           " not above the base's " + number_text(*most),
                       "hardware.warp_width");
        }
        // bank_width_bytes = w / 8.
        const auto w = value("agpu.w");
        if (given("agpu.w") && is_whole(w) && std::fmod(*w, 8) == 0) {
            if (given("hardware.bank_width_bytes")) {
                const auto bw = value("hardware.bank_width_bytes");
                if (bw && *bw * 8 != *w)
                    contradiction("hardware.bank_width_bytes",
                                  "bank_width_bytes = w / 8 = " + number_text(*w / 8) + " (a bank holds one word)");
            } else {
                derive("hardware.bank_width_bytes", *w / 8,
                       "bank_width_bytes = w / 8 = " + number_text(*w) + " / 8 (a bank holds one word)", "agpu.w");
            }
        }
        // smem_per_block_bytes = M w / 8.
        const auto M = value("agpu.M");
        if ((given("agpu.M") || given("agpu.w")) && is_whole(M) && is_whole(w) && std::fmod(*w, 8) == 0) {
            const double bytes = *M * (*w / 8);
            if (given("hardware.smem_per_block_bytes")) {
                const auto per_block = value("hardware.smem_per_block_bytes");
                if (per_block && *per_block != bytes)
                    contradiction("hardware.smem_per_block_bytes",
                                  "smem_per_block_bytes = M * w / 8 = " + number_text(*M) + " * " + number_text(*w) +
                                      " / 8 = " + number_text(bytes) + " (M is the shared memory one block may use)");
            } else {
                derive("hardware.smem_per_block_bytes", bytes,
                       "smem_per_block_bytes = M * w / 8 = " + number_text(*M) + " * " + number_text(*w) +
                           " / 8 (M is the shared memory one block may use)",
                       given("agpu.M") ? "agpu.M" : "agpu.w");
            }
        }
        // smem_per_sm_bytes: the base's, scaled with smem_per_block_bytes.
        if (changed("hardware.smem_per_block_bytes")) {
            const auto per_block = value("hardware.smem_per_block_bytes");
            const auto base_block = number_at(m_base, "hardware.smem_per_block_bytes");
            const auto base_sm = number_at(m_base, "hardware.smem_per_sm_bytes");
            if (given("hardware.smem_per_sm_bytes")) {
                const auto per_sm = value("hardware.smem_per_sm_bytes");
                if (per_sm && per_block && *per_sm < *per_block)
                    contradiction("hardware.smem_per_sm_bytes",
                                  "smem_per_sm_bytes at least smem_per_block_bytes = " + number_text(*per_block) +
                                      " (a block fits in an SM)");
            } else if (is_whole(per_block) && is_whole(base_block) && is_whole(base_sm)) {
                const double scaled = std::max(*per_block, std::round(*base_sm * *per_block / *base_block));
                derive("hardware.smem_per_sm_bytes", scaled,
                       "smem_per_sm_bytes = the base's " + number_text(*base_sm) +
                           " scaled with smem_per_block_bytes (" + number_text(*per_block) + " / " +
                           number_text(*base_block) + ")",
                       "hardware.smem_per_block_bytes");
            }
        }
        // The achievable DRAM bandwidths follow the peak: the base's, scaled by the new peak over the base's.
        if (given("hardware.mem_bandwidth_gbs")) {
            const auto peak = value("hardware.mem_bandwidth_gbs");
            const auto base_peak = number_at(m_base, "hardware.mem_bandwidth_gbs");
            if (peak && base_peak && *peak > 0 && *base_peak > 0)
                for (const char* f : {"timing.dram_read_gbs", "timing.dram_write_gbs", "timing.dram_copy_gbs"})
                    if (const auto v = number_at(m_base, f); v && !given(f))
                        derive_real(f, *v * *peak / *base_peak,
                                    "the base's " + number_text(*v) + " scaled with the peak bandwidth (" +
                                        number_text(*peak) + " / " + number_text(*base_peak) + " GB/s)",
                                    "hardware.mem_bandwidth_gbs");
        }
        // A pipe's warp-instructions a clock follow b: an instruction of b lanes takes b / (the base's b)
        // times the base's lane-clocks on the same units.
        if (given("agpu.b")) {
            const auto base_b = number_at(m_base, "agpu.b");
            if (is_whole(b) && is_whole(base_b) && *b != *base_b)
                for (const char* f : {"timing.fma_per_clock", "timing.alu_per_clock", "timing.fp64_per_clock",
                                      "timing.xu_per_clock", "timing.lsu_per_clock", "timing.fp16_per_clock"})
                    if (const auto v = number_at(m_base, f); v && !given(f))
                        derive_real(f, *v * *base_b / *b,
                                    "the base's " + number_text(*v) + " x base b / b = " + number_text(*base_b) +
                                        " / " + number_text(*b) + " (a warp-instruction of b lanes on the same units)",
                                    "agpu.b");
        }
    }

private:
    json& m_merged;
    const json& m_base;
    const json& m_patch;
    std::string m_where, m_prefix;
    std::set<std::string> m_given, m_derived;

    bool given(const std::string& f) const { return m_given.count(f) > 0; }
    bool changed(const std::string& f) const { return given(f) || m_derived.count(f) > 0; }
    std::optional<double> value(const std::string& f) const { return number_at(m_merged, f); }

    // The date of the field a derivation follows, where the patch dates it.
    std::string date_of(const std::string& from) const {
        const auto dot = from.find('.');
        const std::string section = from.substr(0, dot), field = from.substr(dot + 1);
        if (m_patch.contains(section) && m_patch.at(section).contains(field)) {
            const json& v = m_patch.at(section).at(field);
            if (v.is_object() && v.contains("date") && v.at("date").is_string()) return v.at("date").get<std::string>();
        }
        if (m_merged.contains(section) && m_merged.at(section).contains(field)) {
            const json& v = m_merged.at(section).at(field);
            if (v.is_object() && v.contains("date") && v.at("date").is_string()) return v.at("date").get<std::string>();
        }
        return {};
    }

    void derive(const std::string& field, double v, const std::string& formula, const std::string& from) {
        const auto dot = field.find('.');
        json entry = {{"value", std::uint64_t(v)}, {"source", "derived: " + formula + ", follows " + from}};
        if (const auto d = date_of(from); !d.empty()) entry["date"] = d;
        m_merged[field.substr(0, dot)][field.substr(dot + 1)] = entry;
        m_derived.insert(field);
    }

    // A timing constant (a real number with a unit) derived from `from`; the unit stays the base's.
    void derive_real(const std::string& field, double v, const std::string& formula, const std::string& from) {
        const auto dot = field.find('.');
        const std::string section = field.substr(0, dot), name = field.substr(dot + 1);
        json entry = {{"value", v}, {"source", "derived: " + formula + ", follows " + from}};
        if (m_base.contains(section) && m_base.at(section).contains(name) && m_base.at(section).at(name).is_object() &&
            m_base.at(section).at(name).contains("unit"))
            entry["unit"] = m_base.at(section).at(name).at("unit");
        if (const auto d = date_of(from); !d.empty()) entry["date"] = d;
        m_merged[section][name] = entry;
        m_derived.insert(field);
    }

    [[noreturn]] void contradiction(const std::string& field, const std::string& derivation) const {
        const auto given_value = value(field);
        throw input_error(m_where + ": field " + m_prefix + field,
                          "gives " + (given_value ? number_text(*given_value) : std::string("a value")) +
                              ", which contradicts the derivation " + derivation + "; leave it out and it follows");
    }
};

const std::vector<std::pair<std::string, std::string>> aliases = {{"p", "agpu.p"},
                                                                  {"b", "agpu.b"},
                                                                  {"M", "agpu.M"},
                                                                  {"w", "agpu.w"},
                                                                  {"k", "hardware.sm_count"},
                                                                  {"clock", "hardware.sm_clock_mhz"},
                                                                  {"bandwidth", "hardware.mem_bandwidth_gbs"}};

}  // namespace

void check_patch(const json& patch, const std::string& where) {
    auto bad = [&](const std::string& path, const std::string& rule) {
        throw input_error(where + ": field patch" + path, rule);
    };
    if (!patch.is_object()) bad("", "must be an object, got " + std::string(patch.type_name()));
    for (auto s = patch.begin(); s != patch.end(); ++s) {
        const std::string section = s.key();
        if (section != "agpu" && section != "hardware" && section != "timing")
            bad("." + section,
                "unknown key (a patch holds agpu, hardware and timing only, each field as in a device file)");
        if (!s.value().is_object()) bad("." + section, "must be an object, got " + std::string(s.value().type_name()));
        for (auto f = s.value().begin(); f != s.value().end(); ++f) {
            const std::string path = "." + section + "." + f.key();
            if (!known_field(section, f.key())) bad(path, "unknown field (known: " + known_fields(section) + ")");
            const json& v = f.value();
            if (v.is_null()) bad(path, "a patch cannot remove a field (null)");
            if (!v.is_object()) continue;  // a bare value: its type is checked with the merged device
            const bool has_unit = section == "timing";
            for (auto k = v.begin(); k != v.end(); ++k)
                if (k.key() != "value" && k.key() != "source" && k.key() != "date" && !(has_unit && k.key() == "unit"))
                    bad(path + "." + k.key(), std::string("unknown key (a sourced value has only value, ") +
                                                  (has_unit ? "unit, " : "") + "source, date)");
            if (!v.contains("value")) bad(path, "a sourced value needs \"value\"");
            if (v.contains("source") && (!v.at("source").is_string() || v.at("source").get<std::string>().empty()))
                bad(path + ".source", "must be a non-empty string");
            if (v.contains("date") && !v.at("date").is_string())
                bad(path + ".date", "must be a string (YYYY, YYYY-MM or YYYY-MM-DD)");
        }
    }
}

json apply_patch(const json& base, const json& patch, const std::string& where, const std::string& field_prefix) {
    json merged = base;
    merged.merge_patch(patch);
    deriver(merged, base, patch, where, field_prefix).run();
    return merged;
}

const std::vector<std::pair<std::string, std::string>>& device_setting_aliases() { return aliases; }

std::string device_setting_field(const std::string& name, const std::string& option) {
    for (const auto& [alias, field] : aliases)
        if (name == alias) return field;
    for (const auto& f : device_field_names())
        if (f == name || f.substr(f.find('.') + 1) == name) {
            if (f == "hardware.compute_capability") break;
            return f;
        }
    std::string known;
    for (const auto& [alias, field] : aliases) known += (known.empty() ? "" : ", ") + alias;
    throw input_error(option + " " + name, "unknown device parameter (known: " + known +
                                               ", or any numeric field of a device file, e.g. l2_bytes)");
}

device_setting parse_device_setting(const std::string& text, const std::string& option) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw input_error(option + " " + text, "must be NAME=VALUE (a device parameter and a number)");
    device_setting s;
    s.name = text.substr(0, eq);
    s.field = device_setting_field(s.name, option);
    const std::string value = text.substr(eq + 1);
    std::size_t used = 0;
    try {
        s.value = std::stod(value, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != value.size() || !std::isfinite(s.value))
        throw input_error(option + " " + s.name, "must be a finite number, got '" + value + "'");
    s.text = text;
    return s;
}

device with_settings(const device& base, const std::vector<device_setting>& settings, const std::string& where) {
    json j = device_to_json(base);
    json patch = json::object();
    std::string id = base.id, what;
    for (const auto& s : settings) {
        const auto dot = s.field.find('.');
        json v = s.value;
        if (s.value == std::floor(s.value) && s.value >= 0 && s.value < 9007199254740992.0) v = std::uint64_t(s.value);
        patch[s.field.substr(0, dot)][s.field.substr(dot + 1)] = {
            {"value", v}, {"source", "hypothetical: " + s.text + " on " + base.id}};
        std::string tag = s.name;
        for (auto& ch : tag) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        id += "-" + tag + number_text(s.value);
        what += (what.empty() ? "" : ", ") + s.name + " = " + number_text(s.value);
    }
    // The id keeps to the characters ids allow ("1e+06" and the like), and to their length.
    for (auto& ch : id)
        if (!(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) ||
              ch == '-' || ch == '_' || ch == '.'))
            ch = '_';
    if (id.size() > 64) id = id.substr(0, 64);
    json merged = apply_patch(j, patch, where, "");
    merged["id"] = id;
    merged["kind"] = "hypothetical";
    merged["base"] = base.base.empty() ? base.id : base.base;
    merged["note"] = base.id + " with " + what;
    merged["name"] = base.name + " (" + what + ")";
    return device_from_json(merged, where);
}

}  // namespace agpu::model
