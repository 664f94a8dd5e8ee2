// The `micro` validation suite: each micro-kernel at the parameters that make
// its counters tell something (coalesced and strided, conflict-free and
// conflicting, one path and many), at a size that fills the GPU and an odd one.
#include "agpu/validate/suite.hpp"

namespace {

AGPU_REGISTER_SUITE({"micro",
                     "one access pattern per kernel: the hardware counters against the simulator's",
                     {std::uint64_t(1) << 20, 1000003},
                     {{"micro/global-stride", {"stride=1"}},
                      {"micro/global-stride", {"stride=2"}},
                      {"micro/global-stride", {"stride=4"}},
                      {"micro/global-stride", {"stride=8"}},
                      {"micro/global-stride", {"stride=33"}},
                      {"micro/global-stride", {"stride=1", "op=store"}},
                      {"micro/global-stride", {"stride=8", "op=store"}},
                      {"micro/shared-stride", {"stride=1"}},
                      {"micro/shared-stride", {"stride=2"}},
                      {"micro/shared-stride", {"stride=3"}},
                      {"micro/shared-stride", {"stride=8"}},
                      {"micro/shared-stride", {"stride=32"}},
                      {"micro/shared-stride", {"stride=1", "repeat=32"}},
                      {"micro/shared-stride", {"stride=2", "repeat=32"}},
                      {"micro/shared-stride", {"stride=8", "repeat=32"}},
                      {"micro/shared-stride", {"stride=32", "repeat=32"}},
                      {"micro/broadcast", {}},
                      {"micro/barriers", {"count=4"}},
                      {"micro/divergent", {"ways=1"}},
                      {"micro/divergent", {"ways=4"}},
                      {"micro/divergent", {"ways=32"}},
                      {"micro/atomics", {"distinct=1"}},
                      {"micro/atomics", {"distinct=32"}},
                      {"micro/atomics", {"space=shared", "distinct=1"}},
                      {"micro/atomics", {"space=shared", "distinct=32"}}}});

// A store a thread (count=0) and four barriers before it, in blocks of 32 to
// 1024 threads, at three sizes of many waves: whether the time of short-lived
// blocks grows with the blocks, the warps, or the waves of blocks an SM holds
// (32 blocks, 2048 threads on the H100), which the time model has to price.
AGPU_REGISTER_SUITE({"micro-blocks",
                     "short-lived blocks of 32 to 1024 threads: a cost per block, per warp or per wave",
                     {std::uint64_t(1) << 20, 4000000, std::uint64_t(1) << 24},
                     {{"micro/barriers", {"count=0", "threads=32"}},
                      {"micro/barriers", {"count=0", "threads=64"}},
                      {"micro/barriers", {"count=0", "threads=128"}},
                      {"micro/barriers", {"count=0", "threads=256"}},
                      {"micro/barriers", {"count=0", "threads=512"}},
                      {"micro/barriers", {"count=0", "threads=1024"}},
                      {"micro/barriers", {"count=4", "threads=32"}},
                      {"micro/barriers", {"count=4", "threads=64"}},
                      {"micro/barriers", {"count=4", "threads=128"}},
                      {"micro/barriers", {"count=4", "threads=256"}},
                      {"micro/barriers", {"count=4", "threads=512"}},
                      {"micro/barriers", {"count=4", "threads=1024"}}}});

// Launches of one block (n = 256) and of one block an SM (132 x 256 on the
// H100), 0 to 512 barriers a thread, in blocks of 32, 256 and 1024 threads: what
// a chain of barriers costs a launch that nothing else hides (the APSP tiles'
// and the reductions' merges are such chains), per barrier and per warp.
AGPU_REGISTER_SUITE({"micro-chains",
                     "launches of one block, or one block an SM: what a chain of barriers costs",
                     {256, 33792},
                     {{"micro/barriers", {"count=0", "threads=256"}},
                      {"micro/barriers", {"count=8", "threads=256"}},
                      {"micro/barriers", {"count=32", "threads=256"}},
                      {"micro/barriers", {"count=128", "threads=256"}},
                      {"micro/barriers", {"count=512", "threads=256"}},
                      {"micro/barriers", {"count=0", "threads=1024"}},
                      {"micro/barriers", {"count=8", "threads=1024"}},
                      {"micro/barriers", {"count=32", "threads=1024"}},
                      {"micro/barriers", {"count=128", "threads=1024"}},
                      {"micro/barriers", {"count=512", "threads=1024"}},
                      {"micro/barriers", {"count=0", "threads=32"}},
                      {"micro/barriers", {"count=128", "threads=32"}},
                      {"micro/barriers", {"count=512", "threads=32"}}}});

// One thread's pointer chase at links 4, 8, 32 and 128 bytes apart (1/8, 1/4
// and 1 new sector per load, and a 128-byte block of its own per load), at
// three decades of n: what the time model's latency terms are fitted on
// (per step, per DRAM atom, per sector first read from the L2), so that
// leaving a decade or an algorithm out of a fit still leaves them measured.
AGPU_REGISTER_SUITE({"latency",
                     "one thread's dependent loads: the latency of a step, a DRAM atom and an L2 sector",
                     {std::uint64_t(1) << 16, std::uint64_t(1) << 18, std::uint64_t(1) << 20},
                     {{"micro/chase", {"stride=1"}},
                      {"micro/chase", {"stride=2"}},
                      {"micro/chase", {"stride=8"}},
                      {"micro/chase", {"stride=32"}}}});

}  // namespace
