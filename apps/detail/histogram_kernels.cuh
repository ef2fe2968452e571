// Histogram kernels: per-block counters in shared memory (or global atomics beyond it), increments
// aggregated when a warp's chunk is all one bin, 16-byte sample loads; binners for even bins, range
// bins and a key -> bin functor.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../scan/util/config.hpp"
#include "../../scan/util/warp.cuh"
#include "../../scan/block/histogram.cuh"
#include "bin_math.hpp"

namespace carry {
namespace apps_detail {

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

/// Shared path: the block's counters (and levels) in dynamic shared memory, merged into `hist` (zeroed
/// by the call) with one global atomic per non-zero bin.
template <int THREADS, int UNROLL, class It, class Binner, class C>
__global__ void __launch_bounds__(THREADS)
    histogram_shared_kernel(It samples, std::int64_t n, Binner binner, int num_bins, C* hist, bool vec) {
  extern __shared__ uint4 smem[];
  unsigned* counters = reinterpret_cast<unsigned*>(smem);
  // ---- zero the block's counters, copy the levels ----
  for (int i = threadIdx.x; i < num_bins; i += THREADS) counters[i] = 0;
  void* level_smem =
      Binner::level_bytes > 0 ? static_cast<void*>(counters + (num_bins + 3) / 4 * 4) : nullptr;
  const Binner b = binner.bind(level_smem);
  __syncthreads();
  // ---- count ----
  block::count_samples<UNROLL>(samples, n, b, counters, vec, block::grid_rank(), block::grid_threads());
  __syncthreads();
  // ---- merge ----
  for (int i = threadIdx.x; i < num_bins; i += THREADS)
    if (const unsigned c = counters[i]) block::atomic_add(hist + i, static_cast<C>(c));
}

/// Global path: every sample straight into the caller's counters (zeroed by the call).
template <int THREADS, int UNROLL, class It, class Binner, class C>
__global__ void __launch_bounds__(THREADS)
    histogram_global_kernel(It samples, std::int64_t n, Binner binner, C* hist, bool vec) {
  block::count_samples<UNROLL>(samples, n, binner, hist, vec, block::grid_rank(), block::grid_threads());
}

} // namespace apps_detail
} // namespace carry
