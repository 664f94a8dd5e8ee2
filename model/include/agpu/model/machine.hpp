// The AGPU(p, b, M, w) machine of Koike and Sadakane (IJNC 2015) as a value.
//
// p cores in k = p / b multiprocessors (MPs) of b cores each; every core has
// words of w bits; each MP has M words of shared memory in b banks; global
// memory moves blocks of b consecutive words. See docs/design.md, "The AGPU(p, b, M, w) model".
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace agpu::model {

struct machine {
    std::uint64_t p = 0;  // cores
    std::uint32_t b = 0;  // cores per MP = warp width of the model = banks = words per global block
    std::uint64_t M = 0;  // shared-memory words per MP
    std::uint32_t w = 0;  // word width in bits

    std::uint64_t k() const { return b == 0 ? 0 : p / b; }  // MPs
    std::uint32_t word_bytes() const { return w / 8; }
    std::uint64_t block_bytes() const { return std::uint64_t(b) * word_bytes(); }  // one global block
    std::uint64_t shared_bytes() const { return M * word_bytes(); }

    // Throws input_error naming `where`, the field (prefixed with
    // `field_prefix`, e.g. "agpu.") and the broken rule: p, b, M > 0,
    // p a multiple of b, M >= b, w in {8, 16, 32, 64}.
    void validate(const std::string& where = "machine", const std::string& field_prefix = "") const;

    friend bool operator==(const machine&, const machine&) = default;
};

std::ostream& operator<<(std::ostream& os, const machine& m);

}  // namespace agpu::model
