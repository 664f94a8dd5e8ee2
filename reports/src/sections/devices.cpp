// The devices section: every preset's AGPU parameters and the figures the
// time model reads, and each one's bandwidth per core operation.
#include "agpu/model/catalog.hpp"
#include "agpu/reports/sections.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

double bytes_per_op(const model::device& d) {
    const double ops = double(d.hw.sm_count) * d.hw.cores_per_sm * d.hw.sm_clock_mhz * 1e6;
    return ops > 0 ? d.hw.mem_bandwidth_gbs * 1e9 / ops : 0;
}

section devices_section(const std::vector<model::device>& devices) {
    section s{"devices", "The devices", {}};
    s.add(
        "Every device preset (`agpu devices`): the AGPU parameters p, b, M (words) and w (bits), k = p/b "
        "multiprocessors, and the hardware figures the time model turns counts into seconds with. Hypothetical "
        "devices change one H100 parameter. Bytes per operation is peak bandwidth over cores x clock: below a "
        "kernel's bytes per operation the device is memory-bound.");
    auto t = make_table("devices-table", "Device presets",
                        {"id", "name", "kind", "k", "b", "p", "M (words)", "w", "SM clock MHz", "bandwidth GB/s",
                         "launch us", "bytes per op"});
    chart c;
    c.id = "devices-bytes-per-op";
    c.title = "Peak bandwidth per core operation";
    c.caption =
        "Bytes of DRAM bandwidth per core operation (peak bandwidth / (cores x clock)): older GPUs have more "
        "bandwidth per operation, so a smaller tile already makes Floyd-Warshall compute-bound on them.";
    for (const auto& d : devices) {
        t.rows.push_back({d.id, d.name, d.kind, std::to_string(d.agpu.k()), std::to_string(d.agpu.b),
                          std::to_string(d.agpu.p), std::to_string(d.agpu.M), std::to_string(d.agpu.w),
                          fmt(d.hw.sm_clock_mhz, 4), fmt(d.hw.mem_bandwidth_gbs, 4), fmt(d.hw.launch_overhead_us),
                          fmt(bytes_per_op(d))});
        c.rows.push_back({{"device", d.id}, {"kind", d.kind}, {"bytes_per_op", bytes_per_op(d)}});
    }
    c.spec = {{"width", 520},
              {"mark", "bar"},
              {"encoding",
               {{"y", {{"field", "device"}, {"type", "nominal"}, {"sort", "-x"}, {"title", nullptr}}},
                {"x", {{"field", "bytes_per_op"}, {"type", "quantitative"}, {"title", "bytes per core operation"}}},
                {"color", nominal("kind", "kind")},
                {"tooltip", tooltip({"device", "bytes_per_op"})}}}};
    s.add(std::move(t));
    s.add(std::move(c));
    return s;
}

namespace {

AGPU_REGISTER_REPORT_SECTION({"devices", 10, "devices", [](const report_context&) {
                                  return std::vector<section>{devices_section(model::presets())};
                              }});

}  // namespace
}  // namespace agpu::reports
