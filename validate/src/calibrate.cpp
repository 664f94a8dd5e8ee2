// The device's time constants from a calibrate dataset (calibrate.hpp). Every
// constant is a median of in-run readings (latencies) or the inverse of a
// least-squares slope of a launch's median time over the work it did at
// several sizes (rates), which leaves out what does not grow with n (the
// launch, the ramp-up). Per-SM, per-clock rates divide by the SM count and the
// SM clock: the probes' own reading of it while they ran (clock64 cycles over
// %globaltimer nanoseconds) where the dataset has it, else NVML's in the
// provenance.
#include "agpu/validate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "agpu/model/sass.hpp"
#include "agpu/utc_time.hpp"

namespace agpu::validate {

const std::array<timing_constant_info, 20> timing_constants{{
    {"launch_us", "us", "probe/launch", "time per launch in a stream of back-to-back launches of an empty kernel"},
    {"block_clocks", "clocks", "probe/blocks",
     "SM clocks to start and retire a thread block (per SM: k blocks run at once)"},
    {"dram_read_gbs", "GB/s", "probe/stream op=read", "achievable DRAM read bandwidth"},
    {"dram_write_gbs", "GB/s", "probe/stream op=write", "achievable DRAM write bandwidth"},
    {"dram_copy_gbs", "GB/s", "probe/stream op=copy", "achievable DRAM copy bandwidth, bytes read plus bytes written"},
    {"l2_read_gbs", "GB/s", "probe/l2", "achievable bandwidth of reads the L2 serves"},
    {"dram_latency_clocks", "clocks", "probe/chase space=dram", "a dependent load DRAM serves, in SM clocks"},
    {"l2_latency_clocks", "clocks", "probe/chase space=l2", "a dependent load the L2 serves, in SM clocks"},
    {"shared_wavefronts_per_clock", "wavefronts/clock", "probe/shared",
     "shared-memory wavefronts an SM serves a clock"},
    {"atomic_per_clock", "updates/clock", "probe/atomic",
     "same-address global atomic updates a clock, the whole device"},
    {"issue_per_clock", "warp-instructions/clock", "probe/issue",
     "warp-instructions an SM issues a clock, all schedulers"},
    {"fma_per_clock", "warp-instructions/clock", "probe/issue",
     "fma pipe (FFMA, FADD, FMUL, IMAD) warp-instructions an SM issues a clock"},
    {"alu_per_clock", "warp-instructions/clock", "probe/issue",
     "alu pipe (IADD3, LOP3, ISETP, SEL, SHF, MOV...) warp-instructions an SM issues a clock"},
    {"fp64_per_clock", "warp-instructions/clock", "probe/issue",
     "fp64 pipe (DFMA, DADD, DMUL) warp-instructions an SM issues a clock"},
    {"xu_per_clock", "warp-instructions/clock", "probe/issue",
     "xu pipe (MUFU, I2F, F2I) warp-instructions an SM issues a clock"},
    {"lsu_per_clock", "warp-instructions/clock", "probe/issue",
     "lsu pipe (LDS, LDG, SHFL...) warp-instructions an SM issues a clock"},
    {"fp16_per_clock", "warp-instructions/clock", "probe/issue",
     "fp16 pipe (HFMA2) warp-instructions an SM issues a clock"},
    {"dependent_clocks", "clocks", "probe/dependent op=ffma", "latency of a dependent FFMA"},
    {"shuffle_clocks", "clocks", "probe/dependent op=shfl", "latency of a dependent SHFL"},
    {"barrier_clocks", "clocks", "probe/dependent op=bar", "a __syncthreads in a one-warp block"},
}};

namespace {

// One complete run of a probe, its check passed.
struct probe_run {
    std::string algo;
    std::uint64_t n = 0;
    std::map<std::string, std::string> params;
    std::vector<const measurement*> rows;

