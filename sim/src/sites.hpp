// Source sites: the key of an access's site (its source location), the
// "file:line" a message names, and each lane's count of the times it has
// reached each site (a lane's records of one (site, occurrence) key across a
// warp form one warp-instruction).
#pragma once

#include <algorithm>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

namespace agpu::sim::detail {

inline std::uint64_t site_key(const std::source_location& l) {
    // file_name() is one string literal per translation unit: its address,
    // line and column identify the site.
    auto h = reinterpret_cast<std::uintptr_t>(l.file_name());
    h ^= (std::uint64_t(l.line()) << 20) ^ (std::uint64_t(l.column()) << 48) ^ (std::uint64_t(l.line()) >> 44);
    return h * 0x9E3779B97F4A7C15ull;
}

inline std::string where(const std::source_location& l) {
    std::string f = l.file_name();
    const auto slash = f.find_last_of('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    return f + ":" + std::to_string(l.line());
}

// Occurrences of each site in one lane: a small open-addressing table whose
// clear() is O(1) (a generation number marks the live slots).
class site_counter {
public:
    std::uint32_t next(std::uint64_t site) {
        if (m_used * 2 >= m_slots.size()) grow();
        std::size_t i = site & (m_slots.size() - 1);
        while (true) {
            auto& s = m_slots[i];
            if (s.generation != m_generation) {
                s = {site, 1, m_generation};
                ++m_used;
                return 0;
            }
            if (s.site == site) return s.count++;
            i = (i + 1) & (m_slots.size() - 1);
        }
    }
    std::uint32_t count(std::uint64_t site) const {
        std::size_t i = site & (m_slots.size() - 1);
        while (true) {
            const auto& s = m_slots[i];
            if (s.generation != m_generation) return 0;
            if (s.site == site) return s.count;
            i = (i + 1) & (m_slots.size() - 1);
        }
    }
    void clear() {
        m_used = 0;
        if (++m_generation == 0) {  // wrapped: really clear
            std::fill(m_slots.begin(), m_slots.end(), slot{});
            m_generation = 1;
        }
    }

private:
    struct slot {
        std::uint64_t site = 0;
        std::uint32_t count = 0;
        std::uint32_t generation = 0;
    };
    void grow() {
        std::vector<slot> old = std::move(m_slots);
        m_slots.assign(old.size() * 2, slot{});
        m_used = 0;
        for (const auto& s : old)
            if (s.generation == m_generation) {
                std::size_t i = s.site & (m_slots.size() - 1);
                while (m_slots[i].generation == m_generation) i = (i + 1) & (m_slots.size() - 1);
                m_slots[i] = s;
                ++m_used;
            }
    }
    std::vector<slot> m_slots = std::vector<slot>(16);
    std::size_t m_used = 0;
    std::uint32_t m_generation = 1;
};

}  // namespace agpu::sim::detail
