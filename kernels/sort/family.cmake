# sort/: the multiway merge sort, its two-way case and bitonic sort (see kernels/CMakeLists.txt).
list(APPEND AGPU_KERNELS_SIM_SOURCES sort/sort.sim.cpp)
list(APPEND AGPU_KERNELS_SUITE_SOURCES sort/sort.suite.cpp)
list(APPEND AGPU_KERNELS_CUDA_SOURCES sort/sort.gpu.cu)
list(APPEND AGPU_KERNELS_TEST_SOURCES sort/tests/sort_test.cpp)
