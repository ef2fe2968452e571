// The cluster sort's agent: one block (cluster rank b, tile b) of the small-input sort, which runs every pass
// in one launch, each block ranking its tile with the engine's multisplit and the blocks' digit counts
// meeting in distributed shared memory (the engine's mailbox).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cooperative_groups.h>

#include "../../scan/block_scan.cuh"
#include "../../scan/lookback/cluster.cuh"
#include "../../scan/operators.hpp"
#include "block_sort.cuh"
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

/// The cluster kernel's shared memory beside its tile: the inbox of every block's digit counts ([r][d]
/// from block r), its transaction barrier, the digits' scan, and for the local form (LOCAL) the top
/// digit's output starts and the blocks' ranges.
template <class Scan, bool LOCAL>
struct cluster_beside {
  static constexpr int radix = radix_tuning::radix;
  alignas(16) std::uint16_t counts[radix_tuning::cluster_tiles][radix];
  std::uint64_t counts_full;
  typename Scan::temp_storage scan;
  std::uint32_t starts[LOCAL ? radix : 1];
  std::uint32_t lo[LOCAL ? radix_tuning::cluster_tiles + 1 : 1];
};

/// The cluster kernel's shared memory for tiles of THREADS x ITEMS: the tile's storage while tiles are
/// exchanged and the local phase's after its barrier share their bytes (`shared`), static up to 48 KB or
/// dynamic for the wide blocks (radix_tuning::cluster_wide: 512 threads, whose counters alone are 32 KB);
/// `beside` (cluster_beside) is static beside it.
template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS, class P = radix_tuning::default_policy>
struct cluster_layout {
  static constexpr int radix = radix_tuning::radix;
  using storage =
      staged_tile_storage<ITEMS, HAS_VALUES, K, V, radix_digit<K>, P::cluster_counts, false, THREADS, P>;
  using scan_t = block_scan<std::uint32_t, THREADS, block_scan_algorithm::coarsened, 1,
                            static_cast<warp_scan_shape>(P::scan_warps)>;
  static constexpr int local_items = radix_tuning::cluster_local_items(ITEMS);
  using local_storage = block_sort_storage<local_items, HAS_VALUES, K, V, THREADS, P>;
  static constexpr bool dynamic = THREADS > radix_tuning::threads;
  // the local form: tiles of up to cluster_local_max_items a thread, where its storage fits
  static constexpr bool local_form =
      P::cluster_local && ITEMS <= P::cluster_local_max_items &&
      (dynamic || sizeof(local_storage) + sizeof(cluster_beside<scan_t, true>) <=
                      static_cast<std::size_t>(radix_tuning::static_shared_max));
  using beside = cluster_beside<scan_t, local_form>;
  union shared {
    storage tile;
    std::conditional_t<local_form, local_storage, char> local;
  };
  static constexpr std::size_t dynamic_bytes =
      dynamic ? sizeof(shared) : 0; // the launch's dynamic shared memory
};

/// One block of the cluster sort: its tile, its shared memory, and the passes.
/// Per pass (lsd_passes):
///   load tile b from the pass's source; exchange_counts: the multisplit's histogram and scan of it
///   (rank_early_by; radix_tuning::cluster_padded: block::tile_fill::padded, no per-item checks) give digit
///   d's count; every block's warps send their 256 counts into every block's inbox through the engine's
///   mailbox (16-byte st.async counted on the receiver's transaction barrier; at the first exchange after a
///   cluster barrier: every block started, its barrier initialised); the ranking rounds run while the
///   counts travel; mailbox_wait gives this block every block's counts; thread d sums digit d's counts
///   over all blocks and over the blocks before b; the engine's block scan of the totals gives each
///   digit's start;
///   scatter keys, then values, to the pass's destination; cluster barrier (the pass's global writes
///   visible to every block; every inbox read before the next pass's sends), but for the last pass.
/// The local form (local_top_pass; cluster_layout::local_form, two passes or more): the top digit's pass
/// comes first, as above up to the digits' starts; when every block's range of digits (local_owner,
/// local_ranges) holds at most the local storage's keys, it scatters in -> out, a cluster barrier
/// follows, and block b sorts its range of out by every digit, LSD, in its own shared memory into the
/// caller's target (sort_block_range; a range holds several top digits, so the top one is among them): no
/// more exchanges or barriers. Otherwise a cluster barrier, and the LSD passes (without the top one when
/// its digit is constant and the result may land in out: its scatter would keep the order).
/// THREADS: 256, or 512 for the wide blocks (threads d < 256 own digit d; the others rank and scatter).
template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS, class P = radix_tuning::default_policy>
struct cluster_agent {
  using layout = cluster_layout<ITEMS, HAS_VALUES, K, V, THREADS, P>;
  using storage = typename layout::storage;
  using ms = typename storage::ranker;
  using scan_t = typename layout::scan_t;
  using local_storage = typename layout::local_storage;
  static constexpr int radix = radix_tuning::radix;
  static constexpr block::tile_fill fill =
      P::cluster_padded ? block::tile_fill::padded : block::tile_fill::checked;
  static constexpr int local_items = layout::local_items;
  static constexpr bool local_form = layout::local_form;
  static_assert(storage::tile_items < 65536, "carry: a tile's digit count fits 16 bits");
  static_assert(THREADS >= radix && THREADS % 32 == 0, "carry: a thread for every digit");

