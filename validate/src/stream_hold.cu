// The stream hold of cuda_executor (stream_hold.hpp): the one kernel the
// measurement layer compiles with nvcc.
#include "stream_hold.hpp"

namespace agpu::validate::detail {
namespace {

__device__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void stream_hold(const volatile unsigned* flag, unsigned long long timeout_ns) {
    const unsigned long long start = global_ns();
    while (*flag == 0 && global_ns() - start < timeout_ns) {}
}

}  // namespace

cudaError_t launch_stream_hold(const volatile unsigned* flag, unsigned long long timeout_ns) {
    stream_hold<<<1, 1>>>(flag, timeout_ns);
    return cudaGetLastError();
}

}  // namespace agpu::validate::detail
