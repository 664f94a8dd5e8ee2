// Every metric the counter table and the hardware metrics name is one the
// H100's chip offers, checked by CUPTI's profiler host API (no GPU needed), so
// a misspelt metric fails here and not on the GPU machine.
#include <gtest/gtest.h>

#include "agpu/errors.hpp"
#include "agpu/model/counters.hpp"
#include "agpu/validate/cupti.hpp"

namespace validate = agpu::validate;

TEST(CuptiMetrics, MetricTermsSplitSumsDifferencesAndScales) {
    const auto t = validate::metric_terms("a.sum+b.sum-c.sum/4");
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0], std::make_pair(std::string("a.sum"), 1.0));
    EXPECT_EQ(t[1], std::make_pair(std::string("b.sum"), 1.0));
    EXPECT_EQ(t[2], std::make_pair(std::string("c.sum"), -0.25));
}

TEST(CuptiMetrics, EveryCounterMetricIsOfferedByGH100) {
    std::vector<std::string> names;
    for (const auto& c : agpu::model::counter_table)
        for (const auto& [m, f] : validate::metric_terms(c.cupti_metric))
            if (!m.empty()) names.push_back(m);
    for (const auto& h : agpu::model::hardware_metrics)
        for (const auto& [m, f] : validate::metric_terms(h.cupti_metric)) names.push_back(m);
    std::vector<std::string> missing;
    try {
        missing = validate::cupti_metrics_not_offered("GH100", names);
    } catch (const agpu::unavailable_error& e) {
        GTEST_SKIP() << e.what();
    }
    for (const auto& m : missing) ADD_FAILURE() << m;
    EXPECT_GT(names.size(), 20u);
}
