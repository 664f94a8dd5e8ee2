#include "agpu/sweep/prediction.hpp"

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"
#include "agpu/model/closed_form.hpp"

namespace agpu::sweep {

std::string to_string(counts_mode m) {
    switch (m) {
        case counts_mode::automatic: return "auto";
        case counts_mode::closed_form: return "closed-form";
        case counts_mode::exact: return "exact";
        case counts_mode::sampled: return "sampled";
    }
    return "auto";
}

counts_mode parse_counts_mode(const std::string& text, const std::string& where) {
    for (auto m : {counts_mode::automatic, counts_mode::closed_form, counts_mode::exact, counts_mode::sampled})
        if (text == to_string(m)) return m;
    throw input_error(where, "must be auto, closed-form, exact or sampled, got '" + text + "'");
}

namespace {

void price(prediction& out, const model::device& dev, const model::time_fit& fit) {
    if (!out.priced) return;
    const auto& c = out.counts;
    if (c.launches.empty()) {
        out.run = model::time_run(c.totals, {}, dev, c.footprint_bytes);
    } else {
        std::vector<model::counts> per_launch;
        per_launch.reserve(c.launches.size());
        for (const auto& l : c.launches) per_launch.push_back(l.c);
        out.run = model::time_run(per_launch, {}, dev, c.footprint_bytes);
    }
    out.summary = model::summarize(out.run);
    out.seconds = out.run.seconds;
    out.bound = std::string(model::name(out.summary.winner));
    out.floor_s = model::floor_seconds(c.totals, dev, c.footprint_bytes);
    const auto features = model::time_features(c.totals, dev, c.footprint_bytes);
    for (std::size_t i = 0; i < model::time_term_count; ++i) out.fit_terms[i] = features[i] * fit.constants[i];
    out.fit_seconds = model::predict_seconds(features, fit.constants);
}

}  // namespace

std::optional<prediction> predict_closed_form(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                                              const model::param_values& params, counts_mode mode,
                                              const model::time_fit& fit) {
    if (mode == counts_mode::exact || mode == counts_mode::sampled) return std::nullopt;
    const auto* cf = model::find_closed_form(algo.spec.key);
    if (!cf) {
        if (mode == counts_mode::closed_form)
            throw input_error("algorithm " + algo.spec.key, "has no closed form (counts: closed-form)");
        return std::nullopt;
    }
    const auto p = cf->costs(dev.agpu, n, params);
    const bool serves = sim::serves_time_model(p);
    if (mode == counts_mode::automatic && !serves) return std::nullopt;
    prediction out;
    for (const auto& [c, v] : p) {
        out.counts.totals[c] = v;
        if (mode == counts_mode::closed_form) out.given.push_back(c);
    }
    out.counts.source = sim::count_source::closed_form;
    out.counts.check = {true, "not run (closed form)"};
    if (algo.device_bytes) out.counts.footprint_bytes = algo.device_bytes(n, params);
    out.priced = serves;
    price(out, dev, fit);
    return out;
}

prediction predict_simulated(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                             const model::param_values& params, std::uint64_t seed, counts_mode mode,
                             sim::count_options opt, const model::time_fit& fit) {
    // auto keeps the caller's opt.mode for the runs the closed form does not serve (agpu predict --mode).
    opt.force_simulator = mode == counts_mode::exact || mode == counts_mode::sampled;
    if (mode == counts_mode::exact) opt.mode = sim::mode_request::exact;
    if (mode == counts_mode::sampled) opt.mode = sim::mode_request::sampled;
    prediction out;
    out.counts = sim::count_run(algo, dev, n, params, seed, opt);
    if (!out.counts.check.passed)
        throw internal_error("the simulated outputs of " + algo.spec.key +
                             " differ from the CPU reference: " + out.counts.check.detail);
    out.priced = true;
    price(out, dev, fit);
    return out;
}

prediction predict(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                   const model::param_values& params, std::uint64_t seed, counts_mode mode, sim::count_options opt,
                   const model::time_fit& fit) {
    if (auto p = predict_closed_form(algo, dev, n, params, mode, fit)) return std::move(*p);
    return predict_simulated(algo, dev, n, params, seed, mode, std::move(opt), fit);
}

double simulation_estimate(const sim::algorithm& algo, const model::device& dev, std::uint64_t n,
                           const model::param_values& params, counts_mode mode) {
    const bool sampled = mode == counts_mode::sampled ||
                         (mode == counts_mode::automatic && sim::resolve_mode(sim::mode_request::automatic, algo, dev,
                                                                              n, params) == sim::sim_mode::sampled);
    return sampled ? sim::sampled_simulation_estimate(algo, dev, n, params)
                   : sim::exact_simulation_estimate(algo, dev, n, params);
}

nlohmann::json terms_to_json(const model::time_vector& terms) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& t : model::time_term_table) j[std::string(t.name)] = terms[std::size_t(t.id)];
    return j;
}

nlohmann::json summary_to_json(const model::run_summary& s) {
    nlohmann::json bounds = nlohmann::json::array();
    for (const auto& b : s.bounds)
        bounds.push_back({{"bound", std::string(model::name(b.bound))},
                          {"quantity", b.quantity},
                          {"quantity_unit", b.quantity_unit},
                          {"rate", b.rate},
                          {"rate_unit", b.rate_unit},
                          {"seconds_alone", b.seconds_alone},
                          {"launches_won", b.launches_won},
                          {"seconds_added", b.seconds_added},
                          {"what", b.what}});
    return {{"launches", s.launches},
            {"launch_overhead_s", s.launch_overhead_s},
            {"bound", std::string(model::name(s.winner))},
            {"margin", s.margin},
            {"seconds", s.seconds},
            {"bounds", bounds}};
}

std::string fit_source(const model::time_fit& fit) {
    return fit.source.empty() ? std::string("model/fits/h100.json (compiled in)") : fit.source;
}

}  // namespace agpu::sweep
