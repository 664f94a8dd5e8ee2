#include "agpu/model/device.hpp"

#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <variant>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/derivation.hpp"

namespace agpu::model {
namespace {

using json = nlohmann::json;

// Largest integer a device field may hold: doubles represent every integer up
// to 2^53 exactly, and no real or sensible hypothetical device needs more.
constexpr double max_integer = 9007199254740992.0;
// Largest real (MHz, GB/s, us): far above any device, and small enough that
// the time model's products and quotients of it stay finite and non-zero.
constexpr double max_real = 1e9;

enum class field_type { integer, real, text };

// One row per device-file field: declared once, used to read, write, print
// and validate (STYLE.md 4 applied to devices).
struct field_spec {
    const char* section;  // "agpu", "hardware" or "timing"
    const char* name;
    field_type type;
    bool may_be_zero;  // integers and reals: 0 allowed?
    std::variant<std::uint64_t machine::*, std::uint32_t machine::*, std::uint64_t hardware::*,
                 std::uint32_t hardware::*, double hardware::*, std::string hardware::*, double timing::*>
        member;
    const char* unit;
};

const std::vector<field_spec>& field_table() {
    static const std::vector<field_spec> t = {
        {"agpu", "p", field_type::integer, false, &machine::p, "cores"},
        {"agpu", "b", field_type::integer, false, &machine::b, "cores per MP"},
        {"agpu", "M", field_type::integer, false, &machine::M, "words"},
        {"agpu", "w", field_type::integer, false, &machine::w, "bits"},
        {"hardware", "compute_capability", field_type::text, false, &hardware::compute_capability, ""},
        {"hardware", "sm_count", field_type::integer, false, &hardware::sm_count, "SMs"},
        {"hardware", "cores_per_sm", field_type::integer, false, &hardware::cores_per_sm, "cores"},
        {"hardware", "warp_width", field_type::integer, false, &hardware::warp_width, "threads"},
        {"hardware", "max_threads_per_block", field_type::integer, false, &hardware::max_threads_per_block, "threads"},
        {"hardware", "max_threads_per_sm", field_type::integer, false, &hardware::max_threads_per_sm, "threads"},
        {"hardware", "sm_clock_mhz", field_type::real, false, &hardware::sm_clock_mhz, "MHz"},
        {"hardware", "mem_clock_mhz", field_type::real, false, &hardware::mem_clock_mhz, "MHz"},
        {"hardware", "mem_bandwidth_gbs", field_type::real, false, &hardware::mem_bandwidth_gbs, "GB/s"},
        {"hardware", "l2_bytes", field_type::integer, true, &hardware::l2_bytes, "bytes"},
        {"hardware", "smem_per_sm_bytes", field_type::integer, false, &hardware::smem_per_sm_bytes, "bytes"},
        {"hardware", "smem_per_block_bytes", field_type::integer, false, &hardware::smem_per_block_bytes, "bytes"},
        {"hardware", "banks", field_type::integer, false, &hardware::banks, "banks"},
        {"hardware", "bank_width_bytes", field_type::integer, false, &hardware::bank_width_bytes, "bytes"},
        {"hardware", "launch_overhead_us", field_type::real, true, &hardware::launch_overhead_us, "us"},
        {"hardware", "max_blocks_per_sm", field_type::integer, false, &hardware::max_blocks_per_sm, "blocks"},
        {"hardware", "registers_per_sm", field_type::integer, false, &hardware::registers_per_sm, "registers"},
        {"timing", "launch_us", field_type::real, false, &timing::launch_us, "us"},
        {"timing", "block_clocks", field_type::real, true, &timing::block_clocks, "SM clocks"},
        {"timing", "dram_read_gbs", field_type::real, false, &timing::dram_read_gbs, "GB/s"},
        {"timing", "dram_write_gbs", field_type::real, false, &timing::dram_write_gbs, "GB/s"},
        {"timing", "dram_copy_gbs", field_type::real, false, &timing::dram_copy_gbs, "GB/s"},
        {"timing", "l2_read_gbs", field_type::real, true, &timing::l2_read_gbs, "GB/s"},
        {"timing", "dram_latency_clocks", field_type::real, false, &timing::dram_latency_clocks, "SM clocks"},
        {"timing", "l2_latency_clocks", field_type::real, true, &timing::l2_latency_clocks, "SM clocks"},
        {"timing", "l1_latency_clocks", field_type::real, false, &timing::l1_latency_clocks, "SM clocks"},
        {"timing", "shared_wavefronts_per_clock", field_type::real, false, &timing::shared_wavefronts_per_clock,
         "wavefronts per SM per clock"},
        {"timing", "atomic_per_clock", field_type::real, false, &timing::atomic_per_clock,
         "same-address updates per SM clock"},
        {"timing", "issue_per_clock", field_type::real, false, &timing::issue_per_clock,
         "warp-instructions per SM per clock"},
        {"timing", "fma_per_clock", field_type::real, false, &timing::fma_per_clock,
         "warp-instructions per SM per clock"},
        {"timing", "alu_per_clock", field_type::real, false, &timing::alu_per_clock,
         "warp-instructions per SM per clock"},
        {"timing", "fp64_per_clock", field_type::real, true, &timing::fp64_per_clock,
         "warp-instructions per SM per clock"},
        {"timing", "xu_per_clock", field_type::real, false, &timing::xu_per_clock,
         "warp-instructions per SM per clock"},
        {"timing", "lsu_per_clock", field_type::real, false, &timing::lsu_per_clock,
         "warp-instructions per SM per clock"},
        {"timing", "fp16_per_clock", field_type::real, true, &timing::fp16_per_clock,
         "warp-instructions per SM per clock"},
        {"timing", "dependent_clocks", field_type::real, false, &timing::dependent_clocks, "SM clocks"},
        {"timing", "shuffle_clocks", field_type::real, false, &timing::shuffle_clocks, "SM clocks"},
        {"timing", "barrier_clocks", field_type::real, false, &timing::barrier_clocks, "SM clocks"},
    };
    return t;
}

std::string dotted(const field_spec& f) { return std::string(f.section) + "." + f.name; }

const std::set<std::string> top_level_keys = {"schema", "id",   "name",     "kind",   "base",
                                              "note",   "agpu", "hardware", "timing", "patch"};

std::string type_name(const json& v) { return v.type_name(); }

// Reads one field: a bare value, or {"value": v, "source": s, "date": d}.
void read_field(const field_spec& f, const json& raw, const std::string& where, machine& m, hardware& h, timing& t,
                std::map<std::string, source_note>& sources) {
    const std::string name = dotted(f);
    auto bad = [&](const std::string& rule) { throw input_error(where + ": field " + name, rule); };
    const json* v = &raw;
    if (raw.is_object()) {
        const bool has_unit = std::string(f.section) == "timing";
        for (auto it = raw.begin(); it != raw.end(); ++it)
            if (it.key() != "value" && it.key() != "source" && it.key() != "date" && !(has_unit && it.key() == "unit"))
                bad("unknown key \"" + it.key() + "\" (a sourced value has only value, " + (has_unit ? "unit, " : "") +
                    "source, date)");
        if (raw.contains("unit") && (!raw.at("unit").is_string() || raw.at("unit").get<std::string>() != f.unit))
            bad("\"unit\" must be \"" + std::string(f.unit) + "\"");
        if (!raw.contains("value")) bad("a sourced value needs \"value\"");
        v = &raw.at("value");
        source_note note;
        if (raw.contains("source")) {
            if (!raw.at("source").is_string() || raw.at("source").get<std::string>().empty())
                bad("\"source\" must be a non-empty string");
            note.source = raw.at("source").get<std::string>();
        }
        if (raw.contains("date")) {
            if (!raw.at("date").is_string()) bad("\"date\" must be a string (YYYY, YYYY-MM or YYYY-MM-DD)");
            note.date = raw.at("date").get<std::string>();
        }
        if (!note.source.empty() || !note.date.empty()) sources[name] = note;
    }
    if (f.type == field_type::text) {
        if (!v->is_string()) bad("must be a string, got " + type_name(*v));
        h.*std::get<std::string hardware::*>(f.member) = v->get<std::string>();
        return;
    }
    if (!v->is_number()) bad("must be a number, got " + type_name(*v));
    const double x = v->get<double>();
    if (!std::isfinite(x)) bad("must be a finite number");
    if (f.may_be_zero ? x < 0 : x <= 0)
        bad(std::string("must be ") + (f.may_be_zero ? "non-negative" : "positive") + ", got " + v->dump());
    if (f.type == field_type::real) {
        if (x > max_real) bad("must be at most 1e9 " + std::string(f.unit) + ", got " + v->dump());
        if (std::holds_alternative<double timing::*>(f.member)) t.*std::get<double timing::*>(f.member) = x;
        else h.*std::get<double hardware::*>(f.member) = x;
        return;
    }
    if (!v->is_number_integer() && x != std::floor(x)) bad("must be an integer, got " + v->dump());
    if (x > max_integer) bad("must be at most 2^53, got " + v->dump());
    const auto u = v->is_number_unsigned() ? v->get<std::uint64_t>() : static_cast<std::uint64_t>(x);
    std::visit(
        [&](auto mp) {
            using M = decltype(mp);
            if constexpr (std::is_same_v<M, std::uint64_t machine::*>) m.*mp = u;
            else if constexpr (std::is_same_v<M, std::uint32_t machine::*>) {
                if (u > std::numeric_limits<std::uint32_t>::max()) bad("must be below 2^32, got " + v->dump());
                m.*mp = static_cast<std::uint32_t>(u);
            } else if constexpr (std::is_same_v<M, std::uint64_t hardware::*>) h.*mp = u;
            else if constexpr (std::is_same_v<M, std::uint32_t hardware::*>) {
                if (u > std::numeric_limits<std::uint32_t>::max()) bad("must be below 2^32, got " + v->dump());
                h.*mp = static_cast<std::uint32_t>(u);
            }
        },
        f.member);
}

json field_value(const field_spec& f, const device& d) {
    return std::visit(
        [&](auto mp) -> json {
            using M = decltype(mp);
            if constexpr (std::is_same_v<M, std::uint64_t machine::*> || std::is_same_v<M, std::uint32_t machine::*>)
                return d.agpu.*mp;
            else if constexpr (std::is_same_v<M, double timing::*>) return d.time.*mp;
            else return d.hw.*mp;
        },
        f.member);
}

std::string string_field(const json& j, const char* key, const std::string& where, bool required) {
    if (!j.contains(key)) {
        if (required) throw input_error(where + ": field " + key, "is required");
        return {};
    }
    if (!j.at(key).is_string())
        throw input_error(where + ": field " + key, "must be a string, got " + type_name(j.at(key)));
    return j.at(key).get<std::string>();
}

bool valid_id(const std::string& s) {
    if (s.empty() || s.size() > 64) return false;
    for (char c : s)
        if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
              c == '_' || c == '.'))
            return false;
    return true;
}

}  // namespace

