// agpu devices [--format table|json]
// agpu devices show ID|FILE [--format table|json]
#include <iostream>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../table.hpp"
#include "agpu/model/catalog.hpp"

namespace agpu::cli {
namespace {

const char* usage = "agpu devices [--format table|json]\n       agpu devices show ID|FILE [--format table|json]";

void print_device_table(const std::vector<model::device>& devs, std::ostream& os) {
    text_table t;
    using a = text_table::align;
    for (auto [h, al] : std::initializer_list<std::pair<const char*, a>>{{"id", a::left},
                                                                         {"k", a::right},
                                                                         {"b", a::right},
                                                                         {"p", a::right},
                                                                         {"M (words)", a::right},
                                                                         {"w", a::right},
                                                                         {"M (KiB)", a::right},
                                                                         {"SM MHz", a::right},
                                                                         {"GB/s", a::right},
                                                                         {"L2 (MiB)", a::right},
                                                                         {"kind", a::left},
                                                                         {"name", a::left}})
        t.add_column(h, al);
    for (const auto& d : devs)
        t.add_row({d.id, fmt_num(double(d.agpu.k())), fmt_num(d.agpu.b), fmt_num(double(d.agpu.p)),
                   fmt_num(double(d.agpu.M)), fmt_num(d.agpu.w), fmt_num(double(d.agpu.shared_bytes()) / 1024.0, 4),
                   fmt_num(d.hw.sm_clock_mhz), fmt_num(d.hw.mem_bandwidth_gbs, 5),
                   fmt_num(double(d.hw.l2_bytes) / (1024.0 * 1024.0), 4),
                   d.kind + (d.base.empty() ? "" : " (" + d.base + ")"), d.name});
    t.print(os);
    os << "\nAGPU(p, b, M, w): p cores in k = p/b multiprocessors of b cores; M words of w bits of shared memory per "
          "MP.\n";
}

void print_device_details(const model::device& d, std::ostream& os) {
    const auto j = model::device_summary_json(d);
    os << d.id << ": " << d.name << " (" << d.kind << (d.base.empty() ? "" : ", changes " + d.base) << ")\n";
    if (!d.note.empty()) os << d.note << "\n";
    os << "\n";
    text_table t;
    t.add_column("field", text_table::align::left);
    t.add_column("value");
    t.add_column("source", text_table::align::left);
    auto source_of = [&](const std::string& field) {
        auto it = d.sources.find(field);
        return it == d.sources.end() ? std::string("(none given)") : it->second.source + " [" + it->second.date + "]";
    };
    t.add_row({"agpu.k", fmt_num(double(d.agpu.k())), "derived: p / b"});
    for (const auto& field : model::device_field_names()) {
        const auto dot = field.find('.');
        const std::string section = field.substr(0, dot), key = field.substr(dot + 1);
        const auto& v = section == "agpu" ? j.at(key) : j.at(section).at(key);
        t.add_row({field, v.is_string() ? v.get<std::string>() : fmt_num(v.get<double>()), source_of(field)});
    }
    t.print(os);
}

int run_devices(const invocation& inv) {
    po::options_description opts("options");
    add_format_option(opts);
    opts.add_options()("action", po::value<std::string>(), "show")("target", po::value<std::string>(), "ID or FILE");
    po::positional_options_description pos;
    pos.add("action", 1).add("target", 1);
    po::variables_map vm;
    if (!parse_options(inv, usage, opts, pos, vm)) return exit_ok;
    const auto format = format_option(vm);

    if (!vm.count("action")) {
        const auto& devs = model::presets();
        if (format == output_format::json) {
            auto arr = nlohmann::json::array();
            for (const auto& d : devs) arr.push_back(model::device_summary_json(d));
            inv.out << arr.dump(2) << '\n';
        } else {
            print_device_table(devs, inv.out);
        }
        return exit_ok;
    }
    if (vm["action"].as<std::string>() != "show")
        throw usage_error("unknown action '" + vm["action"].as<std::string>() +
                          "' (the only action is show)\n\nusage: " + usage);
    if (!vm.count("target")) throw usage_error("show needs a device id or file\n\nusage: " + std::string(usage));
    const auto d = model::resolve_device(vm["target"].as<std::string>());
    if (format == output_format::json) inv.out << model::device_summary_json(d).dump(2) << '\n';
    else print_device_details(d, inv.out);
    return exit_ok;
}

AGPU_COMMAND("devices", "list the device presets, or show one device (preset id or file) with its sources",
             run_devices);

}  // namespace
}  // namespace agpu::cli
