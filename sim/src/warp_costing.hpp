// From lane records to costed warp-instructions: the warp grouper gathers the
// records of a warp's lanes that share (site, occurrence) into one
// warp-instruction (pending until no running lane can still join it), and the
// coster adds each instruction's counters by the model's rules
// (model/costing.hpp) and returns its steps.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "agpu/model/costing.hpp"
#include "agpu/sim/executor.hpp"
#include "block_context.hpp"
#include "instructions.hpp"

namespace agpu::sim::detail {

// One warp-instruction being assembled: the accesses of its lanes.
struct instruction {
    what w{};
    std::uint32_t compute_n = 0;
    std::uint64_t site = 0;            // the kernel-layer call's site (site_key)
    std::uint32_t bytes = 0;           // the widest lane's bytes (a collective's value width)
    model::lane_accesses accesses;     // (addr, bytes) per lane
    std::vector<std::uint32_t> lanes;  // the lane of each access
};

// Costs one warp-instruction: adds to the block's counters, returns its steps.
class coster {
public:
    explicit coster(const model::machine& m) : m_rules(m) {}
    std::uint64_t cost(const instruction& in, counts& c);
    site_tally* tally = nullptr;  // where recorded instructions are tallied by site (instructions.hpp)

private:
    std::uint64_t cost_accesses(const instruction& in, counts& c);
    model::access_coster m_rules;
    instruction m_on;  // the lanes that are on, where some are predicated off
};

// A warp's pending instructions by (site, occurrence): an open-addressing
// index over a pool of instructions whose buffers are reused, so a divergent
// warp allocates nothing per instruction once warm. An instruction completed
// stays in the pool, marked, until every one has completed (its key cannot
// recur before: no running lane can reach it, and occurrences count afresh
// only at a barrier or collective, when every instruction completes).
class pending_instructions {
public:
    struct entry {
        std::uint64_t site = 0;
        std::uint32_t occurrence = 0;
        bool done = false;
        std::size_t slot = 0;
        instruction in;
    };

    bool empty() const { return m_live == 0; }
    instruction& at(std::uint64_t site, std::uint32_t occurrence) {
        if (2 * (m_used + 1) > m_index.size()) grow();
        std::size_t i = slot_of(site, occurrence);
        while (m_index[i] != none) {
            auto& e = m_pool[m_index[i]];
            if (e.site == site && e.occurrence == occurrence) return e.in;
            i = (i + 1) & (m_index.size() - 1);
        }
        if (m_used == m_pool.size()) m_pool.emplace_back();
        auto& e = m_pool[m_used];
        e.site = site;
        e.occurrence = occurrence;
        e.done = false;
        e.slot = i;
        e.in.w = {};
        e.in.compute_n = 0;
        e.in.site = site;
        e.in.bytes = 0;
        e.in.accesses.clear();
        e.in.lanes.clear();
        m_index[i] = static_cast<std::uint32_t>(m_used++);
        ++m_live;
        return e.in;
    }
    // complete(entry) -> whether it completes now; cost(instruction) for each that does.
    template <class Complete, class Cost>
    void settle(Complete complete, Cost cost) {
        for (std::size_t j = 0; j < m_used; ++j) {
            auto& e = m_pool[j];
            if (e.done || !complete(e)) continue;
            cost(e.in);
            e.done = true;
            --m_live;
        }
        if (m_live == 0) {
            for (std::size_t j = 0; j < m_used; ++j) m_index[m_pool[j].slot] = none;
            m_used = 0;
        }
    }

private:
    static constexpr std::uint32_t none = ~std::uint32_t(0);
    std::size_t slot_of(std::uint64_t site, std::uint32_t occurrence) const {
        const std::uint64_t h = (site ^ (std::uint64_t(occurrence) * 0xff51afd7ed558ccdull)) * 0x9E3779B97F4A7C15ull;
        return std::size_t(h >> 32) & (m_index.size() - 1);
    }
    void grow() {
        m_index.assign(std::max<std::size_t>(64, 2 * m_index.size()), none);
        for (std::size_t j = 0; j < m_used; ++j) {
            auto& e = m_pool[j];
            std::size_t i = slot_of(e.site, e.occurrence);
            while (m_index[i] != none) i = (i + 1) & (m_index.size() - 1);
            m_index[i] = std::uint32_t(j);
            e.slot = i;
        }
    }
    std::vector<entry> m_pool;
    std::vector<std::uint32_t> m_index;
    std::size_t m_used = 0, m_live = 0;
};

// Groups one warp's lane records into warp-instructions.
class warp_grouper {
public:
    warp_grouper(coster& cst, counts& c) : m_coster(cst), m_c(c) {}

    // Processes the lanes' current logs and costs every instruction that is
    // complete (no lane still running can join it). Returns their steps.
    std::uint64_t process(std::vector<sim_thread*>& lanes);

private:
    bool lockstep() const;
    std::uint64_t process_lockstep();
    std::uint64_t process_divergent();
    coster& m_coster;
    counts& m_c;
    std::vector<sim_thread*> m_part;
    instruction m_in;
    pending_instructions m_pending;
};

}  // namespace agpu::sim::detail
