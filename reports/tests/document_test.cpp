#include "agpu/reports/document.hpp"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "agpu/errors.hpp"

namespace agpu::reports {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

document small_document() {
    document d;
    d.title = "test report";
    d.meta = {{"commit", "abc"}};
    section s{"first", "First section", {}};
    s.add("Some `code` and <b>markup</b> to escape.");
    table t;
    t.id = "t1";
    t.title = "A table";
    t.columns = {"name", "value"};
    t.rows = {{"a|b", "1"}, {"c,d", "2"}};
    s.add(t);
    chart c;
    c.id = "c1";
    c.title = "A chart";
    c.caption = "caption";
    c.rows = json::array({{{"x", 1}, {"y", 2.5}, {"label", "</script>"}}, {{"x", 2}, {"z", "q\"uote"}}});
    c.spec = {{"mark", "point"}, {"encoding", {{"x", {{"field", "x"}, {"type", "quantitative"}}}}}};
    s.add(c);
    d.sections.push_back(s);
    return d;
}

web_assets fake_js() { return {"var vega={};", "var vegaLite={};", "function vegaEmbed(){}"}; }

TEST(Document, HtmlInlinesScriptsAndEscapes) {
    const auto html = render_html(small_document(), fake_js());
    EXPECT_NE(html.find("var vega={};"), std::string::npos);
    EXPECT_NE(html.find("function vegaEmbed(){}"), std::string::npos);
    EXPECT_NE(html.find("<div class=\"chart\" id=\"chart-c1\">"), std::string::npos);
    EXPECT_NE(html.find("<code>code</code>"), std::string::npos);
    EXPECT_NE(html.find("&lt;b&gt;markup&lt;/b&gt;"), std::string::npos);
    // The data's "</script>" cannot end the specs' element early.
    EXPECT_EQ(html.find("\"</script>"), std::string::npos);
    EXPECT_NE(html.find("<\\/script>"), std::string::npos);
    EXPECT_NE(html.find("\"values\":[{\"label\""), std::string::npos);
    EXPECT_NE(html.find("href=\"data/c1.csv\""), std::string::npos);
}

TEST(Document, ScriptThatWouldEndItsElementIsRefused) {
    web_assets js = fake_js();
    js.vega = "x='</script>'";
    EXPECT_THROW(render_html(small_document(), js), internal_error);
}

TEST(Document, ChartCsvIsTidyWithSchema) {
    const auto d = small_document();
    const auto& c = std::get<chart>(d.sections[0].blocks[2]);
    EXPECT_EQ(chart_csv(c),
              "schema,chart,label,x,y,z\n"
              "agpu.report-data/1,c1,</script>,1,2.5,\n"
              "agpu.report-data/1,c1,,2,,\"q\"\"uote\"\n");
    const auto j = chart_json(c);
    EXPECT_EQ(j["schema"], report_data_schema);
    EXPECT_EQ(j["rows"].size(), 2u);
}

TEST(Document, MarkdownHasTheTables) {
    const auto md = render_markdown(small_document());
    EXPECT_NE(md.find("| name | value |\n| --- | ---: |\n| a\\|b | 1 |\n| c,d | 2 |\n"), std::string::npos) << md;
    EXPECT_NE(md.find("[CSV](data/c1.csv)"), std::string::npos);
    EXPECT_NE(md.find("## First section {#first}"), std::string::npos);
}

TEST(Document, DuplicateOrBadIdsAreBugs) {
    auto d = small_document();
    d.sections.push_back(d.sections[0]);
    EXPECT_THROW(check_document(d), internal_error);
    auto e = small_document();
    e.sections[0].id = "Bad Id";
    EXPECT_THROW(check_document(e), internal_error);
    auto f = small_document();
    std::get<table>(f.sections[0].blocks[1]).rows.push_back({"only one"});
    EXPECT_THROW(check_document(f), internal_error);
}

fs::path scratch(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("agpu-document-test-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(p);
    return p;
}

TEST(Document, WritesEveryFileAndReplacesAnOldReport) {
    const auto dir = scratch("write");
    auto w = write_report(small_document(), fake_js(), dir);
    EXPECT_EQ(w.charts, 1u);
    EXPECT_EQ(w.tables, 1u);
    for (const char* f : {"index.html", "summary.md", "report.json", "data/c1.csv", "data/c1.json", "data/t1.csv"})
        EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
    std::ofstream(dir / "stale.txt") << "from an older report";
    w = write_report(small_document(), fake_js(), dir);
    EXPECT_FALSE(fs::exists(dir / "stale.txt"));
    EXPECT_TRUE(fs::is_regular_file(dir / "index.html"));
    std::ifstream rj(dir / "report.json");
    EXPECT_EQ(json::parse(rj)["schema"], report_schema);
    // Nothing left beside it.
    std::size_t siblings = 0;
    for (const auto& e : fs::directory_iterator(dir.parent_path()))
        siblings += e.path().filename().string().find(dir.filename().string()) != std::string::npos;
    EXPECT_EQ(siblings, 1u);
    fs::remove_all(dir);
}

TEST(Document, RefusesToReplaceWhatItDidNotWrite) {
    const auto dir = scratch("foreign");
    fs::create_directories(dir);
    std::ofstream(dir / "thesis.tex") << "precious";
    try {
        write_report(small_document(), fake_js(), dir);
        FAIL() << "no error";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("is not a report agpu wrote"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fs::is_regular_file(dir / "thesis.tex"));
    fs::remove_all(dir);
}

TEST(Document, FailureLeavesTheOldReport) {
    const auto dir = scratch("fail");
    write_report(small_document(), fake_js(), dir);
    web_assets bad = fake_js();
    bad.vega_embed = "</script>";
    EXPECT_THROW(write_report(small_document(), bad, dir), internal_error);
    EXPECT_TRUE(fs::is_regular_file(dir / "index.html"));
    std::size_t siblings = 0;
    for (const auto& e : fs::directory_iterator(dir.parent_path()))
        siblings += e.path().filename().string().find(dir.filename().string()) != std::string::npos;
    EXPECT_EQ(siblings, 1u);
    fs::remove_all(dir);
}

TEST(Document, MissingJavaScriptSaysRunSetup) {
    try {
        load_web_assets("/nonexistent/node_modules");
        FAIL() << "no error";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("vega.min.js"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("run scripts/setup.sh"), std::string::npos);
    }
}

}  // namespace
}  // namespace agpu::reports
