// Catch2 runner for the GPU test programs: exits with the CTest skip code when no GPU is present.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include <cuda_runtime.h>

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: GPU tests skipped\n");
    return 77; // carry_validate::skip_return_code, SKIP_RETURN_CODE in CTest
  }
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) == cudaSuccess)
    std::printf("GPU: %s (sm_%d%d)\n", p.name, p.major, p.minor);
  return Catch::Session().run(argc, argv);
}
