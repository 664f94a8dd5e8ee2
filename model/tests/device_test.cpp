// Device files: every rule of the format rejects with the file, the field and the rule.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/device.hpp"

using agpu::input_error;
using nlohmann::json;
namespace model = agpu::model;

namespace {

json h100_json() { return model::device_to_json(model::resolve_device("h100")); }

// Applies `edit` to a copy of the H100 file and returns the error message ("" if accepted).
template <class Edit>
std::string error_after(Edit edit) {
    json j = h100_json();
    j["id"] = "test-device";
    edit(j);
    try {
        model::device_from_json(j, "test.json");
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

void expect_error(const std::string& msg, const std::string& field, const std::string& rule) {
    EXPECT_NE(msg.find("test.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("field " + field), std::string::npos) << msg;
    EXPECT_NE(msg.find(rule), std::string::npos) << msg;
}

}  // namespace

TEST(DeviceFile, AcceptsTheH100AndRoundTrips) {
    EXPECT_EQ(error_after([](json&) {}), "");
    const auto d = model::resolve_device("h100");
    EXPECT_EQ(model::device_from_json(model::device_to_json(d), "round-trip"), d);
}

TEST(DeviceFile, AcceptsBareNumbersWithoutSources) {
    EXPECT_EQ(error_after([](json& j) { j["hardware"]["sm_count"] = 132; }), "");
}

TEST(DeviceFile, MissingField) {
    expect_error(error_after([](json& j) { j["agpu"].erase("M"); }), "agpu.M", "is required");
    expect_error(error_after([](json& j) { j["hardware"].erase("mem_bandwidth_gbs"); }), "hardware.mem_bandwidth_gbs",
                 "is required");
    expect_error(error_after([](json& j) { j.erase("name"); }), "name", "is required");
    expect_error(error_after([](json& j) { j.erase("schema"); }), "schema", "is required");
}

TEST(DeviceFile, WrongType) {
    expect_error(error_after([](json& j) { j["agpu"]["b"] = "32"; }), "agpu.b", "must be a number, got string");
    expect_error(error_after([](json& j) { j["hardware"]["compute_capability"] = 9.0; }), "hardware.compute_capability",
                 "must be a string");
    expect_error(error_after([](json& j) { j["agpu"] = json::array(); }), "agpu", "must be an object");
    expect_error(error_after([](json& j) { j["agpu"]["p"]["value"] = 4224.5; }), "agpu.p", "must be an integer");
}

TEST(DeviceFile, UnknownField) {
    expect_error(error_after([](json& j) { j["agpu"]["q"] = 1; }), "agpu.q", "unknown field");
    expect_error(error_after([](json& j) { j["colour"] = "green"; }), "colour", "unknown field");
    expect_error(error_after([](json& j) { j["agpu"]["p"]["units"] = "cores"; }), "agpu.p", "unknown key");
}

TEST(DeviceFile, MachineRules) {
    expect_error(error_after([](json& j) { j["agpu"]["p"]["value"] = 4225; }), "agpu.p", "multiple of b");
    expect_error(error_after([](json& j) { j["agpu"]["M"]["value"] = 16; }), "agpu.M", "at least b");
    expect_error(error_after([](json& j) { j["agpu"]["w"]["value"] = 12; }), "agpu.w", "one of 8, 16, 32, 64");
    expect_error(error_after([](json& j) { j["agpu"]["b"]["value"] = 0; }), "agpu.b", "must be positive");
}

TEST(DeviceFile, NonPositiveClocksAndBandwidth) {
    expect_error(error_after([](json& j) { j["hardware"]["sm_clock_mhz"]["value"] = 0; }), "hardware.sm_clock_mhz",
                 "must be positive");
    expect_error(error_after([](json& j) { j["hardware"]["mem_clock_mhz"]["value"] = -1; }), "hardware.mem_clock_mhz",
                 "must be positive");
    expect_error(error_after([](json& j) { j["hardware"]["mem_bandwidth_gbs"]["value"] = -3352.3; }),
                 "hardware.mem_bandwidth_gbs", "must be positive");
    expect_error(error_after([](json& j) { j["hardware"]["launch_overhead_us"]["value"] = -1; }),
                 "hardware.launch_overhead_us", "non-negative");
}

TEST(DeviceFile, ExtremeNumbers) {
    expect_error(error_after([](json& j) { j["hardware"]["l2_bytes"]["value"] = 1e308; }), "hardware.l2_bytes",
                 "at most 2^53");
    expect_error(error_after([](json& j) { j["hardware"]["banks"]["value"] = 5000000000ull; }), "hardware.banks",
                 "below 2^32");
    expect_error(error_after([](json& j) { j["hardware"]["mem_bandwidth_gbs"]["value"] = 1e308; }),
                 "hardware.mem_bandwidth_gbs", "must be at most 1e9 GB/s, got 1e+308");
    expect_error(error_after([](json& j) { j["hardware"]["launch_overhead_us"] = 1e10; }),
                 "hardware.launch_overhead_us", "must be at most 1e9 us");
}

TEST(DeviceFile, CrossFieldRules) {
    expect_error(error_after([](json& j) { j["hardware"]["sm_count"]["value"] = 100; }), "agpu.p",
                 "must equal hardware.sm_count");
    expect_error(error_after([](json& j) { j["hardware"]["banks"]["value"] = 16; }), "hardware.banks",
                 "must equal agpu.b");
    expect_error(error_after([](json& j) { j["agpu"]["M"]["value"] = 60000; }), "agpu.M",
                 "must fit in hardware.smem_per_block_bytes");
    expect_error(error_after([](json& j) { j["hardware"]["bank_width_bytes"]["value"] = 8; }),
                 "hardware.bank_width_bytes", "w / 8");
    expect_error(error_after([](json& j) { j["kind"] = "imaginary"; }), "kind", "\"real\" or \"hypothetical\"");
    expect_error(error_after([](json& j) { j["schema"] = 2; }), "schema", "must be 1");
    expect_error(error_after([](json& j) { j["id"] = "Bad Id"; }), "id", "a-z");
}

TEST(DeviceFile, PatchNeedsABase) {
    expect_error(error_after([](json& j) {
                     j.erase("agpu");
                     j.erase("hardware");
                     j["patch"] = json::object();
                 }),
                 "patch", "needs \"base\"");
}

TEST(DeviceFile, UnknownPresetListsKnownOnes) {
    try {
        model::resolve_device("h1000");
        FAIL() << "accepted an unknown preset";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("no such preset"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("h100"), std::string::npos);
    }
}

TEST(DeviceFile, MissingFileAndBadJsonNameTheFile) {
    EXPECT_THROW(model::resolve_device("/nonexistent/dev.json"), input_error);
}
