// The instructions a launch executes, from its kernel's SASS profile
// (sass_profiles.hpp, model/sass.hpp): the warp-instructions each recorded
// kernel-layer call made, tallied by source line and kind as the coster costs
// them (site_tally), give each basic block's runs and so the instructions by
// pipe (add_instruction_counts). The site registry maps a site's key to its
// file and line.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <unordered_map>

#include "agpu/model/device.hpp"
#include "agpu/sim/record.hpp"
#include "block_context.hpp"

namespace agpu::sim::detail {

// Notes a site's file and line the first time this thread sees its key.
void note_site(std::uint64_t key, const std::source_location& l);

// The SASS instructions of each (site, kind) in recorded blocks.
struct site_tally {
    struct key_hash {
        std::size_t operator()(const std::pair<std::uint64_t, what>& k) const {
            return std::size_t(k.first ^ (std::uint64_t(k.second) << 59));
        }
    };
    std::unordered_map<std::pair<std::uint64_t, what>, std::uint64_t, key_hash> sites;
    std::uint64_t warps = 0;              // warps of the recorded blocks
    std::uint64_t warp_instructions = 0;  // their recorded warp-instructions (counter::warp_instructions)
    void add(std::uint64_t site, what w, std::uint32_t bytes) {
        if (w == what::compute || (w == what::collective && bytes == 0)) return;  // a warp sync issues no shuffle
        // A shuffle moves 32 bits an instruction: a 64-bit value takes two.
        sites[{site, w}] += w == what::collective && bytes > 4 ? (bytes + 3) / 4 : 1;
    }
    void merge(const site_tally& o) {
        for (const auto& [k, v] : o.sites) sites[k] += v;
        warps += o.warps;
        warp_instructions += o.warp_instructions;
    }
    void clear() {
        sites.clear();
        warps = warp_instructions = 0;
    }
};

// Sets rec's instruction counters (inst_executed, inst_pipe_*) from the SASS
// of `cuda_symbol` and the recorded blocks' tally, scaled to the launch as its
// recorded warp-instructions are (exact launches: as they are). Leaves them 0
// where the kernel has no profile or the device's warps are not the SASS's 32
// lanes.
void add_instruction_counts(launch_record& rec, const std::string& cuda_symbol, const site_tally& tally,
                            const model::device& d);

}  // namespace agpu::sim::detail
