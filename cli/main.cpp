// agpu: the command-line front end. Dispatches to the self-registered
// subcommands in cli/commands/ and turns typed errors into exit statuses.
#include <algorithm>
#include <iostream>
#include <sstream>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/derivation.hpp"
#include "command.hpp"

namespace agpu::cli {

std::vector<command>& commands() {
    static std::vector<command> all;
    return all;
}

void add_format_option(po::options_description& opts) {
    opts.add_options()("format", po::value<std::string>()->default_value("table"), "output format: table or json");
}

output_format format_option(const po::variables_map& vm) {
    const auto f = vm["format"].as<std::string>();
    if (f == "table") return output_format::table;
    if (f == "json") return output_format::json;
    throw usage_error("option --format: must be table or json, got '" + f + "'");
}

model::device device_option(const po::variables_map& vm) {
    auto dev = model::resolve_device(vm["device"].as<std::string>());
    if (!vm.count("device-set")) return dev;
    std::vector<model::device_setting> settings;
    for (const auto& text : vm["device-set"].as<std::vector<std::string>>())
        settings.push_back(model::parse_device_setting(text));
    return model::with_settings(dev, settings);
}

bool parse_options(const invocation& inv, const std::string& usage, const po::options_description& opts_in,
                   const po::positional_options_description& positional, po::variables_map& vm) {
    po::options_description opts = opts_in;
    opts.add_options()("help,h", "show this help");
    std::ostringstream help;
    help << "usage: " << usage << "\n\n" << opts;
    try {
        po::store(po::command_line_parser(inv.args).options(opts).positional(positional).run(), vm);
        if (vm.count("help")) {
            inv.out << help.str();
            return false;
        }
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(std::string(e.what()) + "\n\n" + help.str());
    }
    return true;
}

namespace {

void print_usage(std::ostream& os) {
    os << "agpu " << build_info::version
       << ": predict, simulate and measure GPU algorithms on the AGPU(p, b, M, w) model\n\n"
       << "usage: agpu COMMAND [OPTIONS]\n"
       << "       agpu COMMAND --help     options of one command\n"
       << "       agpu --version\n\n"
       << "commands:\n";
    auto cmds = commands();
    std::sort(cmds.begin(), cmds.end(), [](const command& a, const command& b) { return a.name < b.name; });
    std::size_t width = 0;
    for (const auto& c : cmds) width = std::max(width, c.name.size());
    for (const auto& c : cmds) os << "  " << c.name << std::string(width + 3 - c.name.size(), ' ') << c.summary << '\n';
    os << "\nexit status: 0 ok, 2 bad usage or input, 3 needs a GPU/CUDA/CUPTI that is not there,\n"
       << "             4 the GPU/CUDA/CUPTI failed while running, 1 internal error;\n"
       << "             agpu validate interrupted by SIGINT/SIGTERM: 128 + the signal\n";
}

int dispatch(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        print_usage(std::cerr);
        return exit_usage;
    }
    const std::string name = args.front();
    if (name == "--help" || name == "-h" || name == "help") {
        print_usage(std::cout);
        return exit_ok;
    }
    if (name == "--version") {
        std::cout << "agpu " << build_info::version << " (commit " << build_info::commit << ", CUDA "
                  << (build_info::with_cuda ? "built in" : "not built") << ")\n";
        return exit_ok;
    }
    for (const auto& c : commands()) {
        if (c.name != name) continue;
        invocation inv{{args.begin() + 1, args.end()}, std::cout, std::cerr};
        try {
            return c.run(inv);
        } catch (const usage_error& e) {
            std::cerr << "agpu " << name << ": " << e.what() << '\n';
            return exit_usage;
        }
    }
    std::cerr << "agpu: unknown command '" << name << "'\n\n";
    print_usage(std::cerr);
    return exit_usage;
}

}  // namespace
}  // namespace agpu::cli

int main(int argc, char** argv) {
    using namespace agpu;
    try {
        return cli::dispatch(argc, argv);
    } catch (const input_error& e) {
        std::cerr << "agpu: error: " << e.what() << '\n';
        return cli::exit_usage;
    } catch (const kernel_error& e) {
        std::cerr << "agpu: error: " << e.what() << '\n';
        return cli::exit_usage;
    } catch (const device_error& e) {
        std::cerr << "agpu: GPU error: " << e.what() << '\n';
        return cli::exit_device;
    } catch (const unavailable_error& e) {
        std::cerr << "agpu: unavailable: " << e.what() << '\n';
        return cli::exit_unavailable;
    } catch (const internal_error& e) {
        std::cerr << "agpu: internal error (a bug, please report): " << e.what() << '\n';
        return cli::exit_internal;
    } catch (const std::exception& e) {
        std::cerr << "agpu: internal error (a bug, please report): " << e.what() << '\n';
        return cli::exit_internal;
    }
}
