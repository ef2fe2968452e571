// The compaction kernels: each declares its agent's shared memory and hands it the tile.
#pragma once

#include "agents.cuh"

namespace carry {
namespace compact_detail {

/// Three kernels, phase 1 (and count + scatter's first launch): tile counts.
template <class Agent, class InIt, class Sel>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    count_kernel(InIt in, Sel sel, tile_plan plan, bool vec_in, std::uint64_t* counts) {
  __shared__ typename Agent::temp_storage ts;
  Agent::count(ts, in, sel, plan, blockIdx.x, vec_in, counts);
}

/// Three kernels, phase 3: scatter. Blocks take the tiles from the last one back, so the first blocks
/// read the tiles phase 1 read last, which the L2 may still hold.
template <class Agent, class InIt, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    scatter_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in, const std::uint64_t* scanned,
                   NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::scatter(ts, in, sel, out, plan, plan.num_tiles - 1 - blockIdx.x, vec_in, scanned, d_num);
}

/// The single pass (or the one-tile pass: how.ticketed false).
template <class Agent, class InIt, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    single_pass_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in, count_state state, pass_flags how,
                       NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::single_pass(ts, in, sel, out, plan, vec_in, state, how, d_num);
}

/// Count + scatter: the scatter with the scan of the tile counts folded in.
template <class Agent, class InIt, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    scatter_after_counts_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in, const std::uint64_t* counts,
                                NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::scatter_after_counts(ts, in, sel, out, plan, vec_in, counts, d_num);
}

/// Small inputs: one thread-block cluster of tiles (compact_agent::cluster_pass).
template <class Agent, class InIt, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    cluster_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in, NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::cluster_pass(ts, in, sel, out, plan, vec_in, d_num);
}

/// The count of an empty input (d_num: a pointer or any output iterator).
template <class NumIt, class V>
__global__ void write_count_kernel(NumIt d_num, V value) {
  *d_num = value;
}

} // namespace compact_detail
} // namespace carry
