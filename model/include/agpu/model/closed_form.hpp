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
#include "agpu/model/costing.hpp"
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
    // Optional, where some counters depend on the data (rank queries, split
    // sort passes): their [low, high]; `costs` leaves them out.
    std::function<count_bounds(const machine&, std::uint64_t n, const param_values&)> bounds = {};
};

// Every registered closed form, by key.
const std::map<std::string, closed_form>& closed_forms();
// The closed form of `key`, or nullptr.
const closed_form* find_closed_form(const std::string& key);

struct closed_form_registrar {
    explicit closed_form_registrar(closed_form f);
};

// Shared building blocks of closed forms (the costing rules: costing.hpp).
// Counts from partial counts (a counter left out: 0), and back (every counter
// but the SASS instruction counters, which closed forms do not give).
counts as_counts(const partial_counts& p);
partial_counts every_counter(const counts& c);
// Warps with at least one live lane when n threads run in blocks of `block` threads.
std::uint64_t live_warps(std::uint64_t n, std::uint64_t block, std::uint64_t b);

}  // namespace agpu::model

#define AGPU_CF_CAT2(a, b) a##b
#define AGPU_CF_CAT(a, b) AGPU_CF_CAT2(a, b)
// AGPU_REGISTER_CLOSED_FORM({key, formula, costs[, simulation_lanes[, bounds]]}): registers at start-up.
#define AGPU_REGISTER_CLOSED_FORM(...) \
    static const ::agpu::model::closed_form_registrar AGPU_CF_CAT(agpu_closed_form_, __LINE__) { __VA_ARGS__ }
