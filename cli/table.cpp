#include "table.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "agpu/errors.hpp"

namespace agpu::cli {

void text_table::add_column(std::string header, align a) {
    m_headers.push_back(std::move(header));
    m_align.push_back(a);
}

void text_table::add_row(std::vector<std::string> cells) {
    AGPU_CHECK(cells.size() == m_headers.size(), "row width must match the header");
    m_rows.push_back(std::move(cells));
}

void text_table::print(std::ostream& os) const {
    std::vector<std::size_t> width(m_headers.size());
    for (std::size_t c = 0; c < m_headers.size(); ++c) {
        width[c] = m_headers[c].size();
        for (const auto& r : m_rows) width[c] = std::max(width[c], r[c].size());
    }
    auto line = [&](const std::vector<std::string>& cells) {
        for (std::size_t c = 0; c < cells.size(); ++c) {
            if (c) os << "  ";
            const bool last = c + 1 == cells.size();
            if (m_align[c] == align::left)
                os << (last ? cells[c] : cells[c] + std::string(width[c] - cells[c].size(), ' '));
            else os << std::string(width[c] - cells[c].size(), ' ') << cells[c];
        }
        os << '\n';
    };
    line(m_headers);
    std::vector<std::string> rule;
    for (auto w : width) rule.emplace_back(w, '-');
    line(rule);
    for (const auto& r : m_rows) line(r);
}

std::string fmt_num(double x, int digits) {
    std::ostringstream ss;
    if (std::floor(x) == x && std::fabs(x) < 1e15) {
        ss << static_cast<long long>(x);
    } else {
        ss << std::setprecision(digits) << x;
    }
    return ss.str();
}

}  // namespace agpu::cli
