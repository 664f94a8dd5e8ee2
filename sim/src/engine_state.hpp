// What an executor keeps between launches: a block runner per host thread
// that runs blocks, and its self-filling memory.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agpu/sim/executor.hpp"
#include "block_runner.hpp"
#include "instructions.hpp"
#include "synth_memory.hpp"

namespace agpu::sim {

struct executor::engine {
    // One runner per host thread that runs blocks (created on first use).
    std::vector<std::unique_ptr<detail::block_runner>> runners;
    detail::synth_regions synth;                      // self-filling memory with a fill
    std::vector<std::pair<void*, std::size_t>> maps;  // every self-filling region's mapping
    // Instructions of blocks run by run_blocks for a launch that record_work_launch
    // then adds, by the launch's name: the kernel's symbol and the blocks' tally.
    std::map<std::string, std::pair<std::string, detail::site_tally>, std::less<>> listed;
};

}  // namespace agpu::sim
