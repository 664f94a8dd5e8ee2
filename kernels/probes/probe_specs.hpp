// The calibration probes' specs (key, what n means, parameters), for the
// GPU registrations in probes.gpu.cu and for the host's test of the
// calibrate suite (probes_test.cpp), which has no GPU build to ask.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agpu/model/algorithm.hpp"
#include "agpu/model/probe_shape.hpp"

namespace agpu::kernels::probes {

using model::algo_spec;
using u64 = std::uint64_t;

inline algo_spec launch_spec() {
    return {"probe/launch",
            "n back-to-back launches of an empty 1-block, 32-thread kernel: time per launch",
            "launches",
            100,
            1,
            4096,
            {}};
}

inline algo_spec blocks_spec() {
    return {"probe/blocks",
            "one launch of n empty blocks: the time to start and retire a block (slope over n)",
            "blocks",
            1 << 16,
            1,
            0x7fffffffu,
            {{"threads", "threads a block", "32", {"32", "64", "128", "256", "512", "1024"}, 0, 0}}};
}

inline algo_spec stream_spec() {
    return {"probe/stream",
            "read, write or copy n 4-byte words with 16-byte accesses: DRAM bandwidth (slope over n)",
            "words",
            1 << 26,
            1,
            u64(1) << 32,
            {{"op", "what the probe does to the words", "read", {"read", "write", "copy"}, 0, 0}}};
}

inline algo_spec l2_spec() {
    std::vector<std::string> footprints;
    for (int b = 20; b <= 25; ++b) footprints.push_back(std::to_string(u64(1) << b));
    return {"probe/l2",
            "n bytes read (16-byte loads past the L1) from a buffer the L2 holds: L2 bandwidth",
            "bytes",
            u64(1) << 31,
            16,
            u64(1) << 40,
            {{"footprint", "bytes of the buffer read over and over", "8388608", footprints, 0, 0}}};
}

inline algo_spec chase_spec() {
    return {"probe/chase",
            "one thread's n dependent loads over random cache lines, in DRAM (each line once, the L2 evicted) or in "
            "the L2: load latency in SM clocks",
            "loads",
            8192,
            1,
            u64(1) << 20,
            {{"space", "what serves the loads", "dram", {"dram", "l2"}, 0, 0}}};
}

inline algo_spec shared_spec() {
    return {"probe/shared",
            "shared loads with `ways` distinct words in one bank (a ways-way conflict): wavefronts per clock",
            "iterations",
            1024,
            1,
            u64(1) << 20,
            {{"ways", "distinct words a bank serves per load", "1", {}, 1, 32}}};
}

inline algo_spec atomic_spec() {
    return {"probe/atomic",
            "n atomic adds by every thread to one global address: updates per clock",
            "updates",
            1 << 24,
            1,
            0xffffffffu,
            {}};
}

inline algo_spec issue_spec() {
    std::vector<std::string> ops;
    for (const auto& o : model::probe_shape::issue_probes) ops.emplace_back(o.op);
    return {"probe/issue",
            "independent chains of one instruction class in every warp of a full wave: the issue rate of its pipe",
            "iterations",
            1024,
            1,
            u64(1) << 20,
            {{"op", "the instruction (SASS opcode in probe_shape.hpp)", "ffma", ops, 0, 0}}};
}

inline algo_spec dependent_spec() {
    return {"probe/dependent",
            "one warp's chain of n dependent FFMA, IADD3, SHFL or barriers: SM clocks a link",
            "links",
            1 << 14,
            1,
            u64(1) << 24,
            {{"op", "the link", "ffma", {"ffma", "iadd3", "shfl", "bar"}, 0, 0}}};
}

// Every probe's spec.
inline std::vector<algo_spec> probe_specs() {
    return {launch_spec(), blocks_spec(), stream_spec(), l2_spec(),       chase_spec(),
            shared_spec(), atomic_spec(), issue_spec(),  dependent_spec()};
}

}  // namespace agpu::kernels::probes