    // Sum over the launches named `kernel` of their median times, in seconds.
    std::optional<double> kernel_seconds(const std::string& kernel) const {
        double ms = 0;
        bool any = false;
        for (const auto* r : rows)
            if (r->launch != "run" && r->kernel == kernel && r->counter == "time_ms" && r->value) {
                ms += *r->value;
                any = true;
            }
        if (!any) return std::nullopt;
        return ms * 1e-3;
    }
    // Sum over the launches named `kernel` of a counter; nullopt when a launch lacks it (NA, or not collected).
    std::optional<double> counter(const std::string& kernel, const std::string& name) const {
        double v = 0;
        bool any = false;
        for (const auto* r : rows)
            if (r->launch != "run" && r->kernel == kernel && r->counter == name) {
                if (!r->value) return std::nullopt;
                v += *r->value;
                any = true;
            }
        if (!any) return std::nullopt;
        return v;
    }
    // A value the run measured itself (a "run" row).
    std::optional<double> value(const std::string& name) const {
        for (const auto* r : rows)
            if (r->launch == "run" && r->counter == name && r->value) return *r->value;
        return std::nullopt;
    }
};

std::map<std::string, std::string> parse_params(const std::string& s) {
    std::map<std::string, std::string> out;
    std::stringstream ss(s);
    for (std::string kv; std::getline(ss, kv, ';');)
        if (const auto eq = kv.find('='); eq != std::string::npos) out[kv.substr(0, eq)] = kv.substr(eq + 1);
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// The least-squares slope of y over x; with a single x, the mean of y / x.
double slope(const std::vector<std::pair<double, double>>& xy) {
    std::set<double> xs;
    for (const auto& p : xy) xs.insert(p.first);
    if (xs.size() < 2) {
        double s = 0;
        for (const auto& [x, y] : xy) s += y / x;
        return s / double(xy.size());
    }
    double mx = 0, my = 0;
    for (const auto& [x, y] : xy) {
        mx += x;
        my += y;
    }
    mx /= double(xy.size());
    my /= double(xy.size());
    double sxy = 0, sxx = 0;
    for (const auto& [x, y] : xy) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
    }
    return sxy / sxx;
}

std::string fmt(double v, int digits = 4) {
    std::ostringstream os;
    os << std::setprecision(digits) << v;
    return os.str();
}

std::string join_sizes(const std::vector<const probe_run*>& runs) {
    std::set<std::uint64_t> ns;
    for (const auto* r : runs) ns.insert(r->n);
    std::string out;
    for (auto n : ns) out += (out.empty() ? "" : ", ") + std::to_string(n);
    return out;
}

class deriver {
public:
    deriver(const dataset& d, std::string name) : m_data(d), m_name(std::move(name)) {
        const auto& p = d.provenance;
        std::map<std::string, probe_run> by_id;
        const auto complete = completed_runs(d.rows);
        std::set<std::string> failed;
        for (const auto& r : d.rows) {
            if (!complete.count(r.run_id)) continue;
            if (r.launch == "run" && r.counter == "check" && (!r.value || *r.value == 0)) failed.insert(r.run_id);
            auto& run = by_id[r.run_id];
            if (run.rows.empty()) {
                run.algo = r.algo;
                run.n = r.n;
                run.params = parse_params(r.params);
            }
            run.rows.push_back(&r);
        }
        for (auto& [id, run] : by_id)
            if (!failed.count(id)) m_runs.push_back(std::move(run));
            else m_failed.insert(run.algo);

        const auto& gpu = p.at("gpu");
        if (!gpu.contains("sm_count") || !gpu["sm_count"].is_number() || gpu["sm_count"].get<double>() <= 0)
            throw input_error(m_name + "/provenance.json: field gpu.sm_count",
                              "is required (a positive number): the per-SM rates divide by it");
        m_sms = gpu["sm_count"].get<double>();
        choose_clock();
    }

    void set_partial(bool p) { m_partial = p; }

