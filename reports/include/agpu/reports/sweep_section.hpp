// The sweep's section of the report (`agpu report --sweep RESULTS`): from an
// agpu sweep's points (sweep/results.hpp), per algorithm a heatmap of the
// predicted seconds and the I/O over two of the swept parameters with the
// dominant bound in each cell, where each bound dominates, the best device
// parameters for each algorithm and size, and the points skipped with their
// reasons. Computes nothing itself: the points carry every number.
#pragma once

#include "agpu/reports/document.hpp"
#include "agpu/sweep/results.hpp"

namespace agpu::reports {

// The section from a sweep's results. The heatmap axes are the swept device
// parameters (each point's device "set"), two with the most values; with
// one, it and n (or an algorithm parameter); with none, the device and n.
// The other varied parameters make a row of heatmaps each.
section sweep_section(const sweep::results& r);

}  // namespace agpu::reports
