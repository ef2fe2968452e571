// The small-input sort: one cluster of up to 16 blocks runs every pass in one launch, each block ranking
// its tile with the engine's multisplit and the blocks' digit counts meeting in distributed shared memory.
#pragma once

#include <cstdint>

#include <cooperative_groups.h>

#include "../../scan/block_scan.cuh"
#include "../../scan/operators.hpp"
#include "digit.cuh"
#include "plan.hpp"

namespace carry {
namespace radix_detail {

/// What the cluster sort needs to know of the call.
struct cluster_args {
  detail::tile_plan tiles; // one tile per block; the grid is one cluster
  int passes = 0;
  int begin_bit = 0, end_bit = 0;
  bool descending = false;
};

/// Every pass over the whole input, block b (cluster rank b) owning tile b. Per pass:
///   load tile b from the pass's source and rank it (multisplit; radix_tuning::cluster_padded: as
///   block::tile_fill::padded, no per-item checks); publish its digit counts in shared memory;
///   cluster barrier (every block's counts visible; at the first pass also: every block started);
///   thread d sums digit d's counts over all blocks (distributed shared memory reads) and over the blocks
///   before b; the engine's block scan of the totals gives each digit's start;
///   scatter keys, then values, to the pass's destination; cluster barrier (the pass's global writes
///   visible to every block of the cluster; the counts free for the next pass; no block leaves while
///   another reads its shared memory).
template <int ITEMS, bool HAS_VALUES, class K, class V>
__global__ void __launch_bounds__(radix_tuning::threads)
    cluster_sort_kernel(pass_buffers<K> kb, pass_buffers<V> vb, cluster_args a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap(); // clusters need sm_90: the dispatch never launches this kernel on older devices
#else
  namespace cg = cooperative_groups;
  using storage = staged_tile_storage<ITEMS, HAS_VALUES, K, V>;
  using ms = typename storage::ranker;
  constexpr int radix = radix_tuning::radix;
  using scan_t = block_scan<std::uint32_t, radix_tuning::threads>;
  __shared__ storage ts;
  __shared__ std::uint32_t mine[radix]; // this tile's digit counts, read by every block of the cluster
  __shared__ typename scan_t::temp_storage scan_ts;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks();
  const std::int64_t base = a.tiles.tile_base(rank);
  const int valid = a.tiles.valid_items(rank);
  const int dd = threadIdx.x;
  for (int p = 0; p < a.passes; ++p) {
    const digit_spec spec = pass_digit(a.begin_bit, a.end_bit, p, radix_tuning::digit_bits, a.descending);
    // ---- load and rank ----
    K key[ITEMS];
    int pos[ITEMS];
    const radix_digit<K> digit{spec};
    const auto digit_at = [&](int i) { return static_cast<unsigned>(digit.bin_of(key[i])); };
    load_keys<ITEMS>(kb.src(p, a.passes) + base, valid, key);
    ms::template rank_by<radix_tuning::cluster_padded ? block::tile_fill::padded : block::tile_fill::checked>(
        ts.rank, digit_at, valid, pos);
    mine[dd] = static_cast<std::uint32_t>(ms::count(ts.rank, dd, valid));
    cluster.sync();
    // ---- digit totals and the counts of earlier blocks, from every block's shared memory ----
    std::uint32_t total[1] = {0}, before = 0;
    for (unsigned r = 0; r < blocks; ++r) {
      const std::uint32_t c = *cluster.map_shared_rank(&mine[dd], r);
      total[0] += c;
      before += r < rank ? c : 0u;
    }
    scan_t(scan_ts).exclusive_scan(total, std::uint32_t{0}, sum{});
    ts.adjust[dd] = std::uint64_t{total[0]} + before - static_cast<std::uint64_t>(ms::start(ts.rank, dd));
    // ---- scatter (its first barrier publishes the adjustments) ----
    const V* vsrc = HAS_VALUES ? vb.src(p, a.passes) + base : nullptr;
    scatter_tile<ITEMS, HAS_VALUES>(ts, digit, key, digit_at, pos, valid, kb.dst(p, a.passes), vsrc,
                                    HAS_VALUES ? vb.dst(p, a.passes) : nullptr);
    cluster.sync();
  }
#endif
}

} // namespace radix_detail
} // namespace carry
