// The `sort` validation suites.
//
// `sort`: counters and correctness on the GPU at 2^16 and an odd size
// (100003: partial tiles, runs and moves): sort/multiway on every key type,
// key-value pairs and every input kind, sort/pairwise and sort/bitonic, and
// the GPU baselines on the same u32 keys:
//   agpu validate --suite sort --out DIR && agpu compare --data DIR
//
// `sort-bench`: u32 keys 2^20 .. 2^28, sort/multiway (default and the tuned
// shape that the goals name) and sort/pairwise beside
// cub::DeviceMergeSort, cub::DeviceRadixSort and thrust::sort. Goals at
// n >= 2^26: sort/multiway at 1.2x the keys/s of cub::DeviceMergeSort (time),
// and at most half its global load + store sectors (sectors; needs the
// counters, so measure without --no-counters):
//   agpu validate --suite sort-bench --out DIR && agpu bench --data DIR
//
// Every entry's bytes are what a sort must move at least once: n keys (and
// values) read and written; its items are the n keys.
#include <string>
#include <vector>

#include "agpu/validate/suite.hpp"

namespace {

using agpu::validate::suite_entry;

double keys(std::uint64_t n) { return double(n); }

suite_entry entry(const char* algo, std::vector<std::string> sets) {
    double s = 4;
    for (const auto& x : sets) {
        if (x == "type=u64") s = 8;
        if (x == "values=1") s += 4;
    }
    return {algo, sets, [s](std::uint64_t n) { return 2.0 * s * double(n); }, keys, 0};
}

std::vector<suite_entry> sort_entries() {
    std::vector<suite_entry> e;
    for (const char* type : {"u32", "u64", "float"})
        for (const char* values : {"0", "1"})
            e.push_back(entry("sort/multiway", {std::string("type=") + type, std::string("values=") + values}));
    for (const char* input : {"sorted", "reverse", "equal", "few"})
        e.push_back(entry("sort/multiway", {"type=u32", "values=1", std::string("input=") + input}));
    // Keys alone move by the bitonic network, which pads absent elements with the largest key: keys equal to it.
    for (const char* type : {"u32", "float"})
        e.push_back(entry("sort/multiway", {std::string("type=") + type, "values=0", "input=extremes"}));
    e.push_back(entry("sort/multiway", {"type=u32", "values=0", "parts=1"}));
    e.push_back(entry("sort/pairwise", {"type=u32", "values=0"}));
    e.push_back(entry("sort/bitonic", {"type=u32"}));
    e.push_back(entry("baseline/cub-merge-sort", {"type=u32"}));
    e.push_back(entry("baseline/cub-radix-sort", {"type=u32"}));
    e.push_back(entry("baseline/thrust-sort", {"type=u32"}));
    return e;
}

AGPU_REGISTER_SUITE({"sort",
                     "sort/multiway (every key type, pairs, input kinds), sort/pairwise and sort/bitonic against "
                     "cub::DeviceMergeSort, cub::DeviceRadixSort and thrust::sort: counters and correctness",
                     {std::uint64_t(1) << 16, 100003},
                     sort_entries()});

// The fastest shape of the sort-tune suite on the H100 (2^26 u32 keys: 3.79 ms
// at tile 16384, 3.98 at 8192, 4.04 at 4096, against 4.5-12.8 ms for the
// other shapes).
std::vector<std::string> tuned() { return {"type=u32", "values=0", "chunk=256", "tile=16384", "d=4"}; }

std::vector<suite_entry> bench_entries() {
    return {entry("sort/multiway", {"type=u32", "values=0"}), entry("sort/multiway", tuned()),
            entry("sort/pairwise", {"type=u32", "values=0"}), entry("baseline/cub-merge-sort", {"type=u32"}),
            entry("baseline/cub-radix-sort", {"type=u32"}),   entry("baseline/thrust-sort", {"type=u32"})};
}

std::vector<std::uint64_t> bench_sizes() {
    std::vector<std::uint64_t> s;
    for (int e = 20; e <= 28; e += 2) s.push_back(std::uint64_t(1) << e);
    return s;
}

AGPU_REGISTER_SUITE({"sort-bench",
                     "u32 keys 2^20..2^28: sort/multiway and sort/pairwise against cub::DeviceMergeSort, "
                     "cub::DeviceRadixSort and thrust::sort (measure with counters for the sectors goal)",
                     bench_sizes(),
                     bench_entries(),
                     {{"sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4", "baseline/cub-merge-sort type=u32",
                       "time", 1.2, std::uint64_t(1) << 26,
                       "sort/multiway sorts u32 keys at 1.2x the keys/s of cub::DeviceMergeSort"},
                      {"sort/multiway type=u32;values=0;chunk=256;tile=16384;d=4", "baseline/cub-merge-sort type=u32",
                       "sectors", 2.0, std::uint64_t(1) << 26,
                       "sort/multiway moves at most half the global load + store sectors of cub::DeviceMergeSort"}}});

// `sort-tune`: sort/multiway's shape at 2^26 u32 keys (chunk, tile, d, warps), to
// choose the defaults on a GPU: time only.
//   agpu validate --suite sort-tune --no-counters --out DIR && agpu bench --data DIR
std::vector<suite_entry> tune_entries() {
    std::vector<suite_entry> e;
    for (const char* chunk : {"64", "128", "256"})
        for (const char* d : {"4", "8", "16"})
            e.push_back(entry("sort/multiway", {"type=u32", "values=0", std::string("chunk=") + chunk, "tile=4096",
                                                std::string("d=") + d}));
    for (const char* chunk : {"128", "256"})
        e.push_back(
            entry("sort/multiway", {"type=u32", "values=0", std::string("chunk=") + chunk, "tile=2048", "d=8"}));
    // Tiles of 8192 and 16384 (keys alone: blocks of 512 and 1024 threads): at
    // 2^26 runs of 4096 = 4^6 after block_sort at 16384, six merge passes at
    // d = 4 instead of seven, for two more rounds on chip.
    for (const char* tile : {"8192", "16384"})
        e.push_back(entry("sort/multiway", {"type=u32", "values=0", "chunk=256", std::string("tile=") + tile, "d=4"}));
    // Several warps per heap: shorter chains per move, more warps per SM.
    for (const char* d : {"8", "16"})
        e.push_back(entry("sort/multiway",
                          {"type=u32", "values=0", "chunk=256", "tile=4096", std::string("d=") + d, "warps=2"}));
    e.push_back(entry("baseline/cub-merge-sort", {"type=u32"}));
    return e;
}

AGPU_REGISTER_SUITE({"sort-tune",
                     "sort/multiway's chunk, tile and d at 2^26 u32 keys beside cub::DeviceMergeSort (time only)",
                     {std::uint64_t(1) << 26},
                     tune_entries()});

}  // namespace
