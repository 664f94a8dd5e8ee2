#include "agpu/validate/fit.hpp"
#include "agpu/utc_time.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/nnls.hpp"
#include "agpu/sim/algorithms.hpp"
#include "agpu/sim/model_counts.hpp"
#include "agpu/validate/dataset.hpp"

namespace agpu::validate {
namespace {

using json = nlohmann::json;

json stats_json(const error_stats& s) {
    return {{"samples", s.count},       {"mape", s.mape},           {"median_ape", s.median_ape},
            {"worst_ape", s.worst_ape}, {"worst_run", s.worst_run}, {"r2_log", s.r2}};
}

json constants_json(const model::time_vector& c) {
    json j = json::object();
    for (const auto& t : model::time_term_table) j[std::string(t.name)] = c[std::size_t(t.id)];
    return j;
}

}  // namespace

sample_set load_samples(const std::vector<std::filesystem::path>& dirs, double max_simulation_s,
                        const std::function<void(const std::string&)>& progress) {
    sample_set out;
    for (const auto& dir : dirs) {
        const auto data = read_dataset(dir);
        const auto& prov = data.provenance;
        if (!prov.contains("device_id") || !prov["device_id"].is_string())
            throw input_error(dir.string() + "/provenance.json: field device_id", "is required (a preset id)");
        const std::string device_id = prov["device_id"].get<std::string>();
        const auto dev = model::resolve_device(device_id);
        const auto& rows = data.rows;
        struct run_rows {
            const measurement* first = nullptr;
            bool complete = false, failed = false;
            double launch_ms = 0;
            std::size_t timed_launches = 0;
            std::optional<double> run_ms;
        };
        std::map<std::string, run_rows> runs;
        std::vector<std::string> order;
        for (const auto& r : rows) {
            auto [it, fresh] = runs.try_emplace(r.run_id);
            if (fresh) order.push_back(r.run_id);
            auto& x = it->second;
            if (!x.first) x.first = &r;
            if (r.launch == "run") {
                if (r.counter == "complete") x.complete = true;
                if (r.counter == "check" && r.value && *r.value == 0) x.failed = true;
                if (r.counter == "time_ms" && r.value) x.run_ms = *r.value;
            } else if (r.counter == "time_ms" && r.value) {
                x.launch_ms += *r.value;
                ++x.timed_launches;
            }
        }
        std::size_t made = 0;
        for (const auto& id : order) {
            const auto& x = runs.at(id);
            auto skip = [&](const std::string& why) { out.skipped.push_back({dir.string(), id, why}); };
            if (!x.complete) {
                skip("incomplete run");
                continue;
            }
            if (x.failed) {
                skip("its check failed");
                continue;
            }
            if (x.timed_launches == 0 && !x.run_ms) {
                skip("not timed");
                continue;
            }
            const measurement& m = *x.first;
            const sim::algorithm* algo = nullptr;
            for (const auto* a : sim::algorithms())
                if (a->spec.key == m.algo) algo = a;
            if (!algo) {
                skip("GPU-only baseline: no model counts");
                continue;
            }
            const auto params = model::parse_params(algo->spec, split_params(m.params));
            sim::model_counts mc;
            try {
                sim::count_options co;  // exact counts: the fit's features (sampled ones carry an error)
                co.max_simulation_s = max_simulation_s;
                co.stop_on_measured_pace = false;  // which runs are samples must not depend on the host's load
                co.mode = sim::mode_request::exact;
                mc = sim::count_run(*algo, dev, m.n, params, m.seed, co);
            } catch (const sim::simulation_too_long& e) {
                skip(e.rule());
                continue;
            }
            if (!mc.check.passed) throw internal_error("simulating " + id + " failed its check: " + mc.check.detail);
            fit_sample s;
            s.dataset = dir.string();
            s.device_id = device_id;
            s.run_id = id;
            s.algo = m.algo;
            s.params = m.params;
            s.n = m.n;
            s.seed = m.seed;
            s.counts = mc.totals;
            s.count_source = sim::to_string(mc.source);
            s.measured_s = (x.timed_launches ? x.launch_ms : *x.run_ms) * 1e-3;
            s.footprint_bytes = mc.footprint_bytes;
            for (const auto& l : mc.launches) s.launch_counts.push_back(l.c);
            s.features = model::time_features(s.counts, dev, s.footprint_bytes);
            s.size_range = m.n == 0 ? 0 : int(std::floor(std::log10(double(m.n)) + 1e-9));
            out.samples.push_back(std::move(s));
            ++made;
        }
        if (progress) progress(dir.string() + ": " + std::to_string(made) + " runs on " + device_id);
    }
    return out;
}

namespace {

// The ridge on the fit's scaled normal equations (nnls_rows): micro/chase's
// links are the only runs whose DRAM and L2 latency terms differ in
// proportion (stats/serial, the other launch of less than a warp, touches one
// atom and one L2 sector every 64 bytes), so without it the fold that holds
// micro/chase out put every latency clock on one term and predicted stride
// 32 58% slow; with it the fold shares them (11.1% held out instead of
// 20.7%), and every other fold's errors are unchanged to three digits.
constexpr double fit_ridge = 1e-6;

// Each term's bound for one search of the charges: the model's (time_term_table),
// or with the dispatch bound's terms folded into the issue bound (the first
// search, fit_constants below).
using model::term_bounds;

term_bounds folded_bounds() {
    term_bounds tb = model::model_bounds();
    for (auto& b : tb)
        if (b == model::time_bound::dispatch) b = model::time_bound::issue;
    return tb;
}

// Whether term t applies to row r: a term of no bound always, a bound's term
// where `charged` puts the row in that bound (every term where it is empty).
bool charges(const term_bounds& tb, const model::time_term_info& t, const std::vector<model::time_bound>& charged,
             std::size_t r) {
    const auto b = tb[std::size_t(t.id)];
    return b == model::time_bound::none || charged.empty() || charged[r] == b;
}

// NNLS on the rows, relative-error weighted and each row also multiplied by
// `weight` (IRLS, below), with the terms of the bounds that `charged` says do
// not apply to a row zeroed (all apply when `charged` is empty). A term with
// a fixed constant (the hardware's rate) is not a column: its charged share
// of the measured time is taken off the right-hand side, and the constant is
// set, not solved for.
model::time_vector nnls_rows(const std::vector<fit_sample>& samples, const std::vector<std::size_t>& rows,
                             const term_bounds& tb, const std::vector<model::time_bound>& charged,
                             const std::vector<double>& weight) {
    const auto terms = Eigen::Index(model::time_term_count);
    const auto m = Eigen::Index(rows.size());
    // The rows' equations, then one ridge row per term (below).
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(m + terms, terms);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(m + terms);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto& s = samples[rows[r]];
        AGPU_CHECK(s.measured_s > 0, "sample " + s.run_id + " has no positive time");
        double fixed_share = 0;
        for (const auto& t : model::time_term_table) {
            const double x = charges(tb, t, charged, r) ? s.features[std::size_t(t.id)] / s.measured_s : 0;
            if (t.fixed) fixed_share += *t.fixed * x;
            A(Eigen::Index(r), Eigen::Index(t.id)) = t.fixed ? 0 : weight[r] * x;
        }
        b[Eigen::Index(r)] = weight[r] * (1 - fixed_share);
    }
    // Columns scaled to unit norm so that the terms' very different sizes do
    // not decide NNLS's tolerance; scaled back after. Below them, a row of
    // sqrt(fit_ridge) per column (a ridge of fit_ridge on the scaled normal
    // equations): where the rows cannot tell two terms apart (columns
    // proportional), it picks the smallest constants among the equally good
    // ones, the weight shared, instead of the vertex NNLS reaches first, all
    // of it on one term. Elsewhere it moves the constants by 1e-5 of their
    // size or less (the fit tests' synthetic data; the H100 fit's constants
    // move in their sixth digit).
    Eigen::VectorXd scale(terms);
    for (Eigen::Index t = 0; t < terms; ++t) {
        scale[t] = A.col(t).norm();
        if (scale[t] == 0) continue;
        A.col(t) /= scale[t];
        A(m + t, t) = std::sqrt(fit_ridge);
    }
    const auto sol = model::nnls(A, b);
    model::time_vector c{};
    for (Eigen::Index t = 0; t < terms; ++t) c[std::size_t(t)] = scale[t] > 0 ? sol.x[t] / scale[t] : 0;
    for (const auto& t : model::time_term_table)
        if (t.fixed) c[std::size_t(t.id)] = *t.fixed;
    return c;
}

// The charged rows' relative error under constants c (the linear model of
// the charge, not the max: what the weighted NNLS fits).
double charged_relative_error(const fit_sample& s, const model::time_vector& c, const term_bounds& tb,
                              const std::vector<model::time_bound>& charged, std::size_t r) {
    double p = 0;
    for (const auto& t : model::time_term_table) {
        if (charges(tb, t, charged, r)) p += s.features[std::size_t(t.id)] * c[std::size_t(t.id)];
    }
    return p / s.measured_s - 1;
}

// Least absolute relative error under c >= 0 for one charge of the rows, by
// iteratively reweighted least squares: NNLS with each row weighted by
// 1 / sqrt(max(|its relative error|, irls_floor)) under the constants of the
// step before, so that the weighted squares approach the sum of absolute
// errors. Stops when the constants move less than 1e-9 relative or after
// irls_iterations.
constexpr int irls_iterations = 30;
constexpr double irls_floor = 1e-3;  // a 0.1% error: below it rows weigh the same

model::time_vector irls_rows(const std::vector<fit_sample>& samples, const std::vector<std::size_t>& rows,
                             const term_bounds& tb, const std::vector<model::time_bound>& charged) {
    std::vector<double> weight(rows.size(), 1.0);
    model::time_vector c = nnls_rows(samples, rows, tb, charged, weight);
    for (int it = 0; it < irls_iterations; ++it) {
        for (std::size_t r = 0; r < rows.size(); ++r)
            weight[r] = 1 / std::sqrt(std::max(std::fabs(charged_relative_error(samples[rows[r]], c, tb, charged, r)),
                                               irls_floor));
        const auto next = nnls_rows(samples, rows, tb, charged, weight);
        double moved = 0;
        for (std::size_t t = 0; t < model::time_term_count; ++t)
            moved = std::max(moved, std::fabs(next[t] - c[t]) / std::max(std::fabs(c[t]), 1e-300));
        c = next;
        if (moved < 1e-9) break;
    }
    return c;
}

enum class loss : std::uint8_t { squares, absolute };

// The fit's error under constants c: the max model's sum of squared or
// absolute relative errors.
double fit_error(const std::vector<fit_sample>& samples, const std::vector<std::size_t>& rows,
                 const model::time_vector& c, const term_bounds& tb, loss l) {
    double e = 0;
    for (auto i : rows) {
        const double r = model::predict_seconds(samples[i].features, c, tb) / samples[i].measured_s - 1;
        e += l == loss::squares ? r * r : std::fabs(r);
    }
    return e;
}

model::time_vector solve_charged(const std::vector<fit_sample>& samples, const std::vector<std::size_t>& rows,
                                 const term_bounds& tb, loss l, const std::vector<model::time_bound>& charged) {
    return l == loss::squares ? nnls_rows(samples, rows, tb, charged, std::vector<double>(rows.size(), 1.0))
                              : irls_rows(samples, rows, tb, charged);
}

// Recharges every run with its dominant bound under c and refits, until the
// error stops falling (at most 100 rounds); returns the best constants.
model::time_vector recharge(const std::vector<fit_sample>& samples, const std::vector<std::size_t>& rows,
                            const term_bounds& tb, loss l, model::time_vector c, double& best) {
    for (int round = 0; round < 100; ++round) {
        std::vector<model::time_bound> now;
        for (auto i : rows) now.push_back(model::dominant_group(samples[i].features, c, tb));
        const auto x = solve_charged(samples, rows, tb, l, now);
        const double e = fit_error(samples, rows, x, tb, l);
        if (e >= best) break;
        best = e;
        c = x;
    }
    return c;
}

// One search of the bounds' charges (fit_constants) under `l`: NNLS (squares)
// or IRLS (absolute) per charge, the max model's sum of squared or absolute
// relative errors to choose. `start`, when given, is the first candidate
// and orders the first split search.
model::time_vector search_charges(const std::vector<fit_sample>& samples, const std::vector<std::size_t>& rows,
                                  const term_bounds& tb, loss l, const std::optional<model::time_vector>& start) {
    using model::time_bound;
    auto solve = [&](const std::vector<time_bound>& charged) { return solve_charged(samples, rows, tb, l, charged); };
    model::time_vector c = start ? *start : solve({});
    double best = fit_error(samples, rows, c, tb, l);
    for (int search = 0; search < 8; ++search) {
        const double before = best;
        // Constants NNLS left at 0 still order the runs: a bound whose terms are all 0 would tie every run.
        model::time_vector order_c = c;
        for (auto& x : order_c) x = std::max(x, 1e-9);
        std::vector<double> ratio(rows.size());
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const auto& f = samples[rows[r]].features;
            const double issue = model::bound_sum(f, order_c, time_bound::issue, tb);
            ratio[r] = issue > 0 ? model::bound_sum(f, order_c, time_bound::memory, tb) / issue
                                 : std::numeric_limits<double>::infinity();
        }
        std::vector<std::size_t> by_ratio(rows.size());
        for (std::size_t r = 0; r < rows.size(); ++r) by_ratio[r] = r;
        std::stable_sort(by_ratio.begin(), by_ratio.end(), [&](auto a, auto b) { return ratio[a] < ratio[b]; });
        std::vector<time_bound> charged(rows.size(), time_bound::memory);
        for (std::size_t split = 0; split <= rows.size(); ++split) {
            if (split > 0) charged[by_ratio[split - 1]] = time_bound::issue;
            const auto x = solve(charged);
            const double e = fit_error(samples, rows, x, tb, l);
            if (e < best) {
                best = e;
                c = x;
            }
        }
        c = recharge(samples, rows, tb, l, c, best);
        if (best >= before * (1 - 1e-9)) break;
    }
    return c;
}

}  // namespace

