// Per-tile agents of a compaction: count (three-kernel phase 1), scatter (phase 3) and the single pass
// (ticket, rank, the engine's look-back over tile counts, scatter).
#pragma once

#include <cstdint>

#include "../../scan/lookback/state.cuh"
#include "../../scan/lookback/ticket.cuh"
#include "../../scan/lookback/tile_prefix_op.cuh"
#include "../tuning.hpp"
#include "block_compact.cuh"

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

/// Whether this block warms the L2 with the tile launch order would give it before its ticket: the
/// engine's rule (detail::prefetch_guessed_tile, mode 2: full tiles of aligned pointers, only beyond one
/// wave of resident blocks).
template <class Policy>
__device__ bool prefetch_guess(const tile_plan& plan, bool vec_in) {
  return Policy::prefetch &&
         detail::prefetch_guessed_tile(2, blockIdx.x, plan.num_tiles,
                                       std::int64_t{detail::sm_ids()} * compact_tuning::prefetch_beyond_blocks_per_sm,
                                       vec_in);
}

/// Warp 0 of a single-pass tile: publishes the tile's count, looks back with the engine's decoupled
/// look-back, and leaves the count selected before the tile in `before` (shared); 0 without a ticket
/// (one tile). Every thread calls it; on return `before` is readable by all. In place, fences order the
/// block's loads before its publish and the look-back's reads before its writes (see
/// compact_agent::single_pass).
template <class Policy>
__device__ void tile_selected_before(std::uint64_t& before, const count_state& state, std::int64_t tile, bool last,
                                     int tile_count, const pass_flags& how) {
  if (threadIdx.x < detail::warp_threads) {
    std::uint64_t b = 0;
    if (how.ticketed) {
      if (how.in_place && threadIdx.x == 0) __threadfence();
      __syncwarp();
      const lookback::tile_prefix_op<Policy::lookback_delay_ns, false, count_format, sum> prefix{
          state.status, state.groups, tile, !last, sum{}, std::uint64_t{0}, false};
      const tile_prefix<std::uint64_t> p = prefix(static_cast<std::uint64_t>(tile_count));
      b = p.valid ? p.value : 0;
      if (how.in_place) __threadfence();
    }
    if (threadIdx.x == 0) before = b;
  }
  __syncthreads();
}

template <class Policy, bool PARTITION, class T, class Sel>
struct compact_agent {
  using ct = compact_types<Policy, T>;
  using selection = tile_selection<Policy, T, Sel>;
  static constexpr int block_threads = ct::threads;
  struct temp_storage {
    union {
      typename selection::temp_storage load;
      T stage[ct::tile_items];
    } tile;
    union {
      typename ct::count_scan::temp_storage scan;
      typename ct::count_reduce::temp_storage reduce;
    } count;
    std::uint64_t selected_before;
    std::uint32_t ticket;
  };

  /// Phase 1 of the three kernels: the number of selected items of tile `tile`.
  template <class InIt>
  __device__ static void count(temp_storage& ts, InIt in, const Sel& sel, const tile_plan& plan, std::int64_t tile,
                               bool vec_in, std::uint64_t* counts) {
    T items[ct::items];
    const unsigned mask = selection::load(ts.tile.load, sel, in, plan.tile_base(tile), plan.valid_items(tile), vec_in,
                                          items);
    const int c = typename ct::count_reduce(ts.count.reduce).reduce_live(__popc(mask), sum{}, ct::threads);
    if (threadIdx.x == 0) counts[tile] = static_cast<std::uint64_t>(c);
  }

  /// Phase 3 of the three kernels: tile `tile` scattered at the offsets the engine's inclusive scan of the
  /// tile counts gives (`scanned[t]`: items selected in tiles 0..t). The last tile writes the count.
  template <class InIt, class OutIt, class NumT>
  __device__ static void scatter(temp_storage& ts, InIt in, const Sel& sel, OutIt out, const tile_plan& plan,
                                 std::int64_t tile, bool vec_in, const std::uint64_t* scanned, NumT* d_num) {
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    T items[ct::items];
    const unsigned mask = selection::load(ts.tile.load, sel, in, base, valid, vec_in, items);
    int thread_offset, tile_count;
    rank_selected<Policy, T>(ts.count.scan, mask, thread_offset, tile_count);
    const std::uint64_t before = tile > 0 ? scanned[tile - 1] : 0;
    const std::uint64_t total = PARTITION || tile == plan.num_tiles - 1 ? scanned[plan.num_tiles - 1] : 0;
    __syncthreads(); // every thread is done with the load buffers before they stage
    scatter_staged<Policy, PARTITION>(ts.tile.stage, items, mask, thread_offset, tile_count, valid, out, before,
                                      rejected_offset(total, base, before));
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
  template <class InIt, class OutIt, class NumT>
  __device__ static void single_pass(temp_storage& ts, InIt in, const Sel& sel, OutIt out, const tile_plan& plan,
                                     bool vec_in, const count_state& state, pass_flags how, NumT* d_num) {
    // ---- warm the L2 with the tile launch order would give this block, while the ticket is out ----
    if (prefetch_guess<Policy>(plan, vec_in)) selection::prefetch(sel, in, plan.tile_base(blockIdx.x));
    // ---- take a ticket (one tile: block 0) ----
    const std::int64_t tile = how.ticketed ? lookback::block_ticket(ts.ticket, state.counter) : 0;
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    // ---- load and rank ----
    T items[ct::items];
    const unsigned mask = selection::load(ts.tile.load, sel, in, base, valid, vec_in, items);
    int thread_offset, tile_count;
    rank_selected<Policy, T>(ts.count.scan, mask, thread_offset, tile_count);
    // ---- warp 0: publish the tile's count, look back ----
    tile_selected_before<Policy>(ts.selected_before, state, tile, last, tile_count, how);
    // ---- scatter through shared memory ----
    const std::uint64_t before = ts.selected_before;
    const std::uint64_t total = before + static_cast<std::uint64_t>(tile_count); // a partition: one tile
    scatter_staged<Policy, PARTITION>(ts.tile.stage, items, mask, thread_offset, tile_count, valid, out, before,
                                      rejected_offset(total, base, before));
    if (last && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }
};

} // namespace compact_detail
} // namespace carry
