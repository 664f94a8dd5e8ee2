# micro/: one access pattern per kernel (see kernels/CMakeLists.txt).
list(APPEND AGPU_KERNELS_SIM_SOURCES micro/micro.sim.cpp)
list(APPEND AGPU_KERNELS_SUITE_SOURCES micro/micro.suite.cpp)
list(APPEND AGPU_KERNELS_CUDA_SOURCES micro/micro.gpu.cu)
