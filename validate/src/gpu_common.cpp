#include "agpu/errors.hpp"
#include "agpu/validate/gpu.hpp"

namespace agpu::validate {

void require_gpu(const std::string& what_for) {
    const auto s = query_gpus();
    if (!s.available) throw unavailable_error(what_for + " needs a GPU: " + s.reason);
}

}  // namespace agpu::validate
