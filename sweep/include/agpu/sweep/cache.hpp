// The sweep cache: a directory of one file per point, named by the point's
// key (point.hpp: the SHA-256 of everything its result depends on), under a
// folder of the key's first two hex digits. Each entry is written whole to a
// temporary file beside it and renamed over it, so a sweep killed at any
// moment leaves whole entries and at most a stray temporary file
// (".<key>.json.tmp-*", ignored, removed after a day). Entries reach the disk
// together, one sync of the file system per phase of a run (sync()), rather
// than one fsync each (which costs more than a closed form's answer): an
// entry a power loss cuts short fails its check (line end, JSON, key) and is
// computed again. Processes and hosts that share the directory share the
// work: an entry written by one is read by all.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agpu/sweep/point.hpp"

namespace agpu::sweep {

class cache {
public:
    // The cache in `dir`, made when the first entry is stored (so that
    // opening one never fails: under MPI every rank must reach the
    // collectives, and a failure to write is reported through them).
    explicit cache(std::filesystem::path dir);

    const std::filesystem::path& dir() const { return m_dir; }
    std::filesystem::path path_of(const std::string& key) const;

    // The stored outcome of `key`, if its entry is there and whole (its
    // schema and key check); an entry that does not check is treated as
    // missing and is replaced when the point is computed again.
    std::optional<outcome> find(const std::string& key) const;
    // An entry's text: {schema, key, inputs, status, reason, result} on one line.
    static std::string entry_text(const std::string& key, const nlohmann::json& inputs, const outcome& o);
    // The outcome an entry's text holds, if it is whole and of `key`.
    static std::optional<outcome> parse_entry(const std::string& text, const std::string& key);
    // Writes an entry atomically (text from entry_text). Throws input_error naming the file.
    void store(const std::string& key, const std::string& text) const;
    // Flushes every entry written so far to the disk (syncfs).
    void sync() const;

    // Removes temporary files of killed writers older than a day.
    void remove_stale_temporaries() const;

private:
    std::filesystem::path m_dir;
};

// Writes `text` to `path` atomically: a uniquely named temporary file beside
// it, written whole (and fsync'd when `durable`), renamed over `path` (the
// directory fsync'd when `durable`). Safe with other threads and processes
// writing the same path. Throws input_error naming the path.
void write_atomically(const std::filesystem::path& path, const std::string& text, bool durable = true);

}  // namespace agpu::sweep
