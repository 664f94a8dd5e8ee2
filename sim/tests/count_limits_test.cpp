// Counts at paper scale: every closed form at its algorithm's largest n (a
// 2^34-bit rank, n = 32768 APSP, 2^32-element scans and sorts) on the largest
// and the smallest preset. Counters are 64-bit; these check that no count
// wrapped on the way (each stays below 2^53, so it is exact as a double in
// the time model and in JSON, and grows with n: at most 2^6 times from n/2
// to n, never shrinking).
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "agpu/model/catalog.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/sim/algorithms.hpp"

using namespace agpu;

namespace {

struct point {
    std::string key, device;
};
void PrintTo(const point& p, std::ostream* os) { *os << p.key << " on " << p.device; }

std::vector<point> points() {
    std::vector<point> v;
    // The blocked and dpx closed forms walk every launch's tiles: at n = 32768
    // they take about 25 s of CPU on the H100 and minutes with the 9400 GT's
    // b = 16, so they are checked on the H100 only.
    for (const auto& [key, cf] : model::closed_forms())
        for (const char* dev : {"h100", "geforce-9400gt"})
            if (std::string(dev) == "h100" || (key != "apsp/blocked" && key != "apsp/dpx")) v.push_back({key, dev});
    return v;
}

}  // namespace

class PaperScale : public testing::TestWithParam<point> {};

TEST_P(PaperScale, CountsAtTheLargestNDoNotWrap) {
    const auto& [key, device] = GetParam();
    const auto& spec = sim::find_algorithm(key).spec;
    const auto dev = model::resolve_device(device);
    const auto params = model::parse_params(spec, {});
    const auto& cf = *model::find_closed_form(key);
    const std::uint64_t n = spec.max_n, half = std::max(spec.min_n, spec.max_n / 2);
    const auto big = cf.costs(dev.agpu, n, params);
    const auto small = cf.costs(dev.agpu, half, params);
    for (const auto& [c, v] : big) {
        const auto name = std::string(model::info(c).name);
        EXPECT_LT(v, std::uint64_t(1) << 53) << key << " n=" << n << " " << name;
        const auto s = small.find(c);
        if (s == small.end() || c == model::counter::shared_words_max) continue;
        // A merge sort's plan may split one pass fewer at 2n (where the last pass merges d runs, not fewer), so
        // its launches (a split pass adds two) need not grow.
        if (key.starts_with("sort/") && c == model::counter::launches) continue;
        EXPECT_GE(v, s->second) << key << " " << name << " shrank from n=" << half << " to n=" << n;
        EXPECT_LE(v, 64 * s->second + 64) << key << " " << name << " grew more than 2^6 times from n=" << half;
    }
    if (key.starts_with("rank/")) {
        EXPECT_EQ(n, std::uint64_t(1) << 34) << "the paper's 2^34-bit rank";
    }
    if (key.starts_with("apsp/")) {
        EXPECT_EQ(n, 32768u) << "the paper-scale APSP";
    }
}

INSTANTIATE_TEST_SUITE_P(ClosedForms, PaperScale, testing::ValuesIn(points()),
                         [](const testing::TestParamInfo<point>& i) {
                             std::string s = i.param.key + "_" + i.param.device;
                             for (auto& ch : s)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return s;
                         });
