#include "agpu/sweep/runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <numeric>
#include <queue>
#include <thread>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/sweep/cache.hpp"
#include "agpu/sweep/point.hpp"

namespace agpu::sweep {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

// Progress of this process, updated by the job threads: the points it plans
// (the closed form answers most) and the simulations it runs, each phase
// timed for the estimate of what is left.
class tracker {
public:
    tracker(unsigned jobs, std::function<void(const progress&)> report)
        : m_report(std::move(report)), m_jobs(std::max(1u, jobs)) {}
    void set_total(std::size_t total, std::size_t plans) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_p.total = total;
        m_plans_left = plans;
        m_phase_start = clock_type::now();
        emit();
    }
    void cached(bool skipped) {
        std::lock_guard<std::mutex> lock(m_mutex);
        ++m_p.done;
        ++m_p.cached;
        m_p.skipped += skipped;
    }
    // A point planned: answered (by the closed form, or skipped), or left for the simulator.
    void planned(bool answered, bool skipped, double simulation_s) {
        std::lock_guard<std::mutex> lock(m_mutex);
        --m_plans_left;
        ++m_plans_done;
        if (answered) {
            ++m_p.done;
            ++m_p.computed;
            m_p.skipped += skipped;
        } else {
            m_sim_left += simulation_s;
        }
        emit();
    }
    // The simulations this process runs (under MPI, not those it planned).
    void start_simulations(std::size_t total, double cost) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_p.total = total;
        m_sim_left = cost;
        m_simulating = true;
        m_phase_start = clock_type::now();
        emit();
    }
    void simulated(bool skipped, double simulation_s) {
        std::lock_guard<std::mutex> lock(m_mutex);
        ++m_p.done;
        ++m_p.computed;
        m_p.skipped += skipped;
        m_sim_left -= simulation_s;
        m_sim_done += simulation_s;
        emit();
    }

private:
    void emit() {
        m_p.elapsed_s = since(m_start);
        const double phase = since(m_phase_start);
        double left = 0;
        if (!m_simulating) {
            const double per_plan = m_plans_done ? phase / double(m_plans_done) : 0;
            left = double(m_plans_left) * per_plan + std::max(0.0, m_sim_left) / m_jobs;
        } else {
            // Seconds per estimated second, measured; before a simulation ends, the estimate over the jobs.
            const double pace = m_sim_done > 0 && phase > 0 ? phase / m_sim_done : 1.0 / m_jobs;
            left = std::max(0.0, m_sim_left) * pace;
        }
        m_p.left_s = m_p.done >= m_p.total ? 0 : left;
        if (m_report) m_report(m_p);
    }
    std::mutex m_mutex;
    std::function<void(const progress&)> m_report;
    unsigned m_jobs;
    progress m_p;
    std::size_t m_plans_left = 0, m_plans_done = 0;
    double m_sim_left = 0, m_sim_done = 0;
    bool m_simulating = false;
    clock_type::time_point m_start = clock_type::now(), m_phase_start = m_start;
};

// Runs fn(0) .. fn(count - 1) on `jobs` threads, in order of index; the first
// exception stops the rest and is kept in `error`.
template <class Fn>
void run_parallel(std::size_t count, unsigned jobs, std::exception_ptr& error, Fn fn) {
    if (error || count == 0) return;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex error_mutex;
    auto work = [&] {
        for (;;) {
            const std::size_t q = next++;
            if (q >= count || stop) return;
            try {
                fn(q);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                stop = true;
                return;
            }
        }
    };
    jobs = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(jobs, count)));
    if (jobs == 1) return work();
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(work);
    for (auto& t : threads) t.join();
}

// Runs fn, keeping its exception (the first) in `error`: between MPI's
// collectives nothing may leave a rank early.
template <class Fn>
void guarded(std::exception_ptr& error, Fn fn) {
    if (error) return;
    try {
        fn();
    } catch (...) {
        error = std::current_exception();
    }
}

