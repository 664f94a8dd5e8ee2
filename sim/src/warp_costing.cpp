// The coster and the warp grouper (warp_costing.hpp).
#include "warp_costing.hpp"

#include <algorithm>

namespace agpu::sim::detail {

std::uint64_t coster::cost(const instruction& in, counts& c) {
    c[counter::warp_instructions] += in.w == what::compute ? in.compute_n : 1;
    if (tally) tally->add(in.site, in.w, in.bytes);
    switch (in.w) {
        case what::barrier: c[counter::barrier_instructions] += 1; return 1;
        case what::collective: c[counter::collective_instructions] += 1; return 1;
        case what::compute: c[counter::compute_instructions] += in.compute_n; return in.compute_n;
        default: break;
    }
    // Lanes predicated off (load_if/store_if) join with accesses of no
    // bytes: the warp issues the instruction whatever its lanes do; an
    // instruction with no lane on moves nothing (no request, no wavefront).
    const instruction* real = &in;
    if (std::any_of(in.accesses.begin(), in.accesses.end(), [](const auto& a) { return a.second == 0; })) {
        m_on.w = in.w;
        m_on.accesses.clear();
        m_on.lanes.clear();
        for (std::size_t i = 0; i < in.accesses.size(); ++i)
            if (in.accesses[i].second != 0) {
                m_on.accesses.push_back(in.accesses[i]);
                m_on.lanes.push_back(in.lanes[i]);
            }
        real = &m_on;
    }
    c[counter::lane_accesses] += real->accesses.size();
    if (real->accesses.empty()) {
        switch (in.w) {
            case what::global_load: c[counter::global_load_instructions] += 1; break;
            case what::global_store: c[counter::global_store_instructions] += 1; break;
            case what::global_atomic: c[counter::global_atomic_instructions] += 1; break;
            case what::shared_load: c[counter::shared_load_instructions] += 1; break;
            case what::shared_store: c[counter::shared_store_instructions] += 1; break;
            default: c[counter::shared_atomic_instructions] += 1; break;
        }
        return 1;
    }
    return cost_accesses(*real, c);
}

std::uint64_t coster::cost_accesses(const instruction& in, counts& c) {
    if (in.w == what::global_load || in.w == what::global_store || in.w == what::global_atomic) {
        const auto blocks = m_rules.blocks(in.accesses);
        c[counter::io_blocks] += blocks;
        if (in.w == what::global_atomic) {
            c[counter::global_atomic_instructions] += 1;
            c[counter::global_atomic_sectors] += m_rules.atomic_sectors(in.accesses);
            c[counter::global_atomic_blocks] += blocks;
        } else {
            model::add_global(c, in.w == what::global_load, 1, m_rules.sectors(in.accesses), blocks);
        }
        return 1;
    }
    const model::bank_cost cost = m_rules.shared(in.accesses, in.lanes);
    model::add_shared(c,
                      in.w == what::shared_load    ? model::shared_op::load
                      : in.w == what::shared_store ? model::shared_op::store
                                                   : model::shared_op::atomic,
                      1, cost);
    return cost.wf;
}

std::uint64_t warp_grouper::process(std::vector<sim_thread*>& lanes) {
    std::uint64_t steps = 0;
    m_part.clear();
    for (auto* t : lanes)
        if (!t->log.empty()) m_part.push_back(t);
    if (!m_part.empty()) steps += m_pending.empty() && lockstep() ? process_lockstep() : process_divergent();
    for (auto* t : m_part) t->log.clear();
    // Pending instructions complete once no running lane can still join them.
    if (m_pending.empty()) return steps;
    bool any_running = false;
    for (auto* t : lanes) any_running |= t->state == thread_state::yielded;
    m_pending.settle(
        [&](const pending_instructions::entry& e) {
            if (any_running)
                for (auto* t : lanes)
                    if (t->state == thread_state::yielded && t->sites.count(e.site) <= e.occurrence) return false;
            return true;
        },
        [&](const instruction& in) { steps += m_coster.cost(in, m_c); });
    return steps;
}

bool warp_grouper::lockstep() const {
    const auto& first = m_part.front()->log;
    for (auto* t : m_part) {
        if (t->log.size() != first.size()) return false;
        for (std::size_t j = 0; j < first.size(); ++j)
            if (t->log[j].site != first[j].site || t->log[j].occurrence != first[j].occurrence) return false;
    }
    return true;
}

std::uint64_t warp_grouper::process_lockstep() {
    std::uint64_t steps = 0;
    const std::size_t len = m_part.front()->log.size();
    for (std::size_t j = 0; j < len; ++j) {
        const record& r0 = m_part.front()->log[j];
        m_in.w = r0.w;
        m_in.compute_n = r0.w == what::compute ? r0.size : 0;
        m_in.site = r0.site;
        m_in.bytes = r0.w == what::collective ? r0.size : 0;
        m_in.accesses.clear();
        m_in.lanes.clear();
        if (r0.w != what::barrier && r0.w != what::collective && r0.w != what::compute)
            for (auto* t : m_part) {
                m_in.accesses.emplace_back(t->log[j].addr, t->log[j].size);
                m_in.lanes.push_back(t->info.lane);
            }
        steps += m_coster.cost(m_in, m_c);
    }
    return steps;
}

std::uint64_t warp_grouper::process_divergent() {
    for (auto* t : m_part)
        for (const record& r : t->log) {
            auto& in = m_pending.at(r.site, r.occurrence);
            in.w = r.w;
            if (r.w == what::collective) in.bytes = std::max(in.bytes, r.size);
            if (r.w == what::compute) in.compute_n = std::max(in.compute_n, r.size);
            else if (r.w != what::barrier && r.w != what::collective) {
                in.accesses.emplace_back(r.addr, r.size);
                in.lanes.push_back(t->info.lane);
            }
        }
    return 0;
}

}  // namespace agpu::sim::detail
