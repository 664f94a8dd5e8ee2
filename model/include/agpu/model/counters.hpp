// The counters, declared once (STYLE.md 4): name, unit, how a run aggregates
// its launches, the CUPTI metric that measures it on sm_90 (empty where the
// hardware has no counterpart), and what it means. The simulator fills them,
// the validation layer reads the metric names from here, and the reports
// label their columns from here.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace agpu::model {

enum class counter : std::uint8_t {
    launches,
    thread_blocks,
    threads,
    time_steps,
    io_blocks,
    global_requests,
    global_sectors,
    global_load_instructions,
    global_load_requests,
    global_load_sectors,
    global_load_blocks,
    global_store_instructions,
    global_store_requests,
    global_store_sectors,
    global_store_blocks,
    global_atomic_instructions,
    global_atomic_sectors,
    global_atomic_blocks,
    shared_wavefronts,
    bank_conflicts,
    shared_load_instructions,
    shared_load_wavefronts,
    shared_load_bank_conflicts,
    shared_store_instructions,
    shared_store_wavefronts,
    shared_store_bank_conflicts,
    shared_atomic_instructions,
    shared_atomic_wavefronts,
    barrier_instructions,
    collective_instructions,
    compute_instructions,
    warp_instructions,
    lane_accesses,
    shared_words_max,
    chain_waits,
    chain_collectives,
    inst_executed,
    inst_pipe_fma,
    inst_pipe_alu,
    inst_pipe_fp64,
    inst_pipe_xu,
    inst_pipe_lsu,
    inst_pipe_adu,
    inst_pipe_cbu,
    inst_pipe_uniform,
    inst_pipe_tensor,
    count_  // not a counter: the number of counters
};

inline constexpr std::size_t counter_count = static_cast<std::size_t>(counter::count_);

// How a run (or a launch) combines parts: a sum, or the largest.
enum class aggregation : std::uint8_t { sum, max };

struct counter_info {
    counter id;
    std::string_view name;  // JSON/CSV key
    std::string_view unit;
    aggregation agg;
    std::string_view
        cupti_metric;  // sm_90 metric with the same meaning ("a+b", "a-b", "a/N": sums, differences, a scaled term), "" if none
    std::string_view description;
};