std::string error_text(const std::exception_ptr& e) {
    if (!e) return {};
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        return x.what();
    } catch (...) {
        return "an unknown exception";
    }
}

// A double's bits in a uint64 (broadcast), and back.
std::uint64_t bits_of(double v) {
    std::uint64_t u = 0;
    std::memcpy(&u, &v, sizeof u);
    return u;
}
double double_of(std::uint64_t u) {
    double v = 0;
    std::memcpy(&v, &u, sizeof v);
    return v;
}

// The summary's account of the results, per algorithm: points, skipped, bounds.
json algorithms_summary(const spec& s, const std::vector<outcome>& outcomes) {
    json out = json::object();
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        json& a = out[s.points[i].algo->spec.key];
        if (a.is_null()) a = {{"points", 0}, {"ok", 0}, {"skipped", 0}, {"bounds", json::object()}};
        a["points"] = a["points"].get<std::size_t>() + 1;
        const auto& o = outcomes[i];
        a[o.ok ? "ok" : "skipped"] = a[o.ok ? "ok" : "skipped"].get<std::size_t>() + 1;
        if (o.ok && o.result.value("priced", false)) {
            const std::string bound = o.result.at("bound").get<std::string>();
            a["bounds"][bound] = a["bounds"].value(bound, 0) + 1;
        }
    }
    return out;
}

}  // namespace

std::vector<unsigned> assign_lpt(const std::vector<double>& costs, unsigned workers) {
    workers = std::max(1u, workers);
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    using load = std::pair<double, unsigned>;
    std::priority_queue<load, std::vector<load>, std::greater<>> least;
    for (unsigned w = 0; w < workers; ++w) least.push({0.0, w});
    std::vector<unsigned> out(costs.size());
    for (auto i : order) {
        auto [l, w] = least.top();
        least.pop();
        out[i] = w;
        least.push({l + costs[i], w});
    }
    return out;
}

