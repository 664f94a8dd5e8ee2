// The preset files compiled into the library (generated from model/devices/).
#pragma once

#include <vector>

namespace agpu::model::detail {

struct embedded_file {
    const char* id;
    const char* text;
};

const std::vector<embedded_file>& embedded_device_files();

}  // namespace agpu::model::detail
