// The compaction kernels: each declares its shared memory and hands its tile to the agent.
#pragma once

#include "staged_compact.cuh"

namespace carry {
namespace compact_detail {

/// Three kernels, phase 1: tile counts.
template <class Policy, class T, class InIt, class Sel>
__global__ void __launch_bounds__(Policy::block_threads)
    count_kernel(InIt in, Sel sel, tile_plan plan, bool vec_in, std::uint64_t* counts) {
  using agent = compact_agent<Policy, false, T, Sel>;
  __shared__ typename agent::temp_storage ts;
  agent::count(ts, in, sel, plan, blockIdx.x, vec_in, counts);
}

/// Three kernels, phase 3: scatter. Blocks take the tiles from the last one back, so the first blocks
/// read the tiles phase 1 read last, which the L2 may still hold.
template <class Policy, bool PARTITION, class T, class InIt, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Policy::block_threads)
    scatter_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in, const std::uint64_t* scanned,
                   NumT* d_num) {
  using agent = compact_agent<Policy, PARTITION, T, Sel>;
  __shared__ typename agent::temp_storage ts;
  agent::scatter(ts, in, sel, out, plan, plan.num_tiles - 1 - blockIdx.x, vec_in, scanned, d_num);
}

/// The single pass (or the one-tile pass: how.ticketed false).
template <class Policy, bool PARTITION, class T, class InIt, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Policy::block_threads)
    single_pass_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in, count_state state, pass_flags how,
                       NumT* d_num) {
  using agent = compact_agent<Policy, PARTITION, T, Sel>;
  __shared__ typename agent::temp_storage ts;
  agent::single_pass(ts, in, sel, out, plan, vec_in, state, how, d_num);
}

/// The single pass on staged tiles (pointer inputs whose items and flags pack into 16-byte chunks).
template <class Agent, class T, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    staged_single_pass_kernel(const T* in, Sel sel, OutIt out, tile_plan plan, bool vec_in, count_state state,
                              pass_flags how, NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::single_pass(ts, in, sel, out, plan, vec_in, state, how, d_num);
}

/// Three kernels, phase 1, on staged tiles.
template <class Agent, class T, class Sel>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    staged_count_kernel(const T* in, Sel sel, tile_plan plan, bool vec_in, std::uint64_t* counts) {
  __shared__ typename Agent::temp_storage ts;
  Agent::count(ts, in, sel, plan, blockIdx.x, vec_in, counts);
}

/// Three kernels, phase 3, on staged tiles; tiles from the last one back, as scatter_kernel.
template <class Agent, class T, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    staged_scatter_kernel(const T* in, Sel sel, OutIt out, tile_plan plan, bool vec_in, const std::uint64_t* scanned,
                          NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::scatter(ts, in, sel, out, plan, plan.num_tiles - 1 - blockIdx.x, vec_in, scanned, d_num);
}

/// Count + scatter: the scatter with the scan of the tile counts folded in (staged_compact_agent).
template <class Agent, class T, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    staged_scatter_after_counts_kernel(const T* in, Sel sel, OutIt out, tile_plan plan, bool vec_in,
                                       const std::uint64_t* counts, NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::scatter_after_counts(ts, in, sel, out, plan, vec_in, counts, d_num);
}

/// Small inputs: one thread-block cluster of staged tiles (staged_compact_agent::cluster_pass).
template <class Agent, class T, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    staged_cluster_kernel(const T* in, Sel sel, OutIt out, tile_plan plan, bool vec_in, NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::cluster_pass(ts, in, sel, out, plan, vec_in, d_num);
}

/// The count of an empty input.
template <class NumT>
__global__ void write_count_kernel(NumT* d_num, NumT value) {
  *d_num = value;
}

} // namespace compact_detail
} // namespace carry
