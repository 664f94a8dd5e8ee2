// agpu info [--format table|json]: what this build has and what GPUs it sees.
#include <iostream>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "agpu/build_info.hpp"
#include "agpu/sweep/cluster.hpp"
#include "agpu/validate/gpu.hpp"

namespace agpu::cli {
namespace {

int run_info(const invocation& inv) {
    po::options_description opts("options");
    add_format_option(opts);
    po::variables_map vm;
    if (!parse_options(inv, "agpu info [--format table|json]", opts, {}, vm)) return exit_ok;
    const auto s = validate::query_gpus();
    if (format_option(vm) == output_format::json) {
        nlohmann::json j = {{"schema", "agpu.info/1"},
                            {"version", build_info::version},
                            {"commit", build_info::commit},
                            {"built_with_cuda", s.built_with_cuda},
                            {"built_with_mpi", sweep::built_with_mpi()},
                            {"gpu_available", s.available},
                            {"reason", s.reason},
                            {"driver_version", s.driver_version},
                            {"runtime_version", s.runtime_version},
                            {"gpus", nlohmann::json::array()}};
        for (const auto& d : s.devices)
            j["gpus"].push_back({{"ordinal", d.ordinal},
                                 {"name", d.name},
                                 {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                                 {"sm_count", d.sm_count},
                                 {"sm_clock_mhz", d.sm_clock_mhz},
                                 {"mem_clock_mhz", d.mem_clock_mhz},
                                 {"memory_bytes", d.memory_bytes}});
        inv.out << j.dump(2) << '\n';
        return exit_ok;
    }
    inv.out << "agpu " << build_info::version << ", commit " << build_info::commit << "\n"
            << "simulator and model:  yes\n"
            << "CUDA kernels and GPU measurement: " << (s.built_with_cuda ? "built" : "not built") << "\n"
            << "MPI for agpu sweep: " << (sweep::built_with_mpi() ? "built" : "not built") << "\n";
    if (s.available) {
        for (const auto& d : s.devices)
            inv.out << "GPU " << d.ordinal << ": " << d.name << " (cc " << d.cc_major << "." << d.cc_minor << ", "
                    << d.sm_count << " SMs)\n";
    } else {
        inv.out << "GPU: none usable: " << s.reason << "\n";
    }
    return exit_ok;
}

AGPU_COMMAND("info", "what this build can do: simulator, CUDA, GPUs visible", run_info);

}  // namespace
}  // namespace agpu::cli
