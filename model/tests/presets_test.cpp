// The presets that ship: all valid, every number sourced and dated, and the
// hypothetical ones change exactly what their names say.
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "agpu/model/catalog.hpp"

namespace model = agpu::model;

TEST(Presets, TheIssueListIsThere) {
    std::set<std::string> ids;
    for (const auto& d : model::presets()) ids.insert(d.id);
    for (const char* id : {"h100", "h200", "a100", "v100", "geforce-9400gt", "geforce-gt220", "geforce-gtx280",
                           "geforce-gtx480", "tesla-c2070", "h100-b64", "h100-half-smem", "h100-2x-bw"})
        EXPECT_TRUE(ids.count(id)) << id;
    EXPECT_EQ(ids.size(), model::presets().size()) << "duplicate ids";
}

TEST(Presets, EveryNumberHasASourceAndADate) {
    for (const auto& d : model::presets())
        for (const auto& field : model::device_field_names()) {
            if (field == "hardware.compute_capability") continue;  // a name, not a measured number
            auto it = d.sources.find(field);
            ASSERT_NE(it, d.sources.end()) << d.id << ": " << field << " has no source";
            EXPECT_FALSE(it->second.source.empty()) << d.id << ": " << field;
            EXPECT_GE(it->second.date.size(), 4u) << d.id << ": " << field << " has no date";
        }
}

TEST(Presets, RealDevicesMapAnMpToAnSm) {
    for (const auto& d : model::presets()) {
        EXPECT_EQ(d.agpu.k(), d.hw.sm_count) << d.id;
        EXPECT_EQ(d.agpu.w, 32u) << d.id;
        const bool cc1 = d.hw.compute_capability.starts_with("1.");
        if (d.kind == "real") {
            EXPECT_EQ(d.agpu.b, cc1 ? 16u : 32u) << d.id << ": b is the half-warp on cc 1.x";
        }
    }
}

TEST(Presets, HypotheticalDevicesChangeOneParameter) {
    const auto h100 = model::resolve_device("h100");
    auto b64 = model::resolve_device("h100-b64");
    EXPECT_EQ(b64.agpu.b, 64u);
    EXPECT_EQ(b64.agpu.k(), h100.agpu.k());
    auto half = model::resolve_device("h100-half-smem");
    EXPECT_EQ(half.agpu.M * 2, h100.agpu.M);
    auto bw = model::resolve_device("h100-2x-bw");
    EXPECT_DOUBLE_EQ(bw.hw.mem_bandwidth_gbs, 2 * h100.hw.mem_bandwidth_gbs);
    bw.hw.mem_bandwidth_gbs = h100.hw.mem_bandwidth_gbs;
    EXPECT_EQ(bw.agpu, h100.agpu);
    EXPECT_EQ(bw.hw, h100.hw) << "h100-2x-bw changes only the bandwidth";
    for (const auto* d : {&b64, &half, &bw}) {
        EXPECT_EQ(d->kind, "hypothetical");
        EXPECT_EQ(d->base, "h100");
    }
}
