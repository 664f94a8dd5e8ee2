#include <gtest/gtest.h>

#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/model/machine.hpp"

using agpu::input_error;
using agpu::model::machine;

namespace {

std::string rule_broken(const machine& m) {
    try {
        m.validate("test");
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Machine, DerivesKAndSizes) {
    const machine m{4224, 32, 58112, 32};
    EXPECT_EQ(m.k(), 132u);
    EXPECT_EQ(m.word_bytes(), 4u);
    EXPECT_EQ(m.block_bytes(), 128u);
    EXPECT_EQ(m.shared_bytes(), 232448u);
    EXPECT_EQ(rule_broken(m), "");
}

TEST(Machine, EachRuleNamesItsField) {
    EXPECT_NE(rule_broken({4224, 0, 58112, 32}).find("field b"), std::string::npos);
    EXPECT_NE(rule_broken({0, 32, 58112, 32}).find("field p"), std::string::npos);
    EXPECT_NE(rule_broken({100, 32, 58112, 32}).find("multiple of b"), std::string::npos);
    EXPECT_NE(rule_broken({4224, 32, 31, 32}).find("at least b"), std::string::npos);
    EXPECT_NE(rule_broken({4224, 32, 58112, 24}).find("one of 8, 16, 32, 64"), std::string::npos);
    EXPECT_NE(rule_broken({4096, 2048, 58112, 32}).find("at most 1024"), std::string::npos);
    EXPECT_EQ(rule_broken({32, 32, 32, 8}), "");  // the smallest legal machine of width 32
}

TEST(Machine, IsAValue) {
    const machine a{64, 16, 4096, 32}, b{64, 16, 4096, 32}, c{64, 16, 4096, 64};
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    std::ostringstream os;
    os << a;
    EXPECT_EQ(os.str(), "AGPU(p=64, b=16, M=4096, w=32; k=4)");
}
