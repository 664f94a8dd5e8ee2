// A run's record: its launches, their totals and errors, and the names of
// the modes and estimates.
#include <algorithm>
#include <cmath>

#include "agpu/sim/record.hpp"

namespace agpu::sim {

counts run_record::totals() const {
    counts t;
    for (const auto& l : launches) t.merge(l.c);
    return t;
}

std::string to_string(launch_estimate e) {
    switch (e) {
        case launch_estimate::exact: return "exact";
        case launch_estimate::stratified: return "stratified";
        case launch_estimate::linear: break;
    }
    return "linear";
}

bool launch_record::sampled() const {
    return blocks_recorded > 0 && blocks_recorded < std::uint64_t(grid.x) * grid.y * grid.z;
}

std::uint64_t run_record::blocks_skipped() const {
    std::uint64_t n = 0;
    for (const auto& l : launches) n += l.blocks_skipped;
    return n;
}

bool run_record::sampled() const {
    return std::any_of(launches.begin(), launches.end(), [](const launch_record& l) { return l.sampled(); });
}

std::array<double, counter_count> run_record::relative_error_95() const {
    std::array<double, counter_count> var{}, out{};
    for (const auto& l : launches)
        for (std::size_t i = 0; i < counter_count; ++i) var[i] += l.variance[i];
    const counts t = totals();
    for (std::size_t i = 0; i < counter_count; ++i)
        out[i] = var[i] > 0 && t.v[i] > 0 ? 1.96 * std::sqrt(var[i]) / double(t.v[i]) : 0.0;
    return out;
}

}  // namespace agpu::sim
