// The derivation of a device's time constants (calibrate.hpp) on synthetic
// calibrate datasets, written row by row as agpu validate writes them, from
// known constants: each constant's arithmetic (slopes, medians, per SM and
// clock), the fallbacks (no counters, no in-run clock), and the errors of a
// dataset that lacks a probe.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "agpu/errors.hpp"
#include "agpu/model/sass.hpp"
#include "agpu/validate/calibrate.hpp"
#include "agpu/validate/dataset.hpp"

namespace fs = std::filesystem;
namespace validate = agpu::validate;
namespace shape = agpu::model::probe_shape;

namespace {

constexpr double sms = 132;
constexpr double nvml_mhz = 1980, in_run_mhz = 1800;

// The device the synthetic dataset is measured on.
struct truth {
    double launch_us = 2.5, block_clocks = 40;
    double read_gbs = 3000, write_gbs = 2800, copy_gbs = 2600, l2_gbs = 6000;
    double dram_latency = 800, l2_latency = 260;
    double wavefronts = 0.98, atomics = 0.75;
    double dependent = 4, dependent_iadd3 = 2, shuffle = 23, barrier = 18;
    // Per issue probe: the rate of its measured opcode (warp-instructions per SM per clock).
    std::map<std::string, double> op_rate = {{"ffma", 3.9},     {"fadd", 3.8},  {"imad", 1.9},  {"iadd3", 1.95},
                                             {"lop3", 1.97},    {"dfma", 1.0},  {"mufu", 0.49}, {"i2f", 0.24},
                                             {"hfma2", 1.9},    {"shfl", 0.98}, {"viadd", 1.5}, {"vimnmx", 1.8},
                                             {"viaddmnmx", 0.9}};
    bool in_run_clock = true;         // probes record sm_clock_mhz
    bool pipe_counters = false;       // inst_pipe_* and warp_instructions rows
    double pipe_counter_scale = 1;    // counters = static counts x this (to see that they are read)
    std::set<std::string> leave_out;  // probes ("probe/atomic", or "probe/chase space=l2") not measured
    std::set<std::string> failing;    // probes whose runs failed their check
};

double clock_hz(const truth& t) { return (t.in_run_clock ? in_run_mhz : nvml_mhz) * 1e6; }

// A probe's SASS counts of one iteration, by pipe and in all.
std::map<std::string, double> pipe_counts(const std::string& op) {
    const auto& p = shape::find_issue_probe(op);
    std::map<std::string, double> out;
    for (const auto& c : p.loop)
        if (c.count) {
            out[std::string(agpu::model::to_string(agpu::model::pipe_of(c.opcode)))] += double(c.count) / p.unroll;
            out["all"] += double(c.count) / p.unroll;
            // fp16: the HFMA2 of op=hfma2 (on sm_90's fma pipe; CUPTI counts no fp16 pipe).
            if (op == "hfma2" && c.opcode == "HFMA2") out["fp16"] += double(c.count) / p.unroll;
        }
    return out;
}
double opcode_count(const std::string& op) {
    const auto& p = shape::find_issue_probe(op);
    double n = 0;
    for (const auto& c : p.loop)
        if (c.opcode == p.opcode || (op == "i2f" && c.opcode == "F2I")) n += double(c.count) / p.unroll;
    return n;
}

class synthetic {
public:
    explicit synthetic(const std::string& name) : m_dir(fs::temp_directory_path() / ("agpu_calibrate_test_" + name)) {
        fs::remove_all(m_dir);
    }
    const fs::path& dir() const { return m_dir; }

