// Built when the CUDA toolkit (and so CUPTI) was not found: counter collection
// says what is missing instead of failing to build.
#include "agpu/errors.hpp"
#include "agpu/validate/cupti.hpp"

namespace agpu::validate {

namespace {
const char* const no_cupti = "this agpu was built without CUPTI (no CUDA toolkit at build time)";
}

cupti_status cupti_query() {
    cupti_status s;
    s.reason = no_cupti;
    return s;
}

std::vector<std::string> cupti_metrics_not_offered(const std::string&, const std::vector<std::string>&) {
    throw unavailable_error("CUPTI: this agpu was built without CUDA, so it cannot check metric names");
}

cupti_result cupti_collect(const std::vector<std::string>&, const std::function<void()>&, std::size_t) {
    throw unavailable_error(no_cupti);
}

}  // namespace agpu::validate