    device_timing derive() {
        device_timing t;
        t.device = m_data.provenance.value("device_id", "");
        t.gpu = m_data.provenance.at("gpu").value("name", "");
        m_date = measured_date();
        const double f = m_clock_mhz * 1e6;

        // launch_us: the slope of the launches' summed times over their number.
        part([&] {
            const auto runs = need("launch_us", "probe/launch", {});
            std::vector<std::pair<double, double>> xy;
            for (const auto* r : runs) xy.emplace_back(double(r->n), seconds(*r, "probe_launch", "launch_us"));
            add("launch_us", slope(xy) * 1e6,
                "probe/launch, n = " + join_sizes(runs) +
                    " launches: least-squares slope of the launches' summed median "
                    "CUDA-event times over n");
        });
        // block_clocks: the slope of one launch's time over its blocks, times k SMs and the clock.
        part([&] {
            const auto runs = need("block_clocks", "probe/blocks", {{"threads", "32"}});
            std::vector<std::pair<double, double>> xy;
            for (const auto* r : runs) xy.emplace_back(double(r->n), seconds(*r, "probe_blocks", "block_clocks"));
            add("block_clocks", slope(xy) * m_sms * f,
                "probe/blocks threads=32, n = " + join_sizes(runs) +
                    " blocks: least-squares slope of time over blocks x " + fmt(m_sms) + " SMs x " + fmt(m_clock_mhz) +
                    " MHz");
        });
        part([&] {
            for (const auto& [name, op, kernel, bytes_per_word] :
                 std::initializer_list<std::tuple<const char*, const char*, const char*, double>>{
                     {"dram_read_gbs", "read", "stream_read", 4},
                     {"dram_write_gbs", "write", "stream_write", 4},
                     {"dram_copy_gbs", "copy", "stream_copy", 8}}) {
                const auto runs = need(name, "probe/stream", {{"op", op}});
                std::vector<std::pair<double, double>> xy;
                for (const auto* r : runs) xy.emplace_back(bytes_per_word * double(r->n), seconds(*r, kernel, name));
                add(name, 1e-9 / slope(xy),
                    std::string("probe/stream op=") + op + ", n = " + join_sizes(runs) + " words (" +
                        (bytes_per_word == 8 ? "8 bytes a word: read + written" : "4 bytes a word") +
                        "): inverse of the least-squares slope of time over bytes");
            }
        });
        part([&] {
            const auto runs = need("l2_read_gbs", "probe/l2", {});
            std::vector<std::pair<double, double>> xy;
            for (const auto* r : runs) xy.emplace_back(16.0 * double(r->n / 16), seconds(*r, "l2_read", "l2_read_gbs"));
            add("l2_read_gbs", 1e-9 / slope(xy),
                "probe/l2 footprint=" + param(*runs.front(), "footprint", "l2_read_gbs") + ", n = " + join_sizes(runs) +
                    " bytes: inverse of the least-squares slope of time over bytes read");
        });
        part([&] {
            for (const auto& [name, space] : std::initializer_list<std::pair<const char*, const char*>>{
                     {"dram_latency_clocks", "dram"}, {"l2_latency_clocks", "l2"}}) {
                const auto runs = need(name, "probe/chase", {{"space", space}});
                add(name, median_value(runs, "clocks_per_load", name),
                    std::string("probe/chase space=") + space + ", n = " + join_sizes(runs) +
                        " loads: clock64 cycles per dependent load, median of the runs' medians");
            }
        });
        part([&] { shared_wavefronts(); });
        part([&] {
            const auto runs = need("atomic_per_clock", "probe/atomic", {});
            std::vector<std::pair<double, double>> xy;
            for (const auto* r : runs) xy.emplace_back(double(r->n), seconds(*r, "atomic_one", "atomic_per_clock"));
            add("atomic_per_clock", 1 / (slope(xy) * f),
                "probe/atomic, n = " + join_sizes(runs) +
                    " updates: inverse of the least-squares slope of time over "
                    "updates, over " +
                    fmt(m_clock_mhz) + " MHz");
        });
        part([&] { issue_rates(); });
        part([&] {
            const auto runs = need("dependent_clocks", "probe/dependent", {{"op", "ffma"}});
            std::string also;
            if (const auto iadd = select("probe/dependent", {{"op", "iadd3"}}); !iadd.empty())
                also = " (a dependent IADD3: " + fmt(median_value(iadd, "clocks_per_link", "dependent_clocks")) + ")";
            add("dependent_clocks", median_value(runs, "clocks_per_link", "dependent_clocks"),
                "probe/dependent op=ffma, n = " + join_sizes(runs) + " links: clock64 cycles per link" + also);
        });
        part([&] {
            for (const auto& [name, op] : std::initializer_list<std::pair<const char*, const char*>>{
                     {"shuffle_clocks", "shfl"}, {"barrier_clocks", "bar"}}) {
                const auto runs = need(name, "probe/dependent", {{"op", op}});
                add(name, median_value(runs, "clocks_per_link", name),
                    std::string("probe/dependent op=") + op + ", n = " + join_sizes(runs) +
                        " links: clock64 cycles per link");
            }
        });

        for (const auto& info : timing_constants) {
            const auto it = m_values.find(std::string(info.name));
            if (it == m_values.end() && m_partial) continue;  // named in m_missing
            AGPU_CHECK(it != m_values.end(), "calibrate: constant " + std::string(info.name) + " was not derived");
            t.timing.push_back({std::string(info.name), it->second.first, std::string(info.unit),
                                it->second.second + "; dataset " + m_name, m_date});
        }
        t.notes = m_notes;
        t.missing = m_missing;
        t.provenance = provenance();
        return t;
    }

private:
    // Runs one constant's derivation; with a partial derivation, a constant
    // whose probe runs are missing is named in m_missing instead of failing.
    template <class F>
    void part(F derive_one) {
        if (!m_partial) return derive_one();
        try {
            derive_one();
        } catch (const input_error& e) {
            m_missing.push_back(e.what());
        }
    }

