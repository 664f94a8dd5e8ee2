// The calibrate suite on the host (the probes run on the GPU only): every
// entry names a probe and parses against its spec, and the suite measures
// every probe a constant of the device's timing is derived from.
#include <gtest/gtest.h>

#include <algorithm>

#include "agpu/validate/calibrate.hpp"
#include "agpu/validate/suite.hpp"
#include "probes/probe_specs.hpp"

namespace model = agpu::model;
namespace validate = agpu::validate;
namespace probes = agpu::kernels::probes;

TEST(Probes, CalibrateSuiteEntriesParse) {
    const auto& s = validate::find_suite("calibrate");
    const auto specs = probes::probe_specs();
    for (const auto& e : s.entries) {
        const auto it = std::find_if(specs.begin(), specs.end(), [&](const auto& p) { return p.key == e.algo; });
        ASSERT_NE(it, specs.end()) << e.algo << " is not a probe";
        EXPECT_NO_THROW(agpu::model::parse_params(*it, e.sets)) << validate::entry_label(e);
        ASSERT_FALSE(e.sizes.empty()) << validate::entry_label(e) << ": a probe entry sets its own sizes";
        for (auto n : e.sizes) EXPECT_NO_THROW(agpu::model::check_n(*it, n)) << validate::entry_label(e);
    }
}

TEST(Probes, CalibrateSuiteMeasuresEveryConstantsProbe) {
    const auto& s = validate::find_suite("calibrate");
    for (const auto& c : validate::timing_constants) {
        // "probe/stream op=read": the algorithm and the parameters its entry must set.
        const std::string probe(c.probe);
        const auto space = probe.find(' ');
        const std::string algo = probe.substr(0, space);
        const std::string set = space == std::string::npos ? "" : probe.substr(space + 1);
        const bool found = std::any_of(s.entries.begin(), s.entries.end(), [&](const auto& e) {
            return e.algo == algo && (set.empty() || std::find(e.sets.begin(), e.sets.end(), set) != e.sets.end());
        });
        EXPECT_TRUE(found) << c.name << " needs " << probe;
    }
}

TEST(Probes, IssueProbesHaveTheirOpcodeInTheLoop) {
    for (const auto& p : model::probe_shape::issue_probes) {
        unsigned count = 0;
        for (const auto& c : p.loop)
            if (c.opcode == p.opcode) count += c.count;
        // One a step, and the loop counter's VIADD in op=viadd.
        EXPECT_EQ(count, agpu::model::probe_shape::issue_steps * p.unroll + (p.op == "viadd")) << p.op;
    }
}
