// gzip in memory (zlib): what a packed dataset's measurements.csv.gz holds.
#pragma once

#include <string>

namespace agpu::validate::detail {

// `text` as one gzip member, compressed at the highest level. The header
// carries no time or name, so the same text always packs to the same bytes.
std::string gzip(const std::string& text);
// The text of every gzip member of `data`, one after another; throws
// input_error naming `where` on data that is not gzip or is cut short.
std::string gunzip(const std::string& data, const std::string& where);

}  // namespace agpu::validate::detail
