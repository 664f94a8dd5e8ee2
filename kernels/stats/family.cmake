# stats/: min, max, mean, variance by reduction (see kernels/CMakeLists.txt).
list(APPEND AGPU_KERNELS_SIM_SOURCES stats/stats.sim.cpp)
list(APPEND AGPU_KERNELS_SUITE_SOURCES stats/stats.suite.cpp)
list(APPEND AGPU_KERNELS_CUDA_SOURCES stats/stats.gpu.cu)
list(APPEND AGPU_KERNELS_TEST_SOURCES stats/tests/stats_test.cpp)
