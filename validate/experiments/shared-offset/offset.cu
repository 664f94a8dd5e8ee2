// Experiment: where do the shared-load wavefronts above the bank model come
// from? Variants of micro/shared-stride's kernel, written in plain CUDA, each
// leaving one ingredient out; run under Nsight Compute (run.sh), which reads
// the same counters as agpu's CUPTI collector. Not part of the build: a
// one-off probe whose output is committed beside it (see README.md).
#include <cstdio>
#include <stdexcept>
#include <string>
#include <cstdint>
#include <cuda_runtime.h>

// A failed CUDA call throws, naming the call and CUDA's message; main reports it.
struct cuda_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) \
  throw cuda_failure(std::string(#x) + ": " + cudaGetErrorString(e_)); } while (0)

// FILL: 0 = shared memory not written (loads read whatever is there),
//       1 = the tile of 32*s words written by the first 32*s threads (as agpu's kernel),
//       2 = 4096 words written by every thread (as the reference probe).
// GSTORE: 1 = every thread stores its sum (as agpu's kernel), 0 = never (a predicated-off store).
// SYNC: 1 = a block barrier between the loads and the global store.
template <int FILL, int GSTORE, int SYNC>
__global__ void sld(std::uint32_t* out, unsigned s, unsigned repeat) {
  extern __shared__ std::uint32_t tile[];
  const unsigned t = threadIdx.x, words = 32u * s;
  if (FILL == 1) for (unsigned j = t; j < words; j += blockDim.x) tile[j] = j * 3u + 1u;
  if (FILL == 2) for (unsigned j = t; j < 4096u; j += blockDim.x) tile[j] = j * 3u + 1u;
  if (FILL != 0) __syncthreads();
  const unsigned lane = t & 31u;
  std::uint32_t acc = 0;
  for (unsigned r = 0; r < repeat; ++r) acc += tile[((lane + r) * s) % words];
  if (SYNC) __syncthreads();
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + t;
  if (GSTORE || acc == 0xdeadbeefu) out[i] = acc;
}

struct variant { const char* name; void (*k)(std::uint32_t*, unsigned, unsigned); };

static int run();

int main() {
  try {
    return run();
  } catch (const cuda_failure& e) {
    std::fprintf(stderr, "offset: %s\n", e.what());
    return 1;
  }
}

static int run() {
  const variant vs[] = {
    {"agpu",            sld<1, 1, 0>},  // micro/shared-stride as measured
    {"no_fill",         sld<0, 1, 0>},
    {"full_fill",       sld<2, 1, 0>},
    {"no_gstore",       sld<1, 0, 0>},
    {"sync_before_gst", sld<1, 1, 1>},
    {"no_fill_no_gst",  sld<0, 0, 0>},
  };
  const unsigned strides[] = {1, 8, 32};
  const unsigned repeats[] = {1, 32};
  const unsigned grids[] = {4096, 1024};
  std::uint32_t* out;
  CK(cudaMalloc(&out, std::size_t(4096) * 256 * 4));
  for (const auto& v : vs) CK(cudaFuncSetAttribute(v.k, cudaFuncAttributeMaxDynamicSharedMemorySize, 16384));
  // One line per launch, in launch order; ncu's CSV rows follow the same order.
  for (unsigned g : grids)
    for (unsigned r : repeats)
      for (unsigned s : strides)
        for (const auto& v : vs) {
          const std::size_t smem = std::size_t(4) * (v.k == sld<2, 1, 0> ? 4096 : 32 * s);
          v.k<<<g, 256, smem>>>(out, s, r);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::printf("launch variant=%s grid=%u stride=%u repeat=%u model_wavefronts=%llu\n", v.name, g, s, r,
                      (unsigned long long)g * 8ull * r * s);
        }
  CK(cudaFree(out));
  return 0;
}
