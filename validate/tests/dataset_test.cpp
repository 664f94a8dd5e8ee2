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
