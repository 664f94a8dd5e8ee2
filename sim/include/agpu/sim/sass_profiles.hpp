// The kernels' SASS profiles (model/sass.hpp), registered by each family
// beside its simulator registration (kernels/<family>/sm_90.sass.json,
// compiled in by kernels/CMakeLists.txt), and looked up by a simulated
// kernel's symbol: the simulator's instruction counters come from them.
#pragma once

#include <string>
#include <string_view>

#include "agpu/model/sass.hpp"

namespace agpu::sim {

// Registers a profile's JSON text (agpu.sass/1); parsed on first use.
struct sass_profile_registrar {
    sass_profile_registrar(const char* name, const char* json_text);
};

// The SASS of the kernel whose CUDA symbol is `cuda_symbol` (the mangled name
// nvcc gives it), and the module that holds it; nullptr when no registered
// profile has it.
struct sass_kernel {
    const model::sass_module* module = nullptr;
    std::string symbol;
};
sass_kernel find_sass_kernel(const std::string& cuda_symbol);

// The CUDA symbol of a kernel compiled for the simulator, from its address:
// the mangled name with the kernel layer's simulator namespace in place of the
// CUDA one (the same source compiles to both); "" where the address has no
// symbol (the program was linked without exported symbols).
std::string cuda_symbol_of(const void* kernel);

}  // namespace agpu::sim

#define AGPU_SASS_CAT2(a, b) a##b
#define AGPU_SASS_CAT(a, b) AGPU_SASS_CAT2(a, b)
// AGPU_REGISTER_SASS_PROFILE(name, json_text): one line per family's profile.
#define AGPU_REGISTER_SASS_PROFILE(name, text) \
    static const ::agpu::sim::sass_profile_registrar AGPU_SASS_CAT(agpu_sass_profile_, __LINE__) { name, text }
