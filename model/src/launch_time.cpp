#include "agpu/model/launch_time.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/model/time_model.hpp"

namespace agpu::model {
namespace {

constexpr double sector_bytes = 32;
constexpr std::array<std::string_view, launch_bound_count> bound_names = {"issue",    "dram",   "l2",     "shared",
                                                                          "dispatch", "atomic", "latency"};

double at_least(double x, double lo) { return x < lo ? lo : x; }

void need(double value, const device& d, const char* field) {
    if (!(value > 0))
        throw input_error("device " + d.id + ": field timing." + field, "must be positive to price this launch");
}

// The achievable DRAM bandwidth for a mix of reads and writes: the measured
// read, copy (half each) and write bandwidths, linear between them.
double dram_rate(const timing& t, double read_bytes, double write_bytes) {
    const double all = read_bytes + write_bytes;
    const double w = all > 0 ? write_bytes / all : 0;
    if (w <= 0.5) return t.dram_read_gbs + (t.dram_copy_gbs - t.dram_read_gbs) * (w / 0.5);
    return t.dram_copy_gbs + (t.dram_write_gbs - t.dram_copy_gbs) * ((w - 0.5) / 0.5);
}

// Warps an SM holds at once for blocks of `threads` threads using `shared_bytes`
// of shared memory and `registers` a thread: the smallest of its limits.
double resident_warps(const device& d, double threads, double shared_bytes, double registers) {
    const double warp = double(d.hw.warp_width);
    const double warps_per_block = std::ceil(at_least(threads, 1) / warp);
    double blocks = double(d.hw.max_blocks_per_sm > 0 ? d.hw.max_blocks_per_sm : 32);
    blocks = std::min(blocks, std::floor(double(d.hw.max_threads_per_sm) / (warps_per_block * warp)));
    if (shared_bytes > 0) blocks = std::min(blocks, std::floor(double(d.hw.smem_per_sm_bytes) / shared_bytes));
    if (d.hw.registers_per_sm > 0) {
        // Registers are allocated a warp at a time, in units of 256.
        const double per_warp = std::ceil(at_least(registers, 1) * warp / 256) * 256;
        blocks = std::min(blocks, std::floor(double(d.hw.registers_per_sm) / (per_warp * warps_per_block)));
    }
    return at_least(blocks, 1) * warps_per_block;
}

std::string number(double x) {
    std::ostringstream os;
    os.precision(4);
    os << x;
    return os.str();
}

}  // namespace

std::string_view name(launch_bound b) { return bound_names[static_cast<std::size_t>(b)]; }

launch_time time_launch(const counts& c, const launch_shape& shape, const device& d, std::uint64_t footprint_bytes,
                        double dram) {
    const timing& t = d.time;
    need(t.launch_us, d, "launch_us");
    const double clock = d.hw.sm_clock_mhz * 1e6;
    const double k = double(d.hw.sm_count);
    const double blocks = double(c[counter::thread_blocks]);
    const double threads = double(c[counter::threads]);
    const double warp = double(d.agpu.b);
    const double threads_per_block = blocks > 0 ? threads / blocks : 0;
    const double warps_per_block = std::ceil(threads_per_block / warp);
    const double warps = blocks * warps_per_block;
    // The busiest SM holds ceil(blocks / k) blocks: its share of per-block work.
    const double busiest_blocks = blocks > 0 ? std::ceil(blocks / k) : 0;
    const double share = blocks > 0 ? busiest_blocks / blocks : 0;

    launch_time out;
    out.launch_s = t.launch_us * 1e-6;
    auto add = [&](launch_bound b, double quantity, std::string qunit, double rate, std::string runit,
                   std::string what) {
        bound_time bt{
            b, rate > 0 ? quantity / rate : 0, quantity, std::move(qunit), rate, std::move(runit), std::move(what)};
        out.bounds.push_back(std::move(bt));
    };

    // Issue: the SASS's instructions by pipe where there are any, else the AGPU steps.
    {
        need(t.issue_per_clock, d, "issue_per_clock");
        const double steps_clocks = double(c[counter::time_steps]) * warp / double(d.hw.cores_per_sm);
        double sass_clocks = 0;
        std::string what =
            "AGPU steps of the busiest SM at b / cores_per_sm = " + number(warp / d.hw.cores_per_sm) + " clocks a step";
        const double inst = double(c[counter::inst_executed]);
        if (inst > 0) {
            sass_clocks = inst * share / t.issue_per_clock;
            const std::array<std::pair<counter, double>, 5> pipes = {{{counter::inst_pipe_fma, t.fma_per_clock},
                                                                      {counter::inst_pipe_alu, t.alu_per_clock},
                                                                      {counter::inst_pipe_fp64, t.fp64_per_clock},
                                                                      {counter::inst_pipe_xu, t.xu_per_clock},
                                                                      {counter::inst_pipe_lsu, t.lsu_per_clock}}};
            for (const auto& [pc, rate] : pipes)
                if (rate > 0) sass_clocks = std::max(sass_clocks, double(c[pc]) * share / rate);
        }
        if (sass_clocks > steps_clocks) {
            add(launch_bound::issue, sass_clocks, "SM clocks", clock, "Hz",
                "the busiest SM's " + number(inst * share) + " warp-instructions (SASS) over its pipes and " +
                    number(t.issue_per_clock) + " issued a clock");
        } else {
            add(launch_bound::issue, steps_clocks, "SM clocks", clock, "Hz", what);
        }
    }
    // DRAM: what crosses the interface, reads and writes at their achievable bandwidth.
    const double touched = double(c[counter::global_sectors] + c[counter::global_atomic_sectors]);
    const double write_share =
        touched > 0 ? double(c[counter::global_store_sectors] + c[counter::global_atomic_sectors]) / touched : 0;
    const double dram_bytes = dram * sector_bytes;
    {
        need(t.dram_read_gbs, d, "dram_read_gbs");
        const double rate = dram_rate(t, dram_bytes * (1 - write_share), dram_bytes * write_share) * 1e9;
        add(launch_bound::dram, dram_bytes, "bytes", rate, "bytes/s",
            "bytes across DRAM, " + number(100 * write_share) + "% written");
    }
    // L2: every global sector passes through it.
    {
        const double bytes = touched * sector_bytes;
        const double rate = d.hw.l2_bytes > 0 && t.l2_read_gbs > 0 ? t.l2_read_gbs * 1e9 : 0;
        add(launch_bound::l2, rate > 0 ? bytes : 0, "bytes", rate, "bytes/s", "global sectors through the L2");
    }
    // Shared memory: the busiest SM's wavefronts.
    {
        need(t.shared_wavefronts_per_clock, d, "shared_wavefronts_per_clock");
        const double wavefronts = double(c[counter::shared_wavefronts]) * share;
        add(launch_bound::shared, wavefronts, "wavefronts", t.shared_wavefronts_per_clock * clock, "wavefronts/s",
            "the busiest SM's shared wavefronts");
    }
    // Dispatch: the busiest SM's blocks.
    add(launch_bound::dispatch, busiest_blocks * t.block_clocks, "SM clocks", clock, "Hz",
        number(busiest_blocks) + " blocks on the busiest SM at " + number(t.block_clocks) + " clocks each");
    // Atomics: same-address updates, one after another.
    {
        need(t.atomic_per_clock, d, "atomic_per_clock");
        add(launch_bound::atomic, double(c[counter::global_atomic_sectors]), "updates", t.atomic_per_clock * clock,
            "updates/s", "serialised same-address atomic updates");
    }
    // Latency: the waves of resident warps, each one warp's chain of waits and instructions.
    {
        const double registers = shape.registers_per_thread > 0 ? double(shape.registers_per_thread) : 32;
        const double shared_bytes = double(c[counter::shared_words_max]) * double(d.agpu.w) / 8;
        const double resident = resident_warps(d, threads_per_block, shared_bytes, registers);
        const double busiest_warps = busiest_blocks * warps_per_block;
        const double waves = resident > 0 ? std::ceil(busiest_warps / std::min(resident, busiest_warps)) : 0;
        out.resident_warps = std::min(resident, busiest_warps);
        const double per_warp = warps > 0 ? 1 / warps : 0;
        const double global_waits =
            double(c[counter::global_load_instructions] + c[counter::global_atomic_instructions]) * per_warp;
        const double shared_waits =
            double(c[counter::shared_load_instructions] + c[counter::shared_atomic_instructions]) * per_warp;
        const double barriers = double(c[counter::barrier_instructions]) * per_warp;
        const double collectives = double(c[counter::collective_instructions]) * per_warp;
        // A load's sector is new to the launch in the share of the loaded sectors the footprint
        // holds (the rest an earlier load brought into the L1); a new one waits for DRAM in the
        // share of sectors that cross it, else for the L2.
        const double loaded = double(c[counter::global_load_sectors]);
        const double fresh = loaded > 0 && footprint_bytes > 0
                                 ? std::min(1.0, std::ceil(double(footprint_bytes) / sector_bytes) / loaded)
                                 : 1.0;
        const double miss = touched > 0 ? std::min(1.0, dram / touched) : 1.0;
        const double l2_lat =
            d.hw.l2_bytes > 0 && t.l2_latency_clocks > 0 ? t.l2_latency_clocks : t.dram_latency_clocks;
        const double load_latency =
            fresh * (miss * t.dram_latency_clocks + (1 - miss) * l2_lat) + (1 - fresh) * t.l1_latency_clocks;
        const double inst =
            c[counter::inst_executed] > 0 ? double(c[counter::inst_executed]) : double(c[counter::warp_instructions]);
        const double waits = global_waits + shared_waits + barriers + collectives;
        const double others = std::max(0.0, inst * per_warp - waits);
        const double chain = global_waits * load_latency + (shared_waits + collectives) * t.shuffle_clocks +
                             barriers * t.barrier_clocks + others * t.dependent_clocks;
        // The heaviest block's warps wait more than the average one (chain_waits counts its waits per warp).
        const double avg_waits = global_waits + shared_waits + barriers;
        const double heavy = avg_waits > 0 ? std::max(1.0, double(c[counter::chain_waits]) / avg_waits) : 1.0;
        add(launch_bound::latency, waves * chain * heavy, "SM clocks", clock, "Hz",
            number(waves) + " waves of " + number(out.resident_warps) + " resident warps, each warp " +
                number(chain * heavy) + " clocks of waits and dependent instructions");
    }

    std::size_t best = 0;
    for (std::size_t i = 1; i < out.bounds.size(); ++i)
        if (out.bounds[i].seconds > out.bounds[best].seconds) best = i;
    out.winner = out.bounds[best].bound;
    double second = 0;
    for (std::size_t i = 0; i < out.bounds.size(); ++i)
        if (i != best) second = std::max(second, out.bounds[i].seconds);
    out.margin = second > 0 ? out.bounds[best].seconds / second : 0;
    out.seconds = out.launch_s + out.bounds[best].seconds;
    return out;
}

run_time time_run(const counts& totals, const launch_shape& shape, const device& d, std::uint64_t footprint_bytes) {
    run_time r;
    r.launch_count = std::max<std::uint64_t>(totals[counter::launches], 1);
    counts one;
    for (std::size_t i = 0; i < counter_count; ++i)
        one.v[i] = counter_table[i].agg == aggregation::max ? totals.v[i]
                                                            : (totals.v[i] + r.launch_count / 2) / r.launch_count;
    one[counter::launches] = 1;
    auto lt =
        time_launch(one, shape, d, footprint_bytes, dram_sectors(totals, d, footprint_bytes) / double(r.launch_count));
    r.seconds = lt.seconds * double(r.launch_count);
    r.launches.push_back(std::move(lt));
    return r;
}

run_time time_run(const std::vector<counts>& per_launch, const std::vector<launch_shape>& shapes, const device& d,
                  std::uint64_t footprint_bytes) {
    run_time r;
    r.launch_count = per_launch.size();
    // The run's DRAM sectors, shared over its launches by the sectors each touches.
    counts totals;
    for (const auto& c : per_launch) totals.merge(c);
    const double run_dram = dram_sectors(totals, d, footprint_bytes);
    const double run_touched = double(totals[counter::global_sectors] + totals[counter::global_atomic_sectors]);
    for (std::size_t i = 0; i < per_launch.size(); ++i) {
        const auto& c = per_launch[i];
        const double touched = double(c[counter::global_sectors] + c[counter::global_atomic_sectors]);
        const double dram = run_touched > 0 ? run_dram * touched / run_touched : 0;
        auto lt = time_launch(c, i < shapes.size() ? shapes[i] : launch_shape{}, d, footprint_bytes, dram);
        r.seconds += lt.seconds;
        r.launches.push_back(std::move(lt));
    }
    return r;
}

run_summary summarize(const run_time& r) {
    run_summary out;
    out.launches = r.launch_count;
    // A closed form's one launch stands for every launch of the run.
    const double weight = r.launches.size() == 1 ? double(std::max<std::uint64_t>(r.launch_count, 1)) : 1.0;
    out.bounds.resize(launch_bound_count);
    for (std::size_t b = 0; b < launch_bound_count; ++b) out.bounds[b].bound = static_cast<launch_bound>(b);
    double won = 0, next = 0;
    for (const auto& l : r.launches) {
        out.launch_overhead_s += weight * l.launch_s;
        double best = 0, second = 0;
        for (const auto& bt : l.bounds) {
            auto& s = out.bounds[static_cast<std::size_t>(bt.bound)];
            if (s.quantity_unit.empty()) {
                s.quantity_unit = bt.quantity_unit;
                s.rate_unit = bt.rate_unit;
                s.what = bt.what;
                s.rate = bt.rate;  // the device's rate, where the run has none of the quantity
            }
            s.quantity += weight * bt.quantity;
            s.seconds_alone += weight * bt.seconds;
            if (bt.bound == l.winner) {
                s.launches_won += std::uint64_t(weight);
                s.seconds_added += weight * bt.seconds;
                best = bt.seconds;
            } else {
                second = std::max(second, bt.seconds);
            }
        }
        won += weight * best;
        next += weight * second;
    }
    for (auto& s : out.bounds)
        if (s.seconds_alone > 0) s.rate = s.quantity / s.seconds_alone;
    std::size_t top = 0;
    for (std::size_t b = 1; b < out.bounds.size(); ++b)
        if (out.bounds[b].seconds_added > out.bounds[top].seconds_added) top = b;
    out.winner = out.bounds[top].bound;
    out.margin = next > 0 ? won / next : 0;
    out.seconds = out.launch_overhead_s + won;
    return out;
}

namespace {

// x to 3 significant digits, as 3.36e9 from 10^4 on.
std::string plain(double x) {
    std::ostringstream os;
    os.precision(3);
    if (std::abs(x) < 1e4) {
        if (std::abs(x) >= 100) os.precision(0), os << std::fixed;  // 4350, not 4.35e+03
        os << x;
        return os.str();
    }
    const int e = int(std::floor(std::log10(std::abs(x))));
    double m = x / std::pow(10.0, e);
    os << m << "e" << e;
    return os.str();
}

// x scaled by a power of 1000 with its SI prefix, 3 significant digits, for
// the SI units (B, B/s, Hz); counts of things (clocks, wavefronts) as plain.
std::string scaled(double x, const std::string& unit) {
    if (unit != "B" && unit != "B/s" && unit != "Hz") return plain(x) + " " + unit;
    static const std::array<std::pair<double, const char*>, 5> up = {
        {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}}};
    for (const auto& [f, prefix] : up)
        if (std::abs(x) >= f) {
            std::ostringstream os;
            os.precision(3);
            os << x / f << " " << prefix << unit;
            return os.str();
        }
    std::ostringstream os;
    os.precision(3);
    os << x << " " << unit;
    return os.str();
}

// A unit as read: bytes are B, bytes/s B/s, Hz a clock.
std::string short_unit(const std::string& u) {
    if (u == "bytes") return "B";
    if (u == "bytes/s") return "B/s";
    return u;
}

}  // namespace

