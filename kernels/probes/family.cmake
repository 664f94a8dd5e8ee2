# probes/: the calibration probes `agpu calibrate` measures (GPU-only, like
# baselines/: nothing for the simulator), and the host test of their suite.
list(APPEND AGPU_KERNELS_SUITE_SOURCES probes/probes.suite.cpp)
list(APPEND AGPU_KERNELS_CUDA_SOURCES probes/probes.gpu.cu probes/dependent.gpu.cu)
list(APPEND AGPU_KERNELS_TEST_SOURCES probes/tests/probes_test.cpp)
