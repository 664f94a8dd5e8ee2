// One libFuzzer binary per target (AGPU_FUZZ_TARGET names it): see fuzz_entries.hpp.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "fuzz_entries.hpp"

#ifndef AGPU_FUZZ_TARGET
#error "AGPU_FUZZ_TARGET must name a target of agpu::fuzz::targets()"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto entry = [] {
        for (const auto& t : agpu::fuzz::targets())
            if (std::strcmp(t.name, AGPU_FUZZ_TARGET) == 0) return t.entry;
        __builtin_trap();
    }();
    entry(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