model::time_vector fit_constants(const std::vector<fit_sample>& samples, const std::vector<std::size_t>& rows_in) {
    std::vector<std::size_t> rows = rows_in;
    if (rows.empty())
        for (std::size_t i = 0; i < samples.size(); ++i) rows.push_back(i);
    AGPU_CHECK(!rows.empty(), "fit_constants: no samples");
    // The roofline's max of two bounds, fitted per bound. Under constants c a
    // run is charged the issue bound iff memory/issue (each bound's sum of
    // constant * feature) is below 1, so for the within-bound ratios of c the
    // consistent charges are the N + 1 splits of the runs sorted by that
    // ratio: try every split (a fit of the charged features), keep the
    // constants whose max-model error is least, then recharge and refit until
    // no run changes bound. The within-bound ratios come from the constants
    // of the step before (at first a plain sum of every term), so the search
    // repeats, sorted by the new constants, until it no longer lowers the
    // error. It runs twice: on squared relative errors (NNLS), then on
    // absolute ones (IRLS) starting from the first one's constants, so the
    // second starts from a good charge and keeps it when nothing is better
    // (an exact fit stays exact).
    //
    // The dispatch bound (the blocks term) is a third bound of the max. The
    // split search above is for two, so it runs with the dispatch bound's
    // terms in the issue bound; from its constants every run is recharged
    // with its largest of the three bounds and refitted until the error stops
    // falling. Both passes do both (with no dispatch term, the recharge
    // changes nothing).
    const auto folded = folded_bounds(), bounds = model::model_bounds();
    auto pass = [&](loss l, const std::optional<model::time_vector>& start) {
        const auto c = search_charges(samples, rows, folded, l, start);
        double best = fit_error(samples, rows, c, bounds, l);
        return recharge(samples, rows, bounds, l, c, best);
    };
    return pass(loss::absolute, pass(loss::squares, std::nullopt));
}