    // The runs of `algo` whose parameters include `want`.
    std::vector<const probe_run*> select(const std::string& algo,
                                         const std::map<std::string, std::string>& want) const {
        std::vector<const probe_run*> out;
        for (const auto& r : m_runs) {
            if (r.algo != algo) continue;
            bool ok = true;
            for (const auto& [k, v] : want) ok = ok && r.params.count(k) && r.params.at(k) == v;
            if (ok) out.push_back(&r);
        }
        return out;
    }

    static std::string label(const std::string& algo, const std::map<std::string, std::string>& want) {
        std::string s = algo;
        for (const auto& [k, v] : want) s += " " + k + "=" + v;
        return s;
    }

    std::vector<const probe_run*> need(const std::string& constant, const std::string& algo,
                                       const std::map<std::string, std::string>& want) const {
        auto runs = select(algo, want);
        if (runs.empty())
            throw input_error(m_name,
                              "constant " + constant + " needs " + label(algo, want) + ": the dataset has no " +
                                  (m_failed.count(algo) ? "run of it that passed its check" : "complete run of it") +
                                  " (agpu calibrate --out DIR measures every probe)");
        return runs;
    }

    // A run's parameter; the dataset's rows name it (input_error when a row lacks it).
    const std::string& param(const probe_run& r, const std::string& name, const std::string& constant) const {
        const auto it = r.params.find(name);
        if (it == r.params.end())
            throw input_error(m_name, "constant " + constant + ": " + r.algo + " n=" + std::to_string(r.n) +
                                          " has no parameter " + name);
        return it->second;
    }

    double seconds(const probe_run& r, const std::string& kernel, const std::string& constant) const {
        const auto s = r.kernel_seconds(kernel);
        if (!s)
            throw input_error(m_name, "constant " + constant + " needs the time of launch " + kernel + " in " + r.algo +
                                          " n=" + std::to_string(r.n) + ": the run has none");
        return *s;
    }

    double median_value(const std::vector<const probe_run*>& runs, const std::string& value,
                        const std::string& constant) const {
        std::vector<double> v;
        for (const auto* r : runs)
            if (const auto x = r->value(value)) v.push_back(*x);
        if (v.empty())
            throw input_error(m_name, "constant " + constant + " needs the value " + value + " of " +
                                          runs.front()->algo + ": its runs recorded none");
        return median(v);
    }

    void add(const std::string& name, double value, std::string source) {
        if (!std::isfinite(value) || value <= 0)
            throw input_error(m_name, "constant " + name + " came out " + fmt(value) + " (" + source +
                                          "): the probe's times do not grow with its size");
        m_values[name] = {value, std::move(source)};
    }

