// Closed-form AGPU costs of each algorithm, registered by key next to the
// algorithm's other pieces. A closed form predicts some counters exactly (the
// ones the model makes exact for the algorithm's access pattern) and says
// which; the simulator's tests compare the two.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agpu/model/algorithm.hpp"
#include "agpu/model/counters.hpp"
#include "agpu/model/machine.hpp"

namespace agpu::model {

using partial_counts = std::map<counter, std::uint64_t>;

// [low, high] of the counters a family's data-dependent runs can only bound
// (the closed form above holds exact counts only); empty where all are exact.
struct count_bounds {
    partial_counts low, high;
};

struct closed_form {
    std::string key;
    std::string formula;  // the costs in words, for `agpu algos` and reports
    std::function<partial_counts(const machine&, std::uint64_t n, const param_values&)> costs;
    // Optional, where `costs` gives no lane accesses (they depend on the data):
    // an estimate of the lane accesses the exact simulator records, which
    // tells how long it would take (sim/model_counts.hpp). Not a count.
    std::function<double(const machine&, std::uint64_t n, const param_values&)> simulation_lanes = {};
};

// Every registered closed form, by key.
const std::map<std::string, closed_form>& closed_forms();
// The closed form of `key`, or nullptr.
const closed_form* find_closed_form(const std::string& key);

struct closed_form_registrar {
    explicit closed_form_registrar(closed_form f);
};

// Shared building blocks of closed forms.
// Counts from partial counts (a counter left out: 0), and back (every counter).
counts as_counts(const partial_counts& p);
partial_counts every_counter(const counts& c);
// Distinct units of `unit` bytes touched by `lanes` accesses of `bytes` bytes,
// `stride_bytes` apart, from a base aligned to `unit`.
std::uint64_t strided_units(std::uint64_t lanes, std::uint64_t stride_bytes, std::uint64_t bytes, std::uint64_t unit);
// Warps with at least one live lane when n threads run in blocks of `block` threads.
std::uint64_t live_warps(std::uint64_t n, std::uint64_t block, std::uint64_t b);
// Units of `unit` bytes that `bytes` bytes from byte `start` touch.
std::uint64_t units(std::uint64_t start, std::uint64_t bytes, std::uint64_t unit);
// The simulator's placement: blocks, in order, each to the least-loaded of k
// MPs (ties to the lowest index); the launch's time is the busiest MP's.
std::uint64_t greedy_makespan(const std::vector<std::uint64_t>& block_steps, std::uint64_t k);
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
// A shared warp-instruction on these words: its wavefronts (the most distinct
// words in one of b banks) and the fewest its distinct words need,
// ceil(words / b); the difference is its bank conflicts.
struct bank_cost {
    std::uint64_t wf = 0, ideal = 0;
    bank_cost& operator+=(const bank_cost& o) {
        wf += o.wf;
        ideal += o.ideal;
        return *this;
    }
};
bank_cost shared_bank_cost(std::vector<std::uint64_t> words, std::uint64_t b);

}  // namespace agpu::model

#define AGPU_CF_CAT2(a, b) a##b
#define AGPU_CF_CAT(a, b) AGPU_CF_CAT2(a, b)
// AGPU_REGISTER_CLOSED_FORM({key, formula, costs[, simulation_lanes]}): registers at start-up.
#define AGPU_REGISTER_CLOSED_FORM(...) \
    static const ::agpu::model::closed_form_registrar AGPU_CF_CAT(agpu_closed_form_, __LINE__) { __VA_ARGS__ }
