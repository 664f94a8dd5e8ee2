// Strict device files (an unknown key at any depth, the patch included, is
// rejected with the file, the path and the rule) and the derived fields that
// follow a patched or --device-set parameter (derivation.hpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/derivation.hpp"

using agpu::input_error;
using nlohmann::json;
namespace model = agpu::model;

namespace {

json patched(json patch) {
    return {{"schema", 1},    {"id", "test-device"},      {"name", "a test device"}, {"kind", "hypothetical"},
            {"base", "h100"}, {"patch", std::move(patch)}};
}

model::device load(const json& j) { return model::parse_device_text(j.dump(), "test.json"); }

// The error message of loading `j` ("" if it loads).
std::string error_of(const json& j) {
    try {
        load(j);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

void expect_error(const std::string& msg, const std::string& path, const std::string& rule) {
    EXPECT_NE(msg.find("test.json: field " + path + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(rule), std::string::npos) << msg;
}

json sourced(double v) { return {{"value", v}, {"source", "hypothetical: a test"}, {"date", "2026-12-01"}}; }

}  // namespace

TEST(StrictDeviceFile, UnknownKeyAtTheTopLevelOfAPatchedFile) {
    json j = patched({{"agpu", {{"b", sourced(64)}}}});
    j["b"] = sourced(64);
    expect_error(error_of(j), "b", "unknown field");
}

TEST(StrictDeviceFile, UnknownKeyAtThePatchsTopLevel) {
    // The mistake that used to predict the unchanged H100: b outside agpu.
    expect_error(error_of(patched({{"b", sourced(64)}})), "patch.b",
                 "unknown key (a patch holds agpu, hardware and timing only");
    expect_error(error_of(patched({{"hardwear", {{"sm_clock_mhz", sourced(1000)}}}})), "patch.hardwear", "unknown key");
    expect_error(error_of(patched({{"id", "x"}})), "patch.id", "unknown key");
}

TEST(StrictDeviceFile, UnknownFieldInAPatchSection) {
    expect_error(error_of(patched({{"agpu", {{"B", sourced(64)}}}})), "patch.agpu.B",
                 "unknown field (known: p, b, M, w)");
    expect_error(error_of(patched({{"hardware", {{"sm_clok_mhz", sourced(1000)}}}})), "patch.hardware.sm_clok_mhz",
                 "unknown field");
}

TEST(StrictDeviceFile, UnknownKeyInAPatchedSourcedValue) {
    json v = sourced(64);
    v["sorce"] = "typo";
    expect_error(error_of(patched({{"agpu", {{"b", v}}}})), "patch.agpu.b.sorce",
                 "unknown key (a sourced value has only value, source, date)");
    expect_error(error_of(patched({{"agpu", {{"b", {{"source", "x"}}}}}})), "patch.agpu.b", "needs \"value\"");
    expect_error(error_of(patched({{"agpu", {{"b", {{"value", 64}, {"source", ""}}}}}})), "patch.agpu.b.source",
                 "non-empty string");
}

TEST(StrictDeviceFile, APatchCannotRemoveOrHoldNonObjects) {
    expect_error(error_of(patched({{"agpu", {{"b", nullptr}}}})), "patch.agpu.b", "cannot remove a field");
    expect_error(error_of(patched({{"agpu", 64}})), "patch.agpu", "must be an object");
    expect_error(error_of(patched(json::array())), "patch", "must be an object");
}

TEST(StrictDeviceFile, UnknownKeyInAFullFilesSections) {
    json j = model::device_to_json(model::resolve_device("h100"));
    j["id"] = "test-device";
    j["hardware"]["sm_count"]["sorce"] = "typo";
    expect_error(error_of(j), "hardware.sm_count", "unknown key \"sorce\"");
    j = model::device_to_json(model::resolve_device("h100"));
    j["id"] = "test-device";
    j["agpu"]["k"] = 132;
    expect_error(error_of(j), "agpu.k", "unknown field");
}

TEST(Derivation, BFromAPatchGivesAValidDeviceWithDerivedFields) {
    const auto h100 = model::resolve_device("h100");
    const auto d = load(patched({{"agpu", {{"b", sourced(64)}}}}));
    EXPECT_EQ(d.agpu.b, 64u);
    EXPECT_EQ(d.agpu.p, h100.hw.sm_count * 64u);
    EXPECT_EQ(d.agpu.k(), h100.agpu.k());
    EXPECT_EQ(d.hw.banks, 64u);
    EXPECT_EQ(d.hw.warp_width, 64u);
    EXPECT_EQ(d.hw.max_threads_per_block, 1024u);
    EXPECT_EQ(d.agpu.M, h100.agpu.M);
    // The derivation is named in the source, dated as the parameter it follows.
    EXPECT_EQ(d.sources.at("agpu.p").source, "derived: p = k * b = 132 * 64 (an AGPU MP is an SM), follows agpu.b");
    EXPECT_EQ(d.sources.at("agpu.p").date, "2026-12-01");
    EXPECT_NE(d.sources.at("hardware.banks").source.find("banks = b = 64"), std::string::npos);
    EXPECT_NE(d.sources.at("hardware.warp_width").source.find("smallest multiple of b = 64"), std::string::npos);
    // The same numbers as the preset that patches them by hand.
    const auto preset = model::resolve_device("h100-b64");
    EXPECT_EQ(d.agpu, preset.agpu);
    EXPECT_EQ(d.hw, preset.hw);
}

TEST(Derivation, BelowTheWarpWidthKeepsTheWarp) {
    const auto d = load(patched({{"agpu", {{"b", sourced(16)}}}}));
    EXPECT_EQ(d.agpu.p, 132u * 16);
    EXPECT_EQ(d.hw.banks, 16u);
    EXPECT_EQ(d.hw.warp_width, 32u);
    EXPECT_EQ(d.sources.at("hardware.warp_width"), model::resolve_device("h100").sources.at("hardware.warp_width"));
}

TEST(Derivation, AnOddBMovesTheWarpAndTheBlockLimit) {
    const auto d = load(patched({{"agpu", {{"b", sourced(48)}}}}));
    EXPECT_EQ(d.hw.warp_width, 48u);
    EXPECT_EQ(d.hw.max_threads_per_block, 1008u);  // 21 warps of 48
    EXPECT_NE(d.sources.at("hardware.max_threads_per_block").source.find("largest multiple of warp_width = 48"),
              std::string::npos);
}

TEST(Derivation, PFollowsTheSmCountAndTheSmCountFollowsP) {
    auto d = load(patched({{"hardware", {{"sm_count", sourced(66)}}}}));
    EXPECT_EQ(d.agpu.p, 66u * 32);
    d = load(patched({{"agpu", {{"p", sourced(2112)}}}}));
    EXPECT_EQ(d.hw.sm_count, 66u);
    EXPECT_NE(d.sources.at("hardware.sm_count").source.find("k = p / b = 2112 / 32"), std::string::npos);
}

TEST(Derivation, PAndBGivenTogetherMoveTheSmCount) {
    // Wider MPs with p kept: half as many of them.
    const auto d = load(patched({{"agpu", {{"b", sourced(64)}, {"p", sourced(4224)}}}}));
    EXPECT_EQ(d.hw.sm_count, 66u);
    EXPECT_EQ(d.hw.banks, 64u);
}

TEST(Derivation, MDragsTheSharedMemoryBytes) {
    const auto h100 = model::resolve_device("h100");
    const auto d = load(patched({{"agpu", {{"M", sourced(29056)}}}}));
    EXPECT_EQ(d.hw.smem_per_block_bytes, 29056u * 4);
    const auto preset = model::resolve_device("h100-half-smem");
    EXPECT_EQ(d.hw.smem_per_sm_bytes, preset.hw.smem_per_sm_bytes);  // the base's scaled with it
    EXPECT_EQ(d.hw, preset.hw);
    // Growing M grows both.
    const auto big = load(patched({{"agpu", {{"M", sourced(2 * 58112)}}}}));
    EXPECT_EQ(big.hw.smem_per_block_bytes, 2 * h100.hw.smem_per_block_bytes);
    EXPECT_EQ(big.hw.smem_per_sm_bytes, 2 * h100.hw.smem_per_sm_bytes);
}

TEST(Derivation, WDragsTheBankWidthAndTheBytes) {
    const auto d = load(patched({{"agpu", {{"w", sourced(16)}}}}));
    EXPECT_EQ(d.hw.bank_width_bytes, 2u);
    EXPECT_EQ(d.hw.smem_per_block_bytes, 58112u * 2);
}

TEST(Derivation, AContradictionSaysWhich) {
    expect_error(
        error_of(patched(
            {{"agpu", {{"b", sourced(64)}, {"p", sourced(4224)}}}, {"hardware", {{"sm_count", sourced(132)}}}})),
        "patch.agpu.p",
        "gives 4224, which contradicts the derivation p = k * b = hardware.sm_count * agpu.b = 132 * 64 = 8448");
    expect_error(error_of(patched({{"agpu", {{"b", sourced(64)}}}, {"hardware", {{"banks", sourced(32)}}}})),
                 "patch.hardware.banks", "gives 32, which contradicts the derivation banks = b = 64");
    expect_error(error_of(patched({{"agpu", {{"b", sourced(64)}}}, {"hardware", {{"warp_width", sourced(96)}}}})),
                 "patch.hardware.warp_width", "contradicts the derivation warp_width a multiple of b = 64");
    expect_error(
        error_of(patched({{"agpu", {{"M", sourced(1000)}}}, {"hardware", {{"smem_per_block_bytes", sourced(8000)}}}})),
        "patch.hardware.smem_per_block_bytes",
        "contradicts the derivation smem_per_block_bytes = M * w / 8 = 1000 * 32 / 8 = 4000");
    expect_error(error_of(patched({{"agpu", {{"w", sourced(16)}}}, {"hardware", {{"bank_width_bytes", sourced(4)}}}})),
                 "patch.hardware.bank_width_bytes", "contradicts the derivation bank_width_bytes = w / 8 = 2");
}

TEST(Derivation, ConsistentExplicitValuesAreAccepted) {
    const auto d = load(patched({{"agpu", {{"b", sourced(64)}, {"p", sourced(8448)}}},
                                 {"hardware", {{"banks", sourced(64)}, {"warp_width", sourced(128)}}}}));
    EXPECT_EQ(d.hw.warp_width, 128u);
    EXPECT_EQ(d.hw.sm_count, 132u);
}

TEST(DeviceSet, SettingsFollowTheSameDerivations) {
    const auto h100 = model::resolve_device("h100");
    const auto d = model::with_settings(h100, {model::parse_device_setting("b=64")});
    EXPECT_EQ(d.agpu, model::resolve_device("h100-b64").agpu);
    EXPECT_EQ(d.hw, model::resolve_device("h100-b64").hw);
    EXPECT_EQ(d.id, "h100-b64");
    EXPECT_EQ(d.kind, "hypothetical");
    EXPECT_EQ(d.base, "h100");
    EXPECT_EQ(d.sources.at("agpu.b").source, "hypothetical: b=64 on h100");
    const auto two = model::with_settings(
        h100, {model::parse_device_setting("bandwidth=1000"), model::parse_device_setting("hardware.l2_bytes=0")});
    EXPECT_EQ(two.hw.mem_bandwidth_gbs, 1000);
    EXPECT_EQ(two.hw.l2_bytes, 0u);
    EXPECT_EQ(two.id, "h100-bandwidth1000-hardware.l2_bytes0");
}

TEST(DeviceSet, BadSettingsNameTheOptionAndTheRule) {
    try {
        model::parse_device_setting("bw=1");
        FAIL();
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("option --device-set bw: unknown device parameter"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(model::parse_device_setting("b=x"), input_error);
    EXPECT_THROW(model::parse_device_setting("b"), input_error);
    try {
        model::with_settings(model::resolve_device("h100"),
                             {model::parse_device_setting("b=64"), model::parse_device_setting("p=4224"),
                              model::parse_device_setting("k=132")});
        FAIL();
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("option --device-set: field agpu.p: gives 4224, which contradicts"),
                  std::string::npos)
            << e.what();
    }
}
