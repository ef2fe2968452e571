// Tile tickets: tiles go out in the order blocks start, so a tile's predecessors are running or done.
#pragma once

#include <cstdint>

#include "../util/config.hpp"

namespace carry {
namespace lookback {

/// Waits until the grid this one was launched after as its programmatic dependent (launch_prepared: the
/// prepare step that cleared the counter and status words, or the kernel before) has completed and its
/// writes are visible. Launched without a programmatic dependency, it returns at once
/// (the stream order already holds). Everything before it may only read the call's inputs.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the grid launched after this one as its programmatic dependent start now (it waits for this
/// grid's completion and writes in wait_for_previous_grid). A no-op without such a dependent.
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

/// Hands out tickets 0, 1, 2, ... from a counter the prepare step set to 0. Call after wait_for_previous_grid.
__device__ __forceinline__ std::uint32_t take_ticket(std::uint32_t* counter) {
  return atomicAdd(counter, 1u);
}

/// The calling block's tile: thread 0 waits for the prepare step, takes a ticket into `slot` (shared
/// memory), every thread reads it.
__device__ __forceinline__ std::int64_t block_ticket(std::uint32_t& slot, std::uint32_t* counter) {
  if (threadIdx.x == 0) {
    wait_for_previous_grid();
    slot = take_ticket(counter);
  }
  __syncthreads();
  return slot;
}

} // namespace lookback
} // namespace carry
