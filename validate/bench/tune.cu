// Tuning sweep (built with -DCARRY_BUILD_TUNE=ON): single-pass tile shapes per type against CUB and memcpy.
#include <algorithm>
#include <cstdio>
#include <vector>

#include <carry/scan/device_scan.cuh>

#include "baselines/baselines.hpp"
#include "common/gpu.cuh"
#include "common/timing.cuh"

using namespace carry_validate;

void* g_in;
void* g_out;
void* g_tmp;
std::size_t g_tmp_bytes = std::size_t{1} << 28;

template <class T>
void baselines(const char* name, std::int64_t n) {
  T* in = static_cast<T*>(g_in);
  T* out = static_cast<T*>(g_out);
  double copy = median_event_us(
      [&] { CARRY_CUDA_OR_DIE(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); }, 20);
  double cub = median_event_us(
      [&] {
        std::size_t t = g_tmp_bytes;
        CARRY_CUDA_OR_DIE(cub_inclusive_sum(g_tmp, t, in, out, n, cudaStream_t{}));
      },
      20);
  std::printf("%-4s n=%-11lld memcpy %9.1f us   cub %9.1f us (%.3f of copy)\n", name, (long long)n, copy, cub,
              copy / cub);
}

template <class T, int BT, int IPT, bool DET = false, bool STREAM = false, int DELAY = 0>
void shape(const char* name, std::int64_t n) {
  using P = carry::tile_policy<carry::block_scan_algorithm::coarsened, BT, IPT, STREAM, true, DELAY>;
  T* in = static_cast<T*>(g_in);
  T* out = static_cast<T*>(g_out);
  carry::scan_options o{carry::scan_algorithm::single_pass, DET};
  double t = median_event_us(
      [&] {
        std::size_t b = g_tmp_bytes;
        CARRY_CUDA_OR_DIE(
            carry::device_scan_with<P, P>::inclusive_scan(g_tmp, b, in, out, carry::sum{}, n, o));
      },
      20);
  std::printf("%-4s n=%-11lld single_pass%s%s %4d x %3d delay %3d ns: %9.1f us\n", name, (long long)n,
              DET ? "-det" : "    ", STREAM ? "-stream" : "       ", BT, IPT, DELAY, t);
}

int main() {
  if (!gpu_present()) return 2;
  CARRY_CUDA_OR_DIE(cudaMalloc(&g_in, std::size_t{1} << 31));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g_out, std::size_t{1} << 31));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g_tmp, g_tmp_bytes));
  CARRY_CUDA_OR_DIE(cudaMemset(g_in, 0x37, std::size_t{1} << 31));
  for (std::int64_t n : {std::int64_t{1} << 28, std::int64_t{1} << 30, std::int64_t{1} << 24}) {
    baselines<std::uint32_t>("u32", n);
    shape<std::uint32_t, 128, 64, false, true, 0>("u32", n);
    shape<std::uint32_t, 128, 64, false, true, 50>("u32", n);
    shape<std::uint32_t, 128, 64, false, true, 150>("u32", n);
    shape<std::uint32_t, 128, 64, false, true, 400>("u32", n);
    shape<std::uint32_t, 128, 64, false, true, 1000>("u32", n);
    shape<std::uint32_t, 128, 64, false, false, 150>("u32", n);
    baselines<std::uint64_t>("u64", n / 4);
    shape<std::uint64_t, 256, 16, false, true, 0>("u64", n / 4);
    shape<std::uint64_t, 256, 16, false, true, 150>("u64", n / 4);
    shape<std::uint64_t, 256, 16, false, true, 400>("u64", n / 4);
    shape<std::uint64_t, 256, 16, false, false, 150>("u64", n / 4);
  }
  return 0;
}
