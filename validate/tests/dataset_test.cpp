// Datasets: what is written reads back; interrupted runs are not complete; bad
// files are rejected naming file, line and rule.
#include <gtest/gtest.h>

#include <fstream>

#include "agpu/errors.hpp"
#include "agpu/validate/dataset.hpp"

namespace fs = std::filesystem;
namespace validate = agpu::validate;

namespace {

fs::path fresh_dir(const std::string& name) {
    const auto d = fs::temp_directory_path() / ("agpu_dataset_test_" + name);
    fs::remove_all(d);
    return d;
}

validate::measurement row(const std::string& launch, const std::string& counter, std::optional<double> v) {
    const std::string params = validate::params_string({{"stride", "2"}, {"op", "load"}});
    return {validate::make_run_id("micro/global-stride", 1000, params, 1),
            "micro/global-stride",
            1000,
            params,
            1,
            launch,
            "global_stride_load",
            counter,
            v,
            "sectors",
            "a note, with a comma"};
}

std::string error_of(const fs::path& dir) {
    try {
        validate::read_measurements(dir);
    } catch (const agpu::input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Dataset, RoundTripAndCompleteness) {
    const auto dir = fresh_dir("roundtrip");
    {
        validate::measurement_writer w(dir);
        w.append_run({row("0", "global_load_sectors", 250.0), row("0", "barrier_instructions", std::nullopt)});
    }
    auto rows = validate::read_measurements(dir);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].value, 250.0);
    EXPECT_FALSE(rows[1].value.has_value()) << "a missing metric reads back as missing, not zero";
    EXPECT_EQ(rows[0].note, "a note, with a comma");
    EXPECT_EQ(rows[0].params, "op=load;stride=2");
    EXPECT_TRUE(validate::completed_runs(rows).empty()) << "no complete row yet: the run was interrupted";
    {
        validate::measurement_writer w(dir);  // reopening appends
        w.append_run({row("run", "complete", 1.0)});
    }
    rows = validate::read_measurements(dir);
    EXPECT_EQ(rows.size(), 3u);
    EXPECT_EQ(validate::completed_runs(rows).size(), 1u);
}

TEST(Dataset, BadFilesNameFileLineAndRule) {
    const auto dir = fresh_dir("bad");
    validate::measurement_writer(dir).append_run({row("0", "global_load_sectors", 250.0)});
    const auto path = dir / "measurements.csv";
    std::string text;
    {
        std::ifstream in(path);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    auto write = [&](const std::string& t) { std::ofstream(path, std::ios::trunc) << t; };

    write(text.substr(0, text.size() - 30) + "\n");  // truncated
    EXPECT_NE(error_of(dir).find("measurements.csv:2: expected 12 columns"), std::string::npos) << error_of(dir);

    std::string bad_value = text;
    bad_value.replace(bad_value.find(",250,"), 5, ",2x0,");
    write(bad_value);
    EXPECT_NE(error_of(dir).find(":2: column value: must be a finite number or NA"), std::string::npos)
        << error_of(dir);

    std::string bad_id = text;
    bad_id.replace(bad_id.find("n=1000"), 6, "n=1001");
    write(bad_id);
    EXPECT_NE(error_of(dir).find("column run_id: does not match"), std::string::npos) << error_of(dir);

    std::string newer = text;
    newer.replace(newer.find("agpu.measurements/1,"), 20, "agpu.measurements/9,");
    write(newer);
    EXPECT_NE(error_of(dir).find("column schema: this agpu reads agpu.measurements/1"), std::string::npos);

    write("run,what\n");
    EXPECT_NE(error_of(dir).find("measurements.csv:1: the header must be"), std::string::npos);
}

TEST(Dataset, ProvenanceIsWrittenWholeAndChecked) {
    const auto dir = fresh_dir("prov");
    fs::create_directories(dir);
    EXPECT_THROW(validate::read_provenance(dir), agpu::input_error);
    validate::write_provenance(dir, {{"schema", validate::provenance_schema},
                                     {"device_id", "h100"},
                                     {"gpu", {{"name", "x"}}},
                                     {"sessions", nlohmann::json::array()}});
    EXPECT_FALSE(fs::exists(dir / "provenance.json.tmp"));
    EXPECT_EQ(validate::read_provenance(dir)["device_id"], "h100");
    validate::write_provenance(dir, {{"schema", "agpu.provenance/2"}});
    EXPECT_THROW(validate::read_provenance(dir), agpu::input_error);
}

namespace {

// A dataset of `runs` complete micro/global-stride runs (n = first, first + 1,
// ...) measured in one session that started and finished at `when`.
fs::path measured(const std::string& name, std::uint64_t first, std::size_t runs, const std::string& when,
                  const std::string& gpu = "GPU X", double sectors = 250.0) {
    const auto dir = fresh_dir(name);
    {
        validate::measurement_writer w(dir);
        for (std::size_t i = 0; i < runs; ++i) {
            const std::uint64_t n = first + i;
            const auto id = validate::make_run_id("micro/broadcast", n, "", 1);
            w.append_run(
                {{id, "micro/broadcast", n, "", 1, "0", "broadcast", "global_load_sectors", sectors, "sectors", ""},
                 {id, "micro/broadcast", n, "", 1, "run", "", "complete", 1.0, "", ""}});
        }
    }
    validate::write_provenance(dir, {{"schema", validate::provenance_schema},
                                     {"device_id", "h100"},
                                     {"suite", "micro"},
                                     {"gpu", {{"name", gpu}}},
                                     {"timing", {{"reps", runs}}},
                                     {"sessions",
                                      {{{"started", when},
                                        {"finished", when},
                                        {"status", "complete"},
                                        {"command_line", "agpu validate " + name},
                                        {"runs_already_complete", 0},
                                        {"runs_measured", runs}}}}});
    return dir;
}

}  // namespace

TEST(Dataset, PackedReadsBackTheSameRowsAndResumeUnpacks) {
    const auto dir = measured("pack", 100, 3, "2026-01-01T00:00:00Z");
    const auto plain = validate::read_measurements(dir);
    const auto r = validate::pack_dataset(dir);
    EXPECT_FALSE(r.already_packed);
    EXPECT_LT(r.packed_bytes, r.plain_bytes);
    EXPECT_FALSE(fs::exists(dir / "measurements.csv"));
    ASSERT_TRUE(fs::exists(dir / "measurements.csv.gz"));
    EXPECT_EQ(validate::measurements_file(dir).filename(), "measurements.csv.gz");
    const auto packed = validate::read_measurements(dir);
    ASSERT_EQ(packed.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(packed[i].run_id, plain[i].run_id);
    EXPECT_TRUE(validate::pack_dataset(dir).already_packed);

    // Packing twice gives the same bytes (no time in the gzip header).
    std::ifstream a(dir / "measurements.csv.gz", std::ios::binary);
    const std::string first((std::istreambuf_iterator<char>(a)), {});
    validate::unpack_dataset(dir);
    EXPECT_FALSE(fs::exists(dir / "measurements.csv.gz"));
    validate::pack_dataset(dir);
    std::ifstream b(dir / "measurements.csv.gz", std::ios::binary);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(b)), {}), first);

    // A writer (agpu validate --resume) appends to a packed dataset: it unpacks it first.
    validate::measurement_writer(dir).append_run({row("run", "complete", 1.0)});
    EXPECT_TRUE(fs::exists(dir / "measurements.csv"));
    EXPECT_FALSE(fs::exists(dir / "measurements.csv.gz"));
    EXPECT_EQ(validate::read_measurements(dir).size(), plain.size() + 1);
}

