// Warp-level building blocks: shuffles of any trivially copyable T, Brent-Kung scan and ordered reduce.
#pragma once

#include <cstring>
#include <type_traits>

#include "config.hpp"

namespace carry {
namespace detail {

constexpr int warp_threads = 32;

/// Lanes [0, width) as a shuffle mask.
__device__ __forceinline__ unsigned lane_mask(int width) {
  return width >= warp_threads ? 0xffffffffu : ((1u << width) - 1u);
}

/// Number of SM identifiers (at least the SM count; 132 on the H100): with blocks per SM, one wave of
/// resident blocks (prefetch_guessed_tile).
__device__ __forceinline__ unsigned sm_ids() {
  unsigned n;
  asm("mov.u32 %0, %%nsmid;" : "=r"(n));
  return n;
}

/// Asks the L2 for a block's tile at `tile` (16-byte aligned), each warp's lane 0 its warp's `run_bytes`
/// (the warp's run: warp w's starts w * run_bytes in). A hint: nothing waits for it.
__device__ __forceinline__ void prefetch_warp_run_l2(const void* tile, int run_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (threadIdx.x % warp_threads == 0) {
    const char* run = static_cast<const char*>(tile) + threadIdx.x / warp_threads * run_bytes;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(run), "r"(run_bytes) : "memory");
  }
#else
  (void)tile;
  (void)run_bytes;
#endif
}

template <class T>
struct shfl_words {
  static constexpr int count = (sizeof(T) + 3) / 4;
};

// Shuffles move T as 32-bit words, so any trivially copyable type travels.
template <class T, class F>
__device__ __forceinline__ T shfl_generic(T v, F&& move_word) {
  static_assert(std::is_trivially_copyable<T>::value, "carry: T must be trivially copyable");
  unsigned w[shfl_words<T>::count] = {};
  memcpy(w, &v, sizeof(T));
  CARRY_UNROLL
  for (int i = 0; i < shfl_words<T>::count; ++i) w[i] = move_word(w[i]);
  T out;
  memcpy(&out, w, sizeof(T));
  return out;
}
template <class T>
__device__ __forceinline__ T shfl_up(unsigned mask, T v, int delta) {
  return shfl_generic(v, [&](unsigned x) { return __shfl_up_sync(mask, x, delta); });
}
template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, T v, int delta) {
  return shfl_generic(v, [&](unsigned x) { return __shfl_down_sync(mask, x, delta); });
}
template <class T>
__device__ __forceinline__ T shfl_idx(unsigned mask, T v, int src) {
  return shfl_generic(v, [&](unsigned x) { return __shfl_sync(mask, x, src); });
}

/// Inclusive Brent-Kung scan across the lanes in `mask` (lanes [0, width)), in registers: the reduction
/// tree (strides 1..16) then the reverse tree (strides 8..1). Operand order is always earlier (+) later;
/// values only flow upwards, so absent lanes of a partial warp are virtual padding.
template <class T, class Op>
__device__ __forceinline__ T warp_brent_kung_inclusive(T v, Op op, int lane, unsigned mask) {
  CARRY_UNROLL
  for (int s = 1; s < warp_threads; s *= 2) {
    T y = shfl_up(mask, v, s);
    if (((lane + 1) & (2 * s - 1)) == 0) v = op(y, v);
  }
  CARRY_UNROLL
  for (int s = warp_threads / 4; s >= 1; s /= 2) {
    T y = shfl_up(mask, v, s);
    if (((lane + 1) & (2 * s - 1)) == s && lane + 1 > 2 * s) v = op(y, v);
  }
  return v;
}

/// Inclusive Kogge-Stone scan across the lanes in `mask` (lanes [0, width)), in registers: five steps
/// (strides 1..16) where Brent-Kung takes nine, for scans whose latency, not their work, is the cost.
/// Operand order is earlier (+) later; absent lanes of a partial warp only ever pass values upwards.
template <class T, class Op>
__device__ __forceinline__ T warp_kogge_stone_inclusive(T v, Op op, int lane, unsigned mask) {
  CARRY_UNROLL
  for (int s = 1; s < warp_threads; s *= 2) {
    T y = shfl_up(mask, v, s);
    if (lane >= s) v = op(y, v);
  }
  return v;
}

/// Ordered reduction of lanes [first, width) (first warp-uniform), result in lane 0. Pairs of adjacent
/// ranges are combined (strides 1, 2, 4, ...), so non-commutative operators keep their order.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_ordered(T v, Op op, int lane, unsigned mask, int width,
                                                 int first = 0) {
  CARRY_UNROLL
  for (int s = 1; s < warp_threads; s *= 2) {
    T y = shfl_down(mask, v, s);
    bool right_live = lane + s < width && lane + 2 * s - 1 >= first; // my partner holds live lanes
    bool left_live = lane + s - 1 >= first;                          // my own range holds live lanes
    if ((lane & (2 * s - 1)) == 0 && right_live) v = left_live ? op(v, y) : y;
  }
  return v;
}

} // namespace detail
} // namespace carry
