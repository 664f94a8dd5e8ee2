#include "agpu/validate/manifest.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/json_text.hpp"
#include "agpu/model/time_model.hpp"
#include "agpu/validate/dataset.hpp"

namespace agpu::validate {
namespace fs = std::filesystem;
namespace {

const char* table_begin = "<!-- manifest table: agpu dataset manifest --write -->";
const char* table_end = "<!-- end of manifest table -->";

// The files a dataset directory may hold.
// timing.json: the device timing agpu calibrate derives beside its dataset.
const std::set<std::string> dataset_files = {"provenance.json", "measurements.csv", "measurements.csv.gz",
                                             "sampled.csv", "timing.json"};

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw input_error(p.string(), "cannot open");
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string string_field(const nlohmann::json& j, const std::string& where, const char* key) {
    if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
        throw input_error(where + "." + key, "is required: a non-empty string");
    return j[key].get<std::string>();
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// "test: FILE" / "doc: FILE" -> FILE; "" for the other kinds.
std::string file_of(const std::string& reader) {
    for (const char* kind : {"test: ", "doc: "})
        if (starts_with(reader, kind)) return reader.substr(std::string(kind).size());
    return "";
}

std::string cell(std::string s) {
    std::string out;
    for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
    return out;
}

// The commands and commits of a dataset's provenance, in session order, each once.
void made_by(const nlohmann::json& prov, std::vector<std::string>& commands, std::vector<std::string>& commits) {
    auto add = [](std::vector<std::string>& v, const std::string& s) {
        if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
    };
    if (!prov.is_object()) return;
    if (prov.contains("sessions") && prov["sessions"].is_array()) {
        for (const auto& s : prov["sessions"]) {
            add(commands, s.value("command_line", ""));
            add(commits, s.value("commit", ""));
        }
    } else {
        add(commands, prov.value("command", ""));
        add(commits, prov.value("agpu_version", ""));
    }
    if (prov.contains("merged") && prov["merged"].is_object()) add(commands, prov["merged"].value("command_line", ""));
}

}  // namespace

manifest read_manifest(const fs::path& file) {
    const auto j = model::parse_json_text(read_text(file), file.string());
    const std::string where = file.string() + ": field ";
    if (!j.is_object() || j.value("schema", "") != manifest_schema)
        throw input_error(where + "schema", std::string("must be \"") + manifest_schema + "\"");
    for (const auto& [k, v] : j.items())
        if (k != "schema" && k != "datasets" && k != "removed")
            throw input_error(where + k, "unknown field (known: schema, datasets, removed)");
    if (!j.contains("datasets") || !j["datasets"].is_object())
        throw input_error(where + "datasets", "is required: an object from path to entry");
    manifest m;
    for (const auto& [path, e] : j["datasets"].items()) {
        const std::string w = where + "datasets." + path;
        if (!e.is_object()) throw input_error(w, "must be an object");
        for (const auto& [k, v] : e.items())
            if (k != "holds" && k != "read_by") throw input_error(w + "." + k, "unknown field (known: holds, read_by)");
        manifest_entry me{path, string_field(e, w, "holds"), {}};
        if (!e.contains("read_by") || !e["read_by"].is_array() || e["read_by"].empty())
            throw input_error(w + ".read_by",
                              "is required: a non-empty list (fit, fit-check, report, test: FILE, doc: FILE)");
        for (const auto& r : e["read_by"]) {
            if (!r.is_string()) throw input_error(w + ".read_by", "must hold strings");
            const auto s = r.get<std::string>();
            if (s != "fit" && s != "fit-check" && s != "report" && file_of(s).empty())
                throw input_error(w + ".read_by",
                                  "'" + s + "' is none of fit, fit-check, report, test: FILE, doc: FILE");
            me.read_by.push_back(s);
        }
        m.datasets.push_back(std::move(me));
    }
    if (j.contains("removed")) {
        const auto& r = j["removed"];
        if (!r.is_object()) throw input_error(where + "removed", "must be an object {last_commit, paths}");
        for (const auto& [k, v] : r.items())
            if (k != "last_commit" && k != "paths")
                throw input_error(where + "removed." + k, "unknown field (known: last_commit, paths)");
        m.removed_commit = string_field(r, where + "removed", "last_commit");
        if (!r.contains("paths") || !r["paths"].is_array())
            throw input_error(where + "removed.paths", "is required: a list of paths");
        for (const auto& p : r["paths"]) {
            if (!p.is_string()) throw input_error(where + "removed.paths", "must hold strings");
            m.removed.push_back(p.get<std::string>());
        }
    }
    return m;
}

std::vector<std::string> datasets_in_tree(const fs::path& data_root) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(data_root, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (ec) throw input_error(data_root.string(), "cannot list: " + ec.message());
        if (it->is_regular_file() && it->path().filename() == "provenance.json")
            out.push_back(fs::relative(it->path().parent_path(), data_root).generic_string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string render_manifest_table(const manifest& m, const fs::path& data_root) {
    std::ostringstream os;
    os << "| dataset | GPU | runs | holds | read by | made by | commits |\n"
       << "| --- | --- | ---: | --- | --- | --- | --- |\n";
    std::vector<manifest_entry> sorted = m.datasets;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    for (const auto& e : sorted) {
        const fs::path dir = data_root / e.path;
        nlohmann::json prov;
        std::string gpu = "-", runs = "-";
        if (fs::is_regular_file(dir / "provenance.json")) {
            prov = model::parse_json_text(read_text(dir / "provenance.json"), (dir / "provenance.json").string());
            if (prov.contains("gpu") && prov["gpu"].is_object()) gpu = prov["gpu"].value("name", "-");
            else if (prov.contains("host") && prov["host"].is_object())
                gpu = "host: " + prov["host"].value("cpu", "CPU");
            if (is_dataset_dir(dir)) runs = std::to_string(completed_runs(read_measurements(dir)).size());
            else if (prov.contains("rows") && prov["rows"].is_array()) runs = std::to_string(prov["rows"].size());
        }
        std::vector<std::string> commands, commits;
        made_by(prov, commands, commits);
        std::string cmd, com, readers;
        for (const auto& c : commands) cmd += (cmd.empty() ? "" : "<br>") + ("`" + cell(c) + "`");
        for (const auto& c : commits) com += (com.empty() ? "" : ", ") + cell(c);
        for (const auto& r : e.read_by) readers += (readers.empty() ? "" : "; ") + cell(r);
        os << "| `" << e.path << "` | " << cell(gpu) << " | " << runs << " | " << cell(e.holds) << " | " << readers
           << " | " << (cmd.empty() ? "-" : cmd) << " | " << (com.empty() ? "-" : com) << " |\n";
    }
    if (!m.removed.empty())
        os << "\n"
           << m.removed.size() << " other datasets and files left the tree; the last commit that holds them is `"
           << m.removed_commit << "` (`git show " << m.removed_commit
           << ":validate/data/PATH`), manifest.json lists them.\n";
    return os.str();
}

namespace {

// The README's text with its table replaced by `table`; throws where the markers are missing.
std::string with_table(const std::string& readme, const std::string& table, const std::string& where) {
    const auto b = readme.find(table_begin);
    const auto e = readme.find(table_end);
    if (b == std::string::npos || e == std::string::npos || e < b)
        throw input_error(where, std::string("needs the markers ") + table_begin + " and " + table_end +
                                     " around the manifest table");
    const auto start = b + std::string(table_begin).size();
    return readme.substr(0, start) + "\n" + table + readme.substr(e);
}

}  // namespace

std::vector<std::string> check_manifest(const fs::path& root) {
    const fs::path data_root = root / "validate" / "data";
    const fs::path readme = data_root / "README.md";
    const auto m = read_manifest(data_root / "manifest.json");
    std::vector<std::string> out;

    const auto in_tree = datasets_in_tree(data_root);
    std::set<std::string> listed;
    for (const auto& e : m.datasets) listed.insert(e.path);
    for (const auto& d : in_tree)
        if (!listed.count(d)) out.push_back("validate/data/" + d + ": a dataset that manifest.json does not list");
    for (const auto& d : listed)
        if (!std::count(in_tree.begin(), in_tree.end(), d))
            out.push_back("manifest.json lists " + d + ", which is not in validate/data");

    // Nothing else in the data folders.
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(data_root, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        const auto rel = fs::relative(it->path(), data_root).generic_string();
        if (rel == "README.md" || rel == "manifest.json") continue;
        const auto dir = fs::relative(it->path().parent_path(), data_root).generic_string();
        if (!listed.count(dir) || !dataset_files.count(it->path().filename().string()))
            out.push_back("validate/data/" + rel +
                          ": not a dataset's file (a dataset holds provenance.json and "
                          "measurements.csv[.gz] or sampled.csv, and a calibration its timing.json; logs, scripts "
                          "and notes stay out of the data)");
    }

    // The fits' datasets carry "fit" / "fit-check", and only they do.
    std::set<std::string> fit, check;
    for (const auto& e : fs::directory_iterator(root / "model" / "fits", ec)) {
        if (e.path().extension() != ".json") continue;
        const auto f = model::load_fit_file(e.path().string());
        for (const auto& d : f.datasets) fit.insert(d);
        for (const auto& d : f.check_datasets) check.insert(d);
    }
    for (const auto& e : m.datasets) {
        const std::string full = "validate/data/" + e.path;
        const bool says_fit = std::count(e.read_by.begin(), e.read_by.end(), "fit") > 0;
        const bool says_check = std::count(e.read_by.begin(), e.read_by.end(), "fit-check") > 0;
        if (says_fit != bool(fit.count(full)))
            out.push_back("manifest.json: " + e.path +
                          (says_fit ? " says the fit reads it; model/fits does not list it"
                                    : " is a dataset of the fit (model/fits) without read_by fit"));
        if (says_check != bool(check.count(full)))
            out.push_back("manifest.json: " + e.path +
                          (says_check ? " says the fit is checked on it; model/fits does not list it"
                                      : " is a check dataset of the fit (model/fits) without read_by fit-check"));
        for (const auto& r : e.read_by) {
            const auto file = file_of(r);
            if (file.empty()) continue;
            if (!fs::is_regular_file(root / file)) {
                out.push_back("manifest.json: " + e.path + " read by " + file + ", which does not exist");
            } else if (read_text(root / file).find(e.path) == std::string::npos) {
                out.push_back("manifest.json: " + e.path + " read by " + file + ", which does not name it");
            }
        }
    }
    const std::string prefix = "validate/data/";
    for (const auto* set : {&fit, &check})
        for (const auto& d : *set)
            if (!starts_with(d, prefix) || !listed.count(d.substr(prefix.size())))
                out.push_back("model/fits names " + d + ", which manifest.json does not list");

    // The README's table is the manifest's.
    const std::string text = read_text(readme);
    if (with_table(text, render_manifest_table(m, data_root), readme.string()) != text)
        out.push_back("validate/data/README.md: the manifest table is out of date (agpu dataset manifest --write)");
    return out;
}

bool write_manifest_table(const fs::path& root) {
    const fs::path data_root = root / "validate" / "data";
    const fs::path readme = data_root / "README.md";
    const auto m = read_manifest(data_root / "manifest.json");
    const std::string text = read_text(readme);
    const std::string updated = with_table(text, render_manifest_table(m, data_root), readme.string());
    if (updated == text) return false;
    write_file_atomically(readme, updated);
    return true;
}

}  // namespace agpu::validate
