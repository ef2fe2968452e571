// The scan engine's kernels: each declares its shared memory and hands the tile to its agent.
#pragma once

#include "agents.cuh"

namespace carry {
namespace detail {

template <class Policy, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    upsweep_kernel(const T* in, T* totals, tile_plan plan, Op op, bool vec) {
  using agent = upsweep_agent<Policy, T, Op>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, in, totals, plan, op, vec, blockIdx.x);
}

template <class Policy, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads) spine_kernel(T* totals, std::int64_t num_totals, Op op) {
  using agent = spine_agent<Policy, T, Op>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, totals, num_totals, op);
}

template <class Policy, bool EXCLUSIVE, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    downsweep_kernel(const T* in, T* out, const T* scanned_totals, tile_plan plan, Op op, T init, bool vec_in,
                     bool vec_out) {
  using agent = downsweep_agent<Policy, EXCLUSIVE, T, Op>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, in, out, scanned_totals, plan, op, init, vec_in, vec_out, blockIdx.x);
}

template <class Policy, bool EXCLUSIVE, bool DETERMINISTIC, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    single_pass_kernel(const T* in, T* out, tile_plan plan, Op op, T init, single_pass_state<T> state,
                       std::uint32_t epoch, bool vec_in, bool vec_out) {
  using agent = single_pass_agent<Policy, EXCLUSIVE, DETERMINISTIC, T, Op>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, in, out, plan, op, init, state, epoch, vec_in, vec_out);
}

template <class Policy, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    reduce_spine_kernel(const T* totals, std::int64_t num_totals, T* out, Op op, T init) {
  using agent = reduce_spine_agent<Policy, T, Op>;
  __shared__ typename agent::temp_storage ts;
  agent::consume(ts, totals, num_totals, out, op, init);
}

}  // namespace detail
}  // namespace carry
