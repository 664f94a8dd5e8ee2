// The data manifest: the repository's own tree agrees with it, and each kind
// of disagreement is found and named.
#include <gtest/gtest.h>

#include <fstream>

#include "agpu/errors.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/manifest.hpp"

namespace fs = std::filesystem;
namespace validate = agpu::validate;

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += x + "\n";
    return s;
}

// A repository with one dataset, its manifest and README, and no fit.
fs::path small_repository() {
    const auto root = fs::temp_directory_path() / "agpu_manifest_test";
    fs::remove_all(root);
    fs::create_directories(root / "model" / "fits");
    const auto data = root / "validate" / "data";
    const auto ds = data / "gpu" / "timing" / "micro";
    {
        validate::measurement_writer w(ds);
        const auto id = validate::make_run_id("micro/broadcast", 10, "", 1);
        w.append_run({{id, "micro/broadcast", 10, "", 1, "run", "", "complete", 1.0, "", ""}});
    }
    validate::write_provenance(ds, {{"schema", validate::provenance_schema},
                                    {"device_id", "h100"},
                                    {"gpu", {{"name", "GPU"}}},
                                    {"sessions",
                                     {{{"command_line", "agpu validate --suite micro --out DIR"},
                                       {"commit", "abc"},
                                       {"runs_already_complete", 0},
                                       {"runs_measured", 1},
                                       {"status", "complete"}}}}});
    validate::pack_dataset(ds);
    std::ofstream(root / "notes.md") << "reads gpu/timing/micro\n";
    std::ofstream(data / "manifest.json") << R"({"schema": "agpu.data-manifest/1", "datasets": {"gpu/timing/micro": )"
                                          << R"({"holds": "micro timings", "read_by": ["doc: notes.md"]}}})";
    std::ofstream(data / "README.md") << "# Data\n<!-- manifest table: agpu dataset manifest --write -->\n"
                                      << "<!-- end of manifest table -->\n";
    EXPECT_TRUE(validate::write_manifest_table(root));
    EXPECT_FALSE(validate::write_manifest_table(root)) << "a second write changes nothing";
    return root;
}

}  // namespace

TEST(Manifest, TreeAndManifestAgree) {
    const auto problems = validate::check_manifest(AGPU_SOURCE_DIR);
    EXPECT_TRUE(problems.empty()) << joined(problems)
                                  << "(agpu dataset manifest says the same; --write renders the table)";
}

TEST(Manifest, EachDisagreementIsNamed) {
    const auto root = small_repository();
    const auto data = root / "validate" / "data";
    ASSERT_TRUE(validate::check_manifest(root).empty()) << joined(validate::check_manifest(root));
    const std::string table = [&] {
        std::ifstream in(data / "README.md");
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    EXPECT_NE(table.find("| `gpu/timing/micro` | GPU | 1 | micro timings | doc: notes.md | "
                         "`agpu validate --suite micro --out DIR` | abc |"),
              std::string::npos)
        << table;

    // A dataset not listed, a file that is no dataset's, and a stale table.
    fs::copy(data / "gpu" / "timing" / "micro", data / "gpu" / "timing" / "scan");
    std::ofstream(data / "gpu" / "timing" / "micro" / "run.log") << "log\n";
    auto p = joined(validate::check_manifest(root));
    EXPECT_NE(p.find("validate/data/gpu/timing/scan: a dataset that manifest.json does not list"), std::string::npos)
        << p;
    EXPECT_NE(p.find("validate/data/gpu/timing/micro/run.log: not a dataset's file"), std::string::npos) << p;
    fs::remove_all(data / "gpu" / "timing" / "scan");
    fs::remove(data / "gpu" / "timing" / "micro" / "run.log");

    // A reader that does not name the dataset, and a listed dataset that is not there.
    std::ofstream(root / "notes.md") << "reads nothing\n";
    p = joined(validate::check_manifest(root));
    EXPECT_NE(p.find("gpu/timing/micro read by notes.md, which does not name it"), std::string::npos) << p;
    fs::remove_all(data / "gpu" / "timing" / "micro");
    p = joined(validate::check_manifest(root));
    EXPECT_NE(p.find("manifest.json lists gpu/timing/micro, which is not in validate/data"), std::string::npos) << p;
    EXPECT_NE(p.find("validate/data/README.md: the manifest table is out of date"), std::string::npos) << p;

    // A bad manifest is an input error naming the field and the rule.
    std::ofstream(data / "manifest.json") << R"({"schema": "agpu.data-manifest/1", "datasets": {"x": )"
                                          << R"({"holds": "x", "read_by": ["everyone"]}}})";
    try {
        validate::check_manifest(root);
        ADD_FAILURE() << "a read_by of no known kind was accepted";
    } catch (const agpu::input_error& e) {
        EXPECT_NE(std::string(e.what()).find("field datasets.x.read_by: 'everyone' is none of fit"), std::string::npos)
            << e.what();
    }
}
