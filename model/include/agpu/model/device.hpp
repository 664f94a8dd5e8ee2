// A device: the AGPU machine plus what the time model needs of the real (or
// hypothetical) hardware behind it. A device is a value: validate(), equality,
// JSON in and out. Presets are data files (model/devices/*.json) in which every
// number carries its source and date; see model/devices/README.md.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agpu/model/machine.hpp"

namespace agpu::model {

// What the time model needs beyond (p, b, M, w). Units are in the names.
struct hardware {
    std::string compute_capability;  // "9.0"
    std::uint32_t sm_count = 0;      // streaming multiprocessors (= k)
    std::uint32_t cores_per_sm = 0;  // FP32 lanes per SM
    std::uint32_t warp_width = 0;    // threads per warp
    std::uint32_t max_threads_per_block = 0;
    std::uint32_t max_threads_per_sm = 0;
    double sm_clock_mhz = 0;       // boost clock
    double mem_clock_mhz = 0;      // memory clock as NVIDIA reports it
    double mem_bandwidth_gbs = 0;  // peak DRAM bandwidth, 1e9 bytes/s
    std::uint64_t l2_bytes = 0;    // 0 where there is no L2
    std::uint64_t smem_per_sm_bytes = 0;
    std::uint64_t smem_per_block_bytes = 0;  // the most one thread block may use
    std::uint32_t banks = 0;
    std::uint32_t bank_width_bytes = 0;
    double launch_overhead_us = 0;        // estimate: empty-kernel launch to completion (the fitted model's)
    std::uint32_t max_blocks_per_sm = 0;  // resident thread blocks per SM
    std::uint32_t registers_per_sm = 0;   // 32-bit registers per SM

    friend bool operator==(const hardware&, const hardware&) = default;
};

// The device's time constants (docs/device-constants.md): each a physical
// quantity, measured by agpu calibrate (H100, H200) or cited. Rates are per SM
// per SM clock; a warp-instruction is one of b lanes.
struct timing {
    double launch_us = 0;                                             // per launch in a stream of back-to-back launches
    double block_clocks = 0;                                          // an SM's cost to start and retire a thread block
    double dram_read_gbs = 0, dram_write_gbs = 0, dram_copy_gbs = 0;  // achievable; copy counts both ways
    double l2_read_gbs = 0;                                           // 0 where there is no L2
    double dram_latency_clocks = 0, l2_latency_clocks = 0, l1_latency_clocks = 0;
    double shared_wavefronts_per_clock = 0;  // per SM
    double atomic_per_clock = 0;             // same-address global atomic updates, device-wide
    double issue_per_clock = 0;              // warp-instructions all of an SM's schedulers issue
    double fma_per_clock = 0, alu_per_clock = 0, fp64_per_clock = 0, xu_per_clock = 0, lsu_per_clock = 0,
           fp16_per_clock = 0;    // warp-instructions of each pipe's class
    double dependent_clocks = 0;  // a dependent arithmetic instruction's latency
    double shuffle_clocks = 0;    // a warp shuffle's latency
    double barrier_clocks = 0;    // a barrier in a one-warp block

    friend bool operator==(const timing&, const timing&) = default;
};

// Where a number came from.
struct source_note {
    std::string source;  // document, table, or "derived: ..." / "hypothetical: ..."
    std::string date;    // when the source was published or read, ISO 8601 (YYYY, YYYY-MM or YYYY-MM-DD)
    friend bool operator==(const source_note&, const source_note&) = default;
};

struct device {
    std::string id;    // short key: "h100"
    std::string name;  // "NVIDIA H100 SXM5 80GB"
    std::string kind;  // "real" or "hypothetical"
    std::string base;  // for a hypothetical device: the preset it changes ("" otherwise)
    std::string note;  // one line: what it is, what changes
    machine agpu;
    hardware hw;
    model::timing time;
    std::map<std::string, source_note> sources;  // dotted field name -> source

    // Throws input_error("<where>: field <f>", rule) for the first broken rule.
    void validate(const std::string& where) const;

    friend bool operator==(const device&, const device&) = default;
};

// Current device-file schema version; files say "schema": 1.
inline constexpr int device_schema_version = 1;

// Parse and validate. `where` names the file for messages. A file with
// "base": "<id>" and "patch": {...} is the base preset with the patch merged in
// (RFC 7386), then validated as a whole; `resolve_base` supplies the base JSON.
device device_from_json(const nlohmann::json& j, const std::string& where,
                        const std::function<nlohmann::json(const std::string&)>* resolve_base = nullptr);

// Full JSON, numbers with their sources inline ({"value", "source", "date"}).
nlohmann::json device_to_json(const device& d);
// Flat summary used by `agpu devices --format json`: id, name, kind, p, b, M, w, k, and the hardware fields.
nlohmann::json device_summary_json(const device& d);

std::ostream& operator<<(std::ostream& os, const device& d);

// Where the device's time constants come from, by the kind their sources
// begin with: "2 derived, 1 estimate, 8 measured, 10 published".
std::string timing_source_kinds(const device& d);

// Dotted names of every numeric and text field a device file must give ("agpu.p", "hardware.sm_count",
// "timing.launch_us", ...).
std::vector<std::string> device_field_names();

}  // namespace agpu::model