TEST(Dataset, BrokenPackedFilesAreRejectedByName) {
    const auto dir = measured("packbad", 100, 2, "2026-01-01T00:00:00Z");
    validate::pack_dataset(dir);
    std::string gz;
    {
        std::ifstream in(dir / "measurements.csv.gz", std::ios::binary);
        gz.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::ofstream(dir / "measurements.csv.gz", std::ios::binary | std::ios::trunc) << gz.substr(0, gz.size() / 2);
    EXPECT_NE(error_of(dir).find("measurements.csv.gz: the gzip data ends early"), std::string::npos) << error_of(dir);
    std::ofstream(dir / "measurements.csv.gz", std::ios::binary | std::ios::trunc) << "plain text";
    EXPECT_NE(error_of(dir).find("measurements.csv.gz: cannot decompress"), std::string::npos) << error_of(dir);
    std::ofstream(dir / "measurements.csv") << "x\n";
    EXPECT_NE(error_of(dir).find("holds both measurements.csv and measurements.csv.gz"), std::string::npos)
        << error_of(dir);
}

TEST(Dataset, MergeKeepsEverySessionAndEachRunsLatestMeasurement) {
    const auto older = measured("merge_old", 100, 4, "2026-01-01T00:00:00Z", "GPU X", 1.0);  // n 100..103
    const auto newer = measured("merge_new", 102, 3, "2026-02-01T00:00:00Z", "GPU X", 2.0);  // n 102..104
    validate::pack_dataset(newer);  // a packed input reads the same
    const auto out = fresh_dir("merge_out");
    const auto r = validate::merge_datasets({newer, older}, out, "agpu dataset merge --out x a b");
    EXPECT_EQ(r.runs, 5u);
    EXPECT_EQ(r.runs_replaced, 2u);
    const auto d = validate::read_dataset(out);
    EXPECT_TRUE(fs::exists(out / "measurements.csv.gz")) << "a merged dataset is packed";
    EXPECT_EQ(validate::completed_runs(d.rows).size(), 5u);
    for (const auto& m : d.rows)
        if (m.counter == "global_load_sectors") EXPECT_EQ(*m.value, m.n >= 102 ? 2.0 : 1.0) << m.run_id;
    const auto& s = d.provenance["sessions"];
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0]["started"], "2026-01-01T00:00:00Z") << "oldest first";
    EXPECT_EQ(s[0]["runs_measured"], 2);
    EXPECT_EQ(s[0]["runs_measured_again_later"], 2);
    EXPECT_EQ(s[1]["runs_already_complete"], 2);
    EXPECT_EQ(s[1]["runs_measured"], 3);
    EXPECT_EQ(s[0]["source"]["dataset"], older.string());
    EXPECT_EQ(s[0]["source"]["settings"]["timing"]["reps"], 4);
    EXPECT_EQ(d.provenance["merged"]["command_line"], "agpu dataset merge --out x a b");

    // Nothing is replaced: an existing --out, and datasets of two GPUs, are refused.
    EXPECT_THROW(validate::merge_datasets({older, newer}, out, ""), agpu::input_error);
    const auto other = measured("merge_other", 1, 1, "2026-03-01T00:00:00Z", "GPU Y");
    const auto out2 = fresh_dir("merge_out2");
    try {
        validate::merge_datasets({older, other}, out2, "");
        ADD_FAILURE() << "two GPUs merged";
    } catch (const agpu::input_error& e) {
        EXPECT_NE(std::string(e.what()).find("field gpu.name: is GPU Y"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out2));
    EXPECT_FALSE(fs::exists(fs::path(out2.string() + ".merging")));
}
