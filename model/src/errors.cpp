#include "agpu/errors.hpp"

namespace agpu {

void fail_check(const char* expr, const char* file, int line, const std::string& what) {
    throw internal_error(std::string("internal check failed at ") + file + ":" + std::to_string(line) + ": " + expr +
                         (what.empty() ? "" : " (" + what + ")"));
}

}  // namespace agpu
