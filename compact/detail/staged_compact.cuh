// The staged compaction agent: tiles land in shared memory through the engine's staged-tile loader
// (cp.async, no registers held while in flight), so more and larger tiles are in flight per SM; each warp
// then walks its run of the tile 32 consecutive items a round and writes the selected ones of a round as
// one coalesced store (the round's picks are the blocked masks of its lanes, side by side).
#pragma once

#include <cstdint>

#include "../../scan/detail/staged_tile.cuh"
#include "agents.cuh"

namespace carry {
namespace compact_detail {

/// A staged tile's items in shared memory, and what selects them.
template <class Policy, class T, class Sel>
struct staged_selection;

template <class Policy, class T>
using staged_items = detail::staged_tile<T, Policy::block_threads, Policy::items_per_thread, Policy::streaming>;

/// Loads a tile of T: full and aligned, asynchronously (issue only); else element by element.
template <class Policy, class T>
__device__ void stage_tile(typename staged_items<Policy, T>::temp_storage& ts, const T* tile_in, int valid,
                           bool vec) {
  using tile_t = staged_items<Policy, T>;
  if (vec && valid == tile_t::tile_items)
    tile_t::issue_full(ts, tile_in);
  else
    tile_t::load_items(ts, tile_in, valid);
}

/// Bit j set for the thread's items that exist (first + j < valid).
template <int ITEMS>
__device__ unsigned live_bits(int first, int valid) {
  const int live = valid - first;
  return live <= 0 ? 0u : live >= ITEMS ? (ITEMS == 32 ? ~0u : (1u << ITEMS) - 1) : (1u << live) - 1;
}

template <class Policy, class T, class FlagIt>
struct staged_selection<Policy, T, by_flags<FlagIt>> {
  using F = value_of<FlagIt>;
  using items_t = staged_items<Policy, T>;
  using flags_t = staged_items<Policy, F>;
  struct temp_storage {
    typename items_t::temp_storage items;
    typename flags_t::temp_storage flags;
  };
  __device__ static void load(temp_storage& ts, const by_flags<FlagIt>& sel, const T* in, std::int64_t base,
                              int valid, bool vec_in) {
    stage_tile<Policy, T>(ts.items, in + base, valid, vec_in);
    stage_tile<Policy, F>(ts.flags, sel.flags + base, valid, sel.vec);
    items_t::wait_issued();
    __syncthreads(); // every run readable by every thread
  }
  __device__ static unsigned mask(temp_storage& ts, const by_flags<FlagIt>&, const T*, std::int64_t, int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    unsigned m = 0;
    CARRY_UNROLL
    for (int j = 0; j < Policy::items_per_thread; ++j) m |= *flags_t::item(ts.flags, first + j) != F(0) ? 1u << j : 0u;
    return m & live_bits<Policy::items_per_thread>(first, valid);
  }
  __device__ static void prefetch(const by_flags<FlagIt>& sel, const T* in, std::int64_t base) {
    items_t::prefetch_l2(in + base);
    if (sel.vec) flags_t::prefetch_l2(sel.flags + base);
  }
};

template <class Policy, class T, class Pred>
struct staged_selection<Policy, T, by_predicate<Pred>> {
  using items_t = staged_items<Policy, T>;
  struct temp_storage {
    typename items_t::temp_storage items;
  };
  __device__ static void load(temp_storage& ts, const by_predicate<Pred>&, const T* in, std::int64_t base, int valid,
                              bool vec_in) {
    stage_tile<Policy, T>(ts.items, in + base, valid, vec_in);
    items_t::wait_issued();
    __syncthreads();
  }
  __device__ static unsigned mask(temp_storage& ts, const by_predicate<Pred>& sel, const T*, std::int64_t,
                                  int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    const unsigned live = live_bits<Policy::items_per_thread>(first, valid);
    unsigned m = 0;
    CARRY_UNROLL
    for (int j = 0; j < Policy::items_per_thread; ++j)
      if ((live >> j) & 1u) m |= static_cast<bool>(sel.pred(*items_t::item(ts.items, first + j))) ? 1u << j : 0u;
    return m;
  }
  __device__ static void prefetch(const by_predicate<Pred>&, const T* in, std::int64_t base) {
    items_t::prefetch_l2(in + base);
  }
};

template <class Policy, class T, class Eq>
struct staged_selection<Policy, T, by_unique<Eq>> {
  using items_t = staged_items<Policy, T>;
  struct temp_storage {
    typename items_t::temp_storage items;
  };
  __device__ static void load(temp_storage& ts, const by_unique<Eq>&, const T* in, std::int64_t base, int valid,
                              bool vec_in) {
    stage_tile<Policy, T>(ts.items, in + base, valid, vec_in);
    items_t::wait_issued();
    __syncthreads();
  }
  /// The item before the tile comes from the input (in place: unchanged, or rewritten with its own value).
  __device__ static unsigned mask(temp_storage& ts, const by_unique<Eq>& sel, const T* in, std::int64_t base,
                                  int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    const unsigned live = live_bits<Policy::items_per_thread>(first, valid);
    if (live == 0) return 0;
    T prev = first > 0 ? *items_t::item(ts.items, first - 1) : base > 0 ? in[base - 1] : T{};
    unsigned m = 0;
    CARRY_UNROLL
    for (int j = 0; j < Policy::items_per_thread; ++j) {
      const T x = *items_t::item(ts.items, first + j);
      const bool head = first + j == 0 && base == 0;
      if ((live >> j) & 1u) m |= head || !static_cast<bool>(sel.eq(prev, x)) ? 1u << j : 0u;
      prev = x;
    }
    return m;
  }
  __device__ static void prefetch(const by_unique<Eq>&, const T* in, std::int64_t base) {
    items_t::prefetch_l2(in + base);
  }
};

/// Writes a warp's picks in input order (bits: the lane's blocked mask, bit j = its item j picked): round
/// by round, the picks among 32 consecutive items of the warp's run go to consecutive outputs,
/// out[dest + k], one coalesced store each. A round's items are those of 32 / ITEMS consecutive lanes, so
/// its picks are their masks side by side (a shuffle each): no transpose, no search.
template <class Policy, class T, class OutIt>
__device__ void write_picks(typename staged_items<Policy, T>::temp_storage& ts, unsigned bits, OutIt out,
                            std::uint64_t dest) {
  constexpr unsigned full = 0xffffffffu;
  constexpr int items = Policy::items_per_thread, lanes_per_round = 32 / items;
  static_assert(32 % items == 0, "carry: a round is whole lanes' items");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lower = (1u << lane) - 1; // the items of the round before this lane's
  // rounds with picks (bit r), so sparse selections skip the empty ones
  const unsigned lanes_with = __ballot_sync(full, bits != 0);
  unsigned rounds = lanes_with;
  if constexpr (lanes_per_round > 1) {
    rounds = 0;
    CARRY_UNROLL
    for (int r = 0; r < items; ++r)
      rounds |= ((lanes_with >> (r * lanes_per_round)) & ((1u << lanes_per_round) - 1)) != 0 ? 1u << r : 0u;
  }
  while (rounds != 0) {
    const int r = __ffs(rounds) - 1;
    rounds &= rounds - 1;
    unsigned round = 0;
    CARRY_UNROLL
    for (int q = 0; q < lanes_per_round; ++q)
      round |= __shfl_sync(full, bits, r * lanes_per_round + q) << (q * items);
    if ((round >> lane) & 1u)
      out[static_cast<std::int64_t>(dest + static_cast<std::uint64_t>(__popc(round & lower)))] =
          *staged_items<Policy, T>::item(ts, (warp * items + r) * 32 + lane);
    dest += static_cast<std::uint64_t>(__popc(round));
  }
}

template <class Policy, bool PARTITION, class T, class Sel>
struct staged_compact_agent {
  using selection = staged_selection<Policy, T, Sel>;
  using count_scan = block_scan<int, Policy::block_threads, Policy::algorithm, 1>;
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = Policy::min_blocks;
  static constexpr int items = Policy::items_per_thread;
  static_assert(items <= 32, "carry: a thread's selection is a 32-bit mask");
  using count_reduce = block_reduce<int, Policy::block_threads, 1>;
  struct temp_storage {
    typename selection::temp_storage tile;
    union {
      typename count_scan::temp_storage scan;
      typename count_reduce::temp_storage reduce;
    };
    std::uint64_t selected_before;
    std::uint32_t ticket;
  };

