#include "agpu/reports/document.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/reports/tidy.hpp"

#ifndef AGPU_NODE_MODULES_DIR
#define AGPU_NODE_MODULES_DIR ""
#endif

namespace agpu::reports {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::vector<const table*> section::tables() const {
    std::vector<const table*> out;
    for (const auto& b : blocks)
        if (const auto* t = std::get_if<table>(&b)) out.push_back(t);
    return out;
}

std::vector<const chart*> section::charts() const {
    std::vector<const chart*> out;
    for (const auto& b : blocks)
        if (const auto* c = std::get_if<chart>(&b)) out.push_back(c);
    return out;
}

// ---------------------------------------------------------------- assets

fs::path default_node_modules() {
    if (const char* env = std::getenv("AGPU_NODE_MODULES"); env && *env) return env;
    return AGPU_NODE_MODULES_DIR;
}

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

web_assets load_web_assets(const fs::path& node_modules) {
    auto one = [&](const char* rel) {
        const fs::path p = node_modules / rel;
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
            throw input_error(p.string(),
                              "missing (the report's JavaScript comes from npm: run scripts/setup.sh, "
                              "or point AGPU_NODE_MODULES at a node_modules with vega, vega-lite and "
                              "vega-embed)");
        return read_text(p);
    };
    return {one("vega/build/vega.min.js"), one("vega-lite/build/vega-lite.min.js"),
            one("vega-embed/build/vega-embed.min.js")};
}

// ---------------------------------------------------------------- checks

namespace {

bool good_id(const std::string& id) {
    if (id.empty()) return false;
    for (char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    return true;
}

}  // namespace

void check_document(const document& d) {
    std::set<std::string> ids;
    auto unique = [&](const std::string& kind, const std::string& id) {
        AGPU_CHECK(good_id(id), kind + " id '" + id + "' must be made of a-z, 0-9 and -");
        AGPU_CHECK(ids.insert(kind + ":" + id).second, kind + " id '" + id + "' is used twice");
    };
    for (const auto& s : d.sections) {
        unique("section", s.id);
        for (const auto* t : s.tables()) {
            unique("data", t->id);
            for (const auto& r : t->rows)
                AGPU_CHECK(r.size() == t->columns.size(), "table " + t->id + ": a row is not as wide as the columns");
        }
        for (const auto* c : s.charts()) {
            unique("data", c->id);
            AGPU_CHECK(c->rows.is_array(), "chart " + c->id + ": rows must be an array");
            AGPU_CHECK(c->spec.is_object(), "chart " + c->id + ": spec must be an object");
            for (const auto& r : c->rows) {
                AGPU_CHECK(r.is_object(), "chart " + c->id + ": a row is not an object");
                for (const auto& [k, v] : r.items())
                    AGPU_CHECK(v.is_primitive(), "chart " + c->id + ": field " + k + " is not a number or a string");
            }
        }
    }
}

// ---------------------------------------------------------------- CSV and JSON

namespace {

std::string csv_value(const json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return csv_field(v.get<std::string>());
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    return v.dump();
}

}  // namespace

std::string chart_csv(const chart& c) {
    std::vector<std::string> keys;
    std::set<std::string> seen;
    for (const auto& r : c.rows)
        for (const auto& [k, v] : r.items())
            if (seen.insert(k).second) keys.push_back(k);
    std::ostringstream os;
    os << "schema,chart";
    for (const auto& k : keys) os << ',' << csv_field(k);
    os << '\n';
    for (const auto& r : c.rows) {
        os << report_data_schema << ',' << c.id;
        for (const auto& k : keys) os << ',' << (r.contains(k) ? csv_value(r[k]) : "");
        os << '\n';
    }
    return os.str();
}

std::string table_csv(const table& t) {
    std::ostringstream os;
    os << "schema,table";
    for (const auto& c : t.columns) os << ',' << csv_field(c);
    os << '\n';
    for (const auto& r : t.rows) {
        os << report_data_schema << ',' << t.id;
        for (const auto& v : r) os << ',' << csv_field(v);
        os << '\n';
    }
    return os.str();
}

json chart_json(const chart& c, const std::string& commit) {
    return {{"schema", report_data_schema}, {"commit", commit}, {"chart", c.id}, {"title", c.title},
            {"caption", c.caption},         {"spec", c.spec},   {"rows", c.rows}};
}

json document_json(const document& d) {
    json sections = json::array();
    for (const auto& s : d.sections) {
        json paragraphs = json::array(), tables = json::array(), charts = json::array();
        for (const auto& b : s.blocks) {
            if (const auto* p = std::get_if<paragraph>(&b)) paragraphs.push_back(p->text);
            if (const auto* t = std::get_if<table>(&b))
                tables.push_back({{"id", t->id}, {"title", t->title}, {"columns", t->columns}, {"rows", t->rows}});
            if (const auto* c = std::get_if<chart>(&b))
                charts.push_back({{"id", c->id}, {"title", c->title}, {"data", "data/" + c->id + ".json"}});
        }
        sections.push_back(
            {{"id", s.id}, {"title", s.title}, {"paragraphs", paragraphs}, {"tables", tables}, {"charts", charts}});
    }
    return {{"schema", report_schema}, {"title", d.title}, {"meta", d.meta}, {"sections", sections}};
}

// ---------------------------------------------------------------- HTML

namespace {

std::string html_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// Plain text with `code` spans.
std::string html_text(const std::string& s) {
    std::string out;
    bool code = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '`') continue;
        out += html_escape(s.substr(start, i - start));
        out += code ? "</code>" : "<code>";
        code = !code;
        start = i + 1;
    }
    out += html_escape(s.substr(start));
    if (code) out += "</code>";  // an unclosed span: close it
    return out;
}

// Text inside <script>: "</" would end the element early. In JSON it only
// occurs inside strings, where "<\/" means the same.
std::string script_json(const json& j) {
    std::string s = j.dump();
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        out += s[i];
        if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') out += '\\';
    }
    return out;
}