  typename layout::shared& sm;
  typename layout::beside& bs;
  const pass_buffers<K>& kb;
  const pass_buffers<V>& vb;
  const cluster_args& a;
  unsigned rank, blocks;
  std::int64_t base;
  int valid;
  int dd;            // this thread's digit, when digit_thread
  bool digit_thread; // thread dd owns digit dd
  unsigned counts_bytes;
  unsigned exchange = 0; // exchanges so far: the mailbox's phase

  __device__ __forceinline__ cluster_agent(typename layout::shared& sm_, typename layout::beside& bs_,
                                           const pass_buffers<K>& kb_, const pass_buffers<V>& vb_,
                                           const cluster_args& a_, unsigned rank_, unsigned blocks_)
      : sm(sm_), bs(bs_), kb(kb_), vb(vb_), a(a_), rank(rank_), blocks(blocks_),
        base(a_.tiles.tile_base(rank_)), valid(a_.tiles.valid_items(rank_)),
        dd(static_cast<int>(threadIdx.x)),
        digit_thread(THREADS == radix || static_cast<int>(threadIdx.x) < radix),
        counts_bytes(lookback::mailbox_bytes<radix, std::uint16_t>(static_cast<int>(blocks_))) {}

  /// One exchange of the counts of `digit` over the blocks' tiles `key`: returns the global offset of digit
  /// dd's first key of this tile minus its start in the tile (the scatter's adjustment), and digit dd's
  /// total and first output position through `total_out` and `first`.
  __device__ __forceinline__ std::uint64_t exchange_counts(const radix_digit<K>& digit, const K (&key)[ITEMS],
                                                           int (&pos)[ITEMS], std::uint32_t& total_out,
                                                           std::uint32_t& first) {
    auto& counts = bs.counts; // inbox: [r][d] from block r
    const auto digit_at = [&](int i) { return static_cast<unsigned>(digit.bin_of(key[i])); };
    int start = 0; // where digit dd starts in this tile
    // every block started (its inbox may be written): with one thread a digit, the wait overlaps the
    // tile's histogram (in on_counts); with more threads every thread waits here, at one place, before
    // ranking (the threads without a digit never enter on_counts; compute-sanitizer's racecheck did not
    // get through the wide blocks while their two halves waited at two places: NOTES.md)
    if constexpr (THREADS > radix)
      if (exchange == 0) lookback::cluster_wait();
    ms::template rank_early_by<fill>(sm.tile.rank, digit_at, valid, pos, [&](int s, int c) {
      if constexpr (THREADS == radix)
        if (exchange == 0) lookback::cluster_wait();
      lookback::mailbox_send<radix>(&counts[0][0], &bs.counts_full, static_cast<std::uint16_t>(c),
                                    static_cast<int>(rank), static_cast<int>(blocks));
      start = s;
    });
    lookback::mailbox_wait(&bs.counts_full, exchange & 1u); // every block's counts in the inbox
    ++exchange;
    std::uint32_t total[1] = {0}; // digit dd's keys in the whole input
    std::uint32_t before = 0;     // ... in the tiles before this one
    for (unsigned r = 0; r < blocks; ++r) {
      const std::uint32_t c = digit_thread ? counts[r][dd] : 0u;
      total[0] += c;
      before += r < rank ? c : 0u;
    }
    total_out = total[0];
    scan_t(bs.scan).exclusive_scan(total, std::uint32_t{0}, sum{});
    first = total[0];
    return std::uint64_t{total[0]} + before - static_cast<std::uint64_t>(start);
  }

