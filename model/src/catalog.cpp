#include "agpu/model/catalog.hpp"

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/json_text.hpp"
#include "embedded_devices.hpp"

namespace agpu::model {
namespace {

using json = nlohmann::json;

const json& raw_preset(const std::string& id) {
    static const std::map<std::string, json> raw = [] {
        std::map<std::string, json> m;
        for (const auto& f : detail::embedded_device_files())
            m.emplace(f.id, parse_json_text(f.text, "model/devices/" + std::string(f.id) + ".json"));
        return m;
    }();
    auto it = raw.find(id);
    if (it == raw.end()) {
        std::string known;
        for (const auto& [k, v] : raw) known += (known.empty() ? "" : ", ") + k;
        throw input_error("device " + id, "no such preset (known: " + known + ")");
    }
    return it->second;
}

const std::function<json(const std::string&)> base_resolver = [](const std::string& id) {
    const json& j = raw_preset(id);
    if (j.contains("base")) throw input_error("device " + id, "a base preset must not itself have a base");
    return j;
};

}  // namespace

const std::vector<device>& presets() {
    static const std::vector<device> all = [] {
        std::vector<device> v;
        for (const auto& f : detail::embedded_device_files()) {
            const std::string where = "model/devices/" + std::string(f.id) + ".json";
            device d = device_from_json(raw_preset(f.id), where, &base_resolver);
            if (d.id != f.id)
                throw input_error(where + ": field id", "must equal the file name (" + std::string(f.id) + ")");
            v.push_back(std::move(d));
        }
        return v;
    }();
    return all;
}

device load_device_file(const std::string& path) {
    return device_from_json(read_json_file(path, "device file"), path, &base_resolver);
}

device parse_device_text(const std::string& text, const std::string& where) {
    return device_from_json(parse_json_text(text, where), where, &base_resolver);
}

device resolve_device(const std::string& id_or_file) {
    const bool is_path =
        id_or_file.find('/') != std::string::npos || (id_or_file.size() > 5 && id_or_file.ends_with(".json"));
    if (is_path) return load_device_file(id_or_file);
    for (const auto& d : presets())
        if (d.id == id_or_file) return d;
    std::string known;
    for (const auto& d : presets()) known += (known.empty() ? "" : ", ") + d.id;
    throw input_error("device " + id_or_file, "no such preset and not a file path (presets: " + known + ")");
}

}  // namespace agpu::model
