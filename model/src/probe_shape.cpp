#include "agpu/model/probe_shape.hpp"

#include <string>

#include "agpu/errors.hpp"

namespace agpu::model {

namespace probe_shape {

const issue_probe& find_issue_probe(std::string_view op) {
    for (const auto& p : issue_probes)
        if (p.op == op) return p;
    throw input_error("probe/issue op=" + std::string(op), "no such issue probe (probe_shape.hpp, issue_probes)");
}

}  // namespace probe_shape

}  // namespace agpu::model
