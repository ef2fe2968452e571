// Portability macros for carry's headers: host/device qualifiers usable from plain C++ compilers too.
#pragma once

#if defined(__CUDACC__)
#define CARRY_HD __host__ __device__
#define CARRY_DEVICE __device__
#else
#define CARRY_HD
#define CARRY_DEVICE
#endif

// Device passes only: nvcc's host pass would hand the pragma to the host compiler (-Wunknown-pragmas).
#if defined(__CUDA_ARCH__)
#define CARRY_UNROLL _Pragma("unroll")
#else
#define CARRY_UNROLL
#endif

// The minimum architecture, named here rather than by ptxas deep inside a kernel (cp.async and L2 cache
// hints need sm_80). CMake users get the same message at configure time (cmake/carryArchitectures.cmake).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "carry needs sm_80 or newer: compile with -arch=sm_80 (A100), sm_89 (L4), sm_90 (H100) or -arch=native"
#endif
