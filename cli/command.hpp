// The agpu command line: each subcommand is a small file in cli/commands/ that
// registers itself with AGPU_COMMAND; main.cpp has no list of commands.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "agpu/model/device.hpp"

namespace agpu::cli {

namespace po = boost::program_options;

// Exit statuses, the same for every subcommand.
enum exit_status : int {
    exit_ok = 0,
    exit_internal = 1,     // a bug in agpu (an internal check failed)
    exit_usage = 2,        // bad option, bad input file, a run the machine cannot do
    exit_unavailable = 3,  // needs what this build or machine lacks (CUDA, a GPU, CUPTI)
    exit_device = 4,       // the GPU, CUDA or CUPTI failed while running (code and message reported)
};

// What a subcommand receives: its arguments (after the subcommand's name) and
// the streams to write to.
struct invocation {
    std::vector<std::string> args;
    std::ostream& out;
    std::ostream& err;
};

struct command {
    std::string name;     // "devices"
    std::string summary;  // one line for `agpu --help`
    std::function<int(const invocation&)> run;
};

std::vector<command>& commands();

struct command_registrar {
    explicit command_registrar(command c) { commands().push_back(std::move(c)); }
};

// Usage error inside a subcommand: printed with the subcommand's usage, exit 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Parses args against `opts` (plus --help) and positional names. Returns false
// when --help was given (the help text is already printed to inv.out).
bool parse_options(const invocation& inv, const std::string& usage, const po::options_description& opts,
                   const po::positional_options_description& positional, po::variables_map& vm);

// --format table|json, checked.
enum class output_format { table, json };
output_format format_option(const po::variables_map& vm);
void add_format_option(po::options_description& opts);

// --device ID|FILE with each --device-set NAME=VALUE applied (the fields
// derived from a set one follow it: model/derivation.hpp).
model::device device_option(const po::variables_map& vm);

}  // namespace agpu::cli

#define AGPU_COMMAND_CAT2(a, b) a##b
#define AGPU_COMMAND_CAT(a, b) AGPU_COMMAND_CAT2(a, b)
// AGPU_COMMAND("name", "summary", run_function): registers a subcommand.
#define AGPU_COMMAND(name, summary, fn)                                                     \
    static const ::agpu::cli::command_registrar AGPU_COMMAND_CAT(agpu_command_, __LINE__) { \
        ::agpu::cli::command { name, summary, fn }                                          \
    }