    // Per ways: wavefronts (CUPTI's shared_load_wavefronts, else ways per
    // load) over time, per SM and clock; the constant is the median over ways.
    void shared_wavefronts() {
        const double f = m_clock_mhz * 1e6;
        const auto runs = need("shared_wavefronts_per_clock", "probe/shared", {});
        std::map<int, std::vector<const probe_run*>> by_ways;
        for (const auto* r : runs) {
            std::uint64_t ways = 0;
            if (!model::parse_unsigned(param(*r, "ways", "shared_wavefronts_per_clock"), ways) || ways == 0 ||
                ways > 32)
                throw input_error(m_name,
                                  "constant shared_wavefronts_per_clock: probe/shared n=" + std::to_string(r->n) +
                                      " has ways=" + r->params.at("ways") + ", not an integer in [1, 32]");
            by_ways[int(ways)].push_back(r);
        }
        std::vector<double> rates;
        std::string detail;
        bool counted = true;
        for (const auto& [ways, group] : by_ways) {
            std::vector<std::pair<double, double>> xy;
            for (const auto* r : group) {
                auto w = r->counter("shared_ways", "shared_load_wavefronts");
                if (!w) {
                    counted = false;
                    w = m_sms * model::probe_shape::warps_per_sm * double(r->n) * model::probe_shape::shared_loads *
                        ways;
                }
                xy.emplace_back(*w, seconds(*r, "shared_ways", "shared_wavefronts_per_clock"));
            }
            const double rate = 1 / (slope(xy) * m_sms * f);
            rates.push_back(rate);
            detail += (detail.empty() ? "" : ", ") + std::to_string(ways) + ": " + fmt(rate);
        }
        if (!counted)
            m_notes.push_back(
                "shared_wavefronts_per_clock: some probe/shared runs have no shared_load_wavefronts "
                "counter; their wavefronts are counted as ways x loads");
        add(
            "shared_wavefronts_per_clock", median(rates),
            "probe/shared ways=" +
                [&] {
                    std::string w;
                    for (const auto& [ways, g] : by_ways) w += (w.empty() ? "" : ",") + std::to_string(ways);
                    return w;
                }() +
                ", n = " + join_sizes(runs) +
                " iterations: per ways, inverse of the least-squares slope of time over " +
                (counted ? "CUPTI's shared_load_wavefronts" : "wavefronts") + ", per SM per clock (" +
                fmt(m_clock_mhz) + " MHz); the median over ways (" + detail + ")");
    }

