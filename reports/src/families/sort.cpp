// The sorts in the report: n up to 2^22 (the bitonic sort's closed form walks
// every warp, so its cost grows with n), and why their measured runs are
// predicted far too fast.
#include "context.hpp"

AGPU_REGISTER_REPORT_FAMILY({"sort", 10, 22, 2,
                             "The sort's runs are not among the fit's (their counts need the simulator run by "
                             "run), and the model predicts them far too fast: the merge passes are bound by "
                             "integer instructions (the heap's addressing and the merge networks) that the "
                             "AGPU steps do not count (kernels/sort/README.md, model/README.md)."});