run_result run_sweep(const spec& s, const run_options& opt) {
    const auto start = clock_type::now();
    auto alone = single_process();
    cluster& world = opt.world ? *opt.world : *alone;
    const bool sharded = opt.shard_count > 1;
    const bool mpi = world.size() > 1;
    if (sharded && opt.shard_index >= opt.shard_count)
        throw input_error("option --shard", "I must be below N, got " + std::to_string(opt.shard_index) + "/" +
                                                std::to_string(opt.shard_count));
    if (sharded && mpi) throw input_error("option --shard", "shards are for runs without MPI (job arrays)");
    const cache store(opt.cache_dir);
    if (world.rank() == 0) store.remove_stale_temporaries();

    const std::size_t count = s.points.size();
    const json time_model = time_model_inputs(s.fit);
    std::vector<std::string> keys(count);
    for (std::size_t i = 0; i < count; ++i) keys[i] = point_key(s.points[i], time_model);

    // The outcomes this process knows (found in the cache or computed), and
    // the cache entries it computed (sent to rank 0 under MPI).
    std::mutex mutex;
    std::map<std::size_t, outcome> found;
    std::vector<std::pair<std::size_t, std::string>> entries;
    tracker track(opt.jobs, opt.on_progress);
    std::exception_ptr error;

    // The points this process plans: its shard's (every N-th), its rank's
    // share of those missing (rank 0 looks, every rank learns), or all.
    std::vector<std::size_t> share;
    std::size_t cached_count = 0;
    if (opt.merge_only) {
        // nothing to compute
    } else if (mpi) {
        std::vector<std::uint64_t> missing;
        if (world.rank() == 0)
            for (std::size_t i = 0; i < count; ++i)
                if (!store.find(keys[i])) missing.push_back(i);
        missing = world.broadcast(missing);
        cached_count = count - missing.size();
        for (std::size_t j = 0; j < missing.size(); ++j)
            if (j % std::size_t(world.size()) == std::size_t(world.rank())) share.push_back(std::size_t(missing[j]));
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            if (sharded && i % opt.shard_count != opt.shard_index) continue;
            if (auto o = store.find(keys[i])) {
                track.cached(!o->ok);
                found[i] = std::move(*o);
                ++cached_count;
            } else {
                share.push_back(i);
            }
        }
    }
    const std::size_t looked_after = (mpi ? 0 : cached_count) + share.size();
    track.set_total(looked_after, share.size());

    auto record = [&](std::size_t i, outcome o) {
        std::string text = cache::entry_text(keys[i], key_inputs(s.points[i], time_model), o);
        store.store(keys[i], text);
        std::lock_guard<std::mutex> lock(mutex);
        entries.emplace_back(i, std::move(text));
        found[i] = std::move(o);
    };

    // Phase 1, the closed forms: each planned point is answered or left for the simulator.
    std::vector<planned> plans(share.size());
    run_parallel(share.size(), opt.jobs, error, [&](std::size_t q) {
        const std::size_t i = share[q];
        plans[q] = plan(s.points[i], s.fit);
        if (plans[q].answer) {
            const bool skipped = !plans[q].answer->ok;
            record(i, *plans[q].answer);
            track.planned(true, skipped, 0);
        } else {
            track.planned(false, false, plans[q].simulation_s);
        }
    });
    if (!share.empty()) guarded(error, [&] { store.sync(); });
    std::vector<std::pair<std::size_t, double>> simulations;  // (point, estimated seconds)
    for (std::size_t q = 0; q < share.size(); ++q)
        if (!plans[q].answer && !error) simulations.emplace_back(share[q], plans[q].simulation_s);

    // Phase 2, the simulations, spread by their estimates over the ranks (longest first).
    if (mpi) {
        json pending = json::array();
        for (const auto& [i, est] : simulations) pending.push_back({i, est});
        const auto all = world.gather(pending.dump());
        std::vector<std::uint64_t> assignment;  // (point, owner, estimate bits) triples
        if (world.rank() == 0) {
            std::vector<std::pair<std::size_t, double>> every;
            for (const auto& text : all)
                for (const auto& e : json::parse(text)) every.emplace_back(e[0].get<std::size_t>(), e[1].get<double>());
            std::sort(every.begin(), every.end());
            std::vector<double> costs;
            for (const auto& [i, est] : every) costs.push_back(est);
            const auto owner = assign_lpt(costs, unsigned(world.size()));
            for (std::size_t j = 0; j < every.size(); ++j)
                assignment.insert(assignment.end(), {every[j].first, owner[j], bits_of(every[j].second)});
        }
        assignment = world.broadcast(assignment);
        simulations.clear();
        for (std::size_t j = 0; j + 2 < assignment.size(); j += 3)
            if (assignment[j + 1] == std::uint64_t(world.rank()))
                simulations.emplace_back(std::size_t(assignment[j]), double_of(assignment[j + 2]));
    }
    std::stable_sort(simulations.begin(), simulations.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    double simulation_cost = 0;
    for (const auto& [i, est] : simulations) simulation_cost += est;
    // Under MPI this rank finishes the points it answered and the simulations it was given.
    track.start_simulations(mpi ? found.size() + simulations.size() : looked_after, simulation_cost);
    run_parallel(simulations.size(), opt.jobs, error, [&](std::size_t q) {
        const auto [i, est] = simulations[q];
        auto o = simulate_point(s.points[i], s.fit);
        const bool skipped = !o.ok;
        record(i, std::move(o));
        track.simulated(skipped, est);
    });

    if (!simulations.empty()) guarded(error, [&] { store.sync(); });
    run_result r;
    r.wall_s = since(start);
    r.points = sharded ? looked_after : count;
    if (sharded) {
        if (error) std::rethrow_exception(error);
        r.computed = entries.size();
        r.cached = cached_count;
        for (const auto& [i, o] : found) (o.ok ? r.ok : r.skipped)++;
        return r;
    }

    // Every rank's computed entries (and its error, if any) to rank 0.
    std::size_t computed_everywhere = entries.size();
    std::string rank_error;
    if (mpi) {
        json mine = {{"error", error ? json(error_text(error)) : json(nullptr)}, {"entries", json::array()}};
        for (const auto& [i, text] : entries) mine["entries"].push_back({{"index", i}, {"text", text}});
        const auto all = world.gather(mine.dump());
        if (world.rank() != 0) {
            if (error) std::rethrow_exception(error);
            return r;
        }
        for (std::size_t rank = 1; rank < all.size(); ++rank) {
            const json j = json::parse(all[rank]);
            if (j.at("error").is_string() && rank_error.empty())
                rank_error = "rank " + std::to_string(rank) + ": " + j.at("error").get<std::string>();
            for (const auto& e : j.at("entries")) {
                const auto i = e.at("index").get<std::size_t>();
                const auto text = e.at("text").get<std::string>();
                auto o = cache::parse_entry(text, keys.at(i));
                if (!o)
                    throw internal_error("rank " + std::to_string(rank) + " sent a cache entry that does not check");
                if (!store.find(keys[i])) store.store(keys[i], text);  // a cache not shared with that rank
                found[i] = std::move(*o);
                ++computed_everywhere;
            }
        }
        store.sync();
    }
    if (error) std::rethrow_exception(error);
    if (!rank_error.empty()) throw internal_error(rank_error);

    // Assemble the results, in the spec's order, from what was computed and the cache.
    std::vector<outcome> outcomes(count);
    std::size_t missing = 0;
    std::string first_missing;
    for (std::size_t i = 0; i < count; ++i) {
        if (auto it = found.find(i); it != found.end()) {
            outcomes[i] = it->second;
        } else if (auto o = store.find(keys[i])) {
            outcomes[i] = std::move(*o);
        } else {
            if (!missing++) first_missing = point_json(s.points[i]).dump();
        }
    }
    if (missing) {
        if (opt.merge_only)
            throw input_error("option --merge", std::to_string(missing) + " of " + std::to_string(count) +
                                                    " points are not in the cache " + store.dir().string() +
                                                    " (first: " + first_missing +
                                                    "): run the missing shards, or agpu sweep without --merge");
        throw internal_error(std::to_string(missing) + " points are neither computed nor in the cache");
    }
    std::string text;
    for (std::size_t i = 0; i < count; ++i) {
        text += point_line(s.points[i], keys[i], outcomes[i], s.fit);
        text += '\n';
        (outcomes[i].ok ? r.ok : r.skipped)++;
    }
    std::error_code ec;
    fs::create_directories(opt.out_dir, ec);
    if (ec) throw input_error("option --out " + opt.out_dir.string(), "cannot create the directory: " + ec.message());
    r.results = opt.out_dir / results_file;
    r.summary = opt.out_dir / summary_file;
    r.computed = computed_everywhere;
    r.cached = opt.merge_only ? count : cached_count;
    r.wall_s = since(start);
    write_atomically(r.results, text);
    json summary = {{"schema", summary_schema},
                    {"agpu", {{"version", build_info::version}, {"commit", build_info::commit}}},
                    {"model", model_identity(s.fit)},
                    {"spec", {{"path", s.path}, {"name", s.name}, {"device_axes", s.device_axes}}},
                    {"results", r.results.string()},
                    {"cache", store.dir().string()},
                    {"points", count},
                    {"ok", r.ok},
                    {"skipped", r.skipped},
                    {"run",
                     {{"computed", r.computed},
                      {"cached", r.cached},
                      {"merge_only", opt.merge_only},
                      {"ranks", world.size()},
                      {"processes", world.description()},
                      {"jobs", opt.jobs},
                      {"wall_s", r.wall_s},
                      {"computed_per_s", r.wall_s > 0 ? double(r.computed) / r.wall_s : 0.0}}},
                    {"algorithms", algorithms_summary(s, outcomes)}};
    write_atomically(r.summary, summary.dump(2) + "\n");
    r.summary_json = summary;
    r.wrote_results = true;
    return r;
}

}  // namespace agpu::sweep