inline constexpr std::array<counter_info, counter_count> counter_table{{
    {counter::launches, "launches", "launches", aggregation::sum, "", "kernel launches (host synchronisations)"},
    {counter::thread_blocks, "thread_blocks", "blocks", aggregation::sum, "", "thread blocks run"},
    {counter::threads, "threads", "threads", aggregation::sum, "", "threads run"},
    {counter::time_steps, "time_steps", "steps", aggregation::sum, "",
     "AGPU time: per launch the busiest MP's steps (one per warp-instruction, shared ones charged their wavefronts)"},
    {counter::io_blocks, "io_blocks", "blocks", aggregation::sum, "",
     "AGPU I/O: distinct b-word global blocks per warp-instruction, summed (loads, stores, atomics)"},
    {counter::global_requests, "global_requests", "requests", aggregation::sum, "",
     "global load + store requests (one per warp-instruction)"},
    {counter::global_sectors, "global_sectors", "sectors", aggregation::sum, "", "global load + store 32-byte sectors"},
    {counter::global_load_instructions, "global_load_instructions", "warp-instructions", aggregation::sum,
     "smsp__inst_executed_op_global_ld_pred_on_any.sum", "global load warp-instructions"},
    {counter::global_load_requests, "global_load_requests", "requests", aggregation::sum,
     "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global load requests"},
    {counter::global_load_sectors, "global_load_sectors", "sectors", aggregation::sum,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "distinct 32-byte sectors per global load, summed"},
    {counter::global_load_blocks, "global_load_blocks", "blocks", aggregation::sum, "",
     "distinct AGPU blocks per global load, summed"},
    {counter::global_store_instructions, "global_store_instructions", "warp-instructions", aggregation::sum,
     "smsp__inst_executed_op_global_st_pred_on_any.sum", "global store warp-instructions"},
    {counter::global_store_requests, "global_store_requests", "requests", aggregation::sum,
     "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global store requests"},
    {counter::global_store_sectors, "global_store_sectors", "sectors", aggregation::sum,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "distinct 32-byte sectors per global store, summed"},
    {counter::global_store_blocks, "global_store_blocks", "blocks", aggregation::sum, "",
     "distinct AGPU blocks per global store, summed"},
    {counter::global_atomic_instructions, "global_atomic_instructions", "warp-instructions", aggregation::sum,
     "sm__sass_inst_executed_op_global_atom.sum+sm__sass_inst_executed_op_global_red.sum",
     "global atomic warp-instructions (on the GPU: ATOM, whose result is used, and RED, whose result is not)"},
    {counter::global_atomic_sectors, "global_atomic_sectors", "sectors", aggregation::sum,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum+l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
     "per global atomic, for each sector touched the most lanes updating one address in it, summed"},
    {counter::global_atomic_blocks, "global_atomic_blocks", "blocks", aggregation::sum, "",
     "distinct AGPU blocks per global atomic, summed"},
    {counter::shared_wavefronts, "shared_wavefronts", "wavefronts", aggregation::sum, "",
     "shared load + store + atomic wavefronts"},
    {counter::bank_conflicts, "bank_conflicts", "wavefronts", aggregation::sum, "",
     "shared wavefronts beyond the fewest the distinct words need, ceil(words / b), per warp-instruction "
     "(loads + stores + atomics)"},
    {counter::shared_load_instructions, "shared_load_instructions", "warp-instructions", aggregation::sum,
     "smsp__inst_executed_op_shared_ld_pred_on_any.sum", "shared load warp-instructions"},
    {counter::shared_load_wavefronts, "shared_load_wavefronts", "wavefronts", aggregation::sum,
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
     "per shared load, the most distinct words wanted from one bank, summed"},
    {counter::shared_load_bank_conflicts, "shared_load_bank_conflicts", "wavefronts", aggregation::sum,
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum-l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
     "+l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
     "shared load wavefronts beyond ceil(distinct words / b) per load (on the GPU: the SASS-attributed wavefronts "
     "minus the L1TEX's ideal ones, its wavefronts minus its conflicts, in which its offset cancels)"},
    {counter::shared_store_instructions, "shared_store_instructions", "warp-instructions", aggregation::sum,
     "smsp__inst_executed_op_shared_st_pred_on_any.sum", "shared store warp-instructions"},
    {counter::shared_store_wavefronts, "shared_store_wavefronts", "wavefronts", aggregation::sum,
     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
     "per shared store, the most distinct words written to one bank, summed"},
    {counter::shared_store_bank_conflicts, "shared_store_bank_conflicts", "wavefronts", aggregation::sum,
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
     "shared store wavefronts beyond ceil(distinct words / b) per store (on the GPU the L1TEX count, which has no "
     "offset for stores)"},
    {counter::shared_atomic_instructions, "shared_atomic_instructions", "warp-instructions", aggregation::sum,
     "smsp__inst_executed_op_shared_atom_pred_on_any.sum", "shared atomic warp-instructions"},
    {counter::shared_atomic_wavefronts, "shared_atomic_wavefronts", "wavefronts", aggregation::sum, "",
     "per shared atomic, the most distinct words wanted from one bank, summed"},
    {counter::barrier_instructions, "barrier_instructions", "warp-instructions", aggregation::sum, "",
     "block barriers, one per warp (GH100 has no counter of barrier instructions)"},
    {counter::collective_instructions, "collective_instructions", "warp-instructions", aggregation::sum, "",
     "warp shuffles, votes and warp syncs"},
    {counter::compute_instructions, "compute_instructions", "warp-instructions", aggregation::sum, "",
     "compute instructions the kernel declares with kl::compute(n)"},
    {counter::warp_instructions, "warp_instructions", "warp-instructions", aggregation::sum, "",
     "every recorded warp-instruction: memory, barriers, collectives, declared compute "
     "(the hardware's smsp__inst_executed.sum also counts address arithmetic and control flow)"},
    {counter::lane_accesses, "lane_accesses", "accesses", aggregation::sum, "",
     "memory accesses by single lanes (the simulator's unit of work)"},
    {counter::shared_words_max, "shared_words_max", "words", aggregation::max, "",
     "shared-memory footprint of one thread block, in words of w bits (must not exceed M)"},
    {counter::chain_waits, "chain_waits", "waits", aggregation::sum, "",
     "AGPU chain: per launch its heaviest block's waits per warp (barriers, global and shared loads and atomics: "
     "the instructions whose result a warp waits for; rounded up), the waits one warp goes through in turn when a "
     "block's warps are alike; summed over launches"},
    {counter::chain_collectives, "chain_collectives", "collectives", aggregation::sum, "",
     "per launch its heaviest block's warp collectives per warp (rounded up): the levels of its warps' reductions "
     "and scans, each a shuffle and the arithmetic that waits for it; summed over launches"},
    // The instructions the kernels' SASS executes (model/sass.hpp): each basic block's instructions
    // times how often it ran, from the simulator's per-site counts; 0 where the kernel has no SASS
    // profile. A guarded instruction issues even when every lane's guard is false, so these count
    // it, where the memory instruction counters above count a warp-instruction some lane executed.
    {counter::inst_executed, "inst_executed", "warp-instructions", aggregation::sum, "smsp__inst_executed.sum",
     "every warp-instruction the kernels' SASS executes: arithmetic, address computation and control flow included"},
    {counter::inst_pipe_fma, "inst_pipe_fma", "warp-instructions", aggregation::sum, "smsp__inst_executed_pipe_fma.sum",
     "those the fma pipe issues: FP32 add, multiply and FMA, integer multiply-add, half precision"},
    {counter::inst_pipe_alu, "inst_pipe_alu", "warp-instructions", aggregation::sum, "smsp__inst_executed_pipe_alu.sum",
     "those the alu pipe issues: integer add, logic, compare, shift, select and move"},
    {counter::inst_pipe_fp64, "inst_pipe_fp64", "warp-instructions", aggregation::sum,
     "smsp__inst_executed_pipe_fp64.sum", "those the fp64 pipe issues: double precision"},
    {counter::inst_pipe_xu, "inst_pipe_xu", "warp-instructions", aggregation::sum, "smsp__inst_executed_pipe_xu.sum",
     "those the xu pipe issues: transcendentals and int/float conversions"},
    {counter::inst_pipe_lsu, "inst_pipe_lsu", "warp-instructions", aggregation::sum, "smsp__inst_executed_pipe_lsu.sum",
     "those the lsu pipe issues: loads, stores, atomics, shuffles, special registers"},
    {counter::inst_pipe_adu, "inst_pipe_adu", "warp-instructions", aggregation::sum, "smsp__inst_executed_pipe_adu.sum",
     "those the adu pipe issues: branches, constant loads, block barriers"},
    {counter::inst_pipe_cbu, "inst_pipe_cbu", "warp-instructions", aggregation::sum, "smsp__inst_executed_pipe_cbu.sum",
     "those the cbu pipe issues: convergence barriers, calls, returns, exits"},
    {counter::inst_pipe_uniform, "inst_pipe_uniform", "warp-instructions", aggregation::sum,
     "smsp__inst_executed_pipe_uniform.sum", "those the uniform datapath issues"},
    {counter::inst_pipe_tensor, "inst_pipe_tensor", "warp-instructions", aggregation::sum,
     "smsp__inst_executed_pipe_tensor.sum", "those the tensor pipe issues"},
}};

