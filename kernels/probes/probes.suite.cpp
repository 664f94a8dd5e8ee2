// The `calibrate` suite: every probe at the sizes its constant's derivation
// needs (validate/src/calibrate.cpp): rates at two or three sizes, for a
// least-squares slope that leaves out what does not grow with n; latencies at
// one. Each run takes at most a few milliseconds on an H100, so the suite,
// its CUPTI replays included, takes about a minute (docs/measuring.md,
// "Calibrating a device").
#include "agpu/validate/calibrate.hpp"
#include "agpu/validate/suite.hpp"

namespace {

using agpu::validate::suite_entry;
using sizes = std::vector<std::uint64_t>;

std::vector<suite_entry> calibrate_entries() {
    const sizes iterations = {256, 1024};
    std::vector<suite_entry> e = {
        // 100 to 400 launches of a few microseconds: well inside the stream hold's 20 ms.
        {"probe/launch", {}, {}, {}, 0, {100, 200, 400}},
        // Up to 2^20 blocks: about a millisecond of dispatch.
        {"probe/blocks", {"threads=32"}, {}, {}, 0, {1 << 16, 1 << 18, 1 << 20}},
        // 128 to 512 MiB a buffer: at least 2.5 times the L2 of an H100 or H200.
        {"probe/stream", {"op=read"}, {}, {}, 0, {1 << 25, 1 << 26, 1 << 27}},
        {"probe/stream", {"op=write"}, {}, {}, 0, {1 << 25, 1 << 26, 1 << 27}},
        {"probe/stream", {"op=copy"}, {}, {}, 0, {1 << 25, 1 << 26, 1 << 27}},
        // 1 to 4 GiB read from 8 MiB.
        {"probe/l2",
         {"footprint=8388608"},
         {},
         {},
         0,
         {std::uint64_t(1) << 30, std::uint64_t(1) << 31, std::uint64_t(1) << 32}},
        {"probe/chase", {"space=dram"}, {}, {}, 0, {8192}},
        {"probe/chase", {"space=l2"}, {}, {}, 0, {16384}},
        {"probe/atomic", {}, {}, {}, 0, {1 << 22, 1 << 24}},
    };
    for (const char* ways : {"1", "2", "4", "8", "16", "32"})
        e.push_back({"probe/shared", {std::string("ways=") + ways}, {}, {}, 0, iterations});
    for (const auto& op : agpu::model::probe_shape::issue_probes)
        e.push_back({"probe/issue", {"op=" + std::string(op.op)}, {}, {}, 0, iterations});
    for (const char* op : {"ffma", "iadd3", "shfl", "bar"})
        e.push_back({"probe/dependent", {std::string("op=") + op}, {}, {}, 0, {16384}});
    return e;
}

AGPU_REGISTER_SUITE({"calibrate",
                     "the device's time constants: launch, dispatch, bandwidths, latencies, issue rates",
                     {},
                     calibrate_entries()});

}  // namespace