void device::validate(const std::string& where) const {
    if (!valid_id(id)) throw input_error(where + ": field id", "must be 1-64 characters of a-z, 0-9, '-', '_', '.'");
    if (name.empty()) throw input_error(where + ": field name", "must not be empty");
    if (kind != "real" && kind != "hypothetical")
        throw input_error(where + ": field kind", "must be \"real\" or \"hypothetical\", got \"" + kind + "\"");
    if (kind == "hypothetical" && base.empty())
        throw input_error(where + ": field base", "a hypothetical device names the preset it changes");
    agpu.validate(where, "agpu.");
    auto bad = [&](const char* field, const std::string& rule) { throw input_error(where + ": field " + field, rule); };
    if (agpu.k() != hw.sm_count)
        bad("agpu.p", "p / b must equal hardware.sm_count (an AGPU MP is an SM), got k = " + std::to_string(agpu.k()) +
                          ", sm_count = " + std::to_string(hw.sm_count));
    if (hw.banks != agpu.b)
        bad("hardware.banks", "must equal agpu.b (shared memory has b banks), got " + std::to_string(hw.banks) +
                                  ", b = " + std::to_string(agpu.b));
    if (hw.warp_width % agpu.b != 0)
        bad("hardware.warp_width", "must be a multiple of agpu.b (b lanes execute, coalesce and bank together), got " +
                                       std::to_string(hw.warp_width));
    if (hw.bank_width_bytes * 8 != agpu.w)
        bad("hardware.bank_width_bytes",
            "must equal w / 8 (a bank holds one word), got " + std::to_string(hw.bank_width_bytes));
    if (hw.smem_per_block_bytes > hw.smem_per_sm_bytes)
        bad("hardware.smem_per_block_bytes", "must not exceed hardware.smem_per_sm_bytes");
    if (agpu.shared_bytes() > hw.smem_per_block_bytes)
        bad("agpu.M", "M words of w bits must fit in hardware.smem_per_block_bytes (" +
                          std::to_string(hw.smem_per_block_bytes) + "), got " + std::to_string(agpu.shared_bytes()) +
                          " bytes");
    if (hw.max_threads_per_block > hw.max_threads_per_sm)
        bad("hardware.max_threads_per_block", "must not exceed hardware.max_threads_per_sm");
    if (hw.max_threads_per_block % hw.warp_width != 0)
        bad("hardware.max_threads_per_block", "must be a multiple of hardware.warp_width");
    if (hw.compute_capability.empty()) bad("hardware.compute_capability", "must not be empty");
}

