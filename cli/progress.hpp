// A progress bar with an ETA on stderr for a simulation: drawn only when
// stderr is a terminal, not silenced by --quiet, and the run has lasted more
// than 2 s; erased when the run ends. Progress is counted in simulated
// threads against the total the closed form gives (no ETA without one).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

namespace agpu::cli {

class progress_bar {
public:
    // `enabled`: the caller's decision (--quiet, stderr a terminal); total: threads expected, 0 if unknown.
    progress_bar(std::ostream& err, bool enabled, std::uint64_t total, std::string label);
    ~progress_bar();
    progress_bar(const progress_bar&) = delete;
    progress_bar& operator=(const progress_bar&) = delete;
    // Thread-safe: `threads` more simulated threads.
    void add(std::uint64_t threads);
    void finish();  // erases the bar if it was drawn

    // Whether stderr is a terminal (the bar's default when not --quiet).
    static bool stderr_is_terminal();

private:
    using clock = std::chrono::steady_clock;
    std::ostream& m_err;
    bool m_enabled;
    std::uint64_t m_total;
    std::string m_label;
    std::atomic<std::uint64_t> m_done{0};
    std::mutex m_mutex;
    clock::time_point m_start = clock::now(), m_last{}, m_mark = m_start;  // m_mark: start of the pace window
    std::uint64_t m_mark_done = 0;
    bool m_drawn = false;
};

}  // namespace agpu::cli