std::string seconds_text(double s) {
    std::ostringstream os;
    os.precision(3);
    if (s >= 1 || s == 0) os << s << " s";
    else if (s >= 1e-3) os << s * 1e3 << " ms";
    else os << s * 1e6 << " us";
    return os.str();
}

std::string describe(const bound_summary& b) {
    if (!(b.rate > 0)) return b.quantity > 0 ? "not priced (the device has no rate for it)" : "none";
    const bool clocks = b.rate_unit == "Hz";
    // Scaled quantities drop a unit's words: "SM clocks" stays whole, after the prefix.
    return scaled(b.quantity, short_unit(b.quantity_unit)) + " at " +
           (clocks ? scaled(b.rate, "Hz") : scaled(b.rate, short_unit(b.rate_unit))) + " = " +
           seconds_text(b.seconds_alone);
}

double floor_seconds(const counts& c, const device& d, std::uint64_t footprint_bytes) {
    const double launches = double(c[counter::launches]);
    const double bytes = dram_sectors(c, d, footprint_bytes) * sector_bytes;
    const double mem = bytes / (d.hw.mem_bandwidth_gbs * 1e9);
    const double issue =
        double(c[counter::time_steps]) * double(d.agpu.b) / double(d.hw.cores_per_sm) / (d.hw.sm_clock_mhz * 1e6);
    return launches * d.time.launch_us * 1e-6 + std::max(mem, issue);
}

}  // namespace agpu::model
