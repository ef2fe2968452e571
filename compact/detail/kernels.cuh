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

/// Phase 1 where the items alone decide (an index tile's counts_alone selection: nothing read from memory):
/// `warps` warps a tile (1, 2, 4 or 8; a block of 8 warps holds 8 / warps tiles), their lanes striding the
/// tile's items, each tile's count the engine's sum over its warps: small blocks without the agent's shared
/// storage, so the launch is one short wave and the scatter after it starts at once.
template <class Policy, class InIt, class Sel>
__global__ void __launch_bounds__(256)
    count_alone_kernel(InIt in, Sel sel, tile_plan plan, int warps, std::uint64_t* counts) {
  using sums_t = block_group_sums<256>;
  __shared__ typename sums_t::temp_storage sums;
  lookback::allow_dependents(); // a count + scatter pair: the scatter may start loading now
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t tile = std::int64_t{blockIdx.x} * (8 / warps) + warp / warps;
  const int slice = warp % warps, stride = 32 * warps;
  int c = 0;
  if (tile < plan.num_tiles) {
    const int valid = plan.valid_items(tile);
    const auto picked = index_selection<Policy, Sel>::picked(sel, in, plan.tile_base(tile));
    const int first = slice * 32 + lane;
    if (valid == Policy::tile_items) {
#pragma unroll 8
      for (int i = first; i < Policy::tile_items; i += stride) c += picked(i) ? 1 : 0;
    } else {
      for (int i = first; i < valid; i += stride) c += picked(i) ? 1 : 0;
    }
  }
  const int total = sums_t(sums).sum(c, warps);
  if (threadIdx.x < 8 / warps && std::int64_t{blockIdx.x} * (8 / warps) + threadIdx.x < plan.num_tiles)
    counts[std::int64_t{blockIdx.x} * (8 / warps) + threadIdx.x] = static_cast<std::uint64_t>(total);
}

/// Phase 1 of a flagged stable partition: each tile's flags read once into its selection bits (flag_bits:
/// 16-byte chunks on full tiles of aligned flags), the bits stored to `words` (the tile's selection_words
/// from tile * that on; zero past the input's end) and their count to `counts`, so that the scatter
/// reads a bit an item (by_bits) instead of the flags.
template <class Policy, class FlagIt>
__global__ void __launch_bounds__(Policy::block_threads)
    count_bits_kernel(by_flags<FlagIt> sel, tile_plan plan, std::uint64_t* counts, std::uint32_t* words) {
  constexpr int tile_words = selection_words<Policy>();
  using reduce_t = block_reduce<int, Policy::block_threads, 1>;
  __shared__ std::uint32_t bits[tile_words];
  __shared__ typename reduce_t::temp_storage reduce;
  lookback::allow_dependents(); // the scatter may start; it waits for these words before it reads them
  const std::int64_t tile = blockIdx.x, base = plan.tile_base(tile);
  flag_bits<Policy>(bits, sel.flags + base, plan.valid_items(tile), sel.vec);
  __syncthreads();
  std::uint32_t* out = words + tile * tile_words;
  int c = 0;
  for (int w = static_cast<int>(threadIdx.x); w < tile_words; w += Policy::block_threads) {
    out[w] = bits[w];
    c += __popc(bits[w]);
  }
  c = reduce_t(reduce).reduce_live(c, sum{}, Policy::block_threads);
  if (threadIdx.x == 0) counts[tile] = static_cast<std::uint64_t>(c);
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
    single_pass_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in, count_state state,
                       pass_flags how, NumT* d_num) {
  __shared__ typename Agent::temp_storage ts;
  Agent::single_pass(ts, in, sel, out, plan, vec_in, state, how, d_num);
}

/// Count + scatter: the scatter with the scan of the tile counts folded in.
template <class Agent, class InIt, class Sel, class OutIt, class NumT>
__global__ void __launch_bounds__(Agent::block_threads, Agent::min_blocks)
    scatter_after_counts_kernel(InIt in, Sel sel, OutIt out, tile_plan plan, bool vec_in,
                                const std::uint64_t* counts, NumT* d_num) {
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
