// Block scan 2: Kogge-Stone with two shared-memory buffers, one barrier per step.
#pragma once

#include "../util/tree.hpp"
#include "shared_tile.cuh"

namespace carry {
namespace block {

/// As kogge_stone, but each step reads one buffer and writes the other, so the barrier that guarded
/// the in-place write disappears: one barrier per step, twice the shared memory.
template <class T, int BLOCK_THREADS, int ITEMS>
struct kogge_stone_double_buffer {
  static constexpr bool thread_local_result = false;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS;
  struct temp_storage {
    T buf[2][tile_items];
  };

  template <class Op>
  __device__ static void scan(temp_storage& ts, T (&items)[ITEMS], Op op, T& thread_prefix, T& aggregate) {
    const int tid = threadIdx.x;
    detail::stage_tile(ts.buf[0], items);
    int src = 0;
    for (int stride = 1; stride < tile_items; stride *= 2) {
      CARRY_UNROLL
      for (int m = 0; m < ITEMS; ++m) {
        int k = tid + m * BLOCK_THREADS;
        ts.buf[src ^ 1][k] = detail::kogge_stone_node(ts.buf[src], k, stride, op);
      }
      src ^= 1;
      __syncthreads(); // the one barrier: this step's outputs are the next step's inputs
    }
    detail::read_scanned_tile(ts.buf[src], tile_items, items, thread_prefix, aggregate);
  }
};

} // namespace block
} // namespace carry