error_stats summarise(const std::vector<double>& predicted, const std::vector<double>& measured,
                      const std::vector<std::string>& run_ids) {
    error_stats s;
    s.count = predicted.size();
    if (s.count == 0) return s;
    std::vector<double> ape(s.count);
    double log_mean = 0;
    for (std::size_t i = 0; i < s.count; ++i) {
        ape[i] = std::fabs(predicted[i] - measured[i]) / measured[i];
        s.mape += ape[i];
        if (ape[i] >= s.worst_ape) {
            s.worst_ape = ape[i];
            s.worst_run = run_ids[i];
        }
        log_mean += std::log10(measured[i]);
    }
    s.mape /= double(s.count);
    log_mean /= double(s.count);
    std::vector<double> sorted = ape;
    std::sort(sorted.begin(), sorted.end());
    s.median_ape = s.count % 2 ? sorted[s.count / 2] : (sorted[s.count / 2 - 1] + sorted[s.count / 2]) / 2;
    double ss_res = 0, ss_tot = 0;
    for (std::size_t i = 0; i < s.count; ++i) {
        const double lm = std::log10(measured[i]), lp = std::log10(std::max(predicted[i], 1e-300));
        ss_res += (lm - lp) * (lm - lp);
        ss_tot += (lm - log_mean) * (lm - log_mean);
    }
    s.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
    return s;
}

