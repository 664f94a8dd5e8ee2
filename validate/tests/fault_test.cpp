// Faults while measuring, without a GPU: a fake backend stands in for the GPU
// and is interrupted (SIGINT, SIGTERM), fails (a CUDA error), or is killed
// mid-row; every finished run must stay in the dataset, the failure must be
// recorded in it, and --resume must complete the rest.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include "agpu/errors.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/suite.hpp"

namespace fs = std::filesystem;
namespace validate = agpu::validate;

namespace {

fs::path fresh_dir(const std::string& name) {
    const auto d = fs::temp_directory_path() / ("agpu_fault_test_" + name);
    fs::remove_all(d);
    return d;
}

// 3 entries x 2 sizes: 6 runs.
const validate::suite& test_suite() {
    static const validate::suite s{
        "fault-test",
        "runs for the fault tests",
        {1000, 2000},
        {{"micro/global-stride", {"stride=1"}}, {"micro/global-stride", {"stride=2"}}, {"micro/broadcast", {}}}};
    return s;
}

// Measures every run as a plain timed run; at run `raise_at` (1-based) it
// raises `sig` during the run, at run `fail_at` it throws a CUDA-style error.
class fake_gpu final : public validate::measure_backend {
public:
    int raise_at = 0, sig = SIGINT, fail_at = 0, calls = 0;
    std::string gpu_name() const override { return "NVIDIA H100 80GB HBM3"; }
    nlohmann::json machine() const override {
        return {{"gpu", {{"name", gpu_name()}}}, {"driver_version", 0}, {"cuda_runtime_version", 0}};
    }
    nlohmann::json clocks() const override { return {{"known", false}, {"note", "fake"}}; }
    std::vector<validate::measurement> measure(const agpu::model::device&, const std::string& algo, std::uint64_t n,
                                               const agpu::model::param_values& params,
                                               const validate::measure_options& opt) override {
        ++calls;
        if (calls == fail_at)
            throw agpu::device_error(700,
                                     "cudaDeviceSynchronize() failed at cuda_executor.cpp:31: "
                                     "cudaErrorIllegalAddress (700): an illegal memory access was encountered");
        if (calls == raise_at) std::raise(sig);
        const std::string ps = validate::params_string(params.all());
        const validate::measurement base{
            validate::make_run_id(algo, n, ps, opt.seed), algo, n, ps, opt.seed, "run", "", "", {}, "", ""};
        std::vector<validate::measurement> rows(3, base);
        rows[0].counter = "check", rows[0].value = 1.0, rows[0].unit = "passed";
        rows[1].counter = "time_ms", rows[1].value = 0.25, rows[1].unit = "ms";
        rows[2].counter = "complete", rows[2].value = 1.0, rows[2].unit = "flag";
        return rows;
    }
    nlohmann::json counters() const override { return nullptr; }
};

validate::suite_outcome run(fake_gpu& gpu, const fs::path& out, bool resume) {
    validate::measure_options opt;
    opt.counters = false;
    return validate::measure_suite(gpu, test_suite(), test_suite().default_sizes, out, resume, opt, "h100",
                                   "agpu validate --suite fault-test", [](const std::string&) {});
}

const nlohmann::json& last_session(const nlohmann::json& prov) { return prov["sessions"].back(); }

}  // namespace

