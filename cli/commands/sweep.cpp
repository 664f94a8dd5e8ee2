// agpu sweep SPEC [--out DIR] [--cache DIR] [--jobs N] [--shard I/N] [--merge] [--quiet] [--format table|json]
// A design-space study: every point of a spec (devices x algorithms x
// parameters x sizes) counted and predicted, cached by content, resumable,
// over threads, MPI ranks (mpirun, srun --mpi=pmix) or job-array shards
// (docs/sweep.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../table.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "agpu/sweep/cluster.hpp"
#include "agpu/sweep/runner.hpp"
#include "agpu/sweep/spec.hpp"

namespace agpu::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* sweep_usage =
    "agpu sweep SPEC [--out DIR] [--cache DIR] [--jobs N] [--shard I/N] [--merge] [--quiet] [--format table|json]\n"
    "       mpirun -n N agpu sweep SPEC ...      srun --mpi=pmix -n N agpu sweep SPEC ...";

std::string duration_text(double s) {
    if (s < 0) return "?";
    char buf[32];
    const long t = long(s + 0.5);
    if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
    else std::snprintf(buf, sizeof buf, "%lds", t);
    return buf;
}

// The sweep's progress on stderr: a bar redrawn in place on a terminal, a
// line every 10 s elsewhere (a batch job's log), nothing with --quiet.
class sweep_progress {
public:
    sweep_progress(std::ostream& err, bool enabled, std::string label)
        : m_err(err), m_enabled(enabled), m_terminal(isatty(STDERR_FILENO) == 1), m_label(std::move(label)) {}

    void update(const sweep::progress& p) {
        if (!m_enabled) return;
        std::lock_guard<std::mutex> lock(m_mutex);
        const auto now = std::chrono::steady_clock::now();
        const bool last = p.done == p.total;
        if (last && m_finished_at == p.total) return;  // said already
        if (!last && now - m_last < (m_terminal ? std::chrono::milliseconds(100) : std::chrono::seconds(10))) return;
        if (last) m_finished_at = p.total;
        if (!m_terminal && p.done == 0) return;
        m_last = now;
        const double f = p.total ? double(p.done) / double(p.total) : 1.0;
        constexpr int width = 24;
        std::string bar(std::size_t(f * width), '#');
        bar.resize(width, '.');
        char line[200];
        std::snprintf(line, sizeof line, "%s[%s] %zu/%zu points, %zu cached, %zu skipped, %s, %s left", m_label.c_str(),
                      bar.c_str(), p.done, p.total, p.cached, p.skipped, duration_text(p.elapsed_s).c_str(),
                      duration_text(p.left_s).c_str());
        if (m_terminal) {
            m_err << '\r' << line << "\x1b[K" << std::flush;
            m_drawn = !last;
            if (last) m_err << '\n';
        } else {
            m_err << line << '\n' << std::flush;
        }
    }
    ~sweep_progress() {
        if (m_drawn) m_err << '\n';
    }

private:
    std::ostream& m_err;
    bool m_enabled, m_terminal;
    std::string m_label;
    std::mutex m_mutex;
    std::chrono::steady_clock::time_point m_last{};
    bool m_drawn = false;
    std::size_t m_finished_at = std::size_t(-1);  // the total the last line said was done
};

// "I/N", I < N.
std::pair<unsigned, unsigned> parse_shard(const std::string& text, const std::string& option) {
    const auto slash = text.find('/');
    std::uint64_t i = 0, n = 0;
    if (slash == std::string::npos || !model::parse_unsigned(text.substr(0, slash), i) ||
        !model::parse_unsigned(text.substr(slash + 1), n) || n == 0 || i >= n || n > 1000000)
        throw input_error(option, "must be I/N with 0 <= I < N (the I-th of N shards), got '" + text + "'");
    return {unsigned(i), unsigned(n)};
}

// A Slurm job array's task as a shard: SLURM_ARRAY_TASK_ID (less
// SLURM_ARRAY_TASK_MIN) of SLURM_ARRAY_TASK_COUNT.
std::optional<std::pair<unsigned, unsigned>> slurm_array_shard() {
    const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
    const char* count = std::getenv("SLURM_ARRAY_TASK_COUNT");
    if (!id || !count) return std::nullopt;
    std::uint64_t i = 0, n = 0, min = 0;
    const char* min_text = std::getenv("SLURM_ARRAY_TASK_MIN");
    if (!model::parse_unsigned(id, i) || !model::parse_unsigned(count, n) ||
        (min_text && !model::parse_unsigned(min_text, min)))
        throw input_error("environment SLURM_ARRAY_TASK_ID/COUNT", "must be integers");
    return parse_shard(std::to_string(i - std::min(i, min)) + "/" + std::to_string(n),
                       "environment SLURM_ARRAY_TASK_ID/COUNT (an array of consecutive task ids, e.g. --array=0-7)");
}

