// The AGPU costing rules, each in one place: how a warp-instruction's lane
// accesses become b-word blocks and 32-byte sectors (coalescing), what a
// global atomic costs, how shared-memory accesses become wavefronts and bank
// conflicts (16-byte vectors served per quarter-warp), how a launch's blocks
// are placed on the k MPs, and the algorithm-level counts the analyses and
// the report read (Floyd-Warshall's N_b and N_c, the sorting I/O lower
// bound). The simulator's coster, the closed forms (costs/*.cpp) and the
// report call these; tests/costing_test.cpp pins each rule on its own.
#pragma once

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "agpu/model/counters.hpp"
#include "agpu/model/machine.hpp"

namespace agpu::model {

// The L1/L2 sector of every NVIDIA GPU since Fermi.
inline constexpr std::uint64_t sector_bytes = 32;

// One lane's access: (byte address, bytes). A warp-instruction's lanes in lane order.
using lane_access = std::pair<std::uint64_t, std::uint32_t>;
using lane_accesses = std::vector<lane_access>;

// x / d and x % d by a shift and a mask where d is a power of two (every
// device's word, sector, block and bank count), by division otherwise.
struct fast_div {
    std::uint64_t d;
    int shift;
    explicit fast_div(std::uint64_t v) : d(v), shift(std::has_single_bit(v) ? std::countr_zero(v) : -1) {}
    std::uint64_t div(std::uint64_t x) const { return shift >= 0 ? x >> shift : x / d; }
    std::uint64_t mod(std::uint64_t x) const { return shift >= 0 ? x & (d - 1) : x % d; }
};

// ---------------------------------------------------------------- coalescing

// Units of `unit` bytes that `bytes` bytes from byte `start` touch (0 for none).
std::uint64_t units(std::uint64_t start, std::uint64_t bytes, std::uint64_t unit);
// Distinct units of `unit` bytes touched by `lanes` accesses of `bytes` bytes,
// `stride_bytes` apart, from a base aligned to `unit`.
std::uint64_t strided_units(std::uint64_t lanes, std::uint64_t stride_bytes, std::uint64_t bytes, std::uint64_t unit);
// Distinct units of `unit` bytes the lanes' accesses (of at least a byte each)
// touch: a global warp-instruction's sectors (unit 32) and b-word blocks.
std::uint64_t distinct_units(const lane_accesses& acc, std::uint64_t unit);
// A global atomic warp-instruction's sectors: L2 applies one update per address
// per sector request, so a sector costs as many requests as the most lanes
// updating one address in it (measured on the H100: 32 lanes on one word, 32
// sectors; on 32 consecutive words, 4).
std::uint64_t atomic_sectors(const lane_accesses& acc);

// ---------------------------------------------------------------- shared memory

// A shared warp-instruction's wavefronts and the fewest its distinct words
// need, ceil(words / b) (at least 1); the difference is its bank conflicts
// (the hardware's definition too: a warp's 8-byte loads need 2 wavefronts and
// have no conflict).
struct bank_cost {
    std::uint64_t wf = 0, ideal = 0;
    bank_cost& operator+=(const bank_cost& o) {
        wf += o.wf;
        ideal += o.ideal;
        return *this;
    }
    bool operator==(const bank_cost&) const = default;
};
// The bank rule on words (repeats allowed): the most distinct words any one of
// b banks is asked for (word a lives in bank a mod b; a word read by many
// lanes counts once).
bank_cost shared_bank_cost(const std::vector<std::uint64_t>& words, std::uint64_t b);
// A shared warp-instruction of one 16-byte vector per lane (vector indices in
// lane order, vector_off for a lane that is off), on machine m.
inline constexpr std::uint64_t vector_off = ~std::uint64_t(0);
bank_cost shared_vector_cost(const std::vector<std::uint64_t>& vectors, const machine& m);

// The rules above for one warp-instruction at a time, on one machine, with
// buffers reused from one instruction to the next (the simulator's coster
// calls it for every instruction it costs).
class access_coster {
public:
    explicit access_coster(const machine& m);

