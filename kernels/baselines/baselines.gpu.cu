// GPU-only baselines, timed in the same run as the algorithms they are
// measured against (METHOD: baselines in the same run, ratios reported):
//   baseline/copy             cudaMemcpyAsync device to device of n 4-byte words
//   baseline/cub-reduce-sum   cub::DeviceReduce::Sum of n floats or doubles
//   baseline/cub-scan         cub::DeviceScan::{Exclusive,Inclusive}Sum of n u32 or u64
// Each is checked against a CPU reference like any algorithm, with the same
// inputs (same generator and seed) as the algorithm it is compared with.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <cmath>
#include <span>

#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "common/host_util.hpp"

namespace agpu::kernels::baselines {
namespace {

using model::algo_spec;
using model::check_result;
using model::param_values;
using validate::cuda_executor;

constexpr std::uint64_t max_elements = std::uint64_t(1) << 32;

// Temporary storage for a CUB call, sized by its first (dry) call.
template <class F>
void cub_call(cuda_executor& ex, const std::string& name, F call) {
    std::size_t bytes = 0;
    AGPU_CUDA_CHECK(call(nullptr, bytes));
    auto temp = ex.alloc<unsigned char>(bytes);
    ex.timed(name, [&] { AGPU_CUDA_CHECK(call(temp.data(), bytes)); });
}

algo_spec copy_spec() {
    return {"baseline/copy", "device-to-device copy of n 4-byte words (cudaMemcpyAsync): the bandwidth ceiling",
            "words", 1 << 20, 1, max_elements, {}};
}

check_result run_copy(cuda_executor& ex, std::uint64_t n, const param_values&, std::uint64_t seed) {
    const auto h = random_values<std::uint32_t>(n, seed, 1, 0xffffffffu);
    auto in = ex.alloc<std::uint32_t>(n);
    auto out = ex.alloc<std::uint32_t>(n);
    ex.upload(in, std::span<const std::uint32_t>(h));
    ex.timed("memcpy_d2d", [&] {
        AGPU_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), n * 4, cudaMemcpyDeviceToDevice, ex.stream()));
    });
    const auto m = first_mismatch(fetch(ex, out, n), h, "copy");
    return {m.empty(), m.empty() ? std::to_string(n) + " words copied" : m};
}

algo_spec reduce_spec() {
    return {"baseline/cub-reduce-sum", "cub::DeviceReduce::Sum (one statistic, one pass)", "values", 1 << 20, 1,
            max_elements, {{"type", "value type", "float", {"float", "double"}, 0, 0}}};
}

// Inputs as stats/ makes them: uniform in [0, 1) from the seed.
template <class T>
check_result reduce_sum(cuda_executor& ex, std::uint64_t n, std::uint64_t seed) {
    const auto h = random_values<T>(n, seed, T(0), T(1));
    auto in = ex.alloc<T>(n);
    auto out = ex.alloc<T>(1);
    ex.upload(in, std::span<const T>(h));
    cub_call(ex, "cub_reduce_sum", [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Sum(temp, bytes, in.data(), out.data(), static_cast<std::int64_t>(n), ex.stream());
    });
    long double want = 0;
    for (T x : h) want += x;
    const double got = fetch(ex, out, 1)[0];
    const double rel = std::fabs(got - double(want)) / std::max(1.0, std::fabs(double(want)));
    const double tol = sizeof(T) == 4 ? 1e-4 : 1e-10;
    return {rel <= tol, "sum " + std::to_string(got) + " against " + std::to_string(double(want)) + " (relative error " +
                            std::to_string(rel) + ", allowed " + std::to_string(tol) + ")"};
}

check_result run_reduce(cuda_executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return p.text("type") == "float" ? reduce_sum<float>(ex, n, seed) : reduce_sum<double>(ex, n, seed);
}

algo_spec scan_spec() {
    return {"baseline/cub-scan", "cub::DeviceScan exclusive or inclusive sum (one pass, decoupled look-back)", "values",
            1 << 20, 1, max_elements,
            {{"type", "value type", "u32", {"u32", "u64"}, 0, 0},
             {"kind", "exclusive or inclusive", "exclusive", {"exclusive", "inclusive"}, 0, 0}}};
}

template <class T>
check_result scan_sum(cuda_executor& ex, std::uint64_t n, bool exclusive, std::uint64_t seed) {
    const auto h = random_values<T>(n, seed, T(0), T(1000));
    auto in = ex.alloc<T>(n);
    auto out = ex.alloc<T>(n);
    ex.upload(in, std::span<const T>(h));
    cub_call(ex, exclusive ? "cub_exclusive_sum" : "cub_inclusive_sum", [&](void* temp, std::size_t& bytes) {
        return exclusive ? cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), out.data(), static_cast<std::int64_t>(n), ex.stream())
                         : cub::DeviceScan::InclusiveSum(temp, bytes, in.data(), out.data(), static_cast<std::int64_t>(n), ex.stream());
    });
    std::vector<T> want(n);
    T acc = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        if (exclusive) want[i] = acc;
        acc = T(acc + h[i]);
        if (!exclusive) want[i] = acc;
    }
    const auto m = first_mismatch(fetch(ex, out, n), want, "scan");
    return {m.empty(), m.empty() ? std::to_string(n) + " prefix sums equal the CPU reference" : m};
}

check_result run_scan(cuda_executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    const bool exclusive = p.text("kind") == "exclusive";
    return p.text("type") == "u32" ? scan_sum<std::uint32_t>(ex, n, exclusive, seed)
                                   : scan_sum<std::uint64_t>(ex, n, exclusive, seed);
}

AGPU_REGISTER_GPU_BASELINE(copy_spec(), run_copy);
AGPU_REGISTER_GPU_BASELINE(reduce_spec(), run_reduce);
AGPU_REGISTER_GPU_BASELINE(scan_spec(), run_scan);

}  // namespace
}  // namespace agpu::kernels::baselines
