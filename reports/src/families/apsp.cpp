// apsp in the report: n = 2^6 to 2^12 (its closed forms walk every tile's
// warps, so their cost grows as n^3; these sizes keep the charts to seconds).
#include "context.hpp"

AGPU_REGISTER_REPORT_FAMILY({"apsp", 6, 12, 1, ""});
