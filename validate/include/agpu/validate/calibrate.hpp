// `agpu calibrate`: a device's time constants, each a physical quantity with a
// unit, derived from a dataset of the `calibrate` suite (the probes of
// kernels/probes/, measured by `agpu validate`). Pure host code: it reads the
// dataset and its provenance and needs no GPU.
//
// The probes' shapes are declared here, once: the probes launch them and the
// derivation counts their work from them (warps, loop iterations, the SASS
// of each issue probe's loop body where a run has no per-pipe counters).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agpu/validate/dataset.hpp"

namespace agpu::validate {

inline constexpr const char* device_timing_schema = "agpu.device-timing/1";

namespace probe_shape {

// probe/issue and probe/shared: blocks_per_sm blocks of block_threads threads
// for every SM (one wave: 32 warps an SM, 8 a scheduler, each with
// independent work, so that throughput and not latency limits), each block
// holding enough shared memory that no SM takes more than blocks_per_sm.
inline constexpr unsigned block_threads = 256;
inline constexpr unsigned blocks_per_sm = 4;
inline constexpr unsigned warps_per_sm = block_threads / 32 * blocks_per_sm;

// probe/issue: a loop iteration advances `issue_chains` independent chains
// `issue_rounds` times each: issue_chains * issue_rounds steps an iteration.
inline constexpr unsigned issue_chains = 8;
inline constexpr unsigned issue_rounds = 16;
inline constexpr unsigned issue_steps = issue_chains * issue_rounds;

// probe/shared: shared loads a thread issues per loop iteration.
inline constexpr unsigned shared_loads = 16;

// probe/stream, probe/l2, probe/atomic: grid-stride loops over
// stream_blocks_per_sm blocks of block_threads threads for every SM
// (2048 threads an SM: the most memory requests in flight).
inline constexpr unsigned stream_blocks_per_sm = 8;

// probe/chase: links one cache line apart (a line's first 8 bytes hold the
// next link's address). space=dram visits n + 1 distinct random lines of a
// chase_dram_bytes region once each, after the L2 is evicted (a read of
// evict_l2_factor times its size); space=l2 cycles through every line of a
// chase_l2_bytes region in random order, just written and so in the L2.
inline constexpr std::uint64_t chase_line_bytes = 128;
inline constexpr std::uint64_t chase_dram_bytes = std::uint64_t(256) << 20;
inline constexpr std::uint64_t chase_l2_bytes = std::uint64_t(4) << 20;
inline constexpr unsigned evict_l2_factor = 4;

// probe/dependent: links per loop iteration (unrolled).
inline constexpr unsigned dependent_unroll = 16;

// The SASS loop of a probe/issue kernel: opcode (the mnemonic before the
// first '.') and count, for one pass of the loop, which runs `unroll`
// iterations (ptxas unrolls some loops further). Read from the sm_90 code
// CUDA 13 compiles (`agpu sass import` of probes.gpu.cu's object); the test
// probes_sass_test checks it against the build's own code. Where a dataset
// has no per-pipe counters, the derivation counts a probe's instructions from
// it (pipes by model::pipe_of).
struct sass_count {
    std::string_view opcode;
    unsigned count = 0;
};

struct issue_probe {
    std::string_view op;      // probe/issue op=...
    std::string_view opcode;  // the instruction it measures
    unsigned unroll = 1;      // loop iterations one pass of the SASS loop runs
    std::array<sass_count, 5> loop;  // every instruction of one pass
};

// Besides the measured instruction: the loop counter (VIADD or IADD3), its
// compare and the branch (op=viadd's counter is its 129th VIADD). op=i2f converts both ways (I2F.S16, F2I.TRUNC);
// op=viadd pairs each add of an immediate (VIADD) with a LOP3 that mixes in
// the next chain, since ptxas folds chains of immediate adds into one.
inline constexpr std::array<issue_probe, 13> issue_probes{{
    {"ffma", "FFMA", 1, {{{"FFMA", 128}, {"IADD3", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"fadd", "FADD", 1, {{{"FADD", 128}, {"IADD3", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"imad", "IMAD", 1, {{{"IMAD", 128}, {"IADD3", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"iadd3", "IADD3", 1, {{{"IADD3", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"lop3", "LOP3", 1, {{{"LOP3", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"dfma", "DFMA", 1, {{{"DFMA", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"mufu", "MUFU", 1, {{{"MUFU", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"i2f", "I2F", 1, {{{"I2F", 128}, {"F2I", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"hfma2", "HFMA2", 1, {{{"HFMA2", 128}, {"IADD3", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"shfl", "SHFL", 1, {{{"SHFL", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"viadd", "VIADD", 1, {{{"VIADD", 129}, {"LOP3", 128}, {"ISETP", 1}, {"BRA", 1}}}},
    {"vimnmx", "VIMNMX", 1, {{{"VIMNMX", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"viaddmnmx", "VIADDMNMX", 4, {{{"VIADDMNMX", 512}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
}};

// The issue probe of `op`; throws input_error naming it when there is none.
const issue_probe& find_issue_probe(std::string_view op);

}  // namespace probe_shape

// One constant of a device's timing section.
struct timing_constant {
    std::string name;    // "dram_read_gbs"
    double value = 0;
    std::string unit;    // "GB/s"
    std::string source;  // the probe, its sizes, how it was derived, the dataset
    std::string date;    // when it was measured (YYYY-MM-DD)
};

// What each constant is, in the order a device file lists them.
struct timing_constant_info {
    std::string_view name, unit, probe, meaning;
};
extern const std::array<timing_constant_info, 20> timing_constants;

struct device_timing {
    std::string device;  // the preset the dataset was measured as ("h100")
    std::string gpu;     // the GPU's name
    nlohmann::json provenance;  // GPU, driver, clocks, dates, commands, dataset
    std::vector<timing_constant> timing;  // every constant of timing_constants, in its order
    std::vector<std::string> notes;       // what the derivation fell back on, and why
};

// Derives every constant from a calibrate dataset. `dataset_name` names it in
// the constants' sources (its path, as the user gave it). Throws input_error
// with one line naming the constant and the probe it needs when a probe's
// runs are missing or all failed their check, and naming the field when the
// provenance lacks what a constant needs (the SM count, the SM clock).
device_timing derive_timing(const dataset& data, const std::string& dataset_name);
// The same from a dataset directory (read_dataset).
device_timing derive_timing(const std::filesystem::path& dir);

// {"schema": "agpu.device-timing/1", "device", "gpu", "provenance", "timing": {name: {value, unit, source, date}}, "notes"}
nlohmann::json to_json(const device_timing& t);

}  // namespace agpu::validate
