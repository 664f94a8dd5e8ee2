#include "agpu/sweep/spec.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <toml++/toml.h>
#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/json_text.hpp"

namespace agpu::sweep {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// The most values one list or range may hold.
constexpr std::size_t max_values = 10000;

class reader {
public:
    explicit reader(std::string where) : m_where(std::move(where)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& rule) const {
        throw input_error(m_where + (path.empty() ? "" : ": field " + path), rule);
    }

    void only_keys(const json& obj, const std::string& path, std::initializer_list<const char*> keys) const {
        if (!obj.is_object()) fail(path, "must be an object (a table), got " + std::string(obj.type_name()));
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            bool known = false;
            std::string list;
            for (const char* k : keys) {
                known |= it.key() == k;
                list += (list.empty() ? "" : ", ") + std::string(k);
            }
            if (!known) fail(join(path, it.key()), "unknown key (known: " + list + ")");
        }
    }

    static std::string join(const std::string& path, const std::string& key) {
        return path.empty() ? key : path + "." + key;
    }
    static std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

    std::string text(const json& v, const std::string& path) const {
        if (!v.is_string() || v.get<std::string>().empty()) fail(path, "must be a non-empty string, got " + v.dump());
        return v.get<std::string>();
    }

    double number(const json& v, const std::string& path, bool integer, bool positive) const {
        if (!v.is_number())
            fail(path, std::string("must be ") + (integer ? "an integer" : "a number") + ", got " + v.dump());
        const double x = v.get<double>();
        if (!std::isfinite(x)) fail(path, "must be finite");
        if (integer && (x != std::floor(x) || std::fabs(x) > 9007199254740992.0))
            fail(path, "must be an integer (at most 2^53), got " + v.dump());
        if (positive && x <= 0) fail(path, "must be positive, got " + v.dump());
        if (x < 0) fail(path, "must not be negative, got " + v.dump());
        return x;
    }

    // A number, an array of numbers, or a range {"from", "to", "step" | "times"} (both ends included).
    std::vector<double> numbers(const json& v, const std::string& path, bool integer, bool positive) const {
        std::vector<double> out;
        if (v.is_number()) {
            out.push_back(number(v, path, integer, positive));
        } else if (v.is_array()) {
            if (v.empty()) fail(path, "must not be empty");
            if (v.size() > max_values) fail(path, "at most " + std::to_string(max_values) + " values");
            for (std::size_t i = 0; i < v.size(); ++i) out.push_back(number(v[i], index(path, i), integer, positive));
        } else if (v.is_object()) {
            only_keys(v, path, {"from", "to", "step", "times"});
            if (!v.contains("from") || !v.contains("to") || (v.contains("step") == v.contains("times")))
                fail(path, "a range is {from, to, step} (arithmetic) or {from, to, times} (geometric)");
            const double from = number(v.at("from"), join(path, "from"), integer, positive);
            const double to = number(v.at("to"), join(path, "to"), integer, positive);
            if (to < from) fail(path, "to must not be below from");
            const bool geometric = v.contains("times");
            const double by = geometric ? number(v.at("times"), join(path, "times"), false, true)
                                        : number(v.at("step"), join(path, "step"), integer, true);
            if (geometric && !(by > 1)) fail(join(path, "times"), "must be above 1");
            if (geometric && from <= 0) fail(join(path, "from"), "must be positive in a geometric range");
            const double slack = 1e-9 * std::max(1.0, std::fabs(to));
            for (double x = from; x <= to + slack; x = geometric ? x * by : x + by) {
                if (out.size() == max_values)
                    fail(path, "expands to more than " + std::to_string(max_values) + " values");
                out.push_back(integer ? std::round(x) : x);
            }
        } else {
            fail(path, "must be a number, a list of numbers or a range {from, to, step|times}, got " + v.dump());
        }
        return out;
    }

