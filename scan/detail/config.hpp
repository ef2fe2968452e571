// Portability macros for carry's headers: host/device qualifiers usable from plain C++ compilers too.
#pragma once

#if defined(__CUDACC__)
#define CARRY_HD __host__ __device__
#define CARRY_DEVICE __device__
#else
#define CARRY_HD
#define CARRY_DEVICE
#endif

#if defined(__CUDACC__)
#define CARRY_UNROLL _Pragma("unroll")
#else
#define CARRY_UNROLL
#endif
