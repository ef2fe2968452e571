// The compaction agent: one body for every pass (three kernels, single pass, cluster, count + scatter)
// over a staged or a register tile, with the engine's block scan, look-back and cluster exchange.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../scan/block_reduce.cuh"
#include "../../scan/block_scan.cuh"
#include "../../scan/lookback/cluster.cuh"
#include "../../scan/lookback/state.cuh"
#include "../../scan/lookback/ticket.cuh"
#include "../../scan/lookback/tile_prefix_op.cuh"
#include "../tuning.hpp"
#include "index_tile.cuh"
#include "staged_compact.cuh"

namespace carry {
namespace compact_detail {

/// The single pass's look-back state: 64-bit tile counts in the engine's default status words.
using count_format = lookback::default_format<std::uint64_t>;
using count_state = lookback::single_pass_state<count_format>;

/// How a single-pass launch runs: by ticket after the prepare step (else the input is one tile, block 0);
/// in place (fences order each tile's loads before its publish, and its look-back before its writes).
struct pass_flags {
  bool ticketed = false, in_place = false;
};

/// The blocks of a single pass's first wave (prefetch_beyond_blocks_per_sm an SM).
__device__ inline std::int64_t first_wave_blocks() {
  return std::int64_t{detail::sm_ids()} * compact_tuning::prefetch_beyond_blocks_per_sm;
}

/// The first tile an earlier single-pass tile asks the L2 for, AHEAD SMs' worth of tiles ahead: past the
/// first wave, so the first wave's loads go alone.
template <int AHEAD>
__device__ std::int64_t asked_from() {
  return detail::first_tile_asked(AHEAD, detail::sm_ids(), compact_tuning::prefetch_beyond_blocks_per_sm);
}

/// Whether this block warms the L2 with the tile launch order would give it before its ticket: the
/// engine's rule (detail::prefetch_guessed_tile, mode 2: full tiles of aligned pointers, only beyond one
/// wave of resident blocks; where tiles ask AHEAD SMs' worth ahead, only the blocks whose tile no earlier
/// tile asks for). `vec`: the tile's reads allow it (tile_t::prefetches).
template <class Policy, int AHEAD>
__device__ bool prefetch_guess(const tile_plan& plan, bool vec) {
  return Policy::prefetch && detail::prefetch_guessed_tile(2, blockIdx.x, plan.num_tiles, first_wave_blocks(),
                                                           vec, asked_from<AHEAD>());
}

/// The tile that tile `tile` asks the L2 for once its ticket is out, AHEAD SMs' worth of tiles ahead
/// (the engine's detail::tile_ahead, from asked_from), or -1: none, a partial tile, or reads that do not
/// allow it (`vec`).
template <int AHEAD>
__device__ std::int64_t prefetch_ahead_tile(const tile_plan& plan, std::int64_t tile, bool vec) {
  if constexpr (AHEAD == 0) {
    return -1;
  } else {
    const std::int64_t t = detail::tile_ahead(3 + AHEAD, tile, detail::sm_ids(), asked_from<AHEAD>());
    return vec && t >= 0 && t < plan.num_tiles - 1 ? t : -1;
  }
}

/// The look-back of a single-pass tile over the tile counts (the engine's decoupled look-back, no seed).
/// `publish` false: the last tile (nobody reads its words).
template <class Policy>
__device__ lookback::tile_prefix_op<Policy::lookback_delay_ns, false, count_format, sum>
count_prefix(const count_state& state, std::int64_t tile, bool last) {
  return {state.status, state.groups, tile, !last, sum{}, std::uint64_t{0}, false};
}

/// Thread 0 of a single-pass tile that stages its write (an index tile) announces the tile's count as
/// soon as the block scan gives it, before the staging, so later tiles' look-backs find it sooner.
/// Measured (H100, counting iterator, A/B in one run): select_if 99 % 2^24 40.5-40.9 -> 36.6-36.8 us,
/// 2^26 110.2 -> 96.9. Tiles that stage nothing (pointers) publish as they look back, as before: a build
/// that announced for every tile (and split the engine's callback) ran the reversed partition of u32
/// pointers at 2^28 in 924-926 us against 887-892.
template <class Policy>
__device__ void announce_count(const count_state& state, std::int64_t tile, bool last, int tile_count,
                               const pass_flags& how) {
  if (!how.ticketed || threadIdx.x != 0) return;
  if (how.in_place) __threadfence(); // the block's loads (done: the scan's barrier) before the publish
  count_prefix<Policy>(state, tile, last).announce(static_cast<std::uint64_t>(tile_count));
}

/// Warp 0 of a single-pass tile: publishes the tile's count (ANNOUNCED: already done by
/// announce_count), looks back with the engine's decoupled look-back, and leaves the count selected
/// before the tile in `before` (shared); 0 without a ticket (one tile). Every thread calls it; on return
/// `before` is readable by all. In place (never an index tile), fences order the block's loads before
/// its publish and the look-back's reads before its writes (see compact_agent::single_pass).
template <class Policy, bool ANNOUNCED>
__device__ void tile_selected_before(std::uint64_t& before, const count_state& state, std::int64_t tile,
                                     bool last, int tile_count, const pass_flags& how) {
  if (threadIdx.x < detail::warp_threads) {
    std::uint64_t b = 0;
    if (how.ticketed) {
      const auto prefix = count_prefix<Policy>(state, tile, last);
      const auto count = static_cast<std::uint64_t>(tile_count);
      tile_prefix<std::uint64_t> p;
      if constexpr (ANNOUNCED) {
        p = prefix.resolve(count);
      } else {
        if (how.in_place && threadIdx.x == 0) __threadfence();
        __syncwarp();
        p = prefix(count);
      }
      b = p.valid ? p.value : 0;
      if (how.in_place) __threadfence();
    }
    if (threadIdx.x == 0) before = b;
  }
  __syncthreads();
}

/// The tiles a compaction runs on: an index tile over iterators that are not pointers (nothing of the
/// items stored; tiles of whole words of bits), a staged tile from pointers whose items pack into 16-byte
/// chunks (every width from 1 to 16 bytes), else registers (a 12-byte struct).
enum class tile_kind { index, staged, registers };
template <class Policy, class T, class InIt>
constexpr tile_kind choose_tile() {
  if (!std::is_pointer<InIt>::value && 32 % Policy::items_per_thread == 0) return tile_kind::index;
  if (std::is_pointer<InIt>::value && detail::stageable<T, Policy::items_per_thread>())
    return tile_kind::staged;
  return tile_kind::registers;
}
template <class Policy, class T, class Sel, class InIt>
using compact_tile =
    std::conditional_t<choose_tile<Policy, T, InIt>() == tile_kind::index, index_tile<Policy, T, Sel>,
                       std::conditional_t<choose_tile<Policy, T, InIt>() == tile_kind::staged,
                                          staged_tile<Policy, T, Sel>, register_tile<Policy, T, Sel>>>;

/// Whether a compaction over InIt loads its items (and flags) as 16-byte chunks where aligned (staged
/// and index tiles), else as the register tile's vectors.
template <class Policy, class T, class InIt>
constexpr bool chunked_loads() {
  return choose_tile<Policy, T, InIt>() != tile_kind::registers;
}

/// The compaction agent, every pass of it: the tile's load and selection, the engine's block scan of
/// the per-thread counts, how the tile learns the counts before it (three kernels: the engine's scan of
/// the tile counts; single pass: the engine's look-back; cluster: the cluster exchange; count +
/// scatter: a block reduce of the counts), the tile's write. REVERSED: a partition's rejected items go
/// from the output's end back (CUB's layout), so no tile needs the total.
template <class Policy, bool PARTITION, class T, class Sel, class InIt, bool REVERSED = false>
struct compact_agent {
  using tile_t = compact_tile<Policy, T, Sel, InIt>;
  using count_scan = block_scan<int, Policy::block_threads, Policy::algorithm, 1>;
  using count_reduce = block_reduce<int, Policy::block_threads, 1>;
  using total_reduce = block_reduce<std::uint64_t, Policy::block_threads, 1>;
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = tile_t::min_blocks;
  /// How far ahead a single-pass tile asks the L2 (compact_tuning::tiles_ahead).
  static constexpr int ahead =
      compact_tuning::tiles_ahead(Policy::prefetch_ahead, choose_tile<Policy, T, InIt>() == tile_kind::index,
                                  PARTITION&& is_flag_selection<Sel>::value);
  struct temp_storage {
    typename tile_t::temp_storage tile;
    union {
      typename count_scan::temp_storage scan;
      typename count_reduce::temp_storage reduce;
      typename total_reduce::temp_storage totals;
    };
    std::uint64_t total;
    std::uint64_t selected_before;
    std::uint32_t ticket;
    std::uint32_t inbox[16]; // the cluster pass: every tile's count
  };