// The pipe counters in sass_pipe order (model/sass.hpp).
inline constexpr std::array<counter, 9> pipe_counters{
    counter::inst_pipe_fma, counter::inst_pipe_alu,     counter::inst_pipe_fp64,
    counter::inst_pipe_xu,  counter::inst_pipe_lsu,     counter::inst_pipe_adu,
    counter::inst_pipe_cbu, counter::inst_pipe_uniform, counter::inst_pipe_tensor};

// Whether `c` counts SASS instructions (inst_executed, inst_pipe_*): the
// simulator's, from the kernels' SASS profiles; closed forms give none.
constexpr bool is_sass_instruction_counter(counter c) {
    if (c == counter::inst_executed) return true;
    for (auto p : pipe_counters)
        if (c == p) return true;
    return false;
}

// A launch's chain counter (chain_waits, chain_collectives) from its heaviest
// block's count (block_waits, block_collectives) and its block size (b lanes
// a warp): per warp, rounded up.
constexpr std::uint64_t launch_chain(std::uint64_t max_block_waits, std::uint64_t block_threads, std::uint64_t b) {
    const std::uint64_t warps = b == 0 ? 0 : (block_threads + b - 1) / b;
    return warps == 0 ? 0 : (max_block_waits + warps - 1) / warps;
}

