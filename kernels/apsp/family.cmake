# apsp/: all-pairs shortest paths (see kernels/CMakeLists.txt).
list(APPEND AGPU_KERNELS_SIM_SOURCES apsp/apsp.sim.cpp)
list(APPEND AGPU_KERNELS_SUITE_SOURCES apsp/apsp.suite.cpp)
list(APPEND AGPU_KERNELS_CUDA_SOURCES apsp/apsp.gpu.cu)
list(APPEND AGPU_KERNELS_TEST_SOURCES apsp/tests/apsp_test.cpp)