    // Each issue probe's rate per pipe: instructions of the pipe over time, per
    // SM and clock (CUPTI's inst_pipe_<pipe>, else the SASS loop body's
    // instructions of that pipe x iterations x warps); a pipe's rate is the
    // highest any probe reached. issue_per_clock the same with every
    // instruction (warp_instructions, or inst_executed).
    void issue_rates() {
        const double f = m_clock_mhz * 1e6;
        const auto runs = need("issue_per_clock", "probe/issue", {});
        std::map<std::string, std::vector<const probe_run*>> by_op;
        for (const auto* r : runs) by_op[param(*r, "op", "issue_per_clock")].push_back(r);

        struct best {
            double rate = 0;
            std::string op;
            bool counted = false;  // from CUPTI's counters, not the SASS
        };
        std::map<std::string, best> pipes;
        best issue;
        bool fell_back = false, issue_fell_back = false;
        for (const auto& [op, group] : by_op) {
            const auto& shape = model::probe_shape::find_issue_probe(op);
            // Static counts of one iteration, by pipe and in all.
            std::map<std::string, double> per_iteration;
            double all_per_iteration = 0;
            for (const auto& c : shape.loop) {
                if (c.count == 0) continue;
                const double per = double(c.count) / shape.unroll;
                per_iteration[std::string(model::to_string(model::pipe_of(c.opcode)))] += per;
                all_per_iteration += per;
            }
            auto rate_of = [&](const std::function<std::optional<double>(const probe_run&)>& measured,
                               double static_per_iteration, bool& fell) {
                std::vector<std::pair<double, double>> xy;
                for (const auto* r : group) {
                    auto x = measured(*r);
                    if (!x) {
                        fell = true;
                        x = m_sms * model::probe_shape::warps_per_sm * double(r->n) * static_per_iteration;
                    }
                    xy.emplace_back(*x, seconds(*r, "issue", "issue_per_clock"));
                }
                if (std::all_of(xy.begin(), xy.end(), [](const auto& p) { return p.first == 0; })) return 0.0;
                return 1 / (slope(xy) * m_sms * f);
            };
            for (std::size_t p = 0; p < model::sass_pipe_count; ++p) {
                const std::string pipe(model::to_string(model::sass_pipe(p)));
                const double per = per_iteration.count(pipe) ? per_iteration.at(pipe) : 0.0;
                bool fell = false;
                const double rate =
                    rate_of([&](const probe_run& r) { return r.counter("issue", "inst_pipe_" + pipe); }, per, fell);
                fell_back = fell_back || fell;
                if (rate > pipes[pipe].rate) pipes[pipe] = {rate, op, !fell};
            }
            // fp16: sm_90 issues HFMA2 on the fma pipe (CUPTI counts no fp16 pipe); its rate is op=hfma2's
            // HFMA2 instructions (the fma pipe's count where measured: the probe's only fma instruction) over time.
            if (op == "hfma2") {
                double hfma2 = 0;
                for (const auto& c : shape.loop)
                    if (c.opcode == "HFMA2") hfma2 += double(c.count) / shape.unroll;
                bool fell = false;
                const double rate =
                    rate_of([&](const probe_run& r) { return r.counter("issue", "inst_pipe_fma"); }, hfma2, fell);
                fell_back = fell_back || fell;
                if (rate > pipes["fp16"].rate) pipes["fp16"] = {rate, op, !fell};
            }
            bool fell = false;
            const double all = rate_of(
                [&](const probe_run& r) {
                    auto v = r.counter("issue", "inst_executed");
                    return v ? v : r.counter("issue", "warp_instructions");
                },
                all_per_iteration, fell);
            issue_fell_back = issue_fell_back || fell;
            if (all > issue.rate) issue = {all, op, !fell};
        }
        if (fell_back)
            m_notes.push_back(
                "pipe rates: the dataset has no per-pipe counters (inst_pipe_*) for some probe/issue runs; "
                "their instructions are counted from the probes' SASS loop bodies (model/probe_shape.hpp, "
                "issue_probes) x iterations x warps");
        if (issue_fell_back)
            m_notes.push_back(
                "issue_per_clock: the dataset has no warp_instructions or inst_executed counter for some "
                "probe/issue runs; their instructions are counted from the SASS loop bodies");
        const std::string sizes = ", n = " + join_sizes(runs) + " iterations";
        add("issue_per_clock", issue.rate,
            "probe/issue op=" + issue.op + sizes + ": every warp-instruction (" +
                (issue.counted ? "CUPTI's smsp__inst_executed" : "the SASS loop body x iterations x warps") +
                ") over time, per SM per clock (" + fmt(m_clock_mhz) + " MHz); the highest of the " +
                std::to_string(by_op.size()) + " issue probes");
        for (const char* pipe : {"fma", "alu", "fp64", "xu", "lsu", "fp16"}) {
            const auto& b = pipes[pipe];
            if (b.rate <= 0)
                throw input_error(m_name, std::string("constant ") + pipe +
                                              "_per_clock needs a probe/issue run that "
                                              "issues " +
                                              pipe + " instructions: the dataset has none");
            add(std::string(pipe) + "_per_clock", b.rate,
                "probe/issue op=" + b.op + sizes + ": " + pipe + " pipe warp-instructions (" +
                    (b.counted ? "CUPTI's inst_pipe_" + std::string(std::string(pipe) == "fp16" ? "fma" : pipe)
                               : std::string("the SASS loop body x iterations x warps")) +
                    ") over time, per SM per clock (" + fmt(m_clock_mhz) + " MHz); the highest of the issue probes");
        }
    }