std::string inline_script(const std::string& js, const char* name) {
    AGPU_CHECK(js.find("</script") == std::string::npos, std::string(name) + " holds </script and cannot be inlined");
    return "<script>/* " + std::string(name) + " */\n" + js + "\n</script>\n";
}

const char* page_style = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1180px;padding:0 1.5em 4em;color:#222;line-height:1.45}
h1{margin-top:1em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2.2em}
nav ol{columns:2}code{background:#f3f3f3;padding:0 .2em;border-radius:3px}
table{border-collapse:collapse;margin:1em 0;font-size:.88em}th,td{border:1px solid #ddd;padding:.25em .6em;text-align:right}
th{background:#f6f6f6}td.text,th.text{text-align:left}
figure{margin:1.5em 0}figcaption{font-size:.9em;color:#444;max-width:900px}.meta{font-size:.85em;color:#555}
.table-title{font-weight:600;margin-top:1.2em}#agpu-errors{color:#b00;white-space:pre-wrap}
)";

// Installed before anything else runs: counts errors (uncaught ones and
// console.error) into body[data-errors] so that a test can read them from the DOM.
const char* error_hook = R"(<script>
(function(){var errs=[];function note(m){errs.push(String(m));var b=document.body;if(b){b.setAttribute('data-errors',errs.length);var e=document.getElementById('agpu-errors');if(e)e.textContent=errs.join('\n');}}
window.agpuErrors=errs;var ce=console.error;console.error=function(){note(Array.prototype.join.call(arguments,' '));return ce.apply(console,arguments);};
window.addEventListener('error',function(ev){note('uncaught: '+ev.message);});window.addEventListener('unhandledrejection',function(ev){note('unhandled rejection: '+ev.reason);});})();
</script>
)";

// Embeds every chart; body[data-rendered] counts the views that produced an SVG.
const char* embed_script = R"(<script>
(function(){var specs=JSON.parse(document.getElementById('agpu-specs').textContent);var done=0;
document.body.setAttribute('data-charts',specs.length);document.body.setAttribute('data-rendered',0);
document.body.setAttribute('data-errors',window.agpuErrors.length);
specs.forEach(function(s){var el=document.getElementById('chart-'+s.id);
vegaEmbed(el,s.spec,{renderer:'svg',actions:{export:true,source:false,compiled:false,editor:false}}).then(function(){
if(el.querySelector('svg')){done++;document.body.setAttribute('data-rendered',done);}else{console.error('chart '+s.id+': no SVG');}
}).catch(function(e){console.error('chart '+s.id+': '+e);});});})();
</script>
)";

// Numbers (and ranges or percentages of them) align right, words left.
bool numeric(const std::string& v) {
    if (v.empty() || v == "-") return true;
    for (char c : v)
        if (!std::isdigit(static_cast<unsigned char>(c)) && !std::strchr(".-+e%^ xtoinf()", c)) return false;
    return std::isdigit(static_cast<unsigned char>(v.front())) || v.front() == '-';
}

void html_table(std::ostream& os, const table& t) {
    os << "<div class=\"table-title\" id=\"table-" << t.id << "\">" << html_text(t.title)
       << " <span class=\"meta\">(<a href=\"data/" << t.id << ".csv\">CSV</a>)</span></div>\n<table><thead><tr>";
    // A column aligns right when every cell of it is a number.
    std::vector<bool> right(t.columns.size(), true);
    for (const auto& r : t.rows)
        for (std::size_t i = 0; i < r.size(); ++i) right[i] = right[i] && numeric(r[i]);
    for (std::size_t i = 0; i < t.columns.size(); ++i)
        os << (right[i] ? "<th>" : "<th class=\"text\">") << html_text(t.columns[i]) << "</th>";
    os << "</tr></thead><tbody>\n";
    for (const auto& r : t.rows) {
        os << "<tr>";
        for (std::size_t i = 0; i < r.size(); ++i)
            os << (right[i] ? "<td>" : "<td class=\"text\">") << html_text(r[i]) << "</td>";
        os << "</tr>\n";
    }
    os << "</tbody></table>\n";
}

json full_spec(const chart& c) {
    json spec = c.spec;
    spec["$schema"] = "https://vega.github.io/schema/vega-lite/v6.json";
    spec["data"] = {{"values", c.rows}};
    if (!spec.contains("title")) spec["title"] = c.title;
    return spec;
}

}  // namespace

