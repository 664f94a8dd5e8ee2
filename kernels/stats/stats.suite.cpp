// The `stats` validation suite: stats/fused and stats/pairwise, float and
// double, at a size that fills the GPU (2^24 values: 64 or 128 MB, more than
// the H100's 50 MB L2) and an odd one (10^7 + 3: a vector tail, and pairwise
// padded to 2^24). stats/serial is left out: a suite gives every entry the
// same sizes, and one thread takes seconds per run at these (README.md).
#include "agpu/validate/suite.hpp"

namespace {

AGPU_REGISTER_SUITE({"stats", "min, max, mean, variance: the source's pairwise rounds against the fused one-pass kernel",
                     {std::uint64_t(1) << 24, 10000003},
                     {{"stats/fused", {"type=float"}},
                      {"stats/fused", {"type=double"}},
                      {"stats/pairwise", {"type=float"}},
                      {"stats/pairwise", {"type=double"}}}});

}  // namespace
