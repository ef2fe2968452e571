// Block-level reduction: coarsened thread-local folds, then the seed's tree over thread totals; integer
// sums over groups of warps.
#pragma once

#include "util/warp.cuh"

namespace carry {

/// Reduces BLOCK_THREADS x ITEMS values (blocked) to one, in order, so non-commutative operators are
/// right. Coarsened: each thread first folds its ITEMS values sequentially; the per-thread totals then go
/// through the seed's reduction tree with adjacent pairs (strides 1, 2, 4, ...), inside each warp by
/// shuffles, then over the warp totals. The result is valid in thread 0.
///
///   4 threads x 2 items, sum: [3 1 | 7 0 | 4 1 | 6 3] -> 25
template <class T, int BLOCK_THREADS, int ITEMS = 1>
class block_reduce {
  static constexpr int warps = (BLOCK_THREADS + detail::warp_threads - 1) / detail::warp_threads;

public:
  struct temp_storage {
    T warp_totals[warps];
  };

  __device__ explicit block_reduce(temp_storage& ts) : ts_(ts) {}

  template <class Op>
  __device__ T reduce(const T (&items)[ITEMS], Op op) {
    // ---- thread-local fold ----
    T v = items[0];
    CARRY_UNROLL
    for (int j = 1; j < ITEMS; ++j) v = op(v, items[j]);
    return reduce_live(v, op, BLOCK_THREADS);
  }

  /// Reduces one value per thread over threads [0, live_threads) (live_threads >= 1); the others'
  /// values are ignored. Every thread of the block must call it.
  template <class Op>
  __device__ T reduce_live(T v, Op op, int live_threads) {
    const int tid = threadIdx.x;
    const int lane = tid % detail::warp_threads;
    const int warp = tid / detail::warp_threads;
    const int width = warp == warps - 1 ? BLOCK_THREADS - warp * detail::warp_threads : detail::warp_threads;
    const unsigned mask = detail::lane_mask(width);
    int live = live_threads - warp * detail::warp_threads;
    live = live < 0 ? 0 : live > width ? width : live;
    // ---- tree within each warp ----
    v = detail::warp_reduce_ordered(v, op, lane, mask, live);
    if (warps == 1) return v;
    if (lane == 0) ts_.warp_totals[warp] = v;
    __syncthreads();
    // ---- tree over the live warps' totals ----
    const int live_warps = (live_threads + detail::warp_threads - 1) / detail::warp_threads;
    if (warp == 0) {
      T w = ts_.warp_totals[lane < live_warps ? lane : 0];
      v = detail::warp_reduce_ordered(w, op, lane, mask, live_warps);
    }
    return v;
  }

private:
  temp_storage& ts_;
};

/// Integer sums over groups of `group` consecutive warps of a block of BLOCK_THREADS threads (group 1, 2, 4,
/// ... dividing the block's warps: a block holding several small tiles): each warp's sum in one reduction
/// instruction, the warps' sums through shared memory; thread g (g < warps / group) gets group g's sum,
/// every other thread 0. Every thread of the block calls it.
///
///   8 warps, group 4, every lane 1: threads 0 and 1 get 128, the others 0
template <int BLOCK_THREADS>
class block_group_sums {
  static constexpr int warps = BLOCK_THREADS / detail::warp_threads;

public:
  struct temp_storage {
    int warp_sums[warps];
  };

  __device__ explicit block_group_sums(temp_storage& ts) : ts_(ts) {}

  __device__ int sum(int v, int group) {
    const unsigned tid = threadIdx.x;
    v = __reduce_add_sync(0xffffffffu, v);
    if (tid % detail::warp_threads == 0) ts_.warp_sums[tid / detail::warp_threads] = v;
    __syncthreads();
    int total = 0;
    if (tid < static_cast<unsigned>(warps / group))
      for (int w = 0; w < group; ++w) total += ts_.warp_sums[tid * group + w];
    return total;
  }

private:
  temp_storage& ts_;
};

} // namespace carry
