#include "agpu/sweep/point.hpp"

#include <cstdio>

#include <openssl/evp.h>

#include "agpu/build_info.hpp"
#include "agpu/errors.hpp"
#include "agpu/model/closed_form.hpp"
#include "agpu/sim/executor.hpp"

namespace agpu::sweep {
namespace {

using json = nlohmann::json;

json device_numbers(const model::device& d) {
    json j = model::device_summary_json(d);
    for (const char* k : {"id", "name", "kind", "base", "note", "sources"}) j.erase(k);
    return j;
}

json result_json(const prediction& pr) {
    json counters = json::object();
    if (pr.given.empty()) {
        counters = sim::counts_to_json(pr.counts.totals);
    } else {
        for (auto c : pr.given) counters[std::string(model::info(c).name)] = pr.counts.totals[c];
    }
    json r = {{"counts", sim::to_string(pr.counts.source)},
              {"mode", sim::to_string(pr.counts.mode)},
              {"check", pr.counts.check.detail},
              {"counters", counters},
              {"footprint_bytes", pr.counts.footprint_bytes},
              {"priced", pr.priced},
              {"seconds", nullptr},
              {"bound", nullptr},
              {"floor_s", nullptr},
              {"calibrated", nullptr},
              {"fit_seconds", nullptr},
              {"fit_terms_s", nullptr}};
    if (pr.counts.source == sim::count_source::simulator && pr.counts.mode == sim::sim_mode::sampled)
        r["relative_error_95"] = sim::errors_to_json(pr.counts.relative_error_95);
    if (pr.priced) {
        r["seconds"] = pr.seconds;
        r["bound"] = pr.bound;
        r["floor_s"] = pr.floor_s;
        r["calibrated"] = summary_to_json(pr.summary);
        r["fit_seconds"] = pr.fit_seconds;
        r["fit_terms_s"] = terms_to_json(pr.fit_terms);
    }
    return r;
}

}  // namespace

json point_json(const point& p) {
    json set = json::object();
    for (const auto& s : p.settings) set[s.name] = s.value;
    json device = device_numbers(p.device);
    device["id"] = p.device.id;
    device["kind"] = p.device.kind;
    device["base"] = p.device_base;
    device["set"] = set;
    return {{"device", device}, {"algo", p.algo->spec.key}, {"params", p.params.all()},
            {"n", p.n},         {"seed", p.seed},           {"counts", to_string(p.counts)}};
}

json time_model_inputs(const model::time_fit& fit) {
    return {{"schema", model::fit_schema}, {"constants", model::fit_to_json(fit)["constants"]}};
}

json key_inputs(const point& p, const json& time_model) {
    return {{"cache", cache_schema},
            {"agpu", {{"version", build_info::version}, {"commit", build_info::commit}}},
            {"time_model", time_model},
            {"algo", p.algo->spec.key},
            {"params", p.params.all()},
            {"n", p.n},
            {"seed", p.seed},
            {"counts", to_string(p.counts)},
            {"max_sim_seconds", p.max_sim_seconds},
            {"device", device_numbers(p.device)}};
}

json key_inputs(const point& p, const model::time_fit& fit) { return key_inputs(p, time_model_inputs(fit)); }

std::string sha256_hex(const std::string& text) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1)
        throw internal_error("SHA-256 of a sweep point's inputs failed (OpenSSL EVP_Digest)");
    std::string hex;
    char buf[3];
    for (unsigned i = 0; i < size; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", digest[i]);
        hex += buf;
    }
    return hex;
}

std::string point_key(const point& p, const model::time_fit& fit) { return sha256_hex(key_inputs(p, fit).dump()); }
std::string point_key(const point& p, const json& time_model) { return sha256_hex(key_inputs(p, time_model).dump()); }

namespace {

// Runs `step`; a point that cannot run becomes a skipped outcome with the reason.
template <class Step>
std::optional<outcome> or_skipped(Step step) {
    outcome o;
    try {
        step();
        return std::nullopt;
    } catch (const input_error& e) {  // a simulation above its limit, host memory, no closed form, inputs refused here
        o.reason = e.what();
    } catch (const kernel_error& e) {  // a kernel the device cannot run (shared memory above M, a block too large)
        o.reason = e.what();
    } catch (const unavailable_error& e) {
        o.reason = e.what();
    }
    return o;
}

}  // namespace

planned plan(const point& p, const model::time_fit& fit) {
    planned out;
    std::optional<outcome> answer;
    const auto skipped = or_skipped([&] {
        if (auto pr = predict_closed_form(*p.algo, p.device, p.n, p.params, p.counts, fit)) {
            outcome o;
            o.ok = true;
            o.result = result_json(*pr);
            answer = std::move(o);
            return;
        }
        out.simulation_s = simulation_estimate(*p.algo, p.device, p.n, p.params, p.counts);
        // A simulation above its limit is refused before it starts: no time.
        if (p.max_sim_seconds > 0 && out.simulation_s > p.max_sim_seconds) out.simulation_s = 0;
    });
    out.answer = skipped ? skipped : answer;
    return out;
}

outcome simulate_point(const point& p, const model::time_fit& fit) {
    sim::count_options opt;
    opt.max_simulation_s = p.max_sim_seconds;
    opt.stop_on_measured_pace = false;  // the estimate alone decides: a point must not depend on the host's load
    opt.threads = 1;                    // parallel over points; one thread keeps every sum in one order
    outcome o;
    if (auto skipped = or_skipped([&] {
            o.result = result_json(predict_simulated(*p.algo, p.device, p.n, p.params, p.seed, p.counts, opt, fit));
            o.ok = true;
        }))
        return *skipped;
    return o;
}

outcome evaluate(const point& p, const model::time_fit& fit) {
    auto pl = plan(p, fit);
    return pl.answer ? *pl.answer : simulate_point(p, fit);
}

json model_identity(const model::time_fit& fit) {
    return {{"time_model", model::fit_schema},
            {"fit", fit_source(fit)},
            {"fit_device", fit.device},
            {"fit_date", fit.date}};
}

std::string point_line(const point& p, const std::string& key, const outcome& o, const model::time_fit& fit) {
    json j = {{"schema", point_schema},
              {"key", key},
              {"agpu", {{"version", build_info::version}, {"commit", build_info::commit}}},
              {"model", model_identity(fit)},
              {"point", point_json(p)},
              {"status", o.ok ? "ok" : "skipped"},
              {"reason", o.ok ? json(nullptr) : json(o.reason)},
              {"result", o.result}};
    return j.dump();
}

}  // namespace agpu::sweep
