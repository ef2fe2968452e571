// Block scan 5 (the default): coarsened three-phase scan, registers + a warp scan over thread totals.
#pragma once

#include "../block_scan_algorithm.hpp"
#include "../util/warp.cuh"

namespace carry {
namespace block {

/// Phase 1: each thread scans its ITEMS values sequentially in registers (work ITEMS - 1).
/// Phase 2: a warp scan (WARPS: Brent-Kung, or Kogge-Stone) over the per-thread totals: within each
///          warp in registers (shuffles), then over the warp totals by warp 0.
/// Phase 3: fix-up: the caller adds each thread's exclusive prefix to its values (fused there with the
///          tile's carry-in, so every element costs one operation).
/// On return `items` hold the thread-local inclusive scan (thread_local_result).
template <class T, int BLOCK_THREADS, int ITEMS, warp_scan_shape WARPS = warp_scan_shape::brent_kung>
struct coarsened {
  static constexpr bool thread_local_result = true;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS;
  static constexpr int warps = (BLOCK_THREADS + detail::warp_threads - 1) / detail::warp_threads;
  struct temp_storage {
    T warp_totals[warps];
  };

  template <class Op>
  __device__ static T warp_inclusive(T v, Op op, int lane, unsigned mask) {
    if constexpr (WARPS == warp_scan_shape::kogge_stone)
      return detail::warp_kogge_stone_inclusive(v, op, lane, mask);
    else
      return detail::warp_brent_kung_inclusive(v, op, lane, mask);
  }

  template <class Op>
  __device__ static void scan(temp_storage& ts, T (&items)[ITEMS], Op op, T& thread_prefix, T& aggregate) {
    const int tid = threadIdx.x;
    const int lane = tid % detail::warp_threads;
    const int warp = tid / detail::warp_threads;
    const int warp_width =
        warp == warps - 1 ? BLOCK_THREADS - warp * detail::warp_threads : detail::warp_threads;
    const unsigned mask = detail::lane_mask(warp_width);
    // ---- phase 1: thread-local sequential scan ----
    CARRY_UNROLL
    for (int j = 1; j < ITEMS; ++j) items[j] = op(items[j - 1], items[j]);
    // ---- phase 2: Brent-Kung over thread totals (warp level, then across warps) ----
    T inclusive = warp_inclusive(items[ITEMS - 1], op, lane, mask);
    T lane_exclusive = detail::shfl_up(mask, inclusive, 1);
    if (lane == warp_width - 1) ts.warp_totals[warp] = inclusive;
    __syncthreads();
    if (warps > 1 && warp == 0) {
      const unsigned m0 =
          detail::lane_mask(BLOCK_THREADS < detail::warp_threads ? BLOCK_THREADS : detail::warp_threads);
      T w = ts.warp_totals[lane < warps ? lane : warps - 1];
      __syncwarp(m0); // every lane has read before any lane writes back
      w = warp_inclusive(w, op, lane, m0);
      if (lane < warps) ts.warp_totals[lane] = w;
    }
    if (warps > 1) __syncthreads();
    // ---- the thread's exclusive prefix (phase 3 is applied by the caller) ----
    if (warp == 0) {
      if (lane > 0) thread_prefix = lane_exclusive;
    } else {
      T warp_prefix = ts.warp_totals[warp - 1];
      thread_prefix = lane > 0 ? op(warp_prefix, lane_exclusive) : warp_prefix;
    }
    aggregate = ts.warp_totals[warps - 1];
  }
};

} // namespace block
} // namespace carry