std::string render_html(const document& d, const web_assets& js) {
    check_document(d);
    std::ostringstream os;
    os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << html_escape(d.title)
       << "</title>\n<style>" << page_style << "</style>\n"
       << error_hook << inline_script(js.vega, "vega") << inline_script(js.vega_lite, "vega-lite")
       << inline_script(js.vega_embed, "vega-embed") << "</head>\n<body>\n<h1>" << html_escape(d.title) << "</h1>\n";
    // The header: the scalar facts in a few lines; the lists (dataset paths) folded below them.
    os << "<p class=\"meta\">";
    for (const auto& [k, v] : d.meta.items())
        if (!v.is_array())
            os << "<b>" << html_escape(k) << "</b>: " << html_escape(v.is_string() ? v.get<std::string>() : v.dump())
               << "<br>\n";
    os << "Data: <a href=\"summary.md\">summary.md</a>, <a href=\"report.json\">report.json</a>, and the CSV and JSON "
          "behind every chart in <a href=\"data/\">data/</a>.</p>\n";
    bool lists = false;
    for (const auto& [k, v] : d.meta.items()) {
        if (!v.is_array()) continue;
        if (!lists) os << "<details class=\"meta\"><summary>Datasets read</summary>\n";
        lists = true;
        os << "<p><b>" << html_escape(k) << "</b> (" << v.size() << ")</p><ul>\n";
        for (const auto& x : v) os << "<li>" << html_text(x.is_string() ? x.get<std::string>() : x.dump()) << "</li>\n";
        os << "</ul>\n";
    }
    if (lists) os << "</details>\n";
    os << "<pre id=\"agpu-errors\"></pre>\n";
    os << "<nav><ol>\n";
    for (const auto& s : d.sections) os << "<li><a href=\"#" << s.id << "\">" << html_text(s.title) << "</a></li>\n";
    os << "</ol></nav>\n";
    json specs = json::array();
    for (const auto& s : d.sections) {
        os << "<section id=\"" << s.id << "\"><h2>" << html_text(s.title) << "</h2>\n";
        for (const auto& b : s.blocks) {
            if (const auto* p = std::get_if<paragraph>(&b)) os << "<p>" << html_text(p->text) << "</p>\n";
            if (const auto* t = std::get_if<table>(&b)) html_table(os, *t);
            if (const auto* c = std::get_if<chart>(&b)) {
                os << "<figure><div class=\"chart\" id=\"chart-" << c->id << "\"></div><figcaption><b>"
                   << html_text(c->title) << ".</b> " << html_text(c->caption)
                   << " <span class=\"meta\">(<a href=\"data/" << c->id << ".csv\">CSV</a>, <a href=\"data/" << c->id
                   << ".json\">JSON</a>)</span></figcaption></figure>\n";
                specs.push_back({{"id", c->id}, {"spec", full_spec(*c)}});
            }
        }
        os << "</section>\n";
    }
    os << "<script type=\"application/json\" id=\"agpu-specs\">" << script_json(specs) << "</script>\n"
       << embed_script << "</body></html>\n";
    return os.str();
}

// ---------------------------------------------------------------- Markdown

