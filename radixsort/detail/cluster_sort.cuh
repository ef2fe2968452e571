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

#ifdef CARRY_CLUSTER_TRACE
// the phase probe (validate/probe/probe_cluster.cu): thread 0's clock64 at 8 points of each pass
__device__ long long carry_cluster_trace[16][8][8];
__device__ unsigned long long carry_cluster_gt[16][2]; // %globaltimer as each block starts and ends
#define CARRY_CTRACE(k) \
  do { if (threadIdx.x == 0 && p < 8) carry_cluster_trace[rank][p][k] = clock64(); } while (0)
#define CARRY_CTIME(slot) \
  do { if (threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(carry_cluster_gt[rank][slot])); } while (0)
#else
#define CARRY_CTRACE(k) do { } while (0)
#define CARRY_CTIME(slot) do { } while (0)
#endif

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
///   load tile b from the pass's source; the multisplit's histogram and scan of it (rank_early_by;
///   radix_tuning::cluster_padded: block::tile_fill::padded, no per-item checks) give digit d's count;
///   every block's warps send their 256 counts into every block's inbox through the engine's mailbox
///   (16-byte st.async counted on the receiver's transaction barrier; at the first pass after a cluster
///   barrier: every block started, its barrier initialised); the ranking rounds run while the counts
///   travel; mailbox_wait gives this block every block's counts;
///   thread d sums digit d's counts over all blocks and over the blocks before b;
///   the engine's block scan of the totals gives each digit's start;
///   scatter keys, then values, to the pass's destination; cluster barrier (the pass's global writes
///   visible to every block; every inbox read before the next pass's sends), but for the last pass.
template <int ITEMS, bool HAS_VALUES, class K, class V>
__global__ void __launch_bounds__(radix_tuning::threads)
    cluster_sort_kernel(pass_buffers<K> kb, pass_buffers<V> vb, cluster_args a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap(); // clusters need sm_90: the dispatch never launches this kernel on older devices
#else
  namespace cg = cooperative_groups;
  using storage = staged_tile_storage<ITEMS, HAS_VALUES, K, V, radix_digit<K>, radix_tuning::cluster_counts>;
  using ms = typename storage::ranker;
  constexpr int radix = radix_tuning::radix;
  constexpr block::tile_fill fill = radix_tuning::cluster_padded ? block::tile_fill::padded : block::tile_fill::checked;
  using scan_t = block_scan<std::uint32_t, radix_tuning::threads, block_scan_algorithm::coarsened, 1,
                            static_cast<warp_scan_shape>(radix_tuning::scan_warps)>;
  static_assert(storage::tile_items < 65536, "carry: a tile's digit count fits 16 bits");
  __shared__ storage ts;
  __shared__ alignas(16) std::uint16_t counts[radix_tuning::cluster_tiles][radix]; // inbox: [r][d] from block r
  __shared__ std::uint64_t counts_full; // the inbox's transaction barrier
  __shared__ typename scan_t::temp_storage scan_ts;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), blocks = cluster.num_blocks();
  const std::int64_t base = a.tiles.tile_base(rank);
  const int valid = a.tiles.valid_items(rank);
  const int dd = threadIdx.x;
  const unsigned counts_bytes = lookback::mailbox_bytes<radix, std::uint16_t>(static_cast<int>(blocks));
  CARRY_CTIME(0);
  lookback::mailbox_start(&counts_full, counts_bytes); // armed for the first pass's counts
  lookback::cluster_started();
  for (int p = 0; p < a.passes; ++p) {
    CARRY_CTRACE(0);
    const digit_spec spec = pass_digit(a.begin_bit, a.end_bit, p, radix_tuning::digit_bits, a.descending);
    // ---- load and rank; every block's count of digit dd ----
    K key[ITEMS];
    int pos[ITEMS];
    const radix_digit<K> digit{spec};
    const auto digit_at = [&](int i) { return static_cast<unsigned>(digit.bin_of(key[i])); };
    load_keys<ITEMS>(kb.src(p, a.passes) + base, valid, key);
    int start = 0; // where digit dd starts in this tile
    ms::template rank_early_by<fill>(ts.rank, digit_at, valid, pos, [&](int s, int c) {
      CARRY_CTRACE(1);
      if (p == 0) lookback::cluster_wait(); // every block started: its inbox may be written
      lookback::mailbox_send<radix>(&counts[0][0], &counts_full, static_cast<std::uint16_t>(c),
                                    static_cast<int>(rank), static_cast<int>(blocks));
      start = s;
      CARRY_CTRACE(2);
    });
    CARRY_CTRACE(3);
    lookback::mailbox_wait(&counts_full, static_cast<unsigned>(p) & 1u); // every block's counts in the inbox
    CARRY_CTRACE(4);
    std::uint32_t total[1] = {0}; // digit dd's keys in the whole input
    std::uint32_t before = 0;     // ... in the tiles before this one
    for (unsigned r = 0; r < blocks; ++r) {
      const std::uint32_t c = counts[r][dd];
      total[0] += c;
      before += r < rank ? c : 0u;
    }
    // the next exchange's bytes: after this block's wait, so before any block can send them
    if (threadIdx.x == 0 && p + 1 < a.passes) lookback::mailbox_expect(&counts_full, counts_bytes);
    scan_t(scan_ts).exclusive_scan(total, std::uint32_t{0}, sum{});
    ts.adjust[dd] = std::uint64_t{total[0]} + before - static_cast<std::uint64_t>(start);
    CARRY_CTRACE(5);
    // ---- scatter (its first barrier publishes the adjustments; mailbox_wait's barrier came after every
    // thread's ranking rounds, so the stage may overwrite the counters: RANKED) ----
    const V* vsrc = HAS_VALUES ? vb.src(p, a.passes) + base : nullptr;
    scatter_tile<ITEMS, HAS_VALUES, false, true>(ts, digit, key, digit_at, pos, valid, kb.dst(p, a.passes), vsrc,
                                    HAS_VALUES ? vb.dst(p, a.passes) : nullptr);
    CARRY_CTRACE(6);
    // ---- end of pass: a cluster barrier before the next pass reads what every block wrote. The last pass
    // has none (radixsort/tuning.hpp records the measurement): no block reads another's writes after it,
    // and every block's inbox has received all it expects (mailbox_wait) before the block can leave ----
    if (p + 1 == a.passes) break;
    cluster.sync();
    CARRY_CTRACE(7);
  }
  CARRY_CTIME(1);
#endif
}

} // namespace radix_detail
} // namespace carry
