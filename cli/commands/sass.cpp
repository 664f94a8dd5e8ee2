// agpu sass import --cubin FILE... --out FILE [--nvdisasm PATH] [--source-root DIR]
// agpu sass show FILE [--kernel NAME]
// The kernels' SASS as the simulator's instruction counts read it
// (model/sass.hpp): import disassembles cubins with nvdisasm and writes the
// profile (schema agpu.sass/1: each kernel's basic blocks, their instructions
// by pipe, their successors and their anchors); show summarises one.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <unistd.h>

#include "../command.hpp"
#include "../table.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/json_text.hpp"
#include "agpu/model/sass.hpp"
#include "agpu/validate/dataset.hpp"

namespace agpu::cli {
namespace {

namespace fs = std::filesystem;

const char* sass_usage =
    "agpu sass import --cubin FILE... --out FILE [--nvdisasm PATH] [--source-root DIR]\n"
    "       agpu sass show FILE [--kernel NAME]";

std::string read_binary(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw input_error(p.string(), "cannot open");
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// nvdisasm's listing of `cubin` with line information, or "" with its error in `error`.
std::string disassemble(const std::string& nvdisasm, const fs::path& cubin, std::string& error) {
    const std::string cmd = quoted(nvdisasm) + " -c -g -gi " + quoted(cubin.string()) + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
    if (!p) throw input_error("--nvdisasm " + nvdisasm, "cannot run it");
    std::string out;
    std::array<char, 65536> buf{};
    std::size_t got = 0;
    while ((got = std::fread(buf.data(), 1, buf.size(), p.get())) > 0) out.append(buf.data(), got);
    const int status = pclose(p.release());
    if (status != 0 || out.find("fatal") != std::string::npos) {
        error = out.substr(0, out.find('\n'));
        return "";
    }
    return out;
}

int run_import(const po::variables_map& vm, const invocation& inv) {
    if (!vm.count("cubin")) throw usage_error("import: --cubin FILE is required");
    if (!vm.count("out")) throw usage_error("import: --out FILE is required");
    const std::string nvdisasm = vm["nvdisasm"].as<std::string>();
    const std::string root = vm["source-root"].as<std::string>();
    model::sass_module all;
    std::vector<std::pair<std::string, std::string>> cubins;  // (name, bytes)
    for (const auto& file : vm["cubin"].as<std::vector<std::string>>()) {
        const auto found = model::embedded_cubins(read_binary(file));
        if (found.empty())
            throw input_error(file, "holds no cubin (nvcc -cubin, or an object nvcc compiled for sm_XX)");
        for (std::size_t i = 0; i < found.size(); ++i)
            cubins.push_back({found.size() == 1 ? file : file + "#" + std::to_string(i), found[i]});
    }
    for (const auto& [c, bytes] : cubins) {
        // The disassembler of the CUDA that wrote the cubin reads it as it is; an older one
        // reads it once its ELF header is in the older encoding.
        std::string error;
        const fs::path tmp = fs::temp_directory_path() / ("agpu-sass-" + std::to_string(::getpid()) + ".cubin");
        validate::write_file_atomically(tmp, bytes);
        std::string listing = disassemble(nvdisasm, tmp, error);
        if (listing.empty()) {
            validate::write_file_atomically(tmp, model::cubin_for_older_disassembler(bytes, c));
            std::string again;
            listing = disassemble(nvdisasm, tmp, again);
            if (listing.empty()) {
                fs::remove(tmp);
                throw input_error(c, "nvdisasm cannot read it: " + error + " / " + again);
            }
        }
        fs::remove(tmp);
        std::istringstream in(listing);
        auto m = model::parse_nvdisasm(in, bytes, c, root);
        all.arch = m.arch;
        for (auto& [k, f] : m.kernels) all.kernels[k] = std::move(f);
        for (auto& [k, f] : m.subroutines) all.subroutines[k] = std::move(f);
    }
    const std::string text = model::to_json(all).dump() + "\n";
    validate::write_file_atomically(vm["out"].as<std::string>(), text);
    inv.out << vm["out"].as<std::string>() << ": " << all.kernels.size() << " kernels, " << all.subroutines.size()
            << " subroutines\n";
    return exit_ok;
}

int run_show(const po::variables_map& vm, const invocation& inv, const std::string& file) {
    const auto m = model::sass_module_from_json(model::parse_json_text(read_binary(file), file), file);
    text_table t;
    t.add_column("kernel", text_table::align::left);
    t.add_column("blocks");
    t.add_column("instructions");
    for (std::size_t p = 0; p < model::sass_pipe_count; ++p) t.add_column(std::string(to_string(model::sass_pipe(p))));
    t.add_column("anchors");
    const std::string only = vm.count("kernel") ? vm["kernel"].as<std::string>() : "";
    for (const auto& [name, f] : m.kernels) {
        if (!only.empty() && name.find(only) == std::string::npos) continue;
        std::array<std::uint64_t, model::sass_pipe_count> pipes{};
        std::uint64_t total = 0, anchors = 0;
        for (const auto& b : f.blocks) {
            for (std::size_t p = 0; p < pipes.size(); ++p) pipes[p] += b.pipes[p];
            total += b.instructions;
            anchors += b.anchors.size();
        }
        std::vector<std::string> row{name, std::to_string(f.blocks.size()), std::to_string(total)};
        for (auto p : pipes) row.push_back(std::to_string(p));
        row.push_back(std::to_string(anchors));
        t.add_row(std::move(row));
    }
    t.print(inv.out);
    inv.out << "\nstatic instructions of each kernel (its blocks once each), by pipe; " << m.arch << "\n";
    return exit_ok;
}

int run_sass(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("action", po::value<std::string>(), "import or show")("file", po::value<std::string>(),
                                                                             "show: a profile (agpu.sass/1)")(
        "cubin", po::value<std::vector<std::string>>()->multitoken()->composing(), "import: cubins (nvcc -cubin)")(
        "out", po::value<std::string>(), "import: the profile to write")(
        "nvdisasm", po::value<std::string>()->default_value("nvdisasm"), "import: the disassembler")(
        "source-root", po::value<std::string>()->default_value(""), "import: source paths are made relative to it")(
        "kernel", po::value<std::string>(), "show: only kernels whose mangled name holds this");
    po::positional_options_description pos;
    pos.add("action", 1).add("file", 1);
    po::variables_map vm;
    if (!parse_options(inv, sass_usage, opts, pos, vm)) return exit_ok;
    if (!vm.count("action")) throw usage_error(std::string("an action is required\n\nusage: ") + sass_usage);
    const auto action = vm["action"].as<std::string>();
    if (action == "import") return run_import(vm, inv);
    if (action == "show") {
        if (!vm.count("file")) throw usage_error("show: name a profile");
        return run_show(vm, inv, vm["file"].as<std::string>());
    }
    throw usage_error("unknown action '" + action + "' (known: import, show)\n\nusage: " + sass_usage);
}

AGPU_COMMAND("sass", "the kernels' SASS as instruction counts read it: import cubins, show a profile (no GPU needed)",
             run_sass);

}  // namespace
}  // namespace agpu::cli
