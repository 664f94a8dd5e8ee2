// The rank family's validation suites.
//
// `rank`: both directories, their build and their bulk rank1 and select1
// queries (2^20 random ones), at a power of two (2^26 bits: an 8 MiB vector
// whose tables overflow no cache tier in an interesting way, queries into 8 to
// 16 MiB) and an odd size (10^7 + 3: partial last tile, line and word); the
// hardware counters against the simulator's.
//
// `rank-goals`: timing only, the H100 goals at 2^32 bits beside the copy
// baseline (measured at 2^28 words, 1 GiB each way):
//   agpu validate --suite rank-goals --no-counters --out DIR && agpu bench --data DIR
//   - each build at >= 80% of device-to-device copy bandwidth, counting the
//     bytes it reads (the bit vector) and writes (its tables);
//   - random rank1 on rank/interleaved at >= 5 G queries/s. A run's time is
//     the sum of its launches, build included: with 2^26 queries the build
//     is ~3% of it, so the rate `agpu bench` reports is a slight underestimate;
//     the query kernel's own time is its launch row in the dataset.
//
// Bytes: a build reads ceil(n/128) 16-byte chunks and writes its tables; a
// query run adds 16 bytes per query (argument and answer). Items: bits for a
// build, queries for a query run.
#include <string>

#include "agpu/validate/suite.hpp"
#include "rank/rank_layout.hpp"

namespace {

namespace rank = agpu::kernels::rank;
using agpu::validate::suite_entry;

double jacobson_bytes(std::uint64_t n) {
    const auto l = rank::jacobson_layout_for(n);
    return 16.0 * double(l.data_chunks) + 2.0 * double(l.small_blocks) + 8.0 * double(l.superblocks);
}

double interleaved_bytes(std::uint64_t n) {
    const auto l = rank::interleaved_layout_for(n);
    return 8.0 * double(l.data_words) + 64.0 * double(l.lines);
}

double default_queries(std::uint64_t n) { return double(std::min<std::uint64_t>(n, std::uint64_t(1) << 20)); }

suite_entry build(const char* algo) {
    const bool j = std::string(algo) == "rank/jacobson";
    return {algo, {"op=build"}, j ? jacobson_bytes : interleaved_bytes, [](std::uint64_t n) { return double(n); }, 0};
}

// Queries only: `queries` of them (0: the default, min(n, 2^20)).
suite_entry queries(const char* algo, const char* op, std::uint64_t count = 0) {
    std::vector<std::string> sets{std::string("op=") + op};
    if (count) sets.push_back("queries=" + std::to_string(count));
    const auto items = [count](std::uint64_t n) { return count ? double(count) : default_queries(n); };
    return {algo, sets, [items](std::uint64_t n) { return 16.0 * items(n); }, items, 0};
}

AGPU_REGISTER_SUITE(
    {"rank",
     "rank directories: the one-pass builds and bulk rank1/select1 queries, counters against the simulator",
     {std::uint64_t(1) << 26, 10000003},
     {build("rank/jacobson"), queries("rank/jacobson", "rank1"), queries("rank/jacobson", "select1"),
      build("rank/interleaved"), queries("rank/interleaved", "rank1"), queries("rank/interleaved", "select1")}});

constexpr std::uint64_t goal_bits = std::uint64_t(1) << 32;
constexpr std::uint64_t goal_queries = std::uint64_t(1) << 26;

AGPU_REGISTER_SUITE(
    {"rank-goals",
     "the H100 goals at 2^32 bits: builds at 80% of copy bandwidth, 5 G random rank1 queries/s (timing only)",
     {std::uint64_t(1) << 28, goal_bits},
     {{"baseline/copy",
       {},
       [](std::uint64_t n) { return 8.0 * double(n); },
       [](std::uint64_t n) { return double(n); },
       std::uint64_t(1) << 28},
      build("rank/jacobson"),
      build("rank/interleaved"),
      queries("rank/interleaved", "rank1", goal_queries),
      queries("rank/jacobson", "rank1", goal_queries)},
     {{"rank/jacobson op=build", "baseline/copy", "bandwidth", 0.8, goal_bits,
       "Jacobson build of 2^32 bits at >= 80% of device-to-device copy bandwidth (bytes read + tables written)"},
      {"rank/interleaved op=build", "baseline/copy", "bandwidth", 0.8, goal_bits,
       "interleaved build of 2^32 bits at >= 80% of device-to-device copy bandwidth (bytes read + lines written)"},
      {"rank/interleaved op=rank1;queries=67108864", "", "rate", 5e9, goal_bits,
       ">= 5 G random rank1 queries/s on 2^32 bits (run time includes the build)"}}});

}  // namespace
