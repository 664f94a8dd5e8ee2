#include "agpu/validate/dataset.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/model/algorithm.hpp"
#include "agpu/model/json_text.hpp"
#include "gzip.hpp"

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

}  // namespace

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

namespace {

std::uint64_t parse_u64(const std::string& s, const std::string& where, const char* column) {
    std::uint64_t v = 0;
    if (!model::parse_unsigned(s, v))
        throw input_error(where + ": column " + column, "must be a non-negative integer, got '" + s + "'");
    return v;
}

// Writes all of `text` to `fd` and fsyncs it: the rows are on disk when this returns.
void write_all_and_sync(int fd, const std::string& text, const std::filesystem::path& path) {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t w = ::write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) throw input_error(path.string(), std::string("cannot write: ") + std::strerror(errno));
        p += w;
        left -= std::size_t(w);
    }
    if (::fsync(fd) != 0) throw input_error(path.string(), std::string("cannot fsync: ") + std::strerror(errno));
}

// The file descriptor of `path`, closed on scope exit.
struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
};

const std::set<std::string> session_statuses = {"running", "complete", "interrupted", "failed"};

const char* plain_name = "measurements.csv";
const char* packed_name = "measurements.csv.gz";

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path.string(), "cannot open");
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void remove_file(const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    if (ec) throw input_error(path.string(), "cannot remove: " + ec.message());
}

}  // namespace

std::filesystem::path measurements_file(const std::filesystem::path& dir) {
    const bool plain = std::filesystem::is_regular_file(dir / plain_name);
    const bool packed = std::filesystem::is_regular_file(dir / packed_name);
    if (plain && packed)
        throw input_error(dir.string(), std::string("holds both ") + plain_name + " and " + packed_name +
                                            " (a pack that stopped half-way: `agpu dataset pack " + dir.string() +
                                            "` finishes it)");
    if (packed) return dir / packed_name;
    if (plain) return dir / plain_name;
    throw input_error((dir / plain_name).string(), "cannot open (is this a dataset directory?)");
}

bool is_dataset_dir(const std::filesystem::path& dir) {
    std::error_code ec;
    return std::filesystem::is_regular_file(dir / plain_name, ec) ||
           std::filesystem::is_regular_file(dir / packed_name, ec);
}

std::string params_string(const std::map<std::string, std::string>& params) {
    std::string s;
    for (const auto& [k, v] : params) s += (s.empty() ? "" : ";") + k + "=" + v;
    return s;
}

std::string make_run_id(const std::string& algo, std::uint64_t n, const std::string& params, std::uint64_t seed) {
    return algo + " n=" + std::to_string(n) + (params.empty() ? "" : " " + params) + " seed=" + std::to_string(seed);
}

