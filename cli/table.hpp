// Plain-text tables for human output; rendered from the same records as JSON.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace agpu::cli {

class text_table {
public:
    enum class align { left, right };
    void add_column(std::string header, align a = align::right);
    void add_row(std::vector<std::string> cells);
    void print(std::ostream& os) const;

private:
    std::vector<std::string> m_headers;
    std::vector<align> m_align;
    std::vector<std::vector<std::string>> m_rows;
};

// Compact number formatting for tables: integers as is, reals with up to
// `digits` significant digits.
std::string fmt_num(double x, int digits = 6);

}  // namespace agpu::cli