  /// Phase 1 of the three kernels, staged: the number of selected items of tile `tile`.
  __device__ static void count(temp_storage& ts, const T* in, const Sel& sel, const tile_plan& plan,
                               std::int64_t tile, bool vec_in, std::uint64_t* counts) {
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    selection::load(ts.tile, sel, in, base, valid, vec_in);
    const unsigned mask = selection::mask(ts.tile, sel, in, base, valid);
    const int c = count_reduce(ts.reduce).reduce_live(__popc(mask), sum{}, Policy::block_threads);
    if (threadIdx.x == 0) counts[tile] = static_cast<std::uint64_t>(c);
  }

  /// Load, select, rank: the thread's mask, its offset among the tile's selected items, the tile's count.
  __device__ static unsigned load_and_rank(temp_storage& ts, const T* in, const Sel& sel, std::int64_t base, int valid,
                                           bool vec_in, int& thread_offset, int& tile_count) {
    selection::load(ts.tile, sel, in, base, valid, vec_in);
    const unsigned mask = selection::mask(ts.tile, sel, in, base, valid);
    int c[1] = {__popc(mask)};
    count_scan(ts.scan).exclusive_scan(c, 0, sum{}, tile_count);
    thread_offset = c[0];
    return mask;
  }

  /// The tile's selected items at `before` (+ their rank), then (partition) its rejected ones at
  /// rejected_offset(total, base, before) (+ their rank among the rejected). thread_offset: the block
  /// scan of the per-thread counts; lane 0's is the warp's offset among the tile's selected items.
  template <class OutIt>
  __device__ static void write(temp_storage& ts, unsigned mask, int thread_offset, int valid, std::int64_t base,
                               std::uint64_t before, std::uint64_t total, OutIt out) {
    const int warp_offset = __shfl_sync(0xffffffffu, thread_offset, 0);
    write_picks<Policy, T>(ts.tile.items, mask, out, before + static_cast<std::uint64_t>(warp_offset));
    if constexpr (PARTITION) {
      const int first = threadIdx.x * items;
      const int warp_first = (threadIdx.x / 32) * 32 * items;
      const int rejected_before = (warp_first < valid ? warp_first : valid) - warp_offset;
      write_picks<Policy, T>(ts.tile.items, ~mask & live_bits<items>(first, valid), out,
                             rejected_offset(total, base, before) + static_cast<std::uint64_t>(rejected_before));
    }
  }

