// Decoupled look-back (Merrill & Garland 2016): warp 0 of a tile folds its predecessors' published values.
#pragma once

#include "tile_status.cuh"
#include "warp.cuh"

namespace carry {
namespace detail {

/// Reads the 32 tiles window_end-31 .. window_end (lane l: tile window_end-31+l), spinning until each
/// live one (index >= 0) has published something in this epoch.
template <class T, class Status>
__device__ __forceinline__ void read_window(const Status& st, std::int64_t window_end, std::uint32_t epoch,
                                            int lane, unsigned& state, T& v) {
  const std::int64_t k = window_end - (warp_threads - 1) + lane;
  state = k >= 0 ? unsigned{state_invalid} : unsigned{state_aggregate};  // lanes before tile 0: dead
  while (true) {
    if (state == state_invalid) st.read(k, epoch, state, v);
    if (!__any_sync(0xffffffffu, state == state_invalid)) break;
  }
}

/// The exclusive prefix of `tile` (> 0): the fold of every earlier tile. Called by all of warp 0.
/// Fast mode: each window of 32 predecessors is reduced as a tree, so the grouping of the fold depends
/// on which predecessors had finished: floating-point results may differ from run to run.
/// Deterministic mode: the fold is always the strict left fold ((t0 (+) t1) (+) t2) ...: it starts
/// from the nearest published inclusive prefix (itself such a left fold) and adds the aggregates
/// after it one at a time, so the value is the same whichever prefix it found.
template <bool DETERMINISTIC, class T, class Op, class Status>
__device__ T look_back(const Status& st, std::int64_t tile, std::uint32_t epoch, Op op) {
  const int lane = threadIdx.x % warp_threads;
  const unsigned full = 0xffffffffu;
  std::int64_t end = tile - 1;
  unsigned state;
  T v;
  if constexpr (!DETERMINISTIC) {
    T acc;
    bool has_acc = false;
    while (true) {
      read_window(st, end, epoch, lane, state, v);
      const unsigned prefixes = __ballot_sync(full, state == state_prefix && end - 31 + lane >= 0);
      const int dead = end >= warp_threads - 1 ? 0 : static_cast<int>(warp_threads - 1 - end);
      const int first = prefixes ? warp_threads - 1 - __clz(prefixes) : dead;
      T w = shfl_idx(full, warp_reduce_ordered(v, op, lane, full, warp_threads, first), 0);
      acc = has_acc ? op(w, acc) : w;
      has_acc = true;
      if (prefixes) return acc;
      end -= warp_threads;
    }
  } else {
    // ---- find the nearest window holding an inclusive prefix ----
    unsigned prefixes;
    while (true) {
      read_window(st, end, epoch, lane, state, v);
      prefixes = __ballot_sync(full, state == state_prefix && end - 31 + lane >= 0);
      if (prefixes) break;
      end -= warp_threads;
    }
    // ---- fold forward, one tile at a time, back up to tile - 1 ----
    T acc;
    while (true) {
      int from = 0;
      if (prefixes) {
        const int p = warp_threads - 1 - __clz(prefixes);
        acc = shfl_idx(full, v, p);
        from = p + 1;
      }
      for (int l = from; l < warp_threads; ++l) acc = op(acc, shfl_idx(full, v, l));
      end += warp_threads;
      if (end >= tile) return acc;
      read_window(st, end, epoch, lane, state, v);
      prefixes = __ballot_sync(full, state == state_prefix);
    }
  }
}

}  // namespace detail
}  // namespace carry
