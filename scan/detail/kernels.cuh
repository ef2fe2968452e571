// The scan engine's kernels: each declares its shared memory and hands the tile to its agent.
#pragma once

#include "hierarchical_agents.cuh"
#include "../agent/single_pass_agent.cuh"
#include "small_agent.cuh"
#include "../agent/staged_agent.cuh"

namespace carry {
namespace detail {

/// Phase 1 (upsweep) of the hierarchical pass, with phase 2 (spine) folded in: the last block to finish
/// its tile (arrivals counted on a counter the prepare step zeroed) scans the tile totals, so a call
/// costs two launches after the prepare step. With spine_counter == nullptr (the reduction, over any
/// input iterator), blocks only write their totals.
template <class Policy, class T, class Op, class InIt = const T*>
__global__ void __launch_bounds__(Policy::block_threads)
    upsweep_kernel(InIt in, T* totals, tile_plan plan, Op op, bool vec, std::uint32_t* spine_counter) {
  using up = upsweep_agent<Policy, T, Op>;
  using spine = spine_agent<Policy, T, Op>;
  __shared__ union {
    typename up::temp_storage up;
    typename spine::temp_storage spine;
  } ts;
  __shared__ bool last;
  up::consume(ts.up, in, totals, plan, op, vec, blockIdx.x);
  if (spine_counter == nullptr) return;
  // ---- the last block to arrive runs the spine ----
  if (threadIdx.x == 0) {
    __threadfence(); // this tile's total is visible before the arrival is counted
    lookback::wait_for_previous_grid();
    last = lookback::take_ticket(spine_counter) == plan.num_tiles - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  spine::consume(ts.spine, totals, plan.num_tiles, op);
}

template <class Policy, bool EXCLUSIVE, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    downsweep_kernel(const T* in, T* out, const T* scanned_totals, tile_plan plan, Op op, T init, bool vec_in,
                     bool vec_out) {
  using agent = downsweep_agent<Policy, EXCLUSIVE, T, Op>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, in, out, scanned_totals, plan, op, init, vec_in, vec_out, blockIdx.x);
}

/// The single pass, one launch: Agent is a single_pass_agent (transposed tiles, ticket + look-back), a
/// staged_agent (the same with the tile in shared memory) or a small_agent (warp-striped tiles of small
/// inputs, in one of its modes).
template <class Agent, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    single_pass_kernel(const T* in, T* out, tile_plan plan, Op op, T init, scan_state<T> state, bool vec_in,
                       bool vec_out) {
  __shared__ typename Agent::temp_storage ts;
  Agent::consume(ts, in, out, plan, op, init, state, vec_in, vec_out);
}

/// The single pass over any input iterator into any output iterator, accumulating in T (a staged_agent).
template <class Agent, class InIt, class OutIt, class T, class Op>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    any_input_kernel(InIt in, OutIt out, tile_plan plan, Op op, T init, scan_state<T> state, bool vec_in,
                     bool vec_out) {
  __shared__ typename Agent::temp_storage ts;
  Agent::consume(ts, in, out, plan, op, init, state, vec_in, vec_out);
}

/// The reduction's spine: folds num_totals values in order onto init (num_totals == 0: writes init).
template <class Policy, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    reduce_spine_kernel(const T* totals, std::int64_t num_totals, T* out, Op op, T init) {
  using agent = reduce_spine_agent<Policy, T, Op>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, totals, num_totals, out, op, init);
}

/// The reduction's spine: folds num_items items of any input iterator (the tile totals, or a one-tile
/// input itself) in order onto init into *out (num_items == 0: writes init).
template <class Policy, class T, class Op, class InIt, class OutIt>
__global__ void __launch_bounds__(Policy::block_threads)
    reduce_spine_kernel(InIt in, std::int64_t num_items, OutIt out, Op op, T init) {
  using agent = reduce_spine_agent<Policy, T, Op>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, in, num_items, out, op, init);
}

} // namespace detail
} // namespace carry
