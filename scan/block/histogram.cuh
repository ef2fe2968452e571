// Block-level histogram pieces of the engine: samples counted into counters (shared or global) by a whole
// warp at a time, a chunk all in one bin added as one atomic. The histograms and the radix sort's
// three-kernel upsweep count with them.
#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "../util/config.hpp"
#include "../util/warp.cuh"

namespace carry {
namespace block {

/// atomicAdd on any 4- or 8-byte integer counter (two's complement: signed adds as unsigned).
template <class C>
__device__ __forceinline__ void atomic_add(C* p, C v) {
  static_assert(std::is_integral<C>::value && (sizeof(C) == 4 || sizeof(C) == 8),
                "carry: counters are 4 or 8 bytes");
  if constexpr (sizeof(C) == 4)
    atomicAdd(reinterpret_cast<unsigned*>(p), static_cast<unsigned>(v));
  else
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

/// One chunk of PER samples a lane of a whole warp (bins[e] < 0: none): when every sample of every lane
/// falls in lane 0's first bin (a stretch of all-in-one-bin data), lane 0 adds all 32 x PER as one
/// atomic; otherwise each sample adds one. One shuffle and one vote a chunk (PER = 1: a sample) instead of
/// the former aggregation a sample (a shuffle, a vote and a population count: lane 0's group added as
/// one): u32, 256 bins at 2^28 on the H100, 427 us against 528 (tune_histogram.cu; one bin 420 us, 90 %
/// in one bin 431; plain atomics on one shared address did not serialise). All 32 lanes must call it.
template <int PER, class C>
__device__ __forceinline__ void warp_add_chunk(C* counters, const int (&bins)[PER]) {
  const int first = __shfl_sync(0xffffffffu, bins[0], 0);
  bool same = true;
  CARRY_UNROLL
  for (int e = 0; e < PER; ++e) same = same && bins[e] == first;
  if (__all_sync(0xffffffffu, same)) {
    if (threadIdx.x % detail::warp_threads == 0 && first >= 0)
      atomic_add(counters + first, static_cast<C>(32 * PER));
    return;
  }
  CARRY_UNROLL
  for (int e = 0; e < PER; ++e)
    if (bins[e] >= 0) atomic_add(counters + bins[e], C{1});
}

/// The samples [0, n) counted into `counters` (shared or global) by `threads` threads of which the caller
/// is `rank` (a whole grid, or one block over its range; whole warps, consecutive ranks). `samples`: a
/// pointer or any random-access iterator of T. A strided walk over chunks of 16 bytes' worth of samples,
/// UNROLL chunks in flight a thread: 16-byte loads where `vec` (a pointer, 16-byte aligned), else each
/// lane reading its chunk's samples one by one (a counting or transform iterator); then the last
/// n % (16 / sizeof(T)) samples one by one. Loops are warp-uniform so every lane takes part in each
/// aggregated increment.
template <int UNROLL, class It, class Binner, class C>
__device__ void count_samples(It samples, std::int64_t n, const Binner& binner, C* counters, bool vec,
                              std::int64_t rank, std::int64_t threads) {
  using T = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;
  const int lane = threadIdx.x % detail::warp_threads;
  const std::int64_t warp_base = rank - lane;
  constexpr int per = sizeof(T) >= 16 ? 1 : 16 / static_cast<int>(sizeof(T));
  constexpr bool chunkable = sizeof(T) <= 16 && 16 % sizeof(T) == 0;
  constexpr bool pointer = std::is_pointer<It>::value;
  std::int64_t done = 0; // samples the chunk walk covered
  if constexpr (pointer && chunkable) {
    if (vec) {
      const std::int64_t chunks = n / per;
      const uint4* v = reinterpret_cast<const uint4*>(samples);
      for (std::int64_t base = warp_base; base < chunks; base += threads * UNROLL) {
        uint4 c[UNROLL];
        CARRY_UNROLL
        for (int u = 0; u < UNROLL; ++u) {
          const std::int64_t i = base + u * threads + lane;
          if (i < chunks) c[u] = __ldg(v + i);
        }
        CARRY_UNROLL
        for (int u = 0; u < UNROLL; ++u) {
          if (base + u * threads >= chunks) break; // warp-uniform
          const bool live = base + u * threads + lane < chunks;
          T x[per];
          memcpy(x, &c[u], sizeof(x));
          int bins[per];
          CARRY_UNROLL
          for (int e = 0; e < per; ++e) bins[e] = live ? binner.bin_of(x[e]) : -1;
          warp_add_chunk(counters, bins);
        }
      }
      done = chunks * per;
    }
  } else if constexpr (chunkable) { // an iterator: each lane reads its chunk's samples one by one
    const std::int64_t chunks = n / per;
    for (std::int64_t base = warp_base; base < chunks; base += threads * UNROLL) {
      T x[UNROLL][per];
      CARRY_UNROLL
      for (int u = 0; u < UNROLL; ++u) {
        const std::int64_t i = base + u * threads + lane;
        if (i < chunks) {
          CARRY_UNROLL
          for (int e = 0; e < per; ++e) x[u][e] = static_cast<T>(samples[i * per + e]);
        }
      }
      CARRY_UNROLL
      for (int u = 0; u < UNROLL; ++u) {
        if (base + u * threads >= chunks) break; // warp-uniform
        const bool live = base + u * threads + lane < chunks;
        int bins[per];
        CARRY_UNROLL
        for (int e = 0; e < per; ++e) bins[e] = live ? binner.bin_of(x[u][e]) : -1;
        warp_add_chunk(counters, bins);
      }
    }
    done = chunks * per;
  }
  // ---- the samples after the last whole chunk (or all of them, sample by sample) ----
  for (std::int64_t base = done + warp_base; base < n; base += threads) {
    const std::int64_t i = base + lane;
    const int bin[1] = {i < n ? binner.bin_of(static_cast<T>(samples[i])) : -1};
    warp_add_chunk(counters, bin);
  }
}

__device__ __forceinline__ std::int64_t grid_rank() {
  return std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_threads() {
  return std::int64_t{gridDim.x} * blockDim.x;
}

} // namespace block
} // namespace carry
