// Block scan 4: Blelloch (up-sweep + down-sweep) in shared memory; natively exclusive.
#pragma once

#include "../util/plan.hpp"
#include "../util/tree.hpp"
#include "shared_tile.cuh"

namespace carry {
namespace block {

/// The up-sweep builds the reduction tree; the root is replaced by a seed and the down-sweep hands each
/// node's prefix to its left child and prefix (+) left-sum to its right child: an exclusive scan seeded
/// with the root value. To need no identity element, the tile is shifted left by one and x0 is the
/// seed, which makes the exclusive result the inclusive scan of the tile. Work about 2 * tile.
template <class T, int BLOCK_THREADS, int ITEMS>
struct blelloch {
  static constexpr bool thread_local_result = false;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS;
  static constexpr int padded = detail::next_pow2(tile_items);
  struct temp_storage {
    T s[padded];
  };

  template <class Op>
  __device__ static void scan(temp_storage& ts, T (&items)[ITEMS], Op op, T& thread_prefix, T& aggregate) {
    const int tid = threadIdx.x;
    // Slot p holds x(p+1); x0 goes straight to the root as the seed.
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j) {
      int p = tid * ITEMS + j - 1;
      ts.s[p < 0 ? padded - 1 : p] = items[j];
    }
    __syncthreads();
    // ---- up-sweep (the root keeps its seed: no live node targets it) ----
    const int live = tile_items - 1;
    for (int stride = 1; stride < padded / 2; stride *= 2) {
      const int nodes = detail::blelloch_up_nodes(live, stride);
      for (int k = tid; k < nodes; k += BLOCK_THREADS) detail::brent_kung_up_node(ts.s, k, stride, op);
      __syncthreads();
    }
    // ---- down-sweep ----
    for (int stride = padded / 2; stride >= 1; stride /= 2) {
      const int nodes = detail::blelloch_down_nodes(tile_items, padded, stride);
      for (int k = tid; k < nodes; k += BLOCK_THREADS) detail::blelloch_down_node(ts.s, k, stride, op);
      __syncthreads();
    }
    detail::read_scanned_tile(ts.s, tile_items, items, thread_prefix, aggregate);
  }
};

} // namespace block
} // namespace carry