measurement_writer::measurement_writer(const std::filesystem::path& dir) : m_path(dir / plain_name) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw input_error(dir.string(), "cannot create the dataset directory: " + ec.message());
    unpack_dataset(dir);
    if (!std::filesystem::exists(m_path) || std::filesystem::file_size(m_path) == 0) {
        fd_guard f{::open(m_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
        if (f.fd < 0) throw input_error(m_path.string(), std::string("cannot create: ") + std::strerror(errno));
        write_all_and_sync(f.fd, std::string(header) + "\n", m_path);
        return;
    }
    // A kill during an append can leave a last row without its line end:
    // cut the file back to its last complete line.
    std::string text;
    {
        std::ifstream in(m_path, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    if (!text.empty() && text.back() != '\n') {
        const auto keep = text.rfind('\n');
        if (keep == std::string::npos)
            throw input_error(m_path.string() + ":1", std::string("the header must be: ") + header);
        std::filesystem::resize_file(m_path, keep + 1, ec);
        if (ec) throw input_error(m_path.string(), "cannot drop the truncated last row: " + ec.message());
    }
}

void measurement_writer::append_run(const std::vector<measurement>& rows) {
    std::ostringstream text;
    for (const auto& r : rows)
        text << measurements_schema << ',' << field(r.run_id) << ',' << field(r.algo) << ',' << r.n << ','
             << field(r.params) << ',' << r.seed << ',' << field(r.launch) << ',' << field(r.kernel) << ','
             << field(r.counter) << ',' << (r.value ? number(*r.value) : "NA") << ',' << field(r.unit) << ','
             << field(r.note) << '\n';
    // One write per run, then fsync: a run's rows reach the disk together,
    // before the next run starts.
    fd_guard f{::open(m_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC)};
    if (f.fd < 0)
        throw input_error(m_path.string(), std::string("cannot append measurements: ") + std::strerror(errno));
    write_all_and_sync(f.fd, text.str(), m_path);
}

std::vector<measurement> read_measurements(const std::filesystem::path& dir) {
    const auto path = measurements_file(dir);
    if (path.filename() == packed_name) {
        std::istringstream in(detail::gunzip(read_file(path), path.string()));
        return read_measurements(in, path.string());
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path.string(), "cannot open (is this a dataset directory?)");
    return read_measurements(in, path.string());
}

std::vector<measurement> read_measurements(std::istream& in, const std::string& path) {
    std::string line;
    if (!std::getline(in, line) || line != header)
        throw input_error(path + ":1", std::string("the header must be: ") + header);
    std::vector<measurement> rows;
    std::vector<std::string> f;
    std::size_t lineno = 1;
    while (std::getline(in, line)) {
        ++lineno;
        const std::string where = path + ":" + std::to_string(lineno);
        // getline stops at the end of the file without a line end: the
        // writer ends every row, so this one was cut short.
        if (in.eof())
            throw input_error(where,
                              "the last row has no line end (truncated file? `agpu validate --resume` drops it)");
        if (line.empty()) continue;
        if (!split_csv(line, f)) throw input_error(where, "unterminated quoted field");
        if (f.size() != column_count)
            throw input_error(where, "expected " + std::to_string(column_count) + " columns, got " +
                                         std::to_string(f.size()) + " (truncated file?)");
        if (f[0] != measurements_schema)
            throw input_error(where + ": column schema",
                              "this agpu reads " + std::string(measurements_schema) + ", got '" + f[0] + "'");
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

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
    auto tmp = path;
    tmp += ".tmp";
    {
        fd_guard f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
        if (f.fd < 0) throw input_error(tmp.string(), std::string("cannot write: ") + std::strerror(errno));
        try {
            write_all_and_sync(f.fd, text, tmp);
        } catch (...) {
            std::error_code ignored;
            std::filesystem::remove(tmp, ignored);
            throw;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw input_error(path.string(), "cannot replace: " + ec.message());
    }
}

void write_provenance(const std::filesystem::path& dir, const nlohmann::json& p) {
    write_file_atomically(dir / "provenance.json", p.dump(2) + "\n");
}

nlohmann::json read_provenance(const std::filesystem::path& dir) {
    const auto path = dir / "provenance.json";
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path.string(), "cannot open (is this a dataset directory?)");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_provenance(text.str(), path.string());
}

nlohmann::json parse_provenance(const std::string& text, const std::string& where) {
    nlohmann::json j = model::parse_json_text(text, where);
    if (!j.is_object() || !j.contains("schema") || j["schema"] != provenance_schema)
        throw input_error(where + ": field schema", std::string("must be \"") + provenance_schema + "\"");
    for (const char* f : {"device_id", "gpu", "sessions"})
        if (!j.contains(f)) throw input_error(where + ": field " + f, "is required");
    if (!j["device_id"].is_string()) throw input_error(where + ": field device_id", "must be a string (a preset id)");
    if (j.contains("suite") && !j["suite"].is_string()) throw input_error(where + ": field suite", "must be a string");
    if (!j["gpu"].is_object()) throw input_error(where + ": field gpu", "must be an object");
    if (j["gpu"].contains("name") && !j["gpu"]["name"].is_string())
        throw input_error(where + ": field gpu.name", "must be a string");
    if (!j["sessions"].is_array()) throw input_error(where + ": field sessions", "must be an array");
    for (std::size_t i = 0; i < j["sessions"].size(); ++i) {
        const auto& s = j["sessions"][i];
        const std::string field = where + ": field sessions[" + std::to_string(i) + "]";
        if (!s.is_object()) throw input_error(field, "must be an object");
        for (const char* count : {"runs_already_complete", "runs_measured"})
            if (s.contains(count) && !s[count].is_number_unsigned())
                throw input_error(field + "." + count, "must be a non-negative integer");
        if (s.contains("status") &&
            (!s["status"].is_string() || !session_statuses.count(s["status"].get<std::string>())))
            throw input_error(field + ".status", "must be one of running, complete, interrupted, failed");
    }
    return j;
}

void check_dataset(const nlohmann::json& prov, const std::vector<measurement>& rows, const std::string& where) {
    std::set<std::string> done;
    for (const auto& r : rows)
        if (r.launch == "run" && r.counter == "complete" && !done.insert(r.run_id).second)
            throw input_error(where + "/measurements.csv: run " + r.run_id,
                              "is complete twice (a run is measured once)");
    const auto& sessions = prov.at("sessions");
    if (!done.empty() && sessions.empty())
        throw input_error(where + "/provenance.json: field sessions",
                          "is empty, but measurements.csv has " + std::to_string(done.size()) + " complete runs");
    for (std::size_t i = 0; i < sessions.size(); ++i) {
        const auto& s = sessions[i];
        if (!s.contains("runs_already_complete") || !s.contains("runs_measured")) continue;
        const std::uint64_t claimed =
            s["runs_already_complete"].get<std::uint64_t>() + s["runs_measured"].get<std::uint64_t>();
        const bool ended = s.value("status", "") != "running";
        const std::string field = where + "/provenance.json: field sessions[" + std::to_string(i) + "]";
        if (claimed > done.size() || (ended && i + 1 == sessions.size() && claimed != done.size()))
            throw input_error(field, "says " + std::to_string(claimed) +
                                         " runs were complete after it (runs_already_complete + runs_measured), "
                                         "but measurements.csv has " +
                                         std::to_string(done.size()) + ": the provenance does not match the rows");
    }
}

dataset read_dataset(const std::filesystem::path& dir) {
    dataset d{read_provenance(dir), read_measurements(dir)};
    check_dataset(d.provenance, d.rows, dir.string());
    return d;
}

pack_result pack_dataset(const std::filesystem::path& dir) {
    const auto plain = dir / plain_name, packed = dir / packed_name;
    pack_result r;
    if (!std::filesystem::is_regular_file(plain)) {
        measurements_file(dir);  // neither: says so
        r.already_packed = true;
        r.packed_bytes = std::filesystem::file_size(packed);
        return r;
    }
    const std::string text = read_file(plain);
    if (std::filesystem::is_regular_file(packed)) {
        // A pack that stopped after the rename: the packed file must hold the same text.
        if (detail::gunzip(read_file(packed), packed.string()) != text)
            throw input_error(dir.string(), std::string("holds ") + plain_name + " and a different " + packed_name +
                                                ": remove the one that is wrong");
    } else {
        {
            std::istringstream in(text);
            dataset d{read_provenance(dir), read_measurements(in, plain.string())};
            check_dataset(d.provenance, d.rows, dir.string());
        }
        const std::string gz = detail::gzip(text);
        AGPU_CHECK(detail::gunzip(gz, packed.string()) == text, "gzip round trip of " + plain.string());
        write_file_atomically(packed, gz);
    }
    r.plain_bytes = text.size();
    r.packed_bytes = std::filesystem::file_size(packed);
    remove_file(plain);
    return r;
}

void unpack_dataset(const std::filesystem::path& dir) {
    const auto plain = dir / plain_name, packed = dir / packed_name;
    if (!std::filesystem::is_regular_file(packed)) return;
    const std::string text = detail::gunzip(read_file(packed), packed.string());
    if (std::filesystem::is_regular_file(plain)) {
        if (read_file(plain) != text)
            throw input_error(dir.string(), std::string("holds ") + plain_name + " and a different " + packed_name +
                                                ": remove the one that is wrong");
    } else {
        write_file_atomically(plain, text);
    }
    remove_file(packed);
}

}  // namespace agpu::validate
