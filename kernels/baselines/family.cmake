# baselines/: what the algorithms are measured against on the GPU (CUB, copy
# bandwidth). GPU-only: nothing for the simulator.
list(APPEND AGPU_KERNELS_CUDA_SOURCES baselines/baselines.gpu.cu)