TEST(Faults, InterruptedBySignalKeepsFinishedRunsAndResumeCompletes) {
    for (int sig : {SIGINT, SIGTERM}) {
        const auto dir = fresh_dir("signal" + std::to_string(sig));
        fake_gpu gpu;
        gpu.raise_at = 3;
        gpu.sig = sig;
        const auto o = run(gpu, dir, false);
        EXPECT_EQ(o.status, "interrupted");
        EXPECT_EQ(o.signal, sig);
        EXPECT_EQ(o.measured, 3u) << "the run in progress when the signal came is finished and kept";
        EXPECT_EQ(o.remaining, 3u);
        EXPECT_EQ(gpu.calls, 3) << "no run starts after the signal";
        const auto d = validate::read_dataset(dir);  // provenance and rows agree
        EXPECT_EQ(validate::completed_runs(d.rows).size(), 3u);
        EXPECT_EQ(last_session(d.provenance)["status"], "interrupted");
        EXPECT_EQ(last_session(d.provenance)["runs_measured"], 3);
        EXPECT_NE(last_session(d.provenance)["reason"].get<std::string>().find(sig == SIGINT ? "SIGINT" : "SIGTERM"),
                  std::string::npos);
        EXPECT_EQ(std::signal(sig, SIG_DFL), SIG_DFL) << "the default handler is back after the session";

        fake_gpu again;
        const auto r = run(again, dir, true);
        EXPECT_EQ(r.status, "complete");
        EXPECT_EQ(r.measured, 3u);
        EXPECT_EQ(again.calls, 3) << "--resume measures only the runs not complete";
        const auto whole = validate::read_dataset(dir);
        EXPECT_EQ(validate::completed_runs(whole.rows).size(), 6u);
        ASSERT_EQ(whole.provenance["sessions"].size(), 2u);
        EXPECT_EQ(last_session(whole.provenance)["runs_already_complete"], 3);
        EXPECT_EQ(last_session(whole.provenance)["status"], "complete");
    }
}

TEST(Faults, GpuErrorIsRecordedWithItsCodeAndResumeCompletes) {
    const auto dir = fresh_dir("gpu_error");
    fake_gpu gpu;
    gpu.fail_at = 2;
    try {
        run(gpu, dir, false);
        FAIL() << "the GPU error must reach the caller";
    } catch (const agpu::device_error& e) {
        EXPECT_EQ(e.code(), 700);
    }
    const auto d = validate::read_dataset(dir);
    EXPECT_EQ(validate::completed_runs(d.rows).size(), 1u) << "the run before the failure is kept";
    const auto& error = d.rows.back();
    EXPECT_EQ(error.counter, "error");
    EXPECT_EQ(error.value, 700.0) << "the error code, not a zero counter";
    EXPECT_NE(error.note.find("cudaErrorIllegalAddress (700)"), std::string::npos) << error.note;
    EXPECT_EQ(last_session(d.provenance)["status"], "failed");
    EXPECT_NE(last_session(d.provenance)["reason"].get<std::string>().find("illegal memory access"), std::string::npos);
    EXPECT_EQ(last_session(d.provenance)["runs_measured"], 1);

    fake_gpu again;
    EXPECT_EQ(run(again, dir, true).measured, 5u) << "the failed run is measured again, then the rest";
    EXPECT_EQ(validate::completed_runs(validate::read_dataset(dir).rows).size(), 6u);
}

TEST(Faults, RowCutShortByAKillIsRejectedThenDroppedByResume) {
    const auto dir = fresh_dir("torn");
    fake_gpu gpu;
    gpu.raise_at = 2;
    run(gpu, dir, false);
    // A kill in the middle of the next append leaves half a row.
    std::ofstream(dir / "measurements.csv", std::ios::app)
        << "agpu.measurements/1,micro/broadcast n=1000 seed=1,micro/bro";
    try {
        validate::read_dataset(dir);
        FAIL() << "a truncated file must be rejected";
    } catch (const agpu::input_error& e) {
        EXPECT_NE(std::string(e.what()).find("measurements.csv:8: the last row has no line end (truncated file?"),
                  std::string::npos)
            << e.what();
    }
    fake_gpu again;
    EXPECT_EQ(run(again, dir, true).measured, 4u);
    EXPECT_EQ(validate::completed_runs(validate::read_dataset(dir).rows).size(), 6u);
}

TEST(Faults, ProvenanceThatDoesNotMatchTheRowsIsRejected) {
    const auto dir = fresh_dir("mismatch");
    fake_gpu gpu;
    run(gpu, dir, false);
    auto prov = validate::read_provenance(dir);
    prov["sessions"][0]["runs_measured"] = 7;
    validate::write_provenance(dir, prov);
    try {
        validate::read_dataset(dir);
        FAIL() << "a provenance claiming 7 runs over 6 rows must be rejected";
    } catch (const agpu::input_error& e) {
        EXPECT_NE(std::string(e.what()).find("provenance.json: field sessions[0]: says 7 runs were complete"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("measurements.csv has 6"), std::string::npos) << e.what();
    }
}
