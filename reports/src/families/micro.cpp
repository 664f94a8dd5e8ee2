// The micro-kernels in the report: n up to 2^20 (their closed forms walk
// every warp, so their cost grows with n; this keeps the charts to seconds).
#include "context.hpp"

AGPU_REGISTER_REPORT_FAMILY({"micro", 10, 20, 2, ""});
