// validate/scripts/gpu-faults.sh: holds all but HEADROOM_MB (argument, default 256) of the GPU's free memory until killed (fault test).
#include <cuda_runtime.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
    size_t headroom = (argc > 1 ? atol(argv[1]) : 256) << 20, free_b, total;
    cudaMemGetInfo(&free_b, &total);
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, free_b - headroom);
    printf("hog: free %zu MB, took %zu MB: %s\n", free_b >> 20, (free_b - headroom) >> 20, cudaGetErrorString(e));
    fflush(stdout);
    for (;;) sleep(1);
}
