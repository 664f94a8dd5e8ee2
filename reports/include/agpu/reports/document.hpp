// A report as a value: sections of paragraphs, tables and charts (Vega-Lite
// specs with the rows behind them), and its renderings: one self-contained
// HTML page (the Vega, Vega-Lite and vega-embed builds inlined, so it opens
// offline), a Markdown summary with the same tables, and the CSV and JSON
// behind every chart. Rendering knows nothing about GPUs; the section
// builders (sections.hpp) know nothing about HTML.
#pragma once

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace agpu::reports {

inline constexpr const char* report_schema = "agpu.report/1";            // report.json
inline constexpr const char* report_data_schema = "agpu.report-data/1";  // data/<chart>.csv and .json

struct table {
    std::string id;  // unique in the report: data/<id>.csv
    std::string title;
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;  // each as wide as columns
};

struct chart {
    std::string id;  // unique in the report: data/<id>.csv, data/<id>.json
    std::string title;
    std::string caption;                            // what to read from it
    nlohmann::json rows = nlohmann::json::array();  // flat objects of numbers and strings: the data behind the chart
    nlohmann::json spec;  // a Vega-Lite spec without data; rendering puts the rows in data.values
};

struct paragraph {
    std::string text;  // plain text; `code` spans are rendered as code
};

using block = std::variant<paragraph, table, chart>;

struct section {
    std::string id;  // anchor
    std::string title;
    std::vector<block> blocks;

    void add(std::string text) { blocks.emplace_back(paragraph{std::move(text)}); }
    void add(table t) { blocks.emplace_back(std::move(t)); }
    void add(chart c) { blocks.emplace_back(std::move(c)); }
    std::vector<const table*> tables() const;
    std::vector<const chart*> charts() const;
};

struct document {
    std::string title;
    nlohmann::json meta = nlohmann::json::object();  // commit, date, inputs: shown at the top and in report.json
    std::vector<section> sections;
};

// The JavaScript the page inlines, read from an npm install (reports/web).
struct web_assets {
    std::string vega, vega_lite, vega_embed;
};
// node_modules of reports/web as configured at build time; AGPU_NODE_MODULES overrides it.
std::filesystem::path default_node_modules();
// Reads vega/build/vega.min.js, vega-lite/build/vega-lite.min.js and
// vega-embed/build/vega-embed.min.js. Throws input_error naming the missing
// file and saying to run scripts/setup.sh.
web_assets load_web_assets(const std::filesystem::path& node_modules);

// Checks what rendering relies on: ids unique and made of [a-z0-9-], rows as
// wide as columns, chart rows flat objects. Throws internal_error.
void check_document(const document& d);

std::string render_html(const document& d, const web_assets& js);
std::string render_markdown(const document& d);
// The rows of a chart as tidy CSV: a schema and a chart column, then the
// union of the rows' keys (in the rows' key order, which is sorted) (empty where a row lacks one).
std::string chart_csv(const chart& c);
std::string table_csv(const table& t);
// {schema, commit, chart, title, caption, spec, rows}: a chart's data and spec.
nlohmann::json chart_json(const chart& c, const std::string& commit = "");
// {schema, title, meta, sections: [{id, title, paragraphs, tables, charts: ids}]}.
nlohmann::json document_json(const document& d);

struct written_report {
    std::filesystem::path dir, index_html, summary_md;
    std::size_t charts = 0, tables = 0;
};
// Writes index.html, summary.md, report.json and data/<id>.{csv,json} for
// every chart and data/<id>.csv for every table into `out`, atomically: all
// of it goes to a fresh directory beside `out` that then replaces it, so a
// failure leaves `out` as it was. Throws input_error naming `out` when it
// cannot be written (or exists and is not a directory this command wrote).
written_report write_report(const document& d, const web_assets& js, const std::filesystem::path& out);
// The check write_report starts with, to run before the work of building a
// report: `out` is absent, empty, or a report agpu wrote. Throws input_error.
void check_report_dir(const std::filesystem::path& out);

}  // namespace agpu::reports
