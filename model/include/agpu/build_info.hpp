// What this build is: version, commit and optional backends. Written into every
// machine-readable output (STYLE.md 7). Generated at build time.
#pragma once

namespace agpu::build_info {

extern const char* const version;  // project version, "0.1.0"
extern const char* const commit;   // git describe --always --dirty at build time, or "unknown"
extern const bool with_cuda;       // GPU kernels and measurement compiled in

}  // namespace agpu::build_info