    // A global warp-instruction's b-word blocks and 32-byte sectors.
    std::uint64_t blocks(const lane_accesses& acc) { return distinct(acc, m_block); }
    std::uint64_t sectors(const lane_accesses& acc) { return distinct(acc, m_sector); }
    std::uint64_t atomic_sectors(const lane_accesses& acc);
    // A shared warp-instruction (non-empty; lanes: the lane of each access).
    // Accesses of 16 bytes per lane are served per quarter-warp (b/4 lanes,
    // 128 bytes), each quarter like a warp of its own, except that the two
    // quarters of a half-warp asking for the same addresses share their
    // wavefronts. Measured on the H100 (validate/data/h100/apsp, LDS.128 and
    // STS.128 of the apsp kernels): a half-warp reading one vector takes 1
    // wavefront, one whose quarters read the same 8 vectors 1, one whose
    // quarters read 2 different vectors 2, one whose quarters read 8
    // different vectors each 2; the hardware counts no bank conflict in any
    // of these. Narrower accesses are served whole, by the bank rule.
    bank_cost shared(const lane_accesses& acc, const std::vector<std::uint32_t>& lanes);
    // The bank rule over the words the accesses touch.
    bank_cost bank_rule(const lane_accesses& acc);
    // The bank rule over words (repeats allowed).
    bank_cost bank_rule_words(const std::vector<std::uint64_t>& words);

private:
    std::uint64_t distinct(const lane_accesses& acc, const fast_div& unit);
    std::uint64_t bank_wavefronts(const lane_accesses& acc, std::uint64_t& ideal);
    std::uint64_t m_b;
    fast_div m_word, m_banks, m_sector, m_block;
    std::vector<std::uint64_t> m_ids;
    std::vector<std::uint32_t> m_bank;
    std::vector<std::uint64_t> m_bank_words;
    lane_accesses m_quarter[2];
};

// ---------------------------------------------------------------- counters of an instruction

// `times` global load (or store) warp-instructions of `sectors` sectors and
// `blocks` b-word blocks in all: instructions, requests, sectors and blocks
// of their kind and the global totals (io_blocks, which atomics share, is the
// caller's). C is any container indexed by counter.
template <class C>
void add_global(C& c, bool load, std::uint64_t times, std::uint64_t sectors, std::uint64_t blocks) {
    c[load ? counter::global_load_instructions : counter::global_store_instructions] += times;
    c[load ? counter::global_load_requests : counter::global_store_requests] += times;
    c[load ? counter::global_load_sectors : counter::global_store_sectors] += sectors;
    c[load ? counter::global_load_blocks : counter::global_store_blocks] += blocks;
    c[counter::global_requests] += times;
    c[counter::global_sectors] += sectors;
}

enum class shared_op : std::uint8_t { load, store, atomic };
// `times` shared warp-instructions of one kind costing `cost` in all:
// instructions, wavefronts and bank conflicts (cost.wf - cost.ideal) of their
// kind (atomics count no conflicts of their own) and the shared totals
// (warp_instructions and lane_accesses are the caller's).
template <class C>
void add_shared(C& c, shared_op op, std::uint64_t times, bank_cost cost) {
    const std::uint64_t conflicts = cost.wf - cost.ideal;
    c[counter::shared_wavefronts] += cost.wf;
    c[counter::bank_conflicts] += conflicts;
    switch (op) {
        case shared_op::load:
            c[counter::shared_load_instructions] += times;
            c[counter::shared_load_wavefronts] += cost.wf;
            c[counter::shared_load_bank_conflicts] += conflicts;
            break;
        case shared_op::store:
            c[counter::shared_store_instructions] += times;
            c[counter::shared_store_wavefronts] += cost.wf;
            c[counter::shared_store_bank_conflicts] += conflicts;
            break;
        case shared_op::atomic:
            c[counter::shared_atomic_instructions] += times;
            c[counter::shared_atomic_wavefronts] += cost.wf;
            break;
    }
}

// ---------------------------------------------------------------- placement

// Blocks, in order, each to the least-loaded of k MPs (as the hardware's
// dispatcher gives the next block to the first free SM; ties to the lowest
// index); the launch's time is the busiest MP's.
std::uint64_t greedy_makespan(const std::vector<std::uint64_t>& block_steps, std::uint64_t k);
// The same for runs of blocks (steps, count), in order. Equal loads are
// interchangeable, so whole rounds of k blocks are placed at once whenever the
// loads are within one block's steps of each other.
std::uint64_t greedy_makespan_runs(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& runs, std::uint64_t k);

// ---------------------------------------------------------------- algorithm-level counts

// Blocked Floyd-Warshall with t x t tiles held on chip, n padded to a
// multiple of t (the kernels pad it): global traffic N_b = d(4n^3/t - 2n^2)
// bytes for elements of d bytes, and N_c = 2n(n^2 - 2t + 1) operations (an
// add and a min per update).
double floyd_warshall_bytes(std::uint64_t n, std::uint64_t t, double d);
double floyd_warshall_operations(std::uint64_t n, std::uint64_t t);

// The I/O lower bound of comparison sorting n_words words on AGPU(p, b, M)
// (Aggarwal-Vitter): (n/b) log_{M/b}(n/b) b-word blocks, with no constant
// factor; n/b where that is at most one block or M/b at most 1.
double sort_io_lower_bound(double n_words, double b, double M);

}  // namespace agpu::model
