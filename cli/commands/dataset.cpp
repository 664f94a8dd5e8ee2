// agpu dataset pack DIR...
// agpu dataset merge --out DIR IN IN...
// agpu dataset manifest [--write] [--root DIR]
// Keeps measured datasets: packs a dataset's rows (measurements.csv.gz),
// merges datasets of one GPU and suite, and checks the data manifest
// (validate/data/manifest.json) against the tree, or rewrites its table in
// validate/data/README.md. No GPU needed.
#include <filesystem>

#include "../command.hpp"
#include "agpu/errors.hpp"
#include "agpu/validate/dataset.hpp"
#include "agpu/validate/manifest.hpp"

namespace agpu::cli {
namespace {

const char* dataset_usage =
    "agpu dataset pack DIR...                 gzip each dataset's measurements.csv (checked, atomic)\n"
    "       agpu dataset merge --out DIR IN...       one packed dataset from datasets of one GPU and suite\n"
    "       agpu dataset manifest [--write] [--root DIR]   check validate/data against its manifest";

std::string command_line(const invocation& inv) {
    std::string s = "agpu dataset";
    for (const auto& a : inv.args) s += " " + a;
    return s;
}

int run_dataset(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("action", po::value<std::string>(), "pack, merge or manifest")(
        "dirs", po::value<std::vector<std::string>>()->multitoken(), "dataset directories")(
        "out", po::value<std::string>(), "merge: the new dataset's directory (must not exist)")(
        "write", po::bool_switch(), "manifest: rewrite the table in validate/data/README.md")(
        "root", po::value<std::string>()->default_value("."), "manifest: the repository's root");
    po::positional_options_description pos;
    pos.add("action", 1).add("dirs", -1);
    po::variables_map vm;
    if (!parse_options(inv, dataset_usage, opts, pos, vm)) return exit_ok;
    if (!vm.count("action")) throw usage_error(std::string("an action is required\n\nusage: ") + dataset_usage);
    const auto action = vm["action"].as<std::string>();
    const auto dirs = vm.count("dirs") ? vm["dirs"].as<std::vector<std::string>>() : std::vector<std::string>{};

    if (action == "pack") {
        if (dirs.empty()) throw usage_error("pack: name at least one dataset directory");
        for (const auto& d : dirs) {
            const auto r = validate::pack_dataset(d);
            if (r.already_packed) inv.out << d << ": already packed (" << r.packed_bytes << " bytes)\n";
            else inv.out << d << ": " << r.plain_bytes << " -> " << r.packed_bytes << " bytes\n";
        }
        return exit_ok;
    }
    if (action == "merge") {
        if (!vm.count("out")) throw usage_error("merge: --out DIR is required");
        std::vector<std::filesystem::path> in(dirs.begin(), dirs.end());
        const auto r = validate::merge_datasets(in, vm["out"].as<std::string>(), command_line(inv));
        inv.out << vm["out"].as<std::string>() << ": " << r.runs << " runs from " << in.size() << " datasets ("
                << r.runs_replaced << " runs measured again: the latest kept; " << r.runs_incomplete
                << " rows of runs never completed left out)\n";
        return exit_ok;
    }
    if (action == "manifest") {
        if (!dirs.empty()) throw usage_error("manifest takes no directories (--root names the repository)");
        const std::filesystem::path root = vm["root"].as<std::string>();
        if (vm["write"].as<bool>())
            inv.out << (validate::write_manifest_table(root) ? "validate/data/README.md: table rewritten\n"
                                                             : "validate/data/README.md: table up to date\n");
        const auto problems = validate::check_manifest(root);
        for (const auto& p : problems) inv.err << p << '\n';
        if (!problems.empty())
            throw input_error("validate/data/manifest.json",
                              std::to_string(problems.size()) + " disagreements with the tree (listed above)");
        inv.out << "validate/data: every dataset listed in the manifest, and every listed dataset there\n";
        return exit_ok;
    }
    throw usage_error("unknown action '" + action + "' (known: pack, merge, manifest)\n\nusage: " + dataset_usage);
}

AGPU_COMMAND("dataset", "pack, merge and list measured datasets; check the data manifest (no GPU needed)", run_dataset);

}  // namespace
}  // namespace agpu::cli
