// The bounds of the rank family's data-dependent counters: the sectors and
// blocks of random query loads. Defined with the family's closed forms in
// model/costs/rank.cpp; declared here because the model's headers are shared
// and the closed-form interface holds exact counts only.
#pragma once

#include <string>

#include "agpu/model/closed_form.hpp"

namespace agpu::model::rank_costs {

// [low, high] of global_load_sectors, global_load_blocks, global_sectors and
// io_blocks for a run of `key` ("rank/jacobson" or "rank/interleaved") with
// params p; empty for op=build, whose counters are all exact.
count_bounds rank_query_bounds(const machine& m, const std::string& key, std::uint64_t n, const param_values& p);

}  // namespace agpu::model::rank_costs