    // An algorithm parameter's values as text: a string or integer, a list of them, or an integer range.
    std::vector<std::string> param_values(const json& v, const std::string& path) const {
        std::vector<std::string> out;
        auto one = [&](const json& x, const std::string& p) {
            if (x.is_string()) return x.get<std::string>();
            if (x.is_number_integer()) return x.dump();
            if (x.is_number_float() && x.get<double>() == std::floor(x.get<double>()) &&
                std::fabs(x.get<double>()) < 9e15)
                return std::to_string(static_cast<long long>(x.get<double>()));
            fail(p, "must be a string or an integer, got " + x.dump());
        };
        if (v.is_array()) {
            if (v.empty()) fail(path, "must not be empty");
            for (std::size_t i = 0; i < v.size(); ++i) out.push_back(one(v[i], index(path, i)));
        } else if (v.is_object()) {
            for (double x : numbers(v, path, true, false)) out.push_back(std::to_string(static_cast<long long>(x)));
        } else {
            out.push_back(one(v, path));
        }
        return out;
    }

    std::vector<std::string> texts(const json& v, const std::string& path) const {
        std::vector<std::string> out;
        if (v.is_array()) {
            if (v.empty()) fail(path, "must not be empty");
            for (std::size_t i = 0; i < v.size(); ++i) out.push_back(text(v[i], index(path, i)));
        } else {
            out.push_back(text(v, path));
        }
        return out;
    }

    const std::string& where() const { return m_where; }

private:
    std::string m_where;
};

std::string number_text(double v) {
    std::ostringstream s;
    s.precision(15);
    s << v;
    return s.str();
}

// Every combination of one value per list, the first list varying slowest.
template <class T>
std::vector<std::vector<T>> product(const std::vector<std::vector<T>>& lists) {
    std::vector<std::vector<T>> out{{}};
    for (const auto& list : lists) {
        std::vector<std::vector<T>> next;
        for (const auto& prefix : out)
            for (const auto& v : list) {
                next.push_back(prefix);
                next.back().push_back(v);
            }
        out = std::move(next);
    }
    return out;
}

struct device_choice {
    model::device device;
    std::string base;
    std::vector<model::device_setting> settings;
};

// A stable text of what makes a point distinct (for removing repeats).
std::string identity(const point& p) {
    json device = model::device_summary_json(p.device);
    device.erase("sources");
    json j = {{"device", device}, {"algo", p.algo->spec.key}, {"params", p.params.all()},
              {"n", p.n},         {"seed", p.seed},           {"counts", to_string(p.counts)}};
    return j.dump();
}

}  // namespace

json toml_to_json(const std::string& text, const std::string& where) {
    toml::table root;
    try {
        root = toml::parse(text, where);
    } catch (const toml::parse_error& e) {
        const auto& at = e.source().begin;
        throw input_error(where + ":" + std::to_string(at.line) + ":" + std::to_string(at.column),
                          "not valid TOML (" + std::string(e.description()) + ")");
    }
    std::function<json(const toml::node&)> convert = [&](const toml::node& n) -> json {
        if (const auto* t = n.as_table()) {
            json o = json::object();
            for (const auto& [k, v] : *t) o[std::string(k.str())] = convert(v);
            return o;
        }
        if (const auto* a = n.as_array()) {
            json arr = json::array();
            for (const auto& v : *a) arr.push_back(convert(v));
            return arr;
        }
        if (const auto* s = n.as_string()) return s->get();
        if (const auto* i = n.as_integer()) return i->get();
        if (const auto* f = n.as_floating_point()) return f->get();
        if (const auto* b = n.as_boolean()) return b->get();
        const auto& at = n.source().begin;
        throw input_error(where + ":" + std::to_string(at.line) + ":" + std::to_string(at.column),
                          "a date or time is not a value a sweep spec takes");
    };
    return convert(root);
}

spec load_spec(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path, "cannot open sweep spec");
    std::ostringstream ss;
    ss << in.rdbuf();
    const bool is_toml = fs::path(path).extension() == ".toml";
    const json j = is_toml ? toml_to_json(ss.str(), path) : model::parse_json_text(ss.str(), path);
    auto s = parse_spec(j, path, fs::path(path).parent_path());
    return s;
}