namespace {

error_stats summarise_rows(const std::vector<fit_sample>& samples, const std::vector<double>& predicted,
                           const std::vector<std::size_t>& rows) {
    std::vector<double> p, m;
    std::vector<std::string> ids;
    for (auto i : rows) {
        p.push_back(predicted[i]);
        m.push_back(samples[i].measured_s);
        ids.push_back(samples[i].run_id);
    }
    return summarise(p, m, ids);
}

}  // namespace

evaluation evaluate(const std::vector<fit_sample>& samples, const model::time_vector& constants) {
    evaluation e;
    std::map<std::string, std::vector<std::size_t>> by_algo;
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        e.predicted.push_back(model::predict_seconds(samples[i].features, constants));
        by_algo[samples[i].algo].push_back(i);
        all.push_back(i);
    }
    e.overall = summarise_rows(samples, e.predicted, all);
    for (const auto& [algo, rows] : by_algo) e.per_algo[algo] = summarise_rows(samples, e.predicted, rows);
    return e;
}

cross_validation cross_validate(const std::vector<fit_sample>& samples, const std::string& name,
                                const std::function<std::string(const fit_sample&)>& key) {
    cross_validation cv;
    cv.name = name;
    cv.predicted.assign(samples.size(), std::nan(""));
    std::map<std::string, std::vector<std::size_t>> folds;
    for (std::size_t i = 0; i < samples.size(); ++i) folds[key(samples[i])].push_back(i);
    std::vector<std::size_t> covered;
    for (const auto& [fold, held] : folds) {
        std::vector<std::size_t> train;
        for (std::size_t i = 0; i < samples.size(); ++i)
            if (key(samples[i]) != fold) train.push_back(i);
        if (train.empty()) continue;
        const auto c = fit_constants(samples, train);
        cv.constants[fold] = c;
        for (auto i : held) {
            cv.predicted[i] = model::predict_seconds(samples[i].features, c);
            covered.push_back(i);
        }
        cv.per_fold[fold] = summarise_rows(samples, cv.predicted, held);
    }
    std::sort(covered.begin(), covered.end());
    cv.overall = summarise_rows(samples, cv.predicted, covered);
    return cv;
}