  /// The local form's top pass (a.passes >= 2): true when the call is done (each block sorted its range
  /// alone); otherwise `k` is the number of LSD passes still to run.
  __device__ __forceinline__ bool local_top_pass(int& k) {
    auto& starts = bs.starts; // the top digit's output starts
    auto& lo = bs.lo;         // the blocks' ranges
    storage& ts = sm.tile;
    const int p = a.passes - 1; // ---- the local form: the top digit first ----
    const radix_digit<K> digit{pass_digit(a.begin_bit, a.end_bit, p, radix_tuning::digit_bits, a.descending)};
    K key[ITEMS];
    int pos[ITEMS];
    load_keys<ITEMS>(kb.in + base, valid, key);
    std::uint32_t total = 0, first = 0;
    const std::uint64_t adjust = exchange_counts(digit, key, pos, total, first);
    // ---- the blocks' ranges (local_ranges, in parallel): digit dd writes its start into lo[r] for
    // the blocks r after the previous digit's block up to its own ----
    const std::int64_t n = a.tiles.num_items;
    if (digit_thread) starts[dd] = first;
    if (dd <= static_cast<int>(blocks)) lo[dd] = static_cast<std::uint32_t>(n);
    __syncthreads();
    if (digit_thread) {
      const int own = local_owner(first, n, static_cast<int>(blocks));
      const int prev = dd == 0 ? -1 : local_owner(starts[dd - 1], n, static_cast<int>(blocks));
      for (int r = prev + 1; r <= own; ++r) lo[r] = first;
    }
    const bool constant = digit_thread && total == static_cast<std::uint64_t>(n); // every key has digit dd
    __syncthreads();
    const bool too_big = dd < static_cast<int>(blocks) &&
                         lo[dd + 1] - lo[dd] > static_cast<std::uint32_t>(local_storage::tile_items);
    if (!__syncthreads_or(too_big)) { // the same in every block: the same counts
      // ---- scatter by the top digit, in -> out; then each block its range, alone, by every digit ----
      if (digit_thread) ts.adjust[dd] = adjust;
      const auto digit_at = [&](int i) { return static_cast<unsigned>(digit.bin_of(key[i])); };
      scatter_tile<ITEMS, HAS_VALUES, false, true>(ts, digit, key, digit_at, pos, valid, kb.out,
                                                   HAS_VALUES ? vb.in + base : nullptr,
                                                   HAS_VALUES ? vb.out : nullptr);
      cooperative_groups::this_cluster()
          .sync(); // every block's scatter visible; after it no block touches another's shared memory
      const std::uint32_t lo_r = lo[rank], hi_r = lo[rank + 1];
      sort_block_range<local_items, HAS_VALUES>(
          sm.local, kb.out + lo_r, HAS_VALUES ? vb.out + lo_r : nullptr,
          const_cast<K*>(kb.target(a.passes)) + lo_r,
          HAS_VALUES ? const_cast<V*>(vb.target(a.passes)) + lo_r : nullptr, static_cast<int>(hi_r - lo_r),
          (1u << a.passes) - 1u, a.begin_bit, a.end_bit, a.descending);
      return true;
    }
    // ---- the LSD passes: their first exchange after every inbox is read; the top pass only when its
    // digit is not constant (or the result must land where all passes would put it) ----
    const bool top_constant = __syncthreads_or(constant);
    if (threadIdx.x == 0) lookback::mailbox_expect(&bs.counts_full, counts_bytes);
    if (top_constant && !kb.double_buffer) k = a.passes - 1;
    cooperative_groups::this_cluster().sync();
    return false;
  }

  /// The LSD passes 0 .. k - 1, each exchanging its counts.
  __device__ __forceinline__ void lsd_passes(int k) {
    storage& ts = sm.tile;
    for (int p = 0; p < k; ++p) {
      const digit_spec spec = pass_digit(a.begin_bit, a.end_bit, p, radix_tuning::digit_bits, a.descending);
      // ---- load and rank; every block's count of digit dd ----
      K key[ITEMS];
      int pos[ITEMS];
      const radix_digit<K> digit{spec};
      const auto digit_at = [&](int i) { return static_cast<unsigned>(digit.bin_of(key[i])); };
      load_keys<ITEMS>(kb.src(p, k) + base, valid, key);
      std::uint32_t total = 0, first = 0;
      const std::uint64_t adjust = exchange_counts(digit, key, pos, total, first);
      // the next exchange's bytes: after this block's wait, so before any block can send them
      if (threadIdx.x == 0 && p + 1 < k) lookback::mailbox_expect(&bs.counts_full, counts_bytes);
      if (digit_thread) ts.adjust[dd] = adjust;
      // ---- scatter (its first barrier publishes the adjustments; mailbox_wait's barrier came after every
      // thread's ranking rounds, so the stage may overwrite the counters: RANKED) ----
      const V* vsrc = HAS_VALUES ? vb.src(p, k) + base : nullptr;
      scatter_tile<ITEMS, HAS_VALUES, false, true>(ts, digit, key, digit_at, pos, valid, kb.dst(p, k), vsrc,
                                                   HAS_VALUES ? vb.dst(p, k) : nullptr);
      // ---- end of pass: a cluster barrier before the next pass reads what every block wrote. The last pass
      // has none: no block reads another's writes after it, and every block's inbox has received all it
      // expects (mailbox_wait) before the block can leave ----
      if (p + 1 == k) break;
      cooperative_groups::this_cluster().sync();
    }
  }

  /// Every pass of the call.
  __device__ __forceinline__ void run() {
    lookback::mailbox_start(&bs.counts_full, counts_bytes); // armed for the first exchange's counts
    lookback::cluster_started();
    int k = a.passes; // the LSD passes that run (the route's count)
    if constexpr (local_form)
      if (a.passes >= 2 && local_top_pass(k)) return;
    lsd_passes(k);
  }
};

} // namespace radix_detail
} // namespace carry