spec parse_spec(const json& j, const std::string& where, const fs::path& dir) {
    const reader r(where);
    r.only_keys(j, "", {"schema", "name", "devices", "algorithms", "n", "counts", "seeds", "max_sim_seconds", "fit"});
    if (!j.contains("schema")) r.fail("schema", std::string("is required (\"") + spec_schema + "\")");
    if (j.at("schema") != spec_schema)
        r.fail("schema", std::string("must be \"") + spec_schema + "\", got " + j.at("schema").dump());
    spec s;
    s.path = where;
    s.name = j.contains("name") ? r.text(j.at("name"), "name") : fs::path(where).stem().string();
    auto resolve = [&](const std::string& name) {
        const fs::path p(name);
        return (p.is_absolute() || dir.empty() ? p : dir / p).string();
    };
    s.fit = j.contains("fit") ? model::load_fit_file(resolve(r.text(j.at("fit"), "fit"))) : model::default_fit();

    // Defaults every algorithm entry may override.
    std::vector<counts_mode> default_counts{counts_mode::automatic};
    if (j.contains("counts")) {
        default_counts.clear();
        for (const auto& t : r.texts(j.at("counts"), "counts"))
            default_counts.push_back(parse_counts_mode(t, where + ": field counts"));
    }
    std::vector<double> default_seeds{1};
    if (j.contains("seeds")) default_seeds = r.numbers(j.at("seeds"), "seeds", true, false);
    const double max_sim =
        j.contains("max_sim_seconds") ? r.number(j.at("max_sim_seconds"), "max_sim_seconds", false, false) : 60.0;

    // Devices: groups of bases, each with its parameters over lists or ranges.
    if (!j.contains("devices")) r.fail("devices", "is required: {base: [...], set: {PARAM: [...]}} or a list of them");
    std::vector<device_choice> devices;
    const json groups = j.at("devices").is_array() ? j.at("devices") : json::array({j.at("devices")});
    if (groups.empty()) r.fail("devices", "must not be empty");
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const std::string gpath = j.at("devices").is_array() ? reader::index("devices", g) : "devices";
        const json& group = groups[g];
        r.only_keys(group, gpath, {"base", "set"});
        if (!group.contains("base")) r.fail(reader::join(gpath, "base"), "is required: presets or device files");
        std::vector<std::string> names;
        std::vector<std::vector<model::device_setting>> lists;
        if (group.contains("set")) {
            const json& set = group.at("set");
            if (!set.is_object()) r.fail(reader::join(gpath, "set"), "must be an object {PARAM: values}");
            for (auto it = set.begin(); it != set.end(); ++it) {
                const std::string ppath = reader::join(reader::join(gpath, "set"), it.key());
                std::string field;
                try {
                    field = model::device_setting_field(it.key(), "");
                } catch (const input_error& e) {
                    r.fail(ppath, e.rule());
                }
                std::vector<model::device_setting> values;
                for (double v : r.numbers(it.value(), ppath, false, true))
                    values.push_back({it.key(), field, v, it.key() + "=" + number_text(v)});
                names.push_back(it.key());
                lists.push_back(std::move(values));
                bool seen = false;
                for (const auto& a : s.device_axes) seen |= a == it.key();
                if (!seen) s.device_axes.push_back(it.key());
            }
        }
        const auto bases = r.texts(group.at("base"), reader::join(gpath, "base"));
        for (std::size_t b = 0; b < bases.size(); ++b) {
            const std::string& name = bases[b];
            const bool is_file = name.find('/') != std::string::npos || name.ends_with(".json");
            model::device base;
            try {
                base = model::resolve_device(is_file ? resolve(name) : name);
            } catch (const input_error& e) {
                r.fail(reader::index(reader::join(gpath, "base"), b), e.what());
            }
            for (const auto& combo : product(lists)) {
                if (combo.empty()) {
                    devices.push_back({base, name, {}});
                    continue;
                }
                const std::string set_path = reader::join(gpath, "set");
                std::string text;
                for (const auto& c : combo) text += (text.empty() ? "" : ", ") + c.text;
                devices.push_back({model::with_settings(
                                       base, combo, where + ": field " + set_path + " (" + text + " on " + name + ")"),
                                   name, combo});
            }
        }
    }

    // Algorithms, each with its parameters, sizes, seeds and counts modes.
    if (!j.contains("algorithms")) r.fail("algorithms", "is required: a list of {key, n, params, counts, seeds}");
    const json& algos = j.at("algorithms");
    if (!algos.is_array() || algos.empty())
        r.fail("algorithms", "must be a non-empty list of {key, n, params, counts, seeds}");
    std::set<std::string> seen;
    for (std::size_t a = 0; a < algos.size(); ++a) {
        const std::string apath = reader::index("algorithms", a);
        const json& entry = algos[a];
        r.only_keys(entry, apath, {"key", "n", "params", "counts", "seeds", "max_sim_seconds"});
        if (!entry.contains("key")) r.fail(reader::join(apath, "key"), "is required (agpu algos lists the keys)");
        const sim::algorithm* algo = nullptr;
        try {
            algo = &sim::find_algorithm(r.text(entry.at("key"), reader::join(apath, "key")));
        } catch (const input_error& e) {
            r.fail(reader::join(apath, "key"), e.rule());
        }
        std::vector<double> sizes;
        if (entry.contains("n")) sizes = r.numbers(entry.at("n"), reader::join(apath, "n"), true, false);
        else if (j.contains("n")) sizes = r.numbers(j.at("n"), "n", true, false);
        else sizes = {double(algo->spec.default_n)};
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            try {
                model::check_n(algo->spec, std::uint64_t(sizes[i]));
            } catch (const input_error& e) {
                r.fail(entry.contains("n") ? reader::join(apath, "n") : std::string("n"), e.rule());
            }
        }
        // Parameters: each name over its values; the settings of one combination parsed as --set would be.
        std::vector<std::vector<std::string>> settings_lists;
        if (entry.contains("params")) {
            const json& params = entry.at("params");
            if (!params.is_object()) r.fail(reader::join(apath, "params"), "must be an object {NAME: values}");
            for (auto it = params.begin(); it != params.end(); ++it) {
                std::vector<std::string> list;
                for (const auto& v : r.param_values(it.value(), reader::join(reader::join(apath, "params"), it.key())))
                    list.push_back(it.key() + "=" + v);
                settings_lists.push_back(std::move(list));
            }
        }
        std::vector<model::param_values> param_sets;
        for (const auto& combo : product(settings_lists)) {
            try {
                param_sets.push_back(model::parse_params(algo->spec, combo));
            } catch (const input_error& e) {
                // "option --set NAME": the field is params.NAME.
                std::string name = e.where();
                if (name.starts_with("option --set ")) name = name.substr(13);
                if (const auto eq = name.find('='); eq != std::string::npos) name = name.substr(0, eq);
                r.fail(reader::join(reader::join(apath, "params"), name), e.rule());
            }
        }
        std::vector<counts_mode> counts = default_counts;
        if (entry.contains("counts")) {
            counts.clear();
            for (const auto& t : r.texts(entry.at("counts"), reader::join(apath, "counts")))
                counts.push_back(parse_counts_mode(t, where + ": field " + reader::join(apath, "counts")));
        }
        const auto seeds = entry.contains("seeds")
                               ? r.numbers(entry.at("seeds"), reader::join(apath, "seeds"), true, false)
                               : default_seeds;
        const double limit =
            entry.contains("max_sim_seconds")
                ? r.number(entry.at("max_sim_seconds"), reader::join(apath, "max_sim_seconds"), false, false)
                : max_sim;
        for (const auto& params : param_sets)
            for (double n : sizes)
                for (const auto& dev : devices)
                    for (double seed : seeds)
                        for (auto mode : counts) {
                            point p;
                            p.device = dev.device;
                            p.device_base = dev.base;
                            p.settings = dev.settings;
                            p.algo = algo;
                            p.params = params;
                            p.n = std::uint64_t(n);
                            p.seed = std::uint64_t(seed);
                            p.counts = mode;
                            p.max_sim_seconds = limit;
                            if (!seen.insert(identity(p)).second) continue;
                            if (s.points.size() == max_points)
                                r.fail("", "expands to more than " + std::to_string(max_points) + " points");
                            s.points.push_back(std::move(p));
                        }
    }
    return s;
}

}  // namespace agpu::sweep
