#include "agpu/sweep/cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "agpu/errors.hpp"

namespace agpu::sweep {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
};

std::string errno_text() { return std::strerror(errno); }

// A name no other thread or process writing beside it uses.
std::string temporary_name(const fs::path& path) {
    static std::atomic<unsigned long> counter{0};
    std::ostringstream s;
    s << "." << path.filename().string() << ".tmp-" << ::getpid() << "-"
      << std::hash<std::thread::id>()(std::this_thread::get_id()) << "-" << counter++;
    return s.str();
}

}  // namespace

void write_atomically(const fs::path& path, const std::string& text, bool durable) {
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const fs::path tmp = dir / temporary_name(path);
    {
        fd_guard f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
        if (f.fd < 0) throw input_error(tmp.string(), "cannot write: " + errno_text());
        const char* p = text.data();
        std::size_t left = text.size();
        while (left > 0) {
            const ssize_t w = ::write(f.fd, p, left);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                const std::string why = errno_text();
                ::unlink(tmp.c_str());
                throw input_error(tmp.string(), "cannot write: " + why);
            }
            p += w;
            left -= std::size_t(w);
        }
        if (durable && ::fsync(f.fd) != 0) {
            const std::string why = errno_text();
            ::unlink(tmp.c_str());
            throw input_error(tmp.string(), "cannot fsync: " + why);
        }
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = errno_text();
        ::unlink(tmp.c_str());
        throw input_error(path.string(), "cannot replace: " + why);
    }
    if (!durable) return;
    // The rename itself reaches the disk with the directory.
    fd_guard d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (d.fd >= 0) ::fsync(d.fd);
}

cache::cache(fs::path dir) : m_dir(std::move(dir)) {}

fs::path cache::path_of(const std::string& key) const { return m_dir / key.substr(0, 2) / (key + ".json"); }

std::string cache::entry_text(const std::string& key, const json& inputs, const outcome& o) {
    return json{{"schema", cache_schema},
                {"key", key},
                {"inputs", inputs},
                {"status", o.ok ? "ok" : "skipped"},
                {"reason", o.ok ? json(nullptr) : json(o.reason)},
                {"result", o.result}}
               .dump() +
           "\n";
}

std::optional<outcome> cache::parse_entry(const std::string& text, const std::string& key) {
    if (text.empty() || text.back() != '\n') return std::nullopt;
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception&) {
        return std::nullopt;
    }
    if (!j.is_object() || j.value("schema", "") != cache_schema || j.value("key", "") != key) return std::nullopt;
    if (!j.contains("status") || !j.contains("result") || !j.contains("reason")) return std::nullopt;
    outcome o;
    o.ok = j.at("status") == "ok";
    if (!o.ok && !j.at("reason").is_string()) return std::nullopt;
    if (!o.ok) o.reason = j.at("reason").get<std::string>();
    o.result = j.at("result");
    if (o.ok && !o.result.is_object()) return std::nullopt;
    return o;
}

std::optional<outcome> cache::find(const std::string& key) const {
    std::ifstream in(path_of(key), std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return parse_entry(s.str(), key);
}

void cache::store(const std::string& key, const std::string& text) const {
    const fs::path path = path_of(key);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) throw input_error("cache " + path.parent_path().string(), "cannot create the directory: " + ec.message());
    write_atomically(path, text, false);
}

void cache::sync() const {
    std::error_code ec;
    if (!fs::exists(m_dir, ec)) return;  // nothing written
    fd_guard d{::open(m_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (d.fd < 0 || ::syncfs(d.fd) != 0)
        throw input_error("cache " + m_dir.string(), "cannot sync to disk: " + errno_text());
}

void cache::remove_stale_temporaries() const {
    const auto day_ago = fs::file_time_type::clock::now() - std::chrono::hours(24);
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(m_dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code e2;
        if (!it->is_regular_file(e2) || !name.starts_with(".") || name.find(".tmp-") == std::string::npos) continue;
        if (const auto t = fs::last_write_time(it->path(), e2); !e2 && t < day_ago) fs::remove(it->path(), e2);
    }
}

}  // namespace agpu::sweep
