// Changing one device parameter drags along what the device rules tie to it.
// A hypothetical device file's patch and `--device-set NAME=VALUE` give the
// fields they change; every field derived from a changed one and not given
// follows it, with the derivation written into its source:
//
//   agpu.p                       = hardware.sm_count * agpu.b   (an AGPU MP is an SM)
//   hardware.sm_count            = agpu.p / agpu.b              (when p is given and k is not)
//   hardware.banks               = agpu.b                       (shared memory has b banks)
//   hardware.warp_width          the smallest multiple of b not below the base's (b lanes execute together)
//   hardware.max_threads_per_block  the largest multiple of warp_width not above the base's
//   hardware.bank_width_bytes    = agpu.w / 8                   (a bank holds one word)
//   hardware.smem_per_block_bytes = agpu.M * agpu.w / 8         (M is what one block may use)
//   hardware.smem_per_sm_bytes   the base's, scaled with smem_per_block_bytes
//
// A value given explicitly that contradicts a derivation (p != k b, banks !=
// b, a warp width that is not a multiple of b, ...) is an input_error naming
// the field, the derivation and the numbers. The result still goes through
// device::validate like any device file.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agpu/model/device.hpp"

namespace agpu::model {

// Checks a device file's "patch" at every depth: only "agpu" and
// "hardware", each holding known fields only, each a number, a string or a
// sourced value {"value", "source", "date"} (nothing else; no null). Throws
// input_error("<where>: field patch.<path>", rule).
void check_patch(const nlohmann::json& patch, const std::string& where);

// `base` (a device file's JSON with its agpu and hardware sections) with
// `patch` merged in (RFC 7386) and every derived field that the patch does
// not give following its parameter. `field_prefix` names the patch in errors
// ("patch." for a file, "" for --device-set). Throws input_error for a
// contradiction.
nlohmann::json apply_patch(const nlohmann::json& base, const nlohmann::json& patch, const std::string& where,
                           const std::string& field_prefix);

// One `--device-set NAME=VALUE`: NAME is a short name (b, M, p, w, k, clock,
// bandwidth), a field name (l2_bytes) or a dotted one (hardware.l2_bytes).
struct device_setting {
    std::string name;   // as given
    std::string field;  // dotted: "agpu.b"
    double value = 0;
    std::string text;  // "b=64"
};

// The short names and what they set, for help texts: {"b", "agpu.b"}, ...
const std::vector<std::pair<std::string, std::string>>& device_setting_aliases();
// Parses NAME=VALUE; throws input_error("<option> NAME", rule) for an unknown
// name or a value that is not a finite number. `option` is "option
// --device-set" or a spec file's field path.
device_setting parse_device_setting(const std::string& text, const std::string& option = "option --device-set");
// The dotted field of a name (short, plain or dotted); throws input_error naming `option`.
std::string device_setting_field(const std::string& name, const std::string& option = "option --device-set");

// `base` with `settings` applied as a patch (derived fields follow), a
// hypothetical device with id "<base id>-<name><value>-..." and its base
// preset. Throws input_error naming `where` for an impossible device.
device with_settings(const device& base, const std::vector<device_setting>& settings,
                     const std::string& where = "option --device-set");

}  // namespace agpu::model