  /// Where the tile's rejected items go (a partition): stable, after every selected item and the earlier
  /// tiles' rejected ones, upward; reversed, from the end of the output back past the earlier tiles'.
  /// `total` (the selected count of the whole input) only matters to a stable partition.
  template <class OutIt>
  __device__ static auto rejected_of(OutIt out, const tile_plan& plan, std::int64_t base,
                                     std::uint64_t before, std::uint64_t total) {
    if constexpr (REVERSED)
      return rejected_output<OutIt, -1>{
          out, static_cast<std::int64_t>(reversed_rejected_offset(plan.num_items, base, before))};
    else
      return rejected_output<OutIt, 1>{out, static_cast<std::int64_t>(rejected_offset(total, base, before))};
  }

  /// Load, select, rank: the thread's mask, its offset among the tile's selected items, the tile's count.
  __device__ static unsigned load_and_count(temp_storage& ts, tile_t& t, InIt in, const Sel& sel,
                                            std::int64_t base, int valid, bool vec_in, int& thread_offset,
                                            int& tile_count) {
    const unsigned mask = t.load(ts.tile, sel, in, base, valid, vec_in);
    int c[1] = {__popc(mask)};
    count_scan(ts.scan).exclusive_scan(c, 0, sum{}, tile_count);
    thread_offset = c[0];
    return mask;
  }
  /// load_and_count, then the tile's staging of its write (index tiles: the positions in output order),
  /// which every pass follows with a block barrier before the write.
  __device__ static unsigned load_and_rank(temp_storage& ts, tile_t& t, InIt in, const Sel& sel,
                                           std::int64_t base, int valid, bool vec_in, int& thread_offset,
                                           int& tile_count) {
    const unsigned mask = load_and_count(ts, t, in, sel, base, valid, vec_in, thread_offset, tile_count);
    t.template stage<PARTITION>(ts.tile, mask, thread_offset, tile_count,
                                valid); // needs nothing before the tile
    return mask;
  }

