// The small-input sort: one cluster of up to 16 blocks runs every pass in one launch, each block ranking
// its tile with the engine's multisplit and the blocks' digit counts meeting in distributed shared memory.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cooperative_groups.h>

#include "../../scan/block_scan.cuh"
#include "../../scan/lookback/cluster.cuh"
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

/// Every pass over the whole input, block b (cluster rank b) owning tile b. Per pass, with early
/// counts (radix_tuning::cluster_early):
///   load tile b from the pass's source; the multisplit's histogram and scan of it (rank_early_by;
///   radix_tuning::cluster_padded: block::tile_fill::padded, no per-item checks) give digit d's count,
///   which thread d pushes into every block's inbox (lookback::cluster_push_all_arrive), arriving at the
///   cluster barrier; the ranking rounds run while the other blocks catch up; cluster_wait (at the
///   first pass, a barrier before it: every block started);
///   thread d sums digit d's counts over all blocks and over the blocks before b from its own inbox;
///   the engine's block scan of the totals gives each digit's start;
///   scatter keys, then values, to the pass's destination; cluster barrier (the pass's global writes
///   visible to every block; every inbox read before the next pass's pushes).
/// Without early counts: rank the tile (rank_by), publish the counts in this block's shared memory,
/// cluster barrier, and thread d reads digit d's count from every block (distributed shared memory).
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
  constexpr block::tile_fill fill = radix_tuning::cluster_padded ? block::tile_fill::padded : block::tile_fill::checked;
  using scan_t = block_scan<std::uint32_t, radix_tuning::threads>;
  static_assert(storage::tile_items < 65536, "carry: a tile's digit count fits 16 bits");
  using count_t = std::conditional_t<radix_tuning::cluster_early, std::uint16_t, std::uint32_t>;
  constexpr int slots = radix_tuning::cluster_early ? radix_tuning::cluster_tiles : 1;
  __shared__ storage ts;
  // early: every block's digit counts, pushed by each block (inbox[r][d]); else this tile's counts only
  __shared__ count_t counts[slots][radix];
  __shared__ typename scan_t::temp_storage scan_ts;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks();
  const std::int64_t base = a.tiles.tile_base(rank);
  const int valid = a.tiles.valid_items(rank);
  const int dd = threadIdx.x;
  if constexpr (radix_tuning::cluster_early) lookback::cluster_started();
  for (int p = 0; p < a.passes; ++p) {
    const digit_spec spec = pass_digit(a.begin_bit, a.end_bit, p, radix_tuning::digit_bits, a.descending);
    // ---- load and rank; every block's count of digit dd ----
    K key[ITEMS];
    int pos[ITEMS];
    const radix_digit<K> digit{spec};
    const auto digit_at = [&](int i) { return static_cast<unsigned>(digit.bin_of(key[i])); };
    load_keys<ITEMS>(kb.src(p, a.passes) + base, valid, key);
    int start = 0;               // where digit dd starts in this tile
    std::uint32_t total[1] = {0}; // digit dd's keys in the whole input
    std::uint32_t before = 0;     // ... in the tiles before this one
    if constexpr (radix_tuning::cluster_early) {
      ms::template rank_early_by<fill>(ts.rank, digit_at, valid, pos, [&](int s, int c) {
        if (p == 0) lookback::cluster_wait(); // every block started: its inbox may be written
        lookback::cluster_push_all_arrive<radix>(&counts[0][0], static_cast<count_t>(c), static_cast<int>(rank),
                                                 static_cast<int>(blocks));
        start = s;
      });
      lookback::cluster_wait(); // every block's counts in this block's inbox
      for (unsigned r = 0; r < blocks; ++r) {
        const std::uint32_t c = counts[r][dd];
        total[0] += c;
        before += r < rank ? c : 0u;
      }
    } else {
      ms::template rank_by<fill>(ts.rank, digit_at, valid, pos);
      start = ms::start(ts.rank, dd);
      counts[0][dd] = static_cast<count_t>(ms::count(ts.rank, dd, valid));
      cluster.sync();
      for (unsigned r = 0; r < blocks; ++r) {
        const std::uint32_t c = *cluster.map_shared_rank(&counts[0][dd], r);
        total[0] += c;
        before += r < rank ? c : 0u;
      }
    }
    scan_t(scan_ts).exclusive_scan(total, std::uint32_t{0}, sum{});
    ts.adjust[dd] = std::uint64_t{total[0]} + before - static_cast<std::uint64_t>(start);
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
