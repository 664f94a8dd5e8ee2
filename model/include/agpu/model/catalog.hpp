// The device presets (model/devices/*.json, compiled into the library so that
// `agpu` works from any directory) and the lookup of a device by id or file.
#pragma once

#include <string>
#include <vector>

#include "agpu/model/device.hpp"

namespace agpu::model {

// Every preset, validated, in the order of model/devices/index.json.
const std::vector<device>& presets();

// A preset by id, or a device file by path (anything containing '/' or ending
// in ".json"). Throws input_error naming the id or file and the rule.
device resolve_device(const std::string& id_or_file);

// Reads and validates one device file; a "base" is resolved among the presets.
device load_device_file(const std::string& path);
// The same from the file's text; `where` names it in errors.
device parse_device_text(const std::string& text, const std::string& where);

}  // namespace agpu::model