fit_report fit_datasets(const sample_set& data, const std::vector<std::string>& dataset_names,
                        const std::string& command_line) {
    if (data.samples.empty()) throw input_error("option --data", "the datasets hold no run the model can count");
    std::set<std::string> devices;
    for (const auto& s : data.samples) devices.insert(s.device_id);
    if (devices.size() > 1) {
        std::string list;
        for (const auto& d : devices) list += (list.empty() ? "" : ", ") + d;
        throw input_error("option --data", "datasets of different devices (" + list + "): a fit is of one device");
    }
    fit_report r;
    r.data = data;
    r.fit.constants = fit_constants(data.samples);
    r.fit.device = *devices.begin();
    r.fit.date = utc_now();
    r.fit.commit = build_info::commit;
    r.fit.datasets = dataset_names;
    r.in_sample = evaluate(data.samples, r.fit.constants);
    r.held_out.push_back(cross_validate(data.samples, std::string(model::quality_key::algorithm_held_out),
                                        [](const fit_sample& s) { return s.algo; }));
    r.held_out.push_back(
        cross_validate(data.samples, std::string(model::quality_key::size_range_held_out), [](const fit_sample& s) {
            return "n in [1e" + std::to_string(s.size_range) + ", 1e" + std::to_string(s.size_range + 1) + ")";
        }));
    r.fit.quality = quality_json(r);
    r.fit.quality["command_line"] = command_line;
    return r;
}

