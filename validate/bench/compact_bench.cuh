// Compaction benchmark support shared by the benchmark and the tuning sweep: input generators, checks,
// device buffers and the cold-L2 timer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <vector>

#include "../tests/common/gpu.cuh"
#include "timing.cuh"

namespace carry_validate {

__global__ inline void fill_u32(std::uint32_t* p, std::int64_t n, std::uint64_t seed, int run) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (static_cast<std::uint64_t>(i / run) + seed) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    p[i] = static_cast<std::uint32_t>(z ^ (z >> 31));
  }
}
__global__ inline void fill_flags(std::uint8_t* f, const std::uint32_t* in, std::int64_t n,
                                  std::uint32_t bound) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    f[i] = (in[i] * 0x2545F491u) < bound; // independent of the items' own order
}
__global__ inline void widen_flags(std::uint32_t* wide, const std::uint8_t* f, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    wide[i] = f[i];
}
/// Adds to *bad the number of the first n items of a and b that differ (bitwise).
template <class T>
__global__ void count_mismatches(const T* a, const T* b, std::int64_t n, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    local += a[i] != b[i];
  if (local) atomicAdd(bad, local);
}
__global__ inline void reverse_tail(std::uint32_t* p, std::int64_t from, std::int64_t n) {
  const std::int64_t len = n - from;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < len / 2;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t t = p[from + i];
    p[from + i] = p[n - 1 - i];
    p[n - 1 - i] = t;
  }
}

struct gpu_state {
  std::uint32_t *in = nullptr, *out = nullptr, *check = nullptr;
  std::uint8_t* flags = nullptr;
  std::uint32_t* flags32 = nullptr; // the same flags, 4 bytes each
  void* temp = nullptr;
  void* flush = nullptr;
  std::size_t temp_bytes = 0, capacity = 0; // items in `in` / `out`
  std::int64_t* num = nullptr;
  unsigned long long* bad = nullptr;
  void ensure_temp(std::size_t need) {
    if (need <= temp_bytes) return;
    if (temp) CARRY_CUDA_OR_DIE(cudaFree(temp));
    CARRY_CUDA_OR_DIE(cudaMalloc(&temp, need));
    temp_bytes = need;
  }
};
constexpr std::size_t flush_bytes = std::size_t{192} << 20;

/// Median microseconds of call(r) (r: the rotation) with a cold L2 before each (l2_flush); blocked:
/// queued behind a spin kernel too (GPU time alone).
inline double time_cold(gpu_state& g, const std::function<void(int)>& call, int rotations, int reps,
                        bool blocked) {
  return median_rotating_event_us_after(l2_flush{g.flush, flush_bytes}, call, rotations, reps, blocked);
}

/// A tuner's or probe's start: n = 2^argv[1] (default 2^28), returned, and g's items in and out, L2 flush
/// buffer and count allocated for n items.
inline std::int64_t tuner_start(int argc, char** argv, gpu_state& g) {
  const double log2n = argc > 1 ? std::atof(argv[1]) : 28; // 23.5: 2^23.5 items
  const std::int64_t n = std::llround(std::exp2(log2n));
  g.capacity = static_cast<std::size_t>(n);
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.in, 4 * g.capacity));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.out, 4 * g.capacity));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.flush, flush_bytes));
  CARRY_CUDA_OR_DIE(cudaMalloc(&g.num, sizeof(std::int64_t)));
  return n;
}
/// A tuner's repetitions of each timing at n items.
inline int tuner_reps(std::int64_t n) {
  return n >= (std::int64_t{1} << 28) ? 15 : 41;
}

/// Median µs of run(temp, bytes) (a two-phase call) with a cold L2, GPU time: the tuners' and probes' timer.
template <class Run>
double time_two_phase(gpu_state& g, Run run, int reps) {
  std::size_t bytes = 0;
  CARRY_CUDA_OR_DIE(run(nullptr, bytes));
  g.ensure_temp(bytes);
  return time_cold(
      g,
      [&](int) {
        std::size_t b = g.temp_bytes;
        CARRY_CUDA_OR_DIE(run(g.temp, b));
      },
      1, reps, true);
}

} // namespace carry_validate
