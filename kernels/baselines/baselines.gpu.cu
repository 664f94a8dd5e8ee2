// GPU-only baselines, timed in the same run as the algorithms they are
// measured against (METHOD: baselines in the same run, ratios reported):
//   baseline/copy             cudaMemcpyAsync device to device of n 4-byte words
//   baseline/cub-reduce-sum   cub::DeviceReduce::Sum of n floats or doubles
//   baseline/cub-scan         cub::DeviceScan::{Exclusive,Inclusive}Sum of n u32 or u64
//   baseline/cub-merge-sort   cub::DeviceMergeSort::SortKeys (comparison merge sort) of n keys
//   baseline/cub-radix-sort   cub::DeviceRadixSort::SortKeys of n keys
//   baseline/thrust-sort      thrust::sort with a comparator (Thrust's merge sort) of n keys
// Each is checked against a CPU reference like any algorithm, with the same
// inputs (same generator and seed) as the algorithm it is compared with.
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cmath>
#include <span>

#include "agpu/validate/cuda_executor.hpp"
#include "agpu/validate/gpu_algorithms.hpp"
#include "common/host_util.hpp"
#include "sort/sort_input.hpp"

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
    return {"baseline/copy",
            "device-to-device copy of n 4-byte words (cudaMemcpyAsync): the bandwidth ceiling",
            "words",
            1 << 20,
            1,
            max_elements,
            {}};
}

check_result run_copy(cuda_executor& ex, std::uint64_t n, const param_values&, std::uint64_t seed) {
    const auto values = random_values<std::uint32_t>(n, seed, 1, 0xffffffffu);
    const auto& h = *values;
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
    return {"baseline/cub-reduce-sum",
            "cub::DeviceReduce::Sum (one statistic, one pass)",
            "values",
            1 << 20,
            1,
            max_elements,
            {{"type", "value type", "float", {"float", "double"}, 0, 0}}};
}

// Inputs as stats/ makes them: uniform in [0, 1) from the seed.
template <class T>
check_result reduce_sum(cuda_executor& ex, std::uint64_t n, std::uint64_t seed) {
    const auto values = random_values<T>(n, seed, T(0), T(1));
    const auto& h = *values;
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
    return {rel <= tol, "sum " + std::to_string(got) + " against " + std::to_string(double(want)) +
                            " (relative error " + std::to_string(rel) + ", allowed " + std::to_string(tol) + ")"};
}

check_result run_reduce(cuda_executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return p.text("type") == "float" ? reduce_sum<float>(ex, n, seed) : reduce_sum<double>(ex, n, seed);
}

algo_spec scan_spec() {
    return {"baseline/cub-scan",
            "cub::DeviceScan exclusive or inclusive sum (one pass, decoupled look-back)",
            "values",
            1 << 20,
            1,
            max_elements,
            {{"type", "value type", "u32", {"u32", "u64"}, 0, 0},
             {"kind", "exclusive or inclusive", "exclusive", {"exclusive", "inclusive"}, 0, 0}}};
}

