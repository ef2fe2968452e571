// Block scan 3: Brent-Kung (reduction tree + reverse tree) in shared memory; natively inclusive.
#pragma once

#include "../util/plan.hpp"
#include "../util/tree.hpp"
#include "shared_tile.cuh"

namespace carry {
namespace block {

/// Up-sweep: a reduction tree leaves the scan of every power-of-two-aligned prefix in place; the reverse
/// tree then distributes partial sums to the positions still missing them. Work about 2 * tile; any tile
/// size (virtually padded to a power of two: nodes that would target the padding are skipped).
template <class T, int BLOCK_THREADS, int ITEMS>
struct brent_kung {
  static constexpr bool thread_local_result = false;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS;
  static constexpr int padded = detail::next_pow2(tile_items);
  struct temp_storage {
    T s[tile_items];
  };

  template <class Op>
  __device__ static void scan(temp_storage& ts, T (&items)[ITEMS], Op op, T& thread_prefix, T& aggregate) {
    const int tid = threadIdx.x;
    detail::stage_tile(ts.s, items);
    // ---- reduction tree ----
    for (int stride = 1; stride < padded; stride *= 2) {
      const int nodes = detail::brent_kung_up_nodes(tile_items, stride);
      for (int k = tid; k < nodes; k += BLOCK_THREADS) detail::brent_kung_up_node(ts.s, k, stride, op);
      __syncthreads();
    }
    // ---- reverse tree ----
    for (int stride = padded / 4; stride >= 1; stride /= 2) {
      const int nodes = detail::brent_kung_down_nodes(tile_items, stride);
      for (int k = tid; k < nodes; k += BLOCK_THREADS) detail::brent_kung_down_node(ts.s, k, stride, op);
      __syncthreads();
    }
    detail::read_scanned_tile(ts.s, tile_items, items, thread_prefix, aggregate);
  }
};

} // namespace block
} // namespace carry