json quality_json(const fit_report& r) {
    json per_algo = json::object();
    for (const auto& [a, s] : r.in_sample.per_algo) per_algo[a] = stats_json(s);
    json q = {{"weighting", "absolute relative error (rows divided by the measured time, reweighted: IRLS)"},
              {"samples", r.data.samples.size()},
              {model::quality_key::in_sample, stats_json(r.in_sample.overall)},
              {model::quality_key::in_sample_per_algorithm, per_algo}};
    for (const auto& cv : r.held_out) {
        json folds = json::object();
        for (const auto& [f, s] : cv.per_fold) folds[f] = stats_json(s);
        q[cv.name] = {{"overall", stats_json(cv.overall)}, {"folds", folds}};
    }
    return q;
}

json to_json(const fit_report& r) {
    auto sample_rows = [](const std::vector<fit_sample>& samples, const std::vector<double>& predicted,
                          const std::vector<const cross_validation*>& cvs) {
        json rows = json::array();
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const auto& s = samples[i];
            json terms = json::object();
            for (const auto& t : model::time_term_table) terms[std::string(t.name)] = s.features[std::size_t(t.id)];
            json row = {{"dataset", s.dataset},
                        {"device", s.device_id},
                        {"run_id", s.run_id},
                        {"algo", s.algo},
                        {"n", s.n},
                        {"params", s.params},
                        {"counts", s.count_source},
                        {"footprint_bytes", s.footprint_bytes},
                        {"measured_s", s.measured_s},
                        {"predicted_s", predicted[i]},
                        {"features_s", terms},
                        {"totals", sim::counts_to_json(s.counts)}};
            for (const auto* cv : cvs)
                row[cv->name + "_s"] = std::isnan(cv->predicted[i]) ? json(nullptr) : json(cv->predicted[i]);
            rows.push_back(row);
        }
        return rows;
    };
    std::vector<const cross_validation*> cvs;
    for (const auto& cv : r.held_out) cvs.push_back(&cv);
    json skipped = json::array();
    for (const auto& s : r.data.skipped)
        skipped.push_back({{"dataset", s.dataset}, {"run_id", s.run_id}, {"why", s.why}});
    json j = {{"schema", fit_report_schema},
              {"commit", build_info::commit},
              {"fit", model::fit_to_json(r.fit)},
              {"samples", sample_rows(r.data.samples, r.in_sample.predicted, cvs)},
              {"skipped", skipped}};
    json cvj = json::object();
    for (const auto& cv : r.held_out) {
        json c = json::object();
        for (const auto& [f, k] : cv.constants) c[f] = constants_json(k);
        cvj[cv.name] = {{"constants_per_fold", c}};
    }
    j["cross_validation"] = cvj;
    if (!r.check_data.samples.empty()) {
        json per_algo = json::object();
        for (const auto& [a, s] : r.check.per_algo) per_algo[a] = stats_json(s);
        j["check"] = {{"overall", stats_json(r.check.overall)},
                      {"per_algorithm", per_algo},
                      {"samples", sample_rows(r.check_data.samples, r.check.predicted, {})}};
    }
    return j;
}

std::vector<std::string> split_params(const std::string& params) {
    std::vector<std::string> sets;
    for (std::size_t start = 0; start < params.size();) {
        const auto end = params.find(';', start);
        sets.push_back(params.substr(start, end == std::string::npos ? std::string::npos : end - start));
        start = end == std::string::npos ? params.size() : end + 1;
    }
    return sets;
}

}  // namespace agpu::validate
