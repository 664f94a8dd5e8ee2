// The shapes of the calibration probes (kernels/probes/), declared once: the
// probes launch them and `agpu calibrate` (validate/calibrate.hpp) counts
// their work from them (warps, loop iterations, and the SASS of each issue
// probe's loop body where a run has no per-pipe counters).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace agpu::model {

namespace probe_shape {

// probe/issue and probe/shared: blocks_per_sm blocks of block_threads threads
// for every SM (one wave: 32 warps an SM, 8 a scheduler, each with
// independent work, so that throughput and not latency limits), each block
// holding enough shared memory that no SM takes more than blocks_per_sm.
inline constexpr unsigned block_threads = 256;
inline constexpr unsigned blocks_per_sm = 4;
inline constexpr unsigned warps_per_sm = block_threads / 32 * blocks_per_sm;

// probe/issue: a loop iteration advances `issue_chains` independent chains
// `issue_rounds` times each: issue_chains * issue_rounds steps an iteration.
inline constexpr unsigned issue_chains = 8;
inline constexpr unsigned issue_rounds = 16;
inline constexpr unsigned issue_steps = issue_chains * issue_rounds;

// probe/shared: shared loads a thread issues per loop iteration.
inline constexpr unsigned shared_loads = 16;

// probe/stream, probe/l2, probe/atomic: grid-stride loops over
// stream_blocks_per_sm blocks of block_threads threads for every SM
// (2048 threads an SM: the most memory requests in flight).
inline constexpr unsigned stream_blocks_per_sm = 8;

// probe/chase: links one cache line apart (a line's first 8 bytes hold the
// next link's address). space=dram visits n + 1 distinct random lines of a
// chase_dram_bytes region once each, after the L2 is evicted (a read of
// evict_l2_factor times its size); space=l2 cycles through every line of a
// chase_l2_bytes region in random order, just written and so in the L2.
inline constexpr std::uint64_t chase_line_bytes = 128;
inline constexpr std::uint64_t chase_dram_bytes = std::uint64_t(256) << 20;
inline constexpr std::uint64_t chase_l2_bytes = std::uint64_t(4) << 20;
inline constexpr unsigned evict_l2_factor = 4;

// probe/dependent: links per loop iteration (unrolled).
inline constexpr unsigned dependent_unroll = 16;

// The SASS loop of a probe/issue kernel: opcode (the mnemonic before the
// first '.') and count, for one pass of the loop, which runs `unroll`
// iterations (ptxas unrolls some loops further). Read from the sm_90 code
// CUDA 13 compiles (`agpu sass import` of probes.gpu.cu's object); the test
// probes_sass_test checks it against the build's own code. Where a dataset
// has no per-pipe counters, the derivation counts a probe's instructions from
// it (pipes by model::pipe_of).
struct sass_count {
    std::string_view opcode;
    unsigned count = 0;
};

struct issue_probe {
    std::string_view op;             // probe/issue op=...
    std::string_view opcode;         // the instruction it measures
    unsigned unroll = 1;             // loop iterations one pass of the SASS loop runs
    std::array<sass_count, 5> loop;  // every instruction of one pass
};

// Besides the measured instruction: the loop counter (VIADD or IADD3), its
// compare and the branch (op=viadd's counter is its 129th VIADD). op=i2f converts both ways (I2F.S16, F2I.TRUNC);
// op=viadd pairs each add of an immediate (VIADD) with a LOP3 that mixes in
// the next chain, since ptxas folds chains of immediate adds into one.
inline constexpr std::array<issue_probe, 13> issue_probes{{
    {"ffma", "FFMA", 1, {{{"FFMA", 128}, {"IADD3", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"fadd", "FADD", 1, {{{"FADD", 128}, {"IADD3", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"imad", "IMAD", 1, {{{"IMAD", 128}, {"IADD3", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"iadd3", "IADD3", 1, {{{"IADD3", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"lop3", "LOP3", 1, {{{"LOP3", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"dfma", "DFMA", 1, {{{"DFMA", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"mufu", "MUFU", 1, {{{"MUFU", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"i2f", "I2F", 1, {{{"I2F", 128}, {"F2I", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"hfma2", "HFMA2", 1, {{{"HFMA2", 128}, {"IADD3", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"shfl", "SHFL", 1, {{{"SHFL", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"viadd", "VIADD", 1, {{{"VIADD", 129}, {"LOP3", 128}, {"ISETP", 1}, {"BRA", 1}}}},
    {"vimnmx", "VIMNMX", 1, {{{"VIMNMX", 128}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
    {"viaddmnmx", "VIADDMNMX", 4, {{{"VIADDMNMX", 512}, {"VIADD", 1}, {"ISETP", 1}, {"BRA", 1}}}},
}};

// The issue probe of `op`; throws input_error naming it when there is none.
const issue_probe& find_issue_probe(std::string_view op);

}  // namespace probe_shape

}  // namespace agpu::model
