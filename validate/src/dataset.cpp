#include "agpu/validate/dataset.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"

namespace agpu::validate {
namespace {

const char* header = "schema,run_id,algo,n,params,seed,launch,kernel,counter,value,unit,note";
constexpr std::size_t column_count = 12;

std::string field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string number(double v) {
    std::ostringstream os;
    os.precision(17);
    os << v;
    return os.str();
}

// Splits one CSV record (RFC 4180; no newlines inside fields in our files).
bool split_csv(const std::string& line, std::vector<std::string>& out) {
    out.clear();
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return !quoted;
}

std::uint64_t parse_u64(const std::string& s, const std::string& where, const char* column) {
    std::uint64_t v = 0;
    if (!model::parse_unsigned(s, v))
        throw input_error(where + ": column " + column, "must be a non-negative integer, got '" + s + "'");
    return v;
}

}  // namespace

std::string params_string(const std::map<std::string, std::string>& params) {
    std::string s;
    for (const auto& [k, v] : params) s += (s.empty() ? "" : ";") + k + "=" + v;
    return s;
}

std::string make_run_id(const std::string& algo, std::uint64_t n, const std::string& params, std::uint64_t seed) {
    return algo + " n=" + std::to_string(n) + (params.empty() ? "" : " " + params) + " seed=" + std::to_string(seed);
}

measurement_writer::measurement_writer(const std::filesystem::path& dir) : m_path(dir / "measurements.csv") {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw input_error(dir.string(), "cannot create the dataset directory: " + ec.message());
    if (!std::filesystem::exists(m_path) || std::filesystem::file_size(m_path) == 0) {
        std::ofstream out(m_path, std::ios::binary);
        out << header << '\n';
        if (!out.flush()) throw input_error(m_path.string(), "cannot write");
    }
}

void measurement_writer::append_run(const std::vector<measurement>& rows) {
    std::ostringstream text;
    for (const auto& r : rows)
        text << measurements_schema << ',' << field(r.run_id) << ',' << field(r.algo) << ',' << r.n << ','
             << field(r.params) << ',' << r.seed << ',' << field(r.launch) << ',' << field(r.kernel) << ','
             << field(r.counter) << ',' << (r.value ? number(*r.value) : "NA") << ',' << field(r.unit) << ','
             << field(r.note) << '\n';
    // One write per run, then flush: a run's rows reach the disk together.
    std::ofstream out(m_path, std::ios::binary | std::ios::app);
    out << text.str();
    if (!out.flush()) throw input_error(m_path.string(), "cannot append measurements");
}

std::vector<measurement> read_measurements(const std::filesystem::path& dir) {
    const auto path = dir / "measurements.csv";
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path.string(), "cannot open (is this a dataset directory?)");
    std::string line;
    if (!std::getline(in, line) || line != header)
        throw input_error(path.string() + ":1", std::string("the header must be: ") + header);
    std::vector<measurement> rows;
    std::vector<std::string> f;
    std::size_t lineno = 1;
    while (std::getline(in, line)) {
        ++lineno;
        const std::string where = path.string() + ":" + std::to_string(lineno);
        if (line.empty()) continue;
        if (!split_csv(line, f)) throw input_error(where, "unterminated quoted field");
        if (f.size() != column_count)
            throw input_error(where, "expected " + std::to_string(column_count) + " columns, got " +
                                         std::to_string(f.size()) + " (truncated file?)");
        if (f[0] != measurements_schema)
            throw input_error(where + ": column schema", "this agpu reads " + std::string(measurements_schema) +
                                                            ", got '" + f[0] + "'");
        measurement m;
        m.run_id = f[1];
        m.algo = f[2];
        m.n = parse_u64(f[3], where, "n");
        m.params = f[4];
        m.seed = parse_u64(f[5], where, "seed");
        m.launch = f[6];
        m.kernel = f[7];
        m.counter = f[8];
        if (f[9] != "NA") {
            try {
                std::size_t used = 0;
                const double v = std::stod(f[9], &used);
                if (used != f[9].size() || !std::isfinite(v)) throw std::invalid_argument("x");
                m.value = v;
            } catch (const std::exception&) {
                throw input_error(where + ": column value", "must be a finite number or NA, got '" + f[9] + "'");
            }
        }
        m.unit = f[10];
        m.note = f[11];
        if (m.run_id != make_run_id(m.algo, m.n, m.params, m.seed))
            throw input_error(where + ": column run_id", "does not match algo, n, params and seed of the row");
        rows.push_back(std::move(m));
    }
    return rows;
}

std::set<std::string> completed_runs(const std::vector<measurement>& rows) {
    std::set<std::string> done;
    for (const auto& r : rows)
        if (r.launch == "run" && r.counter == "complete") done.insert(r.run_id);
    return done;
}

void write_provenance(const std::filesystem::path& dir, const nlohmann::json& p) {
    const auto path = dir / "provenance.json";
    const auto tmp = dir / "provenance.json.tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << p.dump(2) << '\n';
        if (!out.flush()) throw input_error(tmp.string(), "cannot write");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw input_error(path.string(), "cannot replace: " + ec.message());
}

nlohmann::json read_provenance(const std::filesystem::path& dir) {
    const auto path = dir / "provenance.json";
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path.string(), "cannot open (is this a dataset directory?)");
    nlohmann::json j;
    try {
        in >> j;
    } catch (const nlohmann::json::exception& e) {
        throw input_error(path.string(), std::string("not valid JSON (") + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("schema") || j["schema"] != provenance_schema)
        throw input_error(path.string() + ": field schema", std::string("must be \"") + provenance_schema + "\"");
    for (const char* f : {"device_id", "gpu", "sessions"})
        if (!j.contains(f)) throw input_error(path.string() + ": field " + f, "is required");
    return j;
}

}  // namespace agpu::validate
