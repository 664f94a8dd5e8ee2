# rank/: Jacobson's rank directory and the interleaved one-line layout (see kernels/CMakeLists.txt).
list(APPEND AGPU_KERNELS_SIM_SOURCES rank/rank.sim.cpp)
list(APPEND AGPU_KERNELS_SUITE_SOURCES rank/rank.suite.cpp)
list(APPEND AGPU_KERNELS_CUDA_SOURCES rank/rank.gpu.cu)
list(APPEND AGPU_KERNELS_TEST_SOURCES rank/tests/rank_test.cpp)
