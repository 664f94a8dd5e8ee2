// Measurement datasets: a directory (validate/data/<device>/<purpose>/<suite>/)
// that holds
//   measurements.csv  long format, one row per (run, launch, counter), appended
//                     and fsync'd as each run finishes (an interrupted run
//                     keeps every finished run's rows); once measured, a
//                     dataset is packed into measurements.csv.gz, the same
//                     text gzip'd, which every reader takes as well
//   provenance.json   where and how it was measured, and each session's status
//                     (running, complete, interrupted, failed) and count of
//                     runs measured, rewritten atomically after every run
// Readers check the schema and name file, line and rule on bad input; a
// dataset's provenance must agree with its rows (check_dataset).
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace agpu::validate {

inline constexpr const char* measurements_schema = "agpu.measurements/1";
inline constexpr const char* provenance_schema = "agpu.provenance/1";

// One row of measurements.csv.
struct measurement {
    std::string run_id;  // algo, n, params and seed: "micro/global-stride n=65536 op=load;stride=4 seed=1"
    std::string algo;
    std::uint64_t n = 0;
    std::string params;  // "name=value;name=value" in name order
    std::uint64_t seed = 0;
    std::string launch;  // launch index, or "run" for a row about the whole run
    std::string kernel;
    std::string counter;          // a counter-table name, a hardware-metric name, or time_ms / check / ...
    std::optional<double> value;  // nullopt: the GPU does not offer the metric (written NA)
    std::string unit;
    std::string note;  // why a value is missing, or a check's detail
};

// Splits one CSV record (RFC 4180, no newlines inside fields) into `out`;
// false where a quoted field is not closed.
bool split_csv(const std::string& line, std::vector<std::string>& out);

std::string make_run_id(const std::string& algo, std::uint64_t n, const std::string& params, std::uint64_t seed);
std::string params_string(const std::map<std::string, std::string>& params);

// The file that holds a dataset's rows: measurements.csv, or
// measurements.csv.gz once packed. Throws input_error where there is neither,
// or both (a pack that stopped half-way: `agpu dataset pack` finishes it).
std::filesystem::path measurements_file(const std::filesystem::path& dir);
// True where dir holds measurements.csv or measurements.csv.gz.
bool is_dataset_dir(const std::filesystem::path& dir);

class measurement_writer {
public:
    // Opens dir/measurements.csv for appending (writing the header if new); a
    // packed dataset is unpacked first (unpack_dataset), so that --resume
    // appends to it.
    // A last row cut short by a kill (no line end) is dropped first: it
    // belongs to a run that never got its "run/complete" row.
    explicit measurement_writer(const std::filesystem::path& dir);
    // Appends the rows of one finished run in one write, then fsyncs them.
    void append_run(const std::vector<measurement>& rows);

private:
    std::filesystem::path m_path;
};

// Reads dir's rows (measurements_file). Throws input_error naming file, line
// and rule (a last row without its line end is a truncated file).
std::vector<measurement> read_measurements(const std::filesystem::path& dir);
// The same from a stream; `where` names it in errors ("<where>:LINE: ...").
std::vector<measurement> read_measurements(std::istream& in, const std::string& where);
// Runs whose final "run/complete" row is present.
std::set<std::string> completed_runs(const std::vector<measurement>& rows);

// Writes `text` to `path` atomically: a temporary file beside it, fsync'd,
// then renamed over it; a failure leaves what was there. Errors name the path.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);
// Writes dir/provenance.json atomically (write_file_atomically).
void write_provenance(const std::filesystem::path& dir, const nlohmann::json& p);
// Reads and checks dir/provenance.json (schema, required fields and types).
nlohmann::json read_provenance(const std::filesystem::path& dir);
// The same from text; `where` names it in errors.
nlohmann::json parse_provenance(const std::string& text, const std::string& where);

// The provenance's sessions against the rows: no run complete twice; every
// session's runs_already_complete + runs_measured at most the complete runs
// in the rows, and equal to them for the last session once it has ended
// (complete, interrupted or failed). Throws input_error naming the field.
void check_dataset(const nlohmann::json& provenance, const std::vector<measurement>& rows, const std::string& where);

// A dataset read whole: provenance and rows, checked against each other.
struct dataset {
    nlohmann::json provenance;
    std::vector<measurement> rows;
};
dataset read_dataset(const std::filesystem::path& dir);

// Packs a dataset: checks it (read_dataset), writes measurements.csv.gz (the
// file's exact text, gzip'd; read back and compared before it replaces
// anything), then removes measurements.csv. A packed dataset is left as it is.
// Returns the bytes of the plain and the packed file.
struct pack_result {
    std::uintmax_t plain_bytes = 0, packed_bytes = 0;
    bool already_packed = false;
};
pack_result pack_dataset(const std::filesystem::path& dir);
// The reverse: measurements.csv from measurements.csv.gz (written atomically
// before the packed file is removed). A dataset not packed is left as it is.
void unpack_dataset(const std::filesystem::path& dir);

// Merges datasets of one GPU and suite into a new, packed dataset at `out`
// (which must not exist). Sessions are kept, oldest first, each with the
// settings of the dataset it came from (`source`); a run measured in more
// than one dataset keeps its latest measurement (the session that finished
// last); runs never completed are left out. `command_line` is recorded in
// the provenance's `merged` field with the inputs' paths.
struct merge_result {
    std::size_t runs = 0;             // complete runs in the merged dataset
    std::size_t runs_replaced = 0;    // earlier measurements of a run measured again
    std::size_t runs_incomplete = 0;  // rows of runs never completed, left out
};
merge_result merge_datasets(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out,
                            const std::string& command_line);

}  // namespace agpu::validate
