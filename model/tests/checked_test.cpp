// Checked count arithmetic at its edges, and the conversions from doubles that
// user input reaches (--sweep values) rejected before they would overflow.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "agpu/model/catalog.hpp"
#include "agpu/model/checked.hpp"
#include "agpu/model/sweep.hpp"

using namespace agpu::model;

namespace {
constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t two32 = std::uint64_t(1) << 32;
}  // namespace

TEST(Checked, MultiplyAtTheEdge) {
    EXPECT_EQ(checked_mul(two32 - 1, two32 + 1, "x"), max64);  // 2^64 - 1: the largest product that fits
    EXPECT_EQ(checked_mul(0, max64, "x"), 0u);
    EXPECT_THROW(checked_mul(two32, two32, "x"), agpu::count_overflow);
    EXPECT_THROW(checked_mul(max64, 2, "x"), agpu::count_overflow);
    try {
        checked_mul(two32, two32, "apsp closed form");
    } catch (const agpu::input_error& e) {  // a count_overflow is an input error: exit status 2
        EXPECT_STREQ(e.what(), "apsp closed form: 4294967296 x 4294967296 overflows a 64-bit count");
    }
}

TEST(Checked, AddAtTheEdge) {
    EXPECT_EQ(checked_add(max64 - 1, 1, "x"), max64);
    EXPECT_THROW(checked_add(max64, 1, "x"), agpu::count_overflow);
}

TEST(Checked, DoubleToCount) {
    EXPECT_EQ(checked_count(9007199254740992.0, "x"), std::uint64_t(1) << 53);
    EXPECT_EQ(checked_count(18446744073709549568.0, "x"), 18446744073709549568ull);  // the largest double below 2^64
    EXPECT_THROW(checked_count(18446744073709551616.0, "x"), agpu::count_overflow);  // 2^64
    EXPECT_THROW(checked_count(1e308, "x"), agpu::count_overflow);
    EXPECT_THROW(checked_count(std::nan(""), "x"), agpu::count_overflow);
    EXPECT_THROW(checked_count(-1, "x"), agpu::count_overflow);
    EXPECT_THROW(checked_count(2.5, "x"), agpu::count_overflow);
}

TEST(Checked, SweepValuesBeyondTheDeviceBoundsAreRejected) {
    EXPECT_THROW(parse_sweep("clock=1e30"), agpu::input_error);  // was: a double -> uint64 conversion out of range
    EXPECT_THROW(parse_sweep("b=1e300"), agpu::input_error);
    EXPECT_THROW(parse_sweep("M=9007199254740994"), agpu::input_error);
    EXPECT_NO_THROW(parse_sweep("bandwidth=1e9"));
    // At the bound the device rules answer, naming the field.
    const auto h100 = resolve_device("h100");
    try {
        with_parameter(h100, "M", 9007199254740992.0);
        FAIL() << "M = 2^53 words cannot fit in a block's shared memory";
    } catch (const agpu::input_error& e) {
        EXPECT_NE(std::string(e.what()).find("field hardware."), std::string::npos) << e.what();
    }
}
