// The current UTC time as text, for the dates and timestamps written into
// provenance, fit files, device patches and reports.
#pragma once

#include <string>

namespace agpu {

// strftime `format` of now in UTC; the default is ISO 8601 ("2026-11-21T23:35:00Z").
std::string utc_now(const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace agpu
