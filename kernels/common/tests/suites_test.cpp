// Every registered suite: its entries' parameters parse against their
// algorithms' specs (simulator algorithms; GPU-only baselines are checked
// where they are registered, on the GPU build; the probes in
// probes/probes_test.cpp), and its bench targets name its entries.
#include <gtest/gtest.h>

#include "agpu/model/algorithm.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/validate/suite.hpp"

TEST(Suites, EntriesParseAndTargetsNameEntries) {
    for (const auto* s : agpu::validate::suites()) {
        EXPECT_NO_THROW(agpu::validate::check_targets(*s)) << s->name;
        for (const auto& e : s->entries) {
            if (e.algo.rfind("baseline/", 0) == 0 || e.algo.rfind("probe/", 0) == 0) continue;  // probes_test.cpp
            EXPECT_NO_THROW(agpu::model::parse_params(agpu::sim::find_algorithm(e.algo).spec, e.sets))
                << s->name << ": " << agpu::validate::entry_label(e);
        }
    }
}
