#include "agpu/reports/tidy.hpp"

#include <ostream>

#include "agpu/build_info.hpp"

namespace agpu::reports {

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

void write_counts_csv_header(std::ostream& os) {
    os << "schema,commit,source,device,algo,n,params,launch,kernel,counter,value,unit\n";
}

void write_counts_csv(std::ostream& os, const counts_row_context& ctx, const std::vector<launch_counts>& launches) {
    const std::string prefix = std::string(counts_csv_schema) + "," + csv_field(build_info::commit) + "," +
                               csv_field(ctx.source) + "," + csv_field(ctx.device) + "," + csv_field(ctx.algo) + "," +
                               std::to_string(ctx.n) + "," + csv_field(ctx.params) + ",";
    for (const auto& l : launches)
        for (const auto& info : model::counter_table)
            os << prefix << csv_field(l.launch) << ',' << csv_field(l.kernel) << ',' << info.name << ',' << l.c[info.id]
               << ',' << info.unit << '\n';
}

}  // namespace agpu::reports
