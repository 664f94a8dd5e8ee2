// The `apsp` validation suite: every variant at n = 512 and 1000 (not a
// multiple of any tile: padding), blocked with t = 16, 32, 64 and both
// methods, dpx with both widths at t = 64 and 128 (int32 at t = 128 also
// without lookahead and with it forced: at these sizes the default leaves it
// off), on the sparse graph. The
// goals name the fastest settings, t = 128.
//
// Items are the n³ updates of Floyd-Warshall; bytes the matrix read and
// written once (8n² for int32, 4n² for the packed 16-bit variant). The H100
// goals (16.6 T updates/s is one DPX add-min per lane per cycle: 132 SMs x 64
// x 1.98 GHz) are measured at n = 8192:
//   agpu validate --suite apsp --no-counters --sizes 8192 --out DIR && agpu bench --data DIR
#include "agpu/validate/suite.hpp"

namespace {

using agpu::validate::suite_entry;

double updates(std::uint64_t n) { return double(n) * double(n) * double(n); }

suite_entry entry(const char* algo, std::vector<std::string> sets, double bytes_per_distance = 8.0) {
    return {algo, std::move(sets),
            [bytes_per_distance](std::uint64_t n) { return bytes_per_distance * double(n) * double(n); }, updates, 0};
}

AGPU_REGISTER_SUITE(
    {"apsp",
     "all-pairs shortest paths: naive, blocked (t, method A/B), recursive and DPX Floyd-Warshall",
     {512, 1000},
     {entry("apsp/naive", {}), entry("apsp/blocked", {"t=16", "method=A"}), entry("apsp/blocked", {"t=32", "method=A"}),
      entry("apsp/blocked", {"t=64", "method=A"}), entry("apsp/blocked", {"t=16", "method=B"}),
      entry("apsp/blocked", {"t=32", "method=B"}), entry("apsp/blocked", {"t=64", "method=B"}),
      entry("apsp/recursive", {"tr=32"}), entry("apsp/recursive", {"tr=64"}), entry("apsp/dpx", {"t=64", "width=32"}),
      entry("apsp/dpx", {"t=64", "width=16"}, 4.0), entry("apsp/dpx", {"t=128", "width=32"}),
      entry("apsp/dpx", {"t=128", "width=16"}, 4.0), entry("apsp/dpx", {"t=128", "width=32", "lookahead=0"}),
      entry("apsp/dpx", {"t=128", "width=32", "lookahead=2"})},
     {{"apsp/dpx t=128;width=32", "", "rate", 0.7 * 16.6e12, 8192,
       "int32 DPX blocked Floyd-Warshall at 70% of 16.6 T updates/s (8192 vertices in at most 47 ms)"},
      {"apsp/dpx t=128;width=16", "", "rate", 8192.0 * 8192.0 * 8192.0 / 0.030, 8192,
       "packed 16-bit DPX blocked Floyd-Warshall: 8192 vertices in at most 30 ms"}}});

}  // namespace