device device_from_json(const json& j_in, const std::string& where,
                        const std::function<json(const std::string&)>* resolve_base) {
    if (!j_in.is_object()) throw input_error(where, "a device file is a JSON object, got " + type_name(j_in));
    json j = j_in;
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!top_level_keys.count(it.key()))
            throw input_error(where + ": field " + it.key(),
                              "unknown field (known: schema, id, name, kind, base, note, agpu, hardware, patch)");
    if (!j.contains("schema")) throw input_error(where + ": field schema", "is required (this agpu reads schema 1)");
    if (!j.at("schema").is_number_integer() || j.at("schema").get<long long>() != device_schema_version)
        throw input_error(where + ": field schema",
                          "must be " + std::to_string(device_schema_version) + ", got " + j.at("schema").dump());

    device d;
    d.base = string_field(j, "base", where, false);
    if (j.contains("patch")) {
        if (d.base.empty())
            throw input_error(where + ": field patch", "needs \"base\": the preset the patch applies to");
        if (j.contains("agpu") || j.contains("hardware") || j.contains("timing"))
            throw input_error(where + ": field patch",
                              "a patched device has no agpu, hardware or timing section of its own");
        check_patch(j.at("patch"), where);
        if (!resolve_base)
            throw input_error(where + ": field base", "no preset catalogue to resolve \"" + d.base + "\"");
        json merged = apply_patch((*resolve_base)(d.base), j.at("patch"), where, "patch.");
        for (const char* key : {"id", "name", "kind", "note"}) merged.erase(key);
        merged.erase("base");
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key() != "patch") merged[it.key()] = it.value();
        j = merged;
    }
    d.id = string_field(j, "id", where, true);
    d.name = string_field(j, "name", where, true);
    d.kind = string_field(j, "kind", where, true);
    d.note = string_field(j, "note", where, false);
    for (const char* section : {"agpu", "hardware", "timing"}) {
        if (!j.contains(section)) throw input_error(where + ": field " + section, "is required");
        const json& s = j.at(section);
        if (!s.is_object()) throw input_error(where + ": field " + section, "must be an object, got " + type_name(s));
        for (auto it = s.begin(); it != s.end(); ++it) {
            bool known = false;
            for (const auto& f : field_table()) known |= (f.section == std::string(section) && it.key() == f.name);
            if (!known) throw input_error(where + ": field " + std::string(section) + "." + it.key(), "unknown field");
        }
    }
    for (const auto& f : field_table()) {
        const json& s = j.at(f.section);
        if (!s.contains(f.name)) throw input_error(where + ": field " + dotted(f), "is required");
        read_field(f, s.at(f.name), where, d.agpu, d.hw, d.time, d.sources);
    }
    d.validate(where);
    return d;
}