template <class T>
check_result scan_sum(cuda_executor& ex, std::uint64_t n, bool exclusive, std::uint64_t seed) {
    const auto values = random_values<T>(n, seed, T(0), T(1000));
    const auto& h = *values;
    auto in = ex.alloc<T>(n);
    auto out = ex.alloc<T>(n);
    ex.upload(in, std::span<const T>(h));
    cub_call(ex, exclusive ? "cub_exclusive_sum" : "cub_inclusive_sum", [&](void* temp, std::size_t& bytes) {
        return exclusive ? cub::DeviceScan::ExclusiveSum(temp, bytes, in.data(), out.data(),
                                                         static_cast<std::int64_t>(n), ex.stream())
                         : cub::DeviceScan::InclusiveSum(temp, bytes, in.data(), out.data(),
                                                         static_cast<std::int64_t>(n), ex.stream());
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

// ---- sorts: the inputs of sort/ (same generator, kind and seed), checked like sort/'s keys ----

std::vector<model::param_spec> sort_params() {
    return {{"type", "key type (float: IEEE 754 totalOrder, as sort/)", "u32", {"u32", "u64", "float"}, 0, 0},
            {"input", "input keys, as sort/", "random", sort::input_kinds(), 0, 0}};
}

algo_spec merge_sort_spec() {
    return {"baseline/cub-merge-sort",
            "cub::DeviceMergeSort::SortKeys with the key order's comparator",
            "elements",
            1 << 20,
            1,
            max_elements,
            sort_params()};
}
algo_spec radix_sort_spec() {
    return {"baseline/cub-radix-sort",
            "cub::DeviceRadixSort::SortKeys (LSD radix sort; float by its bits, as sort/)",
            "elements",
            1 << 20,
            1,
            max_elements,
            sort_params()};
}
algo_spec thrust_sort_spec() {
    return {"baseline/thrust-sort",
            "thrust::sort with the key order's comparator (Thrust's merge sort; its temporary allocation is timed)",
            "elements",
            1 << 20,
            1,
            max_elements,
            sort_params()};
}

template <class K>
struct key_less {
    __host__ __device__ bool operator()(const K& a, const K& b) const { return sort::key_order<K>::less(a, b); }
};

template <class K, class Sort>
check_result sort_keys(cuda_executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed,
                       Sort sort_on_gpu) {
    const auto ref = sort::cached_case<K>(n, seed, p.text("input"));
    const auto& h = ref->keys();
    auto keys = ex.alloc<K>(n);
    auto out = ex.alloc<K>(n);
    ex.upload(keys, std::span<const K>(h));
    sort_on_gpu(keys, out);
    const auto m = first_mismatch(sort::as_bits(fetch(ex, out, n)), ref->sorted_bits(), "keys (bits)");
    return {m.empty(), m.empty() ? std::to_string(n) + " keys equal the CPU reference" : m};
}

template <class Run>
check_result by_type(const param_values& p, Run run) {
    const std::string& type = p.text("type");
    if (type == "u64") return run(static_cast<std::uint64_t*>(nullptr));
    if (type == "float") return run(static_cast<float*>(nullptr));
    return run(static_cast<std::uint32_t*>(nullptr));
}

check_result run_merge_sort(cuda_executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return by_type(p, [&]<class K>(K*) {
        return sort_keys<K>(ex, n, p, seed, [&](kl::gspan<K> keys, kl::gspan<K> out) {
            cub_call(ex, "cub_merge_sort", [&](void* temp, std::size_t& bytes) {
                return cub::DeviceMergeSort::SortKeysCopy(temp, bytes, keys.data(), out.data(),
                                                          static_cast<std::int64_t>(n), key_less<K>{}, ex.stream());
            });
        });
    });
}

check_result run_radix_sort(cuda_executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return by_type(p, [&]<class K>(K*) {
        return sort_keys<K>(ex, n, p, seed, [&](kl::gspan<K> keys, kl::gspan<K> out) {
            cub_call(ex, "cub_radix_sort", [&](void* temp, std::size_t& bytes) {
                return cub::DeviceRadixSort::SortKeys(temp, bytes, keys.data(), out.data(),
                                                      static_cast<std::int64_t>(n), 0, int(sizeof(K) * 8), ex.stream());
            });
        });
    });
}

check_result run_thrust_sort(cuda_executor& ex, std::uint64_t n, const param_values& p, std::uint64_t seed) {
    return by_type(p, [&]<class K>(K*) {
        return sort_keys<K>(ex, n, p, seed, [&](kl::gspan<K> keys, kl::gspan<K> out) {
            AGPU_CUDA_CHECK(
                cudaMemcpyAsync(out.data(), keys.data(), n * sizeof(K), cudaMemcpyDeviceToDevice, ex.stream()));
            ex.timed("thrust_sort", [&] {
                thrust::sort(thrust::cuda::par.on(ex.stream()), out.data(), out.data() + n, key_less<K>{});
            });
        });
    });
}

AGPU_REGISTER_GPU_BASELINE(copy_spec(), run_copy);
AGPU_REGISTER_GPU_BASELINE(reduce_spec(), run_reduce);
AGPU_REGISTER_GPU_BASELINE(scan_spec(), run_scan);
AGPU_REGISTER_GPU_BASELINE(merge_sort_spec(), run_merge_sort);
AGPU_REGISTER_GPU_BASELINE(radix_sort_spec(), run_radix_sort);
AGPU_REGISTER_GPU_BASELINE(thrust_sort_spec(), run_thrust_sort);

}  // namespace
}  // namespace agpu::kernels::baselines
