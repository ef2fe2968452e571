// Block scan 1: Kogge-Stone over the tile in shared memory, in place, two barriers per step.
#pragma once

#include "../util/tree.hpp"
#include "shared_tile.cuh"

namespace carry {
namespace block {

/// The tile (BLOCK_THREADS x ITEMS, blocked) is scanned in log2(tile) steps; at each step every element
/// adds the one `stride` before it. In place, so each step reads all inputs, waits, then writes.
/// Work: tile * log2(tile) operations. On return `items` hold the block-inclusive scan.
template <class T, int BLOCK_THREADS, int ITEMS>
struct kogge_stone {
  static constexpr bool thread_local_result = false;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS;
  struct temp_storage {
    T s[tile_items];
  };

  template <class Op>
  __device__ static void scan(temp_storage& ts, T (&items)[ITEMS], Op op, T& thread_prefix, T& aggregate) {
    const int tid = threadIdx.x;
    detail::stage_tile(ts.s, items);
    for (int stride = 1; stride < tile_items; stride *= 2) {
      T next[ITEMS];
      CARRY_UNROLL
      for (int m = 0; m < ITEMS; ++m)
        next[m] = detail::kogge_stone_node(ts.s, tid + m * BLOCK_THREADS, stride, op);
      __syncthreads(); // every input of this step has been read
      CARRY_UNROLL
      for (int m = 0; m < ITEMS; ++m) ts.s[tid + m * BLOCK_THREADS] = next[m];
      __syncthreads(); // every output of this step is in place
    }
    detail::read_scanned_tile(ts.s, tile_items, items, thread_prefix, aggregate);
  }
};

} // namespace block
} // namespace carry
