#include "fuzz_entries.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "agpu/model/catalog.hpp"
#include "agpu/model/sweep.hpp"
#include "agpu/model/time_model.hpp"
#include "agpu/validate/dataset.hpp"

namespace agpu::fuzz {
namespace {

// Runs `f`; a rejection of the input is the expected outcome of most inputs.
template <class F>
void accepting_rejection(F&& f) {
    try {
        f();
    } catch (const input_error&) {}
}

// Device file: parsed and validated as `agpu devices show FILE` does ("base"
// resolved among the presets); an accepted device writes and reads back equal.
void device_file(std::string_view in) {
    accepting_rejection([&] {
        const auto d = model::parse_device_text(std::string(in), "fuzz.json");
        const auto again = model::device_from_json(model::device_to_json(d), "round trip");
        AGPU_CHECK(again == d, "a device read back from its own JSON differs");
    });
}

// Fit file (schema agpu.fit/N): an accepted fit writes and reads back, and
// predicts finite seconds for finite counts.
void fit_file(std::string_view in) {
    accepting_rejection([&] {
        const auto f = model::parse_fit_text(std::string(in), "fuzz.json");
        const auto again = model::fit_from_json(model::fit_to_json(f), "round trip");
        AGPU_CHECK(again.constants == f.constants, "a fit read back from its own JSON differs");
        model::time_vector features{};
        features.fill(1e-3);
        AGPU_CHECK(!std::isnan(model::predict_seconds(features, f.constants)), "a fit predicts NaN seconds");
    });
}

// measurements.csv as `agpu compare/fit/bench` read it.
void measurements_csv(std::string_view in) {
    accepting_rejection([&] {
        std::istringstream s{std::string(in)};
        const auto rows = validate::read_measurements(s, "measurements.csv");
        validate::completed_runs(rows);
    });
}

// provenance.json, then checked against rows with 0 and with 3 complete runs.
void provenance(std::string_view in) {
    accepting_rejection([&] {
        const auto p = validate::parse_provenance(std::string(in), "provenance.json");
        std::vector<validate::measurement> rows;
        accepting_rejection([&] { validate::check_dataset(p, rows, "fuzz"); });
        for (int i = 0; i < 3; ++i) {
            const std::string id = validate::make_run_id("micro/copy", std::uint64_t(i + 1), "", 1);
            rows.push_back({id, "micro/copy", std::uint64_t(i + 1), "", 1, "run", "", "complete", 1.0, "flag", ""});
        }
        validate::check_dataset(p, rows, "fuzz");
    });
}

// Options: the first line is `--sweep PARAM=v1,v2,...` (each value applied to
// the h100 preset as predict does); the rest is `--set NAME=VALUE;...`
// (';'-separated, as a dataset's params column) against a spec with an
// integer and a choice parameter.
void options(std::string_view in) {
    const auto nl = in.find('\n');
    const std::string sweep(in.substr(0, nl));
    const std::string sets = nl == std::string_view::npos ? std::string() : std::string(in.substr(nl + 1));
    accepting_rejection([&] {
        const auto s = model::parse_sweep(sweep);
        static const model::device h100 = model::resolve_device("h100");
        for (double v : s.values) accepting_rejection([&] { model::with_parameter(h100, s.param, v); });
    });
    static const model::algo_spec spec{"fuzz/spec",
                                       "a spec for the option fuzzer",
                                       "elements",
                                       1,
                                       1,
                                       1,
                                       {{"t", "tile", "32", {}, 1, 1024},
                                        {"big",
                                         "a wide range",
                                         "0",
                                         {},
                                         std::numeric_limits<std::int64_t>::min(),
                                         std::numeric_limits<std::int64_t>::max()},
                                        {"type", "element type", "u32", {"u32", "float", "double"}, 0, 0}}};
    accepting_rejection([&] {
        std::vector<std::string> settings;
        std::stringstream list(sets);
        for (std::string item; std::getline(list, item, ';');) settings.push_back(item);
        const auto pv = model::parse_params(spec, settings);
        AGPU_CHECK(pv.integer("t") >= 1 && pv.integer("t") <= 1024, "--set t accepted outside its range");
        pv.integer("big");
        pv.text("type");
    });
}

}  // namespace

const std::vector<target>& targets() {
    static const std::vector<target> t = {
        {"device_file", device_file, "device files (model/devices, agpu devices show FILE, --device FILE)"},
        {"fit_file", fit_file, "fit files (model/fits, agpu predict --fit FILE)"},
        {"measurements_csv", measurements_csv, "a dataset's measurements.csv"},
        {"provenance", provenance, "a dataset's provenance.json and its agreement with the rows"},
        {"options", options, "agpu predict --sweep PARAM=v1,v2,... and --set NAME=VALUE;..."},
    };
    return t;
}

}  // namespace agpu::fuzz
