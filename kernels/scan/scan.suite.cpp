// The `scan` validation suites.
//
// `scan`: both scans, u32 and u64, inclusive and exclusive, at a size that
// fills the GPU (2^24: 64 or 128 MB, beyond the H100's 50 MB L2) and an odd
// one (10^7 + 3: a partial last tile and block, a straddling vector), with
// cub::DeviceScan on the same inputs. The H100 goal, scan/work-efficient at
// 0.9x the speed of cub::DeviceScan::ExclusiveSum on 2^28 u32, is measured with
//   agpu validate --suite scan --no-counters --sizes 268435456 --out DIR && agpu bench --data DIR
//
// `scan-tune`: timing only, scan/work-efficient (exclusive u32) over its tile
// shapes and look-back backoffs beside CUB, to choose chained_policy's
// defaults on a GPU:
//   agpu validate --suite scan-tune --no-counters --out DIR && agpu bench --data DIR
//
// Every entry's bytes are what a scan must move at least once: n values read
// and n written.
#include <string>

#include "agpu/validate/suite.hpp"

namespace {

using agpu::validate::suite_entry;

double values(std::uint64_t n) { return double(n); }

suite_entry entry(const char* algo, const char* type, const char* kind, std::vector<std::string> more = {}) {
    const double s = std::string(type) == "u64" ? 8.0 : 4.0;
    std::vector<std::string> sets{std::string("type=") + type, std::string("kind=") + kind};
    sets.insert(sets.end(), more.begin(), more.end());
    return {algo, sets, [s](std::uint64_t n) { return 2.0 * s * double(n); }, values, 0};
}

AGPU_REGISTER_SUITE(
    {"scan",
     "prefix sums: Hillis-Steele multi-level and the single-pass chained scan against cub::DeviceScan",
     {std::uint64_t(1) << 24, 10000003},
     {entry("scan/hillis-steele", "u32", "inclusive"), entry("scan/hillis-steele", "u32", "exclusive"),
      entry("scan/hillis-steele", "u64", "inclusive"), entry("scan/hillis-steele", "u64", "exclusive"),
      entry("scan/work-efficient", "u32", "inclusive"), entry("scan/work-efficient", "u32", "exclusive"),
      entry("scan/work-efficient", "u64", "inclusive"), entry("scan/work-efficient", "u64", "exclusive"),
      entry("baseline/cub-scan", "u32", "inclusive"), entry("baseline/cub-scan", "u32", "exclusive"),
      entry("baseline/cub-scan", "u64", "inclusive"), entry("baseline/cub-scan", "u64", "exclusive")},
     {{"scan/work-efficient type=u32;kind=exclusive", "baseline/cub-scan type=u32;kind=exclusive", "time", 0.9,
       std::uint64_t(1) << 28,
       "an exclusive scan of 2^28 u32 in at most 1/0.9 of the time cub::DeviceScan::ExclusiveSum takes"}}});

// Every tile shape without backoff, then backoffs at the default shape: 13 runs.
std::vector<suite_entry> tune_entries() {
    std::vector<suite_entry> e{entry("baseline/cub-scan", "u32", "exclusive")};
    for (const char* threads : {"128", "256", "512"})
        for (const char* items : {"8", "16", "24"})
            e.push_back(entry("scan/work-efficient", "u32", "exclusive",
                              {std::string("threads=") + threads, std::string("items=") + items, "backoff=0"}));
    for (const char* backoff : {"100", "400", "1000"})
        e.push_back(entry("scan/work-efficient", "u32", "exclusive",
                          {"threads=256", "items=16", std::string("backoff=") + backoff}));
    return e;
}

AGPU_REGISTER_SUITE({"scan-tune",
                     "scan/work-efficient's tile shapes (threads x items) and look-back backoffs against "
                     "cub::DeviceScan::ExclusiveSum, exclusive u32: timing for chained_policy",
                     {std::uint64_t(1) << 28},
                     tune_entries()});

}  // namespace
