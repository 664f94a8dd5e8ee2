// Built without CUDA: measurement says what is missing.
#include "agpu/errors.hpp"
#include "measure.hpp"

namespace agpu::validate {

std::vector<measurement> measure_run(const model::device&, const std::string&, std::uint64_t,
                                     const model::param_values&, const measure_options&, collection_info&) {
    throw unavailable_error("measuring needs a GPU: this agpu was built without CUDA");
}

}  // namespace agpu::validate