constexpr const counter_info& info(counter c) { return counter_table[static_cast<std::size_t>(c)]; }

// The table is indexed by the enum: each row must sit at its own position.
constexpr bool counter_table_in_order() {
    for (std::size_t i = 0; i < counter_count; ++i)
        if (static_cast<std::size_t>(counter_table[i].id) != i) return false;
    return true;
}
static_assert(counter_table_in_order(), "counter_table rows must follow the order of enum counter");

// What the hardware measures beyond the AGPU counters (no simulated
// counterpart): timing, DRAM traffic behind the caches, every instruction.
// Datasets carry them under these names.
struct hardware_metric {
    std::string_view name;
    std::string_view unit;
    std::string_view cupti_metric;
    std::string_view description;
};

inline constexpr std::array<hardware_metric, 8> hardware_metrics{{
    {"gpu_time", "ns", "gpu__time_duration.sum", "kernel duration measured by the profiler (one replay)"},
    {"dram_read_bytes", "bytes", "dram__bytes_read.sum", "bytes read from DRAM (after L2)"},
    {"dram_write_bytes", "bytes", "dram__bytes_write.sum", "bytes written to DRAM (after L2)"},
    {"global_red_instructions", "warp-instructions", "smsp__inst_executed_op_global_red.sum",
     "global reductions (atomics whose result is unused compile to RED)"},
    {"global_red_sectors", "sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
     "32-byte sectors of global reductions"},
    // The L1TEX data stage's own totals. The AGPU counters above take the
    // SASS-attributed ones (sm__sass_*: the wavefronts of each executed
    // instruction); these also count data-stage wavefronts no instruction of
    // the kernel asked for, a few per thread block in kernels of several
    // waves (validate/README.md, "The shared-load offset").
    {"shared_load_wavefronts_l1tex", "wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
     "shared load wavefronts seen by the L1TEX data stage"},
    {"shared_load_bank_conflicts_l1tex", "wavefronts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
     "shared load bank conflicts seen by the L1TEX data stage"},
    {"shared_store_wavefronts_l1tex", "wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
     "shared store wavefronts seen by the L1TEX data stage"},

}};

// A set of counter values.
struct counts {
    std::array<std::uint64_t, counter_count> v{};
    std::uint64_t& operator[](counter c) { return v[static_cast<std::size_t>(c)]; }
    std::uint64_t operator[](counter c) const { return v[static_cast<std::size_t>(c)]; }
    // Combines `o` into this by each counter's aggregation.
    void merge(const counts& o) {
        for (std::size_t i = 0; i < counter_count; ++i)
            v[i] = counter_table[i].agg == aggregation::sum ? v[i] + o.v[i] : (v[i] > o.v[i] ? v[i] : o.v[i]);
    }
};

// A block's waits: the warp-instructions whose result its warps wait for
// (barriers, global and shared loads and atomics); its warp collectives
// (shuffles, votes, warp syncs) apart: a level of a warp reduction or scan
// waits for its shuffle and then for its arithmetic.
inline std::uint64_t block_waits(const counts& c) {
    return c[counter::barrier_instructions] + c[counter::global_load_instructions] +
           c[counter::global_atomic_instructions] + c[counter::shared_load_instructions] +
           c[counter::shared_atomic_instructions];
}
inline std::uint64_t block_collectives(const counts& c) { return c[counter::collective_instructions]; }

// Looks a counter up by its name; false if there is none.
constexpr bool counter_by_name(std::string_view name, counter& out) {
    for (const auto& c : counter_table)
        if (c.name == name) {
            out = c.id;
            return true;
        }
    return false;
}

}  // namespace agpu::model
