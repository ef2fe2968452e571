// Histogram kernels: per-block counters in shared memory (or global atomics beyond it), increments
// aggregated when a warp's chunk is all one bin, 16-byte sample loads; binners for even bins, range
// bins and a key -> bin functor.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../scan/detail/config.hpp"
#include "../../scan/detail/warp.cuh"
#include "bin_math.hpp"

namespace carry {
namespace apps_detail {

/// atomicAdd on any 4- or 8-byte integer counter (two's complement: signed adds as unsigned).
template <class C>
__device__ __forceinline__ void atomic_add(C* p, C v) {
  static_assert(std::is_integral<C>::value && (sizeof(C) == 4 || sizeof(C) == 8), "carry: counters are 4 or 8 bytes");
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
    if (threadIdx.x % detail::warp_threads == 0 && first >= 0) atomic_add(counters + first, static_cast<C>(32 * PER));
    return;
  }
  CARRY_UNROLL
  for (int e = 0; e < PER; ++e)
    if (bins[e] >= 0) atomic_add(counters + bins[e], C{1});
}

// ---- binners: a block binds one (copying what it needs into shared memory), then asks bin_of ----

/// Evenly spaced bins (bin_math.hpp's exact arithmetic).
template <class T, class L>
struct even_binner {
  using sample_type = T;
  even_bins<T, L> bins;
  static constexpr std::size_t level_bytes = 0;
  __device__ even_binner bind(void*) const { return *this; }
  __device__ int bin_of(const T& x) const { return bins.bin_of(x); }
};

/// The even binner of a call whose bins were checked (`bins`): one bin when they were refused, so the
/// object is well formed either way.
template <class T, class L>
even_binner<T, L> make_even_binner(bin_error bins, int num_bins, L lower, L upper) {
  return {even_bins<T, L>(lower, upper, bins == bin_error::none ? num_bins : 1)};
}

/// Bins between ascending levels in device memory; a shared-path block copies them into shared memory.
template <class T, class L>
struct range_binner {
  using sample_type = T;
  const L* levels;
  int num_bins;
  static constexpr std::size_t level_bytes = sizeof(L);
  /// Copies the levels to `smem` (nullptr: read them where they are); the caller syncs before use.
  __device__ range_binner bind(void* smem) const {
    if (smem == nullptr) return *this;
    L* s = static_cast<L*>(smem);
    for (int i = threadIdx.x; i <= num_bins; i += blockDim.x) s[i] = levels[i];
    return {s, num_bins};
  }
  __device__ int bin_of(const T& x) const { return range_bin_of(levels, num_bins, x); }
};

/// bin_by_key's bins: the caller's key -> bin functor, clamped into [0, num_bins).
template <class K, class BinOp>
struct key_binner {
  using sample_type = K;
  BinOp op;
  int num_bins;
  static constexpr std::size_t level_bytes = 0;
  __device__ key_binner bind(void*) const { return *this; }
  __device__ int bin_of(const K& k) const {
    using R = decltype(op(k));
    if constexpr (std::is_integral_v<R> && std::is_unsigned_v<R> && sizeof(R) <= sizeof(unsigned))
      return static_cast<int>(clamp_bin_unsigned(static_cast<unsigned>(op(k)), num_bins)); // no negative bin
    else
      return static_cast<int>(clamp_bin(static_cast<long long>(op(k)), num_bins));
  }
};

/// Whether a binner is bin_by_key's (the caller's functor): its histogram keeps more chunks in flight
/// (apps_tuning::bin_histogram_unroll).
template <class B>
struct is_key_binner : std::false_type {};
template <class K, class BinOp>
struct is_key_binner<key_binner<K, BinOp>> : std::true_type {};

/// The samples [0, n) counted into `counters` (shared or global) by `threads` threads of which the caller
/// is `rank` (a whole grid, or one block over its range; whole warps, consecutive ranks). A strided walk
/// over 16-byte chunks (`vec`: the pointer is 16-byte aligned), UNROLL chunks in flight a thread, then
/// the last n % (16 / sizeof(T)) samples; or sample by sample. Loops are warp-uniform so every lane takes
/// part in each aggregated increment.
template <int UNROLL, class T, class Binner, class C>
__device__ void count_samples(const T* samples, std::int64_t n, const Binner& binner, C* counters, bool vec,
                              std::int64_t rank, std::int64_t threads) {
  const int lane = threadIdx.x % detail::warp_threads;
  const std::int64_t warp_base = rank - lane;
  constexpr int per = sizeof(T) >= 16 ? 1 : 16 / static_cast<int>(sizeof(T));
  std::int64_t done = 0; // samples the chunk walk covered
  if (vec && sizeof(T) <= 16 && 16 % sizeof(T) == 0) {
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
  // ---- the samples after the last whole chunk (or all of them, sample by sample) ----
  for (std::int64_t base = done + warp_base; base < n; base += threads) {
    const std::int64_t i = base + lane;
    const int bin[1] = {i < n ? binner.bin_of(samples[i]) : -1};
    warp_add_chunk(counters, bin);
  }
}

__device__ __forceinline__ std::int64_t grid_rank() { return std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; }
__device__ __forceinline__ std::int64_t grid_threads() { return std::int64_t{gridDim.x} * blockDim.x; }

/// Shared path: the block's counters (and levels) in dynamic shared memory, merged into `hist` (zeroed
/// by the call) with one global atomic per non-zero bin.
template <int THREADS, int UNROLL, class T, class Binner, class C>
__global__ void __launch_bounds__(THREADS)
    histogram_shared_kernel(const T* samples, std::int64_t n, Binner binner, int num_bins, C* hist, bool vec) {
  extern __shared__ uint4 smem[];
  unsigned* counters = reinterpret_cast<unsigned*>(smem);
  // ---- zero the block's counters, copy the levels ----
  for (int i = threadIdx.x; i < num_bins; i += THREADS) counters[i] = 0;
  void* level_smem = Binner::level_bytes > 0 ? static_cast<void*>(counters + (num_bins + 3) / 4 * 4) : nullptr;
  const Binner b = binner.bind(level_smem);
  __syncthreads();
  // ---- count ----
  count_samples<UNROLL>(samples, n, b, counters, vec, grid_rank(), grid_threads());
  __syncthreads();
  // ---- merge ----
  for (int i = threadIdx.x; i < num_bins; i += THREADS)
    if (const unsigned c = counters[i]) atomic_add(hist + i, static_cast<C>(c));
}

/// Global path: every sample straight into the caller's counters (zeroed by the call).
template <int THREADS, int UNROLL, class T, class Binner, class C>
__global__ void __launch_bounds__(THREADS)
    histogram_global_kernel(const T* samples, std::int64_t n, Binner binner, C* hist, bool vec) {
  count_samples<UNROLL>(samples, n, binner, hist, vec, grid_rank(), grid_threads());
}

} // namespace apps_detail
} // namespace carry
