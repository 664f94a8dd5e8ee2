// The source papers' second question: the tile Floyd-Warshall needs on each
// device, N_b/N_c (model/costing.hpp) against its bytes per operation.
#include <optional>

#include "agpu/model/catalog.hpp"
#include "agpu/model/costing.hpp"
#include "agpu/reports/sections.hpp"
#include "charts.hpp"
#include "context.hpp"

namespace agpu::reports {

namespace {

// Floyd-Warshall's bytes per operation N_b/N_c at tile side t (model/costing.hpp: n padded to t).
double fw_bytes_per_op(std::uint64_t n, int t, int d) {
    return model::floyd_warshall_bytes(n, std::uint64_t(t), d) / model::floyd_warshall_operations(n, std::uint64_t(t));
}

}  // namespace

section tile_question(const std::vector<model::device>& devices, std::uint64_t n, const std::vector<int>& tiles,
                      int element_bytes) {
    section s{"q-tile", "Which tile size each device needs for Floyd-Warshall", {}};
    AGPU_CHECK(!tiles.empty(), "tile_question: no tiles");
    const double d = element_bytes;
    s.add(
        "Blocked Floyd-Warshall with t x t tiles held on chip moves N_b = d (4n^3/t - 2n^2) bytes and does N_c = "
        "2n(n^2 - 2t + 1) operations (one add and one min per update), so N_b/N_c is about 2d/t bytes per "
        "operation. The run is bound by arithmetic rather than memory when N_b/N_c is below the device's bytes of "
        "bandwidth per operation (peak bandwidth / (cores x clock)); the tile each device needs is the smallest t "
        "that gets there, here at n = " +
        std::to_string(n) + " with d = " + std::to_string(element_bytes) +
        "-byte distances. A tile must also fit: the non-pivot update holds three t x t tiles in one block's shared "
        "memory.");
    std::vector<std::string> cols = {"device", "bytes per op"};
    for (int t : tiles) cols.push_back("N_b/N_c t=" + std::to_string(t));
    cols.insert(cols.end(), {"smallest t", "largest t that fits (3 t^2 d bytes)"});
    auto tab = make_table("q-tile-table", "N_b/N_c at each tile size against each device's bytes per operation", cols);
    chart c;
    c.id = "q-tile";
    c.title = "N_b/N_c against the tile size, and each device's bytes per operation";
    c.caption =
        "The line is Floyd-Warshall's bytes per operation at tile side t (the same on every device); each "
        "horizontal rule is a device's bandwidth per operation. A device needs the smallest t whose point "
        "lies below its rule.";
    for (int t : tiles)
        c.rows.push_back({{"kind", "tile"}, {"t", t}, {"bytes_per_op", fw_bytes_per_op(n, t, element_bytes)}});
    std::vector<std::string> answers;
    for (const auto& dev : devices) {
        const double ratio = bytes_per_op(dev);
        std::vector<std::string> row{dev.id, fmt(ratio)};
        std::optional<int> smallest;
        int fits = 0;
        for (int t : tiles) {
            const double x = fw_bytes_per_op(n, t, element_bytes);
            row.push_back(fmt(x) + (x < ratio ? " (compute)" : " (memory)"));
            if (!smallest && x < ratio) smallest = t;
            if (3.0 * t * t * d <= double(dev.hw.smem_per_block_bytes)) fits = t;
        }
        row.push_back(smallest ? std::to_string(*smallest) : "none listed");
        row.push_back(fits ? std::to_string(fits) : "none");
        tab.rows.push_back(std::move(row));
        c.rows.push_back({{"kind", "device"}, {"device", dev.id}, {"bytes_per_op", ratio}});
        std::string a = dev.id + ": t = " + (smallest ? std::to_string(*smallest) : "none listed");
        if (smallest && *smallest > fits) a += " (more than fits; memory-bound at every t that fits)";
        answers.push_back(a);
    }
    std::string joined;
    for (const auto& a : answers) joined += (joined.empty() ? "" : "; ") + a;
    s.add("Answer: " + joined + ".");
    s.add(std::move(tab));
    json line = {{"transform", json::array({{{"filter", "datum.kind == 'tile'"}}})},
                 {"mark", {{"type", "line"}, {"point", true}, {"color", "#333"}}},
                 {"encoding",
                  {{"x",
                    {{"field", "t"},
                     {"type", "quantitative"},
                     {"title", "tile side t"},
                     {"scale", {{"type", "log"}, {"base", 2}}}}},
                   {"y", log_axis("bytes_per_op", "bytes per operation")},
                   {"tooltip", tooltip({"t", "bytes_per_op"})}}}};
    json rules = {{"transform", json::array({{{"filter", "datum.kind == 'device'"}}})},
                  {"mark", {{"type", "rule"}, {"strokeWidth", 1.5}}},
                  {"encoding",
                   {{"y", {{"field", "bytes_per_op"}, {"type", "quantitative"}}},
                    {"color", nominal("device", "device")},
                    {"tooltip", tooltip({"device", "bytes_per_op"})}}}};
    c.spec = {{"width", 560}, {"height", 360}, {"layer", json::array({line, rules})}};
    s.add(std::move(c));
    return s;
}

namespace {

std::vector<section> tile_sections(const report_context&) {
    std::vector<model::device> real;
    for (const auto& d : model::presets())
        if (d.kind == "real") real.push_back(d);
    return {tile_question(real, 8192, {8, 16, 32, 64, 128, 256}, 4)};
}

AGPU_REGISTER_REPORT_SECTION({"q-tile", 70, "the source papers' questions: Floyd-Warshall's tile", tile_sections});

}  // namespace
}  // namespace agpu::reports
