// Holding the default stream while a timed run's launches are submitted.
//
// A launch costs the host several microseconds of API calls (an event record,
// the launch, the next event record); a small kernel with its two events
// takes the GPU about 4 µs. Submitted as the GPU runs them, a run of many
// small launches would time the host. So a timed run's first launch is
// queued behind a one-thread kernel that spins until the host has submitted
// the run (cuda_executor::release_hold: at the end of the run, or before
// anything that waits for the GPU) or until `timeout_ns` of GPU time have
// passed (a run with more launches than the driver queues goes on as
// without the hold). nvbench holds its streams the same way.
//
// What it does on the H100: stats/pairwise at n = 100 (42 launches) runs its
// first 14 launches at 3.3-4.2 µs each, where 9 run that fast without the
// hold, and the other 28 at 6.8 µs (6.4 without): after the first dozen or
// so, a small launch's cost in a sequence is the GPU's own, and so is the
// gap of about 2 µs between one launch's stop event and the next one's start
// (the span of such a run is 1.2-1.45x the sum of its launches, held or not).
#pragma once

#include <cuda_runtime_api.h>

namespace agpu::validate::detail {

// Launches the hold on the default stream: it returns when *flag (host-mapped
// memory) is non-zero or timeout_ns have passed on the GPU's clock.
cudaError_t launch_stream_hold(const volatile unsigned* flag, unsigned long long timeout_ns);

}  // namespace agpu::validate::detail
