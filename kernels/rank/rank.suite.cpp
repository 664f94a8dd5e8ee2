// The `rank` validation suite: both directories, their build and their bulk
// rank1 and select1 queries (2^20 random ones), at a power of two and an odd
// size.
#include "agpu/validate/suite.hpp"

namespace {

AGPU_REGISTER_SUITE({"rank", "rank directories: the one-pass builds and bulk rank/select queries against the simulator",
                     {std::uint64_t(1) << 26, 10000003},
                     {{"rank/jacobson", {"op=build"}},
                      {"rank/jacobson", {"op=rank1"}},
                      {"rank/jacobson", {"op=select1"}},
                      {"rank/interleaved", {"op=build"}},
                      {"rank/interleaved", {"op=rank1"}},
                      {"rank/interleaved", {"op=select1"}}}});

}  // namespace
