// How the report is put together: build_report (report.cpp) gathers the
// measured records once into a report_context, then calls every registered
// section in its order. A section registers itself in its own file
// (AGPU_REGISTER_REPORT_SECTION), with a key, an order key (its place in the
// table of contents) and a builder that reads the context and returns its
// sections (one, none, or one per family); a family whose charts need other
// sizes or a note registers that too (AGPU_REGISTER_REPORT_FAMILY,
// families/). Neither list is central: adding a section or a family adds a
// file.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agpu/model/closed_form.hpp"
#include "agpu/model/device.hpp"
#include "agpu/reports/report.hpp"
#include "agpu/reports/sections.hpp"
#include "agpu/sim/model_counts.hpp"
#include "agpu/validate/fit.hpp"

namespace agpu::reports {

// The measured records every section may read, gathered once.
struct gathered {
    validate::sample_set data, check;
    std::vector<counter_point> counters;
    std::vector<std::pair<std::string, std::string>> not_compared;  // run, why
};

struct report_context {
    const report_options& opt;
    const model::time_fit& fit;
    model::device fit_dev;
    unsigned threads = 1;  // simulations at once
    gathered records;
    std::function<void(const std::string&)> say;  // a progress line (thread-safe)
    // A dataset's name relative to the repository where it lies in it.
    std::function<std::string(const std::filesystem::path&)> name_of;
};

struct report_section {
    std::string key;
    int order = 0;         // place in the table of contents, ascending
    std::string progress;  // what `agpu report` says once it is built
    std::function<std::vector<section>(const report_context&)> build;
};
struct report_section_registrar {
    explicit report_section_registrar(report_section s);
};
// Every registered section, in order.
std::vector<const report_section*> report_sections();

// A family's settings for its section: the sizes of its scaling charts (2^lo
// to 2^hi, exponents `step` apart, within each algorithm's range) and a note
// for its section where it has measured runs. A family not registered takes
// 2^10 to 2^28, exponents 2 apart, and no note.
struct report_family {
    std::string family;
    int lo = 10, hi = 28, step = 2;
    std::string measured_note;
};
struct report_family_registrar {
    explicit report_family_registrar(report_family f);
};
// The family's settings (the defaults where it registered none).
report_family family_settings(const std::string& family);

// ---------------------------------------------------------------- helpers

// The family of a key: "stats" of "stats/pairwise".
inline std::string family_of(const std::string& key) { return key.substr(0, key.find('/')); }

// Count options: refuse any simulation estimated above `seconds`.
inline sim::count_options limited_to(double seconds) {
    sim::count_options o;
    o.max_simulation_s = seconds;
    return o;
}
// Closed forms only: every simulation refused.
inline sim::count_options closed_form_only() { return limited_to(1e-9); }

// The closed form's counts, or none (no closed form; parameters this device cannot run).
std::optional<model::partial_counts> closed_form_counts(const std::string& key, const model::device& d, std::uint64_t n,
                                                        const model::param_values& p);

seconds_point to_point(const validate::fit_sample& s, const model::time_vector& constants);

// Runs fn(i) for every i in [0, count) on `threads` threads (the calling one
// included); rethrows the first exception. Simulations are independent (each
// has its own executor; the engine's current-thread state is thread_local).
template <class F>
void parallel_for(std::size_t count, unsigned threads, F fn) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex m;
    auto work = [&] {
        for (std::size_t i; (i = next++) < count;) {
            try {
                fn(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(m);
                if (!error) error = std::current_exception();
                next = count;
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < std::min<std::size_t>(threads, count); ++w) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

class timer {
public:
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count(); }

private:
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

}  // namespace agpu::reports

#define AGPU_REPORT_CAT2(a, b) a##b
#define AGPU_REPORT_CAT(a, b) AGPU_REPORT_CAT2(a, b)
// AGPU_REGISTER_REPORT_SECTION({key, order, progress, build}): registers at start-up.
#define AGPU_REGISTER_REPORT_SECTION(...)                                                                    \
    static const ::agpu::reports::report_section_registrar AGPU_REPORT_CAT(agpu_report_section_, __LINE__) { \
        __VA_ARGS__                                                                                          \
    }
// AGPU_REGISTER_REPORT_FAMILY({family, lo, hi, step, measured_note}): registers at start-up.
#define AGPU_REGISTER_REPORT_FAMILY(...) \
    static const ::agpu::reports::report_family_registrar AGPU_REPORT_CAT(agpu_report_family_, __LINE__) { __VA_ARGS__ }
