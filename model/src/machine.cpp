#include "agpu/model/machine.hpp"

#include <ostream>

#include "agpu/errors.hpp"

namespace agpu::model {

void machine::validate(const std::string& where, const std::string& field_prefix) const {
    auto bad = [&](const char* field, const std::string& rule) {
        throw input_error(where + ": field " + field_prefix + field, rule);
    };
    if (b == 0) bad("b", "must be a positive integer (cores per multiprocessor)");
    if (b > 1024) bad("b", "must be at most 1024 (one MP's lanes execute one instruction together)");
    if (p == 0) bad("p", "must be a positive integer (cores)");
    if (p % b != 0)
        bad("p", "must be a multiple of b (p = k * b), got p = " + std::to_string(p) + ", b = " + std::to_string(b));
    if (M < b)
        bad("M", "must be at least b (shared memory has b banks), got M = " + std::to_string(M) +
                     ", b = " + std::to_string(b));
    if (w != 8 && w != 16 && w != 32 && w != 64)
        bad("w", "must be one of 8, 16, 32, 64 (bits per word), got " + std::to_string(w));
}

std::ostream& operator<<(std::ostream& os, const machine& m) {
    return os << "AGPU(p=" << m.p << ", b=" << m.b << ", M=" << m.M << ", w=" << m.w << "; k=" << m.k() << ")";
}

}  // namespace agpu::model
