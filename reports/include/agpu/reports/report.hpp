// `agpu report`: gathers the records of every section (device presets,
// closed forms, the simulator at small n, the measured datasets, the fit) and
// builds the document (document.hpp) from the section builders
// (sections.hpp). Reads datasets and the model through their libraries,
// never another command's output. Closed forms give every count at large n;
// the simulator runs only where its estimated time is under a limit, so the
// whole report takes well under a minute on two cores.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "agpu/model/time_model.hpp"
#include "agpu/reports/document.hpp"
#include "agpu/reports/sections.hpp"

namespace agpu::reports {

struct report_options {
    // Measured datasets of the fit's device (seconds, counters, refit) and of
    // other devices (predicted from the fit's constants alone).
    std::vector<std::filesystem::path> data, check;
    // Datasets of the fit's device read for their hardware counters only
    // (compared with the simulator's beside data's): their runs' seconds are
    // not reported, e.g. suites timed by an older harness than the fit's.
    std::vector<std::filesystem::path> counters;
    // The constants every prediction uses; the refit runs on its datasets
    // (resolved against data_root's repository) where they are all present,
    // else on `data`.
    model::time_fit fit;
    std::filesystem::path repository_root;  // where relative dataset names in the fit resolve
    // The sampled-against-exact table's directory (sampled.csv, provenance.json); empty:
    // repository_root / validate/data/host/sampled.
    std::filesystem::path sampled_table;
    // The time model's test datasets (docs/time-model-test.md): the calibrated
    // model, the roofline and the fit scored on them; empty: no such section's table.
    std::vector<std::filesystem::path> test;
    // An agpu sweep's results (points.jsonl or its directory): adds the sweep's section; empty: none.
    std::filesystem::path sweep;
    // A run is simulated only when its exact simulation is estimated under this.
    double max_simulation_s = 2;
    unsigned threads = 0;                              // simulations at once; 0: one per core
    std::function<void(const std::string&)> progress;  // a line per step
};

// The repository this agpu was built from (its datasets are the defaults).
std::filesystem::path default_repository_root();
// The dataset directories under `root` (itself included; validate::is_dataset_dir), sorted.
std::vector<std::filesystem::path> find_datasets(const std::filesystem::path& root);

// Reads dir/sampled.csv (agpu.sampled-table/1) and dir/provenance.json
// (validate/scripts/sampled-table.py --out dir). Where sampled.csv is absent
// the records say so (`missing`); a malformed file throws input_error naming
// file, line, column and rule.
sampled_records read_sampled_table(const std::filesystem::path& dir);

document build_report(const report_options& opt);

}  // namespace agpu::reports
