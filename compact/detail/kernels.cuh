// The compaction kernels: each declares its shared memory and hands its tile to the agent.
#pragma once

#include "agents.cuh"

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

/// The single pass (or the one-tile pass, `ticketed` false).
template <class Policy, bool PARTITION, class T, class InIt, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Policy::block_threads)
    single_pass_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in, count_state state, bool ticketed,
                       NumT* d_num) {
  using agent = compact_agent<Policy, PARTITION, T, Sel>;
  __shared__ typename agent::temp_storage ts;
  agent::single_pass(ts, in, sel, out, plan, vec_in, state, ticketed, d_num);
}

/// The count of an empty input.
template <class NumT>
__global__ void write_count_kernel(NumT* d_num, NumT value) {
  *d_num = value;
}

} // namespace compact_detail
} // namespace carry
