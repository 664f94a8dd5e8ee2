// An agpu sweep's results (agpu report --sweep RESULTS): heatmaps of the
// predicted seconds and I/O over the swept parameters (sweep_section).
#include "agpu/reports/sweep_section.hpp"
#include "agpu/sweep/results.hpp"
#include "context.hpp"

namespace agpu::reports {
namespace {

std::vector<section> sweep_results(const report_context& ctx) {
    if (ctx.opt.sweep.empty()) return {};
    return {sweep_section(sweep::read_results(ctx.opt.sweep))};
}

AGPU_REGISTER_REPORT_SECTION({"sweep-results", 55, "the sweep's results", sweep_results});

}  // namespace
}  // namespace agpu::reports
