// Instruction counts from SASS profiles (instructions.hpp, sass_profiles.hpp).
#include "instructions.hpp"

#include <dlfcn.h>

#include <cmath>
#include <map>
#include <mutex>
#include <unordered_set>

#include "agpu/model/json_text.hpp"
#include "agpu/sim/sass_profiles.hpp"

#ifndef AGPU_SOURCE_ROOT
#define AGPU_SOURCE_ROOT ""
#endif

namespace agpu::sim {
namespace {

struct registered {
    const char* name;
    const char* text;
    std::unique_ptr<model::sass_module> module;  // parsed on first use
};

struct profile_registry {
    std::mutex lock;
    std::vector<registered> profiles;
    std::map<std::string, const model::sass_module*> by_symbol;  // filled as profiles are parsed
    bool parsed = false;
};

profile_registry& profiles() {
    static profile_registry r;
    return r;
}

}  // namespace

sass_profile_registrar::sass_profile_registrar(const char* name, const char* json_text) {
    auto& r = profiles();
    std::lock_guard<std::mutex> g(r.lock);
    r.profiles.push_back({name, json_text, nullptr});
    r.parsed = false;
}

sass_kernel find_sass_kernel(const std::string& cuda_symbol) {
    auto& r = profiles();
    std::lock_guard<std::mutex> g(r.lock);
    if (!r.parsed) {
        for (auto& p : r.profiles) {
            if (p.module) continue;
            const std::string where = std::string("the SASS profile of ") + p.name;
            p.module = std::make_unique<model::sass_module>(
                model::sass_module_from_json(model::parse_json_text(p.text, where), where));
            for (const auto& [k, f] : p.module->kernels) r.by_symbol[k] = p.module.get();
        }
        r.parsed = true;
    }
    const auto it = r.by_symbol.find(cuda_symbol);
    if (it == r.by_symbol.end()) return {};
    return {it->second, cuda_symbol};
}

std::string cuda_symbol_of(const void* kernel) {
    Dl_info info{};
    if (!dladdr(kernel, &info) || !info.dli_sname) return "";
    std::string s = info.dli_sname;
    // The kernel layer's inline namespace: kl::sim_backend here, kl::cuda_backend under nvcc.
    const std::string sim = "2kl11sim_backend", cuda = "2kl12cuda_backend";
    for (std::size_t at = s.find(sim); at != std::string::npos; at = s.find(sim, at + cuda.size()))
        s.replace(at, sim.size(), cuda);
    return s;
}

namespace detail {
namespace {

struct site_registry {
    std::mutex lock;
    std::unordered_map<std::uint64_t, std::pair<std::string, std::uint32_t>> sites;
};

site_registry& registry() {
    static site_registry r;
    return r;
}

std::string relative_path(std::string f) {
    const std::string root = AGPU_SOURCE_ROOT;
    if (!root.empty() && f.rfind(root, 0) == 0) f = f.substr(root.size());
    return f;
}

std::optional<model::sass_anchor_kind> kind_of(what w) {
    switch (w) {
        case what::global_load: return model::sass_anchor_kind::global_load;
        case what::global_store: return model::sass_anchor_kind::global_store;
        case what::global_atomic: return model::sass_anchor_kind::global_atomic;
        case what::shared_load: return model::sass_anchor_kind::shared_load;
        case what::shared_store: return model::sass_anchor_kind::shared_store;
        case what::shared_atomic: return model::sass_anchor_kind::shared_atomic;
        case what::barrier: return model::sass_anchor_kind::barrier;
        case what::collective: return model::sass_anchor_kind::collective;
        default: return std::nullopt;
    }
}

}  // namespace

void note_site(std::uint64_t key, const std::source_location& l) {
    thread_local std::unordered_set<std::uint64_t> seen;
    if (!seen.insert(key).second) return;
    auto& r = registry();
    std::lock_guard<std::mutex> g(r.lock);
    r.sites.try_emplace(key, relative_path(l.file_name()), l.line());
}

namespace {

// x to 3 significant digits: the estimate is a function of these, so that
// launches whose per-warp counts agree to 0.5% share one solution.
double three_digits(double x) {
    if (!(x > 0)) return 0;
    const double scale = std::pow(10.0, 2 - std::floor(std::log10(x)));
    return std::round(x * scale) / scale;
}

// The instructions per warp of `symbol` for per-warp site counts `key` (the
// flow problem is solved once for each distinct key).
struct estimate_cache {
    std::mutex lock;
    std::map<std::pair<std::string, std::vector<std::pair<model::sass_site, double>>>, model::sass_estimate> entries;
};
estimate_cache& cache() {
    static estimate_cache c;
    return c;
}

}  // namespace

void add_instruction_counts(launch_record& rec, const std::string& cuda_symbol, const site_tally& tally,
                            const model::device& d) {
    if (cuda_symbol.empty() || d.agpu.b != 32 || tally.warps == 0) return;
    const auto k = find_sass_kernel(cuda_symbol);
    if (!k.module) return;
    // Per-warp counts of each site, to 3 digits.
    std::map<model::sass_site, double> per_warp;
    {
        auto& r = registry();
        std::lock_guard<std::mutex> g(r.lock);
        for (const auto& [key, n] : tally.sites) {
            const auto it = r.sites.find(key.first);
            const auto kind = kind_of(key.second);
            if (it == r.sites.end() || !kind) continue;
            per_warp[{it->second.first, it->second.second, *kind}] += double(n);
        }
    }
    std::pair<std::string, std::vector<std::pair<model::sass_site, double>>> key{k.symbol, {}};
    for (auto& [site, n] : per_warp) key.second.emplace_back(site, three_digits(n / double(tally.warps)));
    // Solved per `unit` warps: the per-warp values times unit, whole.
    constexpr double unit = 1e6;
    model::sass_estimate e;
    {
        auto& c = cache();
        std::unique_lock<std::mutex> g(c.lock);
        if (auto it = c.entries.find(key); it != c.entries.end()) {
            e = it->second;
        } else {
            g.unlock();
            model::sass_launch_counts lc;
            lc.warps = std::uint64_t(unit);
            for (const auto& [site, v] : key.second) lc.sites[site] = std::uint64_t(std::llround(v * unit));
            e = model::estimate_instructions(*k.module, k.symbol, lc);
            e.block_runs.clear();
            g.lock();
            c.entries.emplace(key, e);
        }
    }
    // Recorded blocks stand for the launch as its recorded warp-instructions do.
    const double scale =
        (tally.warp_instructions > 0 ? double(rec.c[counter::warp_instructions]) / double(tally.warp_instructions)
                                     : 1.0) *
        double(tally.warps) / unit;
    rec.c[counter::inst_executed] = std::uint64_t(std::llround(e.instructions * scale));
    for (std::size_t p = 0; p < model::pipe_counters.size(); ++p)
        rec.c[model::pipe_counters[p]] = std::uint64_t(std::llround(e.pipes[p] * scale));
}

}  // namespace detail
}  // namespace agpu::sim
