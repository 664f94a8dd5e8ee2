// The bounds of the sort family's data-dependent global counters (merge
// passes with split ranges). Defined with the family's closed forms in
// model/costs/sort.cpp; declared here because the closed-form interface holds
// exact counts only.
#pragma once

#include <string>

#include "agpu/model/closed_form.hpp"

namespace agpu::model::sort_costs {

// [low, high] of global_sectors and io_blocks for a run of `key` with params
// p; empty where every global counter is exact (sort/bitonic; parts = 1).
count_bounds sort_bounds(const machine& m, const std::string& key, std::uint64_t n, const param_values& p);

}  // namespace agpu::model::sort_costs