int run_sweep_command(const invocation& inv) {
    po::options_description opts("options");
    opts.add_options()("spec", po::value<std::string>()->required(), "the sweep spec (JSON, or TOML ending in .toml)")(
        "out", po::value<std::string>(),
        "directory of points.jsonl and summary.json (default build/sweep/<spec name>)")(
        "cache", po::value<std::string>(), "cache directory, shareable between sweeps and hosts (default <out>/cache)")(
        "jobs,j", po::value<unsigned>()->default_value(1), "points computed at once by each process")(
        "shard", po::value<std::string>(),
        "I/N: compute the I-th of N shards into the cache, write no results (default from SLURM_ARRAY_TASK_ID/COUNT)")(
        "merge", po::bool_switch(), "assemble the results from the cache, computing nothing (after the shards)")(
        "quiet", po::bool_switch(), "no progress on stderr");
    add_format_option(opts);
    po::positional_options_description positional;
    positional.add("spec", 1);
    po::variables_map vm;
    if (!parse_options(inv, sweep_usage, opts, positional, vm)) return exit_ok;
    const auto format = format_option(vm);
    const unsigned jobs = vm["jobs"].as<unsigned>();
    if (jobs == 0 || jobs > 1024)
        throw input_error("option --jobs", "must be in [1, 1024], got " + std::to_string(jobs));

    // Every rank reads the spec and checks the options before MPI starts, so bad input fails on each alike.
    const auto spec = sweep::load_spec(vm["spec"].as<std::string>());
    sweep::run_options opt;
    opt.out_dir = vm.count("out") ? fs::path(vm["out"].as<std::string>()) : fs::path("build") / "sweep" / spec.name;
    opt.cache_dir = vm.count("cache") ? fs::path(vm["cache"].as<std::string>()) : opt.out_dir / "cache";
    opt.jobs = jobs;
    opt.merge_only = vm["merge"].as<bool>();
    // Shards are processes of their own (job arrays); MPI's ranks spread the points themselves.
    const auto launch = sweep::read_launch_environment();
    const bool launched_as_ranks = launch.mpi_launcher || launch.srun_tasks > 1;
    std::optional<std::pair<unsigned, unsigned>> shard;
    if (vm.count("shard")) shard = parse_shard(vm["shard"].as<std::string>(), "option --shard");
    else if (!opt.merge_only && !launched_as_ranks) shard = slurm_array_shard();
    if (shard && launched_as_ranks)
        throw input_error("option --shard", "is for one process per shard (job arrays), not for MPI's ranks");
    if (shard && opt.merge_only) throw input_error("option --merge", "assembles every shard: leave --shard out");
    if (shard) std::tie(opt.shard_index, opt.shard_count) = *shard;

    auto world = shard ? sweep::single_process() : sweep::join_cluster();
    opt.world = world.get();
    const bool root = world->rank() == 0;
    std::string label = "sweep ";
    if (world->size() > 1) label = "sweep rank 0 of " + std::to_string(world->size()) + " ";
    if (shard) label = "sweep shard " + std::to_string(shard->first) + "/" + std::to_string(shard->second) + " ";
    sweep_progress bar(inv.err, root && !vm["quiet"].as<bool>() && !opt.merge_only, label);
    opt.on_progress = [&bar](const sweep::progress& p) { bar.update(p); };
    const auto r = sweep::run_sweep(spec, opt);
    if (!root) return exit_ok;

    if (format == output_format::json) {
        inv.out << (r.wrote_results
                        ? r.summary_json
                        : json{{"schema", sweep::summary_schema},
                               {"shard", {shard->first, shard->second}},
                               {"points", r.points},
                               {"ok", r.ok},
                               {"skipped", r.skipped},
                               {"run", {{"computed", r.computed}, {"cached", r.cached}, {"wall_s", r.wall_s}}}})
                       .dump(2)
                << '\n';
        return exit_ok;
    }
    auto& os = inv.out;
    os << "sweep " << spec.name << " (" << spec.path << "): " << r.points << " points"
       << (shard ? " in shard " + std::to_string(shard->first) + "/" + std::to_string(shard->second) : std::string())
       << ", " << r.computed << " computed, " << r.cached << " from the cache, " << r.skipped << " skipped, in "
       << fmt_num(r.wall_s, 3) << " s";
    if (world->size() > 1) os << " on " << world->description();
    else if (jobs > 1) os << " with " << jobs << " jobs";
    os << "\n";
    if (r.wrote_results) {
        os << "results: " << r.results.string() << "\nsummary: " << r.summary.string()
           << "\ncache: " << opt.cache_dir.string() << "\n";
    } else {
        os << "cache: " << opt.cache_dir.string() << " (agpu sweep " << spec.path
           << " --merge assembles the results once every shard is done)\n";
    }
    return exit_ok;
}

AGPU_COMMAND("sweep", "a design-space sweep: devices x algorithms x sizes, cached, resumable, over jobs, MPI, Slurm",
             run_sweep_command);

}  // namespace
}  // namespace agpu::cli