namespace {

std::string md_cell(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

}  // namespace

std::string render_markdown(const document& d) {
    check_document(d);
    std::ostringstream os;
    os << "# " << d.title << "\n\n";
    for (const auto& [k, v] : d.meta.items()) {
        os << "- " << k << ":";
        if (v.is_array())
            for (const auto& x : v) os << "\n  - " << (x.is_string() ? x.get<std::string>() : x.dump());
        else os << ' ' << (v.is_string() ? v.get<std::string>() : v.dump());
        os << '\n';
    }
    os << "\nThe page with the charts is `index.html`; the data behind each chart is in `data/`.\n\n";
    for (const auto& s : d.sections) os << "1. [" << s.title << "](#" << s.id << ")\n";
    for (const auto& s : d.sections) {
        os << "\n## " << s.title << " {#" << s.id << "}\n\n";
        for (const auto& b : s.blocks) {
            if (const auto* p = std::get_if<paragraph>(&b)) os << p->text << "\n\n";
            if (const auto* t = std::get_if<table>(&b)) {
                os << "**" << t->title << "** ([CSV](data/" << t->id << ".csv))\n\n|";
                for (const auto& c : t->columns) os << ' ' << md_cell(c) << " |";
                os << "\n|";
                for (std::size_t i = 0; i < t->columns.size(); ++i) {
                    bool right = true;
                    for (const auto& r : t->rows) right = right && numeric(r[i]);
                    os << (right ? " ---: |" : " --- |");
                }
                os << '\n';
                for (const auto& r : t->rows) {
                    os << '|';
                    for (const auto& v : r) os << ' ' << md_cell(v) << " |";
                    os << '\n';
                }
                os << '\n';
            }
            if (const auto* c = std::get_if<chart>(&b))
                os << "*Chart: " << c->title << ".* " << c->caption << " Data: [CSV](data/" << c->id
                   << ".csv), [JSON](data/" << c->id << ".json) (" << c->rows.size() << " rows).\n\n";
        }
    }
    return os.str();
}

// ---------------------------------------------------------------- writing

namespace {

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    f.close();
    if (!f) throw input_error(p.string(), "cannot write the file");
}

std::string random_suffix() {
    std::random_device rd;
    std::ostringstream s;
    s << std::hex << rd() << rd();
    return s.str();
}

// A directory this command may replace: one it wrote (report.json present) or an empty one.
bool replaceable(const fs::path& out) {
    std::error_code ec;
    if (fs::is_regular_file(out / "report.json", ec)) return true;
    return fs::is_empty(out, ec) && !ec;
}

}  // namespace

void check_report_dir(const fs::path& out_in) {
    const fs::path out = fs::absolute(out_in).lexically_normal();
    const fs::path target = out.has_filename() ? out : out.parent_path();
    const std::string where = "option --out " + out_in.string();
    std::error_code ec;
    if (fs::exists(target, ec)) {
        if (!fs::is_directory(target, ec)) throw input_error(where, "exists and is not a directory");
        if (!replaceable(target))
            throw input_error(where,
                              "exists and is not a report agpu wrote (no report.json): choose another directory");
    }
}

written_report write_report(const document& d, const web_assets& js, const fs::path& out_in) {
    check_document(d);
    check_report_dir(out_in);
    const fs::path out = fs::absolute(out_in).lexically_normal();
    const fs::path parent = out.has_filename() ? out.parent_path() : out.parent_path().parent_path();
    const fs::path target = out.has_filename() ? out : out.parent_path();
    const std::string where = "option --out " + out_in.string();
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) throw input_error(where, "cannot create " + parent.string() + ": " + ec.message());

    const fs::path tmp = parent / ("." + target.filename().string() + ".tmp-" + random_suffix());
    try {
        fs::create_directories(tmp / "data");
        std::size_t charts = 0, tables = 0;
        for (const auto& s : d.sections) {
            for (const auto* c : s.charts()) {
                write_file(tmp / "data" / (c->id + ".csv"), chart_csv(*c));
                write_file(tmp / "data" / (c->id + ".json"), chart_json(*c, d.meta.value("commit", "")).dump(1) + "\n");
                ++charts;
            }
            for (const auto* t : s.tables()) {
                write_file(tmp / "data" / (t->id + ".csv"), table_csv(*t));
                ++tables;
            }
        }
        write_file(tmp / "index.html", render_html(d, js));
        write_file(tmp / "summary.md", render_markdown(d));
        write_file(tmp / "report.json", document_json(d).dump(1) + "\n");

        // Replace: the old report moves aside, the new one takes its name, the old one goes.
        fs::path old;
        if (fs::exists(target)) {
            old = parent / ("." + target.filename().string() + ".old-" + random_suffix());
            fs::rename(target, old);
        }
        try {
            fs::rename(tmp, target);
        } catch (...) {
            if (!old.empty()) fs::rename(old, target);
            throw;
        }
        if (!old.empty()) fs::remove_all(old, ec);
        return {target, target / "index.html", target / "summary.md", charts, tables};
    } catch (const fs::filesystem_error& e) {
        fs::remove_all(tmp, ec);
        throw input_error(where, std::string("cannot write the report: ") + e.what());
    } catch (...) {
        fs::remove_all(tmp, ec);
        throw;
    }
}

}  // namespace agpu::reports