  /// Phase 1 of the three kernels (and of count + scatter): the number of selected items of tile `tile`.
  __device__ static void count(temp_storage& ts, InIt in, const Sel& sel, const tile_plan& plan,
                               std::int64_t tile, bool vec_in, std::uint64_t* counts) {
    lookback::allow_dependents(); // a count + scatter pair: the scatter may start loading now
    tile_t t;
    const int own = t.count(ts.tile, sel, in, plan.tile_base(tile), plan.valid_items(tile), vec_in);
    const int c = count_reduce(ts.reduce).reduce_live(own, sum{}, Policy::block_threads);
    if (threadIdx.x == 0) counts[tile] = static_cast<std::uint64_t>(c);
  }

  /// Phase 3 of the three kernels (scanned: the engine's inclusive scan of the tile counts). The last
  /// tile writes the count.
  template <class OutIt, class NumT>
  __device__ static void scatter(temp_storage& ts, InIt in, const Sel& sel, OutIt out, const tile_plan& plan,
                                 std::int64_t tile, bool vec_in, const std::uint64_t* scanned, NumT* d_num) {
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    const std::uint64_t before = tile > 0 ? scanned[tile - 1] : 0; // in flight while the tile loads
    const std::uint64_t total = PARTITION || tile == plan.num_tiles - 1 ? scanned[plan.num_tiles - 1] : 0;
    tile_t t;
    int thread_offset, tile_count;
    const unsigned mask = load_and_rank(ts, t, in, sel, base, valid, vec_in, thread_offset, tile_count);
    if constexpr (tile_t::stages) __syncthreads(); // the staging is readable by every thread
    t.template write<PARTITION>(ts.tile, in, mask, thread_offset, tile_count, valid, base, before,
                                rejected_of(out, plan, base, before, total), out);
    if (tile == plan.num_tiles - 1 && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }

  /// The single pass: with `ticketed`, tiles go out by ticket (after the prepare step) and find the count
  /// selected before them by the engine's decoupled look-back over the tiles' counts; else the input is
  /// one tile (block 0, nothing looked back; a partition then knows its total). The last tile writes
  /// the count.
  ///
  /// In place (out aliases in): a tile writes only below its own end (its offset is at most its base),
  /// and only after its look-back has seen every earlier tile publish, which each does after loading
  /// its input; the fences order those loads before the publish and the look-back before the writes.
  template <class OutIt, class NumT>
  __device__ static void single_pass(temp_storage& ts, InIt in, const Sel& sel, OutIt out,
                                     const tile_plan& plan, bool vec_in, const count_state& state,
                                     pass_flags how, NumT* d_num) {
    // ---- warm the L2 with the tile launch order would give this block, while the ticket is out ----
    if (prefetch_guess<Policy, ahead>(plan, tile_t::prefetches(sel, vec_in)))
      tile_t::prefetch(sel, in, plan.tile_base(blockIdx.x));
    // ---- take a ticket (one tile: block 0) ----
    const std::int64_t tile = how.ticketed ? lookback::block_ticket(ts.ticket, state.counter) : 0;
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    if (const std::int64_t a = prefetch_ahead_tile<ahead>(plan, tile, tile_t::prefetches(sel, vec_in));
        a >= 0)
      tile_t::prefetch(sel, in, plan.tile_base(a));
    // ---- load, select, count; a tile that stages its write announces its count first ----
    tile_t t;
    int thread_offset, tile_count;
    const unsigned mask = load_and_count(ts, t, in, sel, base, valid, vec_in, thread_offset, tile_count);
    if constexpr (tile_t::stages) announce_count<Policy>(state, tile, last, tile_count, how);
    t.template stage<PARTITION>(ts.tile, mask, thread_offset, tile_count,
                                valid); // needs nothing before the tile
    // ---- warp 0: (publish the count,) look back ----
    tile_selected_before<Policy, tile_t::stages>(ts.selected_before, state, tile, last, tile_count, how);
    // ---- write ----
    const std::uint64_t before = ts.selected_before;
    const std::uint64_t total =
        before + static_cast<std::uint64_t>(tile_count); // a stable partition: one tile
    t.template write<PARTITION>(ts.tile, in, mask, thread_offset, tile_count, valid, base, before,
                                rejected_of(out, plan, base, before, total), out);
    if (last && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }

  /// Small inputs: the grid is one thread-block cluster of up to 16 tiles (tile = rank). Every block
  /// pushes its count into every block's inbox (the engine's cluster exchange), so each knows the counts
  /// before it and the total: one launch, no temp storage, a partition as well as a selection. In place
  /// is safe: the exchange ends in a cluster barrier that every block reaches after its loads.
  template <class OutIt, class NumT>
  __device__ static void cluster_pass(temp_storage& ts, InIt in, const Sel& sel, OutIt out,
                                      const tile_plan& plan, bool vec_in, NumT* d_num) {
    const int tile = static_cast<int>(blockIdx.x), tiles = static_cast<int>(plan.num_tiles);
    lookback::cluster_started();
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    tile_t t;
    int thread_offset, tile_count;
    const unsigned mask = load_and_rank(ts, t, in, sel, base, valid, vec_in, thread_offset, tile_count);
    // ---- every tile's count, in every block ----
    lookback::cluster_push(ts.inbox, static_cast<std::uint32_t>(tile_count), tile, 0, tiles);
    std::uint64_t before = 0, total = 0;
    for (int k = 0; k < tiles; ++k) {
      before += k < tile ? ts.inbox[k] : 0u;
      total += ts.inbox[k];
    }
    t.template write<PARTITION>(ts.tile, in, mask, thread_offset, tile_count, valid, base, before,
                                rejected_of(out, plan, base, before, total), out);
    if (tile == tiles - 1 && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }

  /// Count + scatter (up to compact_tuning::fused_scan_max_tiles tiles): the scan of the tile counts
  /// folded into the scatter. The block loads and ranks its tile while the count kernel runs (it is
  /// that kernel's programmatic dependent), waits for it, then folds the counts before its tile and all
  /// of them with the engine's block reduce (up to 16 KB from L2).
  template <class OutIt, class NumT>
  __device__ static void scatter_after_counts(temp_storage& ts, InIt in, const Sel& sel, OutIt out,
                                              const tile_plan& plan, bool vec_in, const std::uint64_t* counts,
                                              NumT* d_num) {
    const std::int64_t tile = plan.num_tiles - 1 - blockIdx.x;
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    tile_t t;
    int thread_offset, tile_count;
    const unsigned mask = load_and_rank(ts, t, in, sel, base, valid, vec_in, thread_offset, tile_count);
    if (threadIdx.x == 0) lookback::wait_for_previous_grid(); // the count kernel's writes are visible
    __syncthreads();
    std::uint64_t before = 0,
                  all = 0; // the counts as 16-byte pairs (temp parts are 256-byte aligned), two in flight
    const auto* pairs = reinterpret_cast<const ulonglong2*>(counts);
    const std::int64_t n = plan.num_tiles;
    for (std::int64_t p0 = threadIdx.x; 2 * p0 < n; p0 += 2 * Policy::block_threads) {
      ulonglong2 v[2];
      CARRY_UNROLL
      for (int j = 0; j < 2; ++j) {
        const std::int64_t p = p0 + j * Policy::block_threads;
        v[j] = 2 * p + 1 < n ? pairs[p] : make_ulonglong2(2 * p < n ? counts[2 * p] : 0, 0);
      }
      CARRY_UNROLL
      for (int j = 0; j < 2; ++j) {
        const std::int64_t k = 2 * (p0 + j * Policy::block_threads);
        before += (k < tile ? v[j].x : 0) + (k + 1 < tile ? v[j].y : 0);
        all += v[j].x + v[j].y;
      }
    }
    before = total_reduce(ts.totals).reduce_live(before, sum{}, Policy::block_threads);
    if (threadIdx.x == 0) ts.selected_before = before;
    __syncthreads();
    all = total_reduce(ts.totals).reduce_live(all, sum{}, Policy::block_threads);
    if (threadIdx.x == 0) ts.total = all;
    __syncthreads();
    before = ts.selected_before;
    const std::uint64_t total = ts.total;
    t.template write<PARTITION>(ts.tile, in, mask, thread_offset, tile_count, valid, base, before,
                                rejected_of(out, plan, base, before, total), out);
    if (tile == plan.num_tiles - 1 && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }
};

} // namespace compact_detail
} // namespace carry