    struct launch {
        std::string kernel;
        double ms;
        std::map<std::string, double> counters = {};
    };
    void run(const std::string& algo, std::uint64_t n, const std::map<std::string, std::string>& params,
             const std::vector<launch>& launches, const std::map<std::string, double>& values, bool passed) {
        const std::string ps = validate::params_string(params);
        const std::string id = validate::make_run_id(algo, n, ps, 1);
        std::vector<validate::measurement> rows;
        auto row = [&](std::string l, std::string k, std::string c, double v, std::string unit) {
            rows.push_back({id, algo, n, ps, 1, std::move(l), std::move(k), std::move(c), v, std::move(unit), ""});
        };
        row("run", "", "check", passed ? 1 : 0, "passed");
        double total = 0;
        for (std::size_t i = 0; i < launches.size() && passed; ++i) {
            row(std::to_string(i), launches[i].kernel, "time_ms", launches[i].ms, "ms");
            for (const auto& [c, v] : launches[i].counters) row(std::to_string(i), launches[i].kernel, c, v, "count");
            total += launches[i].ms;
        }
        if (passed) {
            row("run", "", "time_ms", total, "ms");
            for (const auto& [name, v] : values) row("run", "", name, v, name == "sm_clock_mhz" ? "MHz" : "clocks");
        }
        row("run", "", "complete", 1, "flag");
        validate::measurement_writer(m_dir).append_run(rows);
        ++m_runs;
    }
    void finish() {
        validate::write_provenance(
            m_dir, {{"schema", validate::provenance_schema},
                    {"suite", "calibrate"},
                    {"device_id", "h100"},
                    {"gpu", {{"name", "NVIDIA H100 80GB HBM3"}, {"sm_count", sms}, {"max_sm_clock_mhz", 1980}}},
                    {"driver_version", 13000},
                    {"sessions",
                     {{{"commit", "abc"},
                       {"started", "2026-12-01T10:00:00Z"},
                       {"finished", "2026-12-01T10:01:30Z"},
                       {"command_line", "agpu calibrate --out DIR"},
                       {"clocks_before", {{"known", true}, {"sm_mhz", nvml_mhz}, {"mem_mhz", 2619}}},
                       {"clocks_after", {{"known", true}, {"sm_mhz", nvml_mhz}, {"mem_mhz", 2619}}},
                       {"runs_already_complete", 0},
                       {"runs_measured", m_runs},
                       {"status", "complete"}}}}});
    }

private:
    fs::path m_dir;
    std::size_t m_runs = 0;
};

// Writes a calibrate dataset of a device with the constants of `t`; each
// rate's time has a constant part, which the slopes must leave out.
fs::path write_dataset(const std::string& name, const truth& t) {
    synthetic d(name);
    const double f = clock_hz(t);
    const std::map<std::string, double> clock = {{"sm_clock_mhz", f / 1e6}};
    const std::map<std::string, double> none;
    auto wanted = [&](const std::string& label) { return !t.leave_out.count(label); };
    auto passed = [&](const std::string& label) { return !t.failing.count(label); };
    auto ms = [](double seconds) { return seconds * 1e3; };

    if (wanted("probe/launch"))
        for (std::uint64_t n : {100, 200, 400}) {
            std::vector<synthetic::launch> l(n, {"probe_launch", t.launch_us * 1e-3});
            d.run("probe/launch", n, {}, l, none, passed("probe/launch"));
        }
    if (wanted("probe/blocks"))
        for (std::uint64_t n : {1 << 16, 1 << 18, 1 << 20})
            d.run("probe/blocks", n, {{"threads", "32"}},
                  {{"probe_blocks", ms(3e-6 + double(n) * t.block_clocks / (sms * f))}}, none, passed("probe/blocks"));
    for (const auto& [op, kernel, gbs, bytes] :
         std::vector<std::tuple<std::string, std::string, double, double>>{{"read", "stream_read", t.read_gbs, 4},
                                                                           {"write", "stream_write", t.write_gbs, 4},
                                                                           {"copy", "stream_copy", t.copy_gbs, 8}}) {
        const std::string label = "probe/stream op=" + op;
        if (!wanted(label)) continue;
        for (std::uint64_t n : {1 << 25, 1 << 26, 1 << 27}) {
            std::vector<synthetic::launch> l;
            if (op != "write") l.push_back({"fill", 0.1});
            l.push_back({kernel, ms(5e-6 + bytes * double(n) / (gbs * 1e9))});
            if (op != "read") l.push_back({"check_sum", 0.2});
            d.run("probe/stream", n, {{"op", op}}, l, none, passed(label));
        }
    }
    if (wanted("probe/l2"))
        for (std::uint64_t n : {std::uint64_t(1) << 30, std::uint64_t(1) << 31, std::uint64_t(1) << 32})
            d.run("probe/l2", n, {{"footprint", "8388608"}},
                  {{"fill", 0.01}, {"l2_read", ms(4e-6 + double(n) / (t.l2_gbs * 1e9))}}, none, passed("probe/l2"));
    for (const auto& [space, clocks, n] : std::vector<std::tuple<std::string, double, std::uint64_t>>{
             {"dram", t.dram_latency, 8192}, {"l2", t.l2_latency, 16384}}) {
        const std::string label = "probe/chase space=" + space;
        if (!wanted(label)) continue;
        d.run("probe/chase", n, {{"space", space}}, {{"chase_link", 0.01}, {"chase", 1.0}},
              {{"clocks_per_load", clocks}}, passed(label));
    }
    if (wanted("probe/shared"))
        for (unsigned ways : {1u, 2u, 4u, 8u, 16u, 32u})
            for (std::uint64_t n : {256, 1024}) {
                const double w = sms * shape::warps_per_sm * double(n) * shape::shared_loads * ways;
                // ways=4 runs carry the counter (1% above the ideal count, as the L1TEX reports a few extra).
                std::map<std::string, double> counters;
                double counted = w;
                if (ways == 4) {
                    counted = w * 1.01;
                    counters["shared_load_wavefronts"] = counted;
                }
                d.run("probe/shared", n, {{"ways", std::to_string(ways)}},
                      {{"shared_ways", ms(2e-6 + counted / (t.wavefronts * sms * f)), counters}},
                      t.in_run_clock ? clock : none, passed("probe/shared"));
            }
    if (wanted("probe/atomic"))
        for (std::uint64_t n : {1 << 22, 1 << 24})
            d.run("probe/atomic", n, {}, {{"atomic_one", ms(3e-6 + double(n) / (t.atomics * f))}},
                  t.in_run_clock ? clock : none, passed("probe/atomic"));
    if (wanted("probe/issue"))
        for (const auto& [op, rate] : t.op_rate)
            for (std::uint64_t n : {256, 1024}) {
                const double warps = sms * shape::warps_per_sm * double(n);
                std::map<std::string, double> counters;
                if (t.pipe_counters) {
                    for (const auto& [pipe, per] : pipe_counts(op))
                        if (pipe != "fp16")
                            counters[pipe == "all" ? "warp_instructions" : "inst_pipe_" + pipe] =
                                warps * per * t.pipe_counter_scale;
                    for (const char* pipe :
                         {"fma", "alu", "fp64", "xu", "lsu", "adu", "cbu", "uniform", "fp16", "tensor"})
                        counters.emplace(std::string("inst_pipe_") + pipe, 0.0);
                }
                d.run("probe/issue", n, {{"op", op}},
                      {{"issue", ms(2e-6 + warps * opcode_count(op) / (rate * sms * f)), counters}},
                      t.in_run_clock ? clock : none, passed("probe/issue"));
            }
    for (const auto& [op, clocks] : std::vector<std::pair<std::string, double>>{
             {"ffma", t.dependent}, {"iadd3", t.dependent_iadd3}, {"shfl", t.shuffle}, {"bar", t.barrier}}) {
        const std::string label = "probe/dependent op=" + op;
        if (!wanted(label)) continue;
        d.run("probe/dependent", 16384, {{"op", op}}, {{"dependent_" + op, 0.05}}, {{"clocks_per_link", clocks}},
              passed(label));
    }
    d.finish();
    return d.dir();
}

std::map<std::string, validate::timing_constant> by_name(const validate::device_timing& t) {
    std::map<std::string, validate::timing_constant> out;
    for (const auto& c : t.timing) out[c.name] = c;
    return out;
}

// The highest rate any probe gives a pipe: its instructions of the pipe per
// instruction it was timed on, times that instruction's rate.
double expected_pipe_rate(const truth& t, const std::string& pipe, double scale = 1) {
    double best = 0;
    for (const auto& [op, rate] : t.op_rate) {
        const auto c = pipe_counts(op);
        if (c.count(pipe)) best = std::max(best, c.at(pipe) * scale / opcode_count(op) * rate);
    }
    return best;
}

std::string error_of(const fs::path& dir) {
    try {
        validate::derive_timing(dir);
    } catch (const agpu::input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Calibrate, EveryConstantFromItsProbe) {
    const truth t;
    const auto dir = write_dataset("every", t);
    const auto timing = validate::derive_timing(dir);
    EXPECT_EQ(timing.device, "h100");
    EXPECT_EQ(timing.gpu, "NVIDIA H100 80GB HBM3");
    ASSERT_EQ(timing.timing.size(), validate::timing_constants.size());
    for (std::size_t i = 0; i < timing.timing.size(); ++i)
        EXPECT_EQ(timing.timing[i].name, validate::timing_constants[i].name) << "in the table's order";
    const auto c = by_name(timing);
    auto near = [&](const std::string& name, double want) {
        ASSERT_TRUE(c.count(name)) << name;
        EXPECT_NEAR(c.at(name).value, want, 1e-6 * want) << name << ": " << c.at(name).source;
        EXPECT_EQ(c.at(name).date, "2026-12-01") << name;
        EXPECT_NE(c.at(name).source.find(dir.string()), std::string::npos) << "the source names the dataset";
    };
    near("launch_us", t.launch_us);
    near("block_clocks", t.block_clocks);
    near("dram_read_gbs", t.read_gbs);
    near("dram_write_gbs", t.write_gbs);
    near("dram_copy_gbs", t.copy_gbs);
    near("l2_read_gbs", t.l2_gbs);
    near("dram_latency_clocks", t.dram_latency);
    near("l2_latency_clocks", t.l2_latency);
    near("shared_wavefronts_per_clock", t.wavefronts);
    near("atomic_per_clock", t.atomics);
    for (const char* pipe : {"fma", "alu", "fp64", "xu", "lsu", "fp16"})
        near(std::string(pipe) + "_per_clock", expected_pipe_rate(t, pipe));
    // FFMA: 131 instructions an iteration for 128 FFMA at 3.9 a clock.
    near("issue_per_clock", expected_pipe_rate(t, "all"));
    EXPECT_NEAR(c.at("issue_per_clock").value, 3.9 * 131 / 128, 1e-6);
    EXPECT_NE(c.at("issue_per_clock").source.find("op=ffma"), std::string::npos) << c.at("issue_per_clock").source;
    near("dependent_clocks", t.dependent);
    EXPECT_NE(c.at("dependent_clocks").source.find("IADD3: 2"), std::string::npos) << c.at("dependent_clocks").source;
    near("shuffle_clocks", t.shuffle);
    near("barrier_clocks", t.barrier);

    EXPECT_DOUBLE_EQ(timing.provenance["sm_clock"]["used_mhz"].get<double>(), in_run_mhz);
    EXPECT_EQ(timing.provenance["gpu"]["sm_count"], 132);
    const auto notes = nlohmann::json(timing.notes).dump();
    EXPECT_NE(notes.find("differs from NVML"), std::string::npos) << notes;
    EXPECT_NE(notes.find("no per-pipe counters"), std::string::npos) << notes;

    const auto j = validate::to_json(timing);
    EXPECT_EQ(j["schema"], "agpu.device-timing/1");
    EXPECT_EQ(j["timing"]["dram_read_gbs"]["unit"], "GB/s");
    for (const char* f : {"value", "unit", "source", "date"}) EXPECT_TRUE(j["timing"]["launch_us"].contains(f)) << f;
}

TEST(Calibrate, CountersReplaceTheSassCountsWhereMeasured) {
    truth t;
    t.pipe_counters = true;
    t.pipe_counter_scale = 1.05;  // counters 5% above the SASS: the rates follow them
    const auto c = by_name(validate::derive_timing(write_dataset("counters", t)));
    for (const char* pipe : {"fma", "alu", "fp64", "xu", "lsu", "fp16"})
        EXPECT_NEAR(c.at(std::string(pipe) + "_per_clock").value, expected_pipe_rate(t, pipe, 1.05),
                    1e-6 * expected_pipe_rate(t, pipe, 1.05))
            << pipe;
    EXPECT_NEAR(c.at("issue_per_clock").value, 3.9 * 131 / 128 * 1.05, 1e-6);
    EXPECT_NE(c.at("fma_per_clock").source.find("CUPTI's inst_pipe_fma"), std::string::npos);
}

TEST(Calibrate, WithoutInRunClocksTheRatesUseNvmls) {
    truth t;
    t.in_run_clock = false;
    const auto timing = validate::derive_timing(write_dataset("nvml", t));
    const auto c = by_name(timing);
    EXPECT_DOUBLE_EQ(timing.provenance["sm_clock"]["used_mhz"].get<double>(), nvml_mhz);
    EXPECT_NEAR(c.at("atomic_per_clock").value, t.atomics, 1e-6);
    EXPECT_NEAR(c.at("block_clocks").value, t.block_clocks, 1e-6 * t.block_clocks);
    EXPECT_NE(nlohmann::json(timing.notes).dump().find("use NVML's"), std::string::npos);
}

TEST(Calibrate, AMissingProbeNamesTheConstantAndTheProbe) {
    for (const auto& [probe, constant] :
         std::vector<std::pair<std::string, std::string>>{{"probe/atomic", "atomic_per_clock"},
                                                          {"probe/chase space=l2", "l2_latency_clocks"},
                                                          {"probe/stream op=copy", "dram_copy_gbs"},
                                                          {"probe/launch", "launch_us"},
                                                          {"probe/issue", "issue_per_clock"},
                                                          {"probe/dependent op=bar", "barrier_clocks"}}) {
        truth t;
        t.leave_out = {probe};
        const auto err = error_of(write_dataset("missing", t));
        EXPECT_NE(err.find("constant " + constant + " needs " + probe + ": the dataset has no complete run of it"),
                  std::string::npos)
            << err;
        EXPECT_EQ(err.find('\n'), std::string::npos) << "one line: " << err;
    }
}

TEST(Calibrate, AProbeWhoseRunsFailedIsMissing) {
    truth t;
    t.failing = {"probe/chase space=dram"};
    const auto err = error_of(write_dataset("failed", t));
    EXPECT_NE(err.find("constant dram_latency_clocks needs probe/chase space=dram: the dataset has no run of it that "
                       "passed its check"),
              std::string::npos)
        << err;
}

TEST(Calibrate, ProvenanceWithoutSmCountIsAnError) {
    const auto dir = write_dataset("nosms", truth{});
    auto data = validate::read_dataset(dir);
    data.provenance["gpu"].erase("sm_count");
    try {
        validate::derive_timing(data, "ds");
        FAIL() << "no error";
    } catch (const agpu::input_error& e) {
        EXPECT_NE(std::string(e.what()).find("ds/provenance.json: field gpu.sm_count: is required"), std::string::npos)
            << e.what();
    }
}

TEST(Calibrate, IssueProbesAreKnownByOp) {
    EXPECT_EQ(shape::find_issue_probe("dfma").opcode, "DFMA");
    EXPECT_THROW(shape::find_issue_probe("fmul"), agpu::input_error);
}