json device_to_json(const device& d) {
    json j = {{"schema", device_schema_version}, {"id", d.id}, {"name", d.name}, {"kind", d.kind}};
    if (!d.base.empty()) j["base"] = d.base;
    if (!d.note.empty()) j["note"] = d.note;
    j["agpu"] = json::object();
    j["hardware"] = json::object();
    j["timing"] = json::object();
    for (const auto& f : field_table()) {
        json v = field_value(f, d);
        auto s = d.sources.find(dotted(f));
        const bool timed = std::string(f.section) == "timing";
        if (s != d.sources.end()) {
            v = json{{"value", v}, {"source", s->second.source}, {"date", s->second.date}};
            if (timed) v["unit"] = f.unit;
        } else if (timed) {
            v = json{{"value", v}, {"unit", f.unit}};
        }
        j[f.section][f.name] = v;
    }
    return j;
}

std::string timing_source_kinds(const device& d) {
    std::map<std::string, int> kinds;
    for (const auto& [field, note] : d.sources)
        if (field.rfind("timing.", 0) == 0) ++kinds[note.source.substr(0, note.source.find(':'))];
    std::string s;
    for (const auto& [k, n] : kinds) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + k;
    return s.empty() ? "no sources recorded" : s;
}

json device_summary_json(const device& d) {
    json j = {{"id", d.id},    {"name", d.name}, {"kind", d.kind}, {"base", d.base}, {"note", d.note},
              {"p", d.agpu.p}, {"b", d.agpu.b},  {"M", d.agpu.M},  {"w", d.agpu.w},  {"k", d.agpu.k()}};
    json hw = json::object(), tm = json::object();
    json src = json::object();
    for (const auto& f : field_table()) {
        if (std::string(f.section) == "hardware") hw[f.name] = field_value(f, d);
        if (std::string(f.section) == "timing") tm[f.name] = field_value(f, d);
        auto s = d.sources.find(dotted(f));
        if (s != d.sources.end()) src[dotted(f)] = {{"source", s->second.source}, {"date", s->second.date}};
    }
    j["hardware"] = hw;
    j["timing"] = tm;
    j["sources"] = src;
    return j;
}

std::ostream& operator<<(std::ostream& os, const device& d) {
    os << d.id << " (" << d.name << ", " << d.kind;
    if (!d.base.empty()) os << " from " << d.base;
    return os << "): " << d.agpu;
}

std::vector<std::string> device_field_names() {
    std::vector<std::string> out;
    for (const auto& f : field_table()) out.push_back(dotted(f));
    return out;
}

}  // namespace agpu::model