    // The SM clock the per-clock rates use: the probes' in-run readings, else NVML's.
    void choose_clock() {
        std::vector<double> in_run;
        for (const auto& r : m_runs)
            if (const auto v = r.value("sm_clock_mhz")) in_run.push_back(*v);
        std::vector<double> nvml;
        for (const auto& s : m_data.provenance.at("sessions"))
            for (const char* when : {"clocks_before", "clocks_after"})
                if (s.contains(when) && s[when].is_object() && s[when].value("known", false) &&
                    s[when].contains("sm_mhz") && s[when]["sm_mhz"].is_number() && s[when]["sm_mhz"].get<double>() > 0)
                    nvml.push_back(s[when]["sm_mhz"].get<double>());
        m_clock = {{"nvml_mhz", nvml.empty() ? nlohmann::json(nullptr) : nlohmann::json(median(nvml))}};
        if (!in_run.empty()) {
            m_clock_mhz = median(in_run);
            const auto [lo, hi] = std::minmax_element(in_run.begin(), in_run.end());
            m_clock["used_mhz"] = m_clock_mhz;
            m_clock["from"] = "the probes' in-run readings (clock64 cycles over %globaltimer ns), median of " +
                              std::to_string(in_run.size()) + " runs";
            m_clock["in_run_min_mhz"] = *lo;
            m_clock["in_run_max_mhz"] = *hi;
            if (!nvml.empty() && std::fabs(median(nvml) / m_clock_mhz - 1) > 0.03)
                m_notes.push_back("the SM clock the probes read while they ran (" + fmt(m_clock_mhz) +
                                  " MHz) differs from NVML's in the provenance (" + fmt(median(nvml)) +
                                  " MHz) by more than 3%: the per-clock rates use the probes'");
            return;
        }
        if (!nvml.empty()) {
            m_clock_mhz = median(nvml);
            m_clock["used_mhz"] = m_clock_mhz;
            m_clock["from"] = "NVML's SM clock before and after each session (provenance), median";
            m_notes.push_back("no probe recorded its SM clock (sm_clock_mhz): the per-clock rates use NVML's");
            return;
        }
        const auto& gpu = m_data.provenance.at("gpu");
        if (gpu.contains("max_sm_clock_mhz") && gpu["max_sm_clock_mhz"].is_number() &&
            gpu["max_sm_clock_mhz"].get<double>() > 0) {
            m_clock_mhz = gpu["max_sm_clock_mhz"].get<double>();
            m_clock["used_mhz"] = m_clock_mhz;
            m_clock["from"] =
                "the GPU's maximum SM clock (provenance gpu.max_sm_clock_mhz): no clock was read while measuring";
            m_notes.push_back(
                "neither the probes nor NVML read the SM clock: the per-clock rates use the maximum clock");
            return;
        }
        throw input_error(m_name + "/provenance.json: field sessions[].clocks_before.sm_mhz",
                          "no SM clock is known (no probe's sm_clock_mhz, no NVML clock, no gpu.max_sm_clock_mhz): "
                          "the per-clock rates need one");
    }

    std::string measured_date() const {
        std::string latest;
        for (const auto& s : m_data.provenance.at("sessions"))
            for (const char* when : {"finished", "started"})
                if (s.contains(when) && s[when].is_string()) latest = std::max(latest, s[when].get<std::string>());
        return latest.size() >= 10 ? latest.substr(0, 10) : "unknown";
    }

    nlohmann::json provenance() const {
        const auto& p = m_data.provenance;
        nlohmann::json sessions = nlohmann::json::array();
        for (const auto& s : p.at("sessions")) {
            nlohmann::json x;
            for (const char* f :
                 {"commit", "started", "finished", "command_line", "clocks_before", "clocks_after", "status"})
                if (s.contains(f)) x[f] = s[f];
            sessions.push_back(x);
        }
        nlohmann::json out = {
            {"dataset", m_name},    {"gpu", p.at("gpu")},
            {"measured", m_date},   {"sm_clock", m_clock},
            {"sessions", sessions}, {"derived", {{"date", utc_now()}, {"commit", build_info::commit}}}};
        for (const char* f : {"driver_version", "cuda_runtime_version", "cupti_api_version", "counters", "timing"})
            if (p.contains(f)) out[f] = p[f];
        return out;
    }

    const dataset& m_data;
    std::string m_name;
    std::vector<probe_run> m_runs;
    std::set<std::string> m_failed;
    double m_sms = 0, m_clock_mhz = 0;
    nlohmann::json m_clock;
    std::string m_date;
    std::map<std::string, std::pair<double, std::string>> m_values;
    std::vector<std::string> m_notes;
    bool m_partial = false;
    std::vector<std::string> m_missing;
};

}  // namespace

device_timing derive_timing(const dataset& data, const std::string& dataset_name, bool partial) {
    deriver d(data, dataset_name);
    d.set_partial(partial);
    return d.derive();
}

device_timing derive_timing(const std::filesystem::path& dir, bool partial) {
    return derive_timing(read_dataset(dir), dir.string(), partial);
}

nlohmann::json to_json(const device_timing& t) {
    nlohmann::json timing = nlohmann::json::object();
    for (const auto& c : t.timing)
        timing[c.name] = {{"value", c.value}, {"unit", c.unit}, {"source", c.source}, {"date", c.date}};
    return {{"schema", device_timing_schema},
            {"device", t.device},
            {"gpu", t.gpu},
            {"provenance", t.provenance},
            {"timing", timing},
            {"notes", t.notes},
            {"missing", t.missing}};
}

}  // namespace agpu::validate
