// Moving a blocked tile between registers and shared memory, shared by the four shared-memory block scans.
#pragma once

#include "../util/config.hpp"

namespace carry {
namespace detail {

/// Thread t writes its ITEMS values to s[t*ITEMS ...]; then the block waits.
template <class T, int ITEMS>
__device__ __forceinline__ void stage_tile(T* s, const T (&items)[ITEMS]) {
  CARRY_UNROLL
  for (int j = 0; j < ITEMS; ++j) s[threadIdx.x * ITEMS + j] = items[j];
  __syncthreads();
}

/// Reads a scanned tile back: thread t's values, the inclusive value just before its first item (for
/// t > 0), and the tile's aggregate (the last of tile_items).
template <class T, int ITEMS>
__device__ __forceinline__ void read_scanned_tile(const T* s, int tile_items, T (&items)[ITEMS],
                                                  T& thread_prefix, T& aggregate) {
  const int first = threadIdx.x * ITEMS;
  CARRY_UNROLL
  for (int j = 0; j < ITEMS; ++j) items[j] = s[first + j];
  if (first > 0) thread_prefix = s[first - 1];
  aggregate = s[tile_items - 1];
}

} // namespace detail
} // namespace carry
