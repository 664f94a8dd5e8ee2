// The `stats` validation suite: stats/fused and stats/pairwise, float and
// double, at a size that fills the GPU (2^24 values: 64 or 128 MB, more than
// the H100's 50 MB L2), an odd one (10^7 + 3: a vector tail, and pairwise
// padded to 2^24) and 2^20, the only size stats/serial is measured at (one
// thread: seconds per run beyond it). cub::DeviceReduce::Sum on the same
// values and a device-to-device copy are timed in the same runs.
//
// The H100 goal, stats/fused on floats at 0.95x the speed of
// cub::DeviceReduce::Sum, is measured at n = 2^28:
//   agpu validate --suite stats --no-counters --sizes 268435456 --out DIR && agpu bench --data DIR
// Every entry's bytes are what it must move at least once: n values read (the
// copy: read and written).
#include "agpu/validate/suite.hpp"

namespace {

using agpu::validate::suite_entry;

double float_bytes(std::uint64_t n) { return 4.0 * double(n); }
double double_bytes(std::uint64_t n) { return 8.0 * double(n); }
double values(std::uint64_t n) { return double(n); }

suite_entry entry(const char* algo, const char* type, std::uint64_t max_n = 0) {
    const bool is_float = std::string(type) == "float";
    return {algo, {std::string("type=") + type}, is_float ? float_bytes : double_bytes, values, max_n};
}

AGPU_REGISTER_SUITE(
    {"stats",
     "min, max, mean, variance: the source's pairwise rounds and one-thread baseline against the fused "
     "one-pass kernel and cub::DeviceReduce::Sum",
     {std::uint64_t(1) << 20, std::uint64_t(1) << 24, 10000003},
     {entry("stats/fused", "float"),
      entry("stats/fused", "double"),
      entry("stats/pairwise", "float"),
      entry("stats/pairwise", "double"),
      entry("stats/serial", "float", std::uint64_t(1) << 20),
      entry("stats/serial", "double", std::uint64_t(1) << 20),
      entry("baseline/cub-reduce-sum", "float"),
      entry("baseline/cub-reduce-sum", "double"),
      {"baseline/copy", {}, [](std::uint64_t n) { return 8.0 * double(n); }, values, 0}},  // reads and writes
     {{"stats/fused type=float", "baseline/cub-reduce-sum type=float", "time", 0.95, std::uint64_t(1) << 28,
       "all seven statistics of 2^28 floats in at most 1/0.95 of the time CUB takes to sum them"}}});

}  // namespace
