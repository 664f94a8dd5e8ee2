# scan/: Hillis-Steele multi-level and the chained single-pass scan (see kernels/CMakeLists.txt).
list(APPEND AGPU_KERNELS_SIM_SOURCES scan/scan.sim.cpp)
list(APPEND AGPU_KERNELS_SUITE_SOURCES scan/scan.suite.cpp)
list(APPEND AGPU_KERNELS_CUDA_SOURCES scan/scan.gpu.cu)
list(APPEND AGPU_KERNELS_TEST_SOURCES scan/tests/scan_test.cpp)
