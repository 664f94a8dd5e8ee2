// rank in the report: bit vectors of 2^12 to 2^32 bits.
#include "context.hpp"

AGPU_REGISTER_REPORT_FAMILY({"rank", 12, 32, 2, ""});
