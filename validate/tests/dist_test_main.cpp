// Catch2 runner for the distributed tests: exits with the CTest skip code unless two GPUs are visible.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include <cuda_runtime.h>

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2) {
    std::printf("%d CUDA device(s): the distributed tests need 2, skipped\n", devices);
    return 77; // SKIP_RETURN_CODE in CTest
  }
  std::printf("%d GPUs\n", devices);
  return Catch::Session().run(argc, argv);
}
