// One device parameter changed, the rest kept: the hypothetical devices of
// `agpu predict --sweep PARAM=v1,v2,...`. A parameter drags along what the
// device rules tie to it, by the derivations of derivation.hpp (b: p = k b,
// the banks and the warp width; M: the shared memory per block and per SM;
// p: the SM count), and the result is validated like a device file, so an
// impossible value is rejected naming the field and rule.
#pragma once

#include <string>
#include <vector>

#include "agpu/model/device.hpp"

namespace agpu::model {

// "b", "M", "p", "clock" (hardware.sm_clock_mhz), "bandwidth" (hardware.mem_bandwidth_gbs).
const std::vector<std::string>& sweep_parameters();

// `base` with `param` set to `value`; id "<base id>-<param><value>", kind
// "hypothetical". Throws input_error: "option --sweep <param>" for an
// unknown parameter or a value that is not a positive number (an integer for
// b, M, p), and the device rules' own message for an impossible device.
device with_parameter(const device& base, const std::string& param, double value);

// Parses "PARAM=v1,v2,..." (values as text, checked by with_parameter).
struct sweep_spec {
    std::string param;
    std::vector<double> values;
};
sweep_spec parse_sweep(const std::string& text);

}  // namespace agpu::model
