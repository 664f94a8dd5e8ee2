#include "progress.hpp"

#include <cstdio>

#include <unistd.h>

namespace agpu::cli {

progress_bar::progress_bar(std::ostream& err, bool enabled, std::uint64_t total, std::string label)
    : m_err(err), m_enabled(enabled), m_total(total), m_label(std::move(label)) {}

progress_bar::~progress_bar() { finish(); }

bool progress_bar::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void progress_bar::add(std::uint64_t threads) {
    const std::uint64_t done = m_done.fetch_add(threads) + threads;
    if (!m_enabled) return;
    std::unique_lock<std::mutex> lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock()) return;
    const auto now = clock::now();
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    if (elapsed < 2.0 || now - m_last < std::chrono::milliseconds(200)) return;
    m_last = now;
    char line[160];
    if (m_total > 0) {
        const double f = std::min(1.0, double(done) / double(m_total));
        constexpr int width = 30;
        const int filled = int(f * width);
        std::string bar(std::size_t(filled), '#');
        bar.append(std::size_t(width - filled), '.');
        // The pace of the last few seconds (launches differ in cost per thread).
        const double window = std::chrono::duration<double>(now - m_mark).count();
        const double rate =
            window > 0.5 && done > m_mark_done ? double(done - m_mark_done) / window : double(done) / elapsed;
        if (window > 4.0) {
            m_mark = now;
            m_mark_done = done;
        }
        const double eta = rate > 0 ? double(m_total > done ? m_total - done : 0) / rate : 0;
        std::snprintf(line, sizeof line, "\r%s [%s] %3.0f%%  %.0f s, ETA %.0f s ", m_label.c_str(), bar.c_str(),
                      100 * f, elapsed, eta);
    } else {
        std::snprintf(line, sizeof line, "\r%s: %llu threads simulated, %.0f s ", m_label.c_str(),
                      static_cast<unsigned long long>(done), elapsed);
    }
    m_err << line << std::flush;
    m_drawn = true;
}

void progress_bar::finish() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_drawn) return;
    m_err << '\r' << std::string(100, ' ') << '\r' << std::flush;
    m_drawn = false;
}

}  // namespace agpu::cli