  /// The single pass: ticket, staged load, rank, the engine's look-back over tile counts, gathered writes.
  template <class OutIt, class NumT>
  __device__ static void single_pass(temp_storage& ts, const T* in, const Sel& sel, OutIt out, const tile_plan& plan,
                                     bool vec_in, const count_state& state, pass_flags how, NumT* d_num) {
    // ---- warm the L2 with the tile launch order would give this block, while the ticket is out ----
    if (how.prefetch && blockIdx.x < plan.num_tiles - 1) selection::prefetch(sel, in, plan.tile_base(blockIdx.x));
    // ---- take a ticket (one tile: block 0) ----
    const std::int64_t tile = how.ticketed ? lookback::block_ticket(ts.ticket, state.counter) : 0;
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    // ---- load into shared memory, select, rank ----
    int thread_offset, tile_count;
    const unsigned mask = load_and_rank(ts, in, sel, base, valid, vec_in, thread_offset, tile_count);
    // ---- warp 0: publish the tile's count, look back (in place: see compact_agent::single_pass) ----
    if (threadIdx.x < detail::warp_threads) {
      std::uint64_t before = 0;
      if (how.ticketed) {
        if (how.in_place && threadIdx.x == 0) __threadfence();
        __syncwarp();
        const lookback::tile_prefix_op<Policy::lookback_delay_ns, false, count_format, sum> prefix{
            state.status, state.groups, tile, !last, sum{}, std::uint64_t{0}, false};
        const tile_prefix<std::uint64_t> p = prefix(static_cast<std::uint64_t>(tile_count));
        before = p.valid ? p.value : 0;
        if (how.in_place) __threadfence();
      }
      if (threadIdx.x == 0) ts.selected_before = before;
    }
    __syncthreads();
    // ---- write: each warp its picks, coalesced ----
    const std::uint64_t before = ts.selected_before;
    const std::uint64_t total = before + static_cast<std::uint64_t>(tile_count); // a partition: one tile
    write(ts, mask, thread_offset, valid, base, before, total, out);
    if (last && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }

  /// Phase 3 of the three kernels, staged (scanned: the engine's inclusive scan of the tile counts).
  template <class OutIt, class NumT>
  __device__ static void scatter(temp_storage& ts, const T* in, const Sel& sel, OutIt out, const tile_plan& plan,
                                 std::int64_t tile, bool vec_in, const std::uint64_t* scanned, NumT* d_num) {
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    int thread_offset, tile_count;
    const unsigned mask = load_and_rank(ts, in, sel, base, valid, vec_in, thread_offset, tile_count);
    const std::uint64_t before = tile > 0 ? scanned[tile - 1] : 0;
    const std::uint64_t total = PARTITION || tile == plan.num_tiles - 1 ? scanned[plan.num_tiles - 1] : 0;
    write(ts, mask, thread_offset, valid, base, before, total, out);
    if (tile == plan.num_tiles - 1 && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }
};

} // namespace compact_detail
} // namespace carry
