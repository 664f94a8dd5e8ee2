#include <gtest/gtest.h>

#include <sstream>

#include "agpu/reports/tidy.hpp"

namespace reports = agpu::reports;

TEST(TidyCsv, OneRowPerCounterWithProvenance) {
    agpu::model::counts c;
    c[agpu::model::counter::io_blocks] = 42;
    std::ostringstream os;
    reports::write_counts_csv_header(os);
    reports::write_counts_csv(os, {"simulator", "h100", "micro/global-stride", "op=load;stride=2", 1000},
                              {{"0", "global_stride_load", c}});
    const std::string out = os.str();
    std::size_t lines = 0;
    for (char ch : out) lines += ch == '\n';
    EXPECT_EQ(lines, 1 + agpu::model::counter_count);
    EXPECT_NE(out.find("agpu.counts-csv/1,"), std::string::npos);
    EXPECT_NE(
        out.find(
            ",simulator,h100,micro/global-stride,1000,op=load;stride=2,0,global_stride_load,io_blocks,42,blocks\n"),
        std::string::npos)
        << out;
}

TEST(TidyCsv, QuotesWhatNeedsQuoting) {
    EXPECT_EQ(reports::csv_field("plain"), "plain");
    EXPECT_EQ(reports::csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(reports::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}
