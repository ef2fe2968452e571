// The staged compaction agent: tiles land in shared memory through the engine's staged-tile loader
// (cp.async, no registers held while in flight), so more and larger tiles are in flight per SM; each warp
// then walks its run of the tile 32 consecutive items a round and writes the selected ones of a round as
// one coalesced store (the round's picks are the blocked masks of its lanes, side by side).
#pragma once

#include <cstdint>

#include "../../scan/tile/staged_tile.cuh"
#include "../../scan/lookback/cluster.cuh"
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

/// Calls f(j, item) for the thread's items j = 0 .. ITEMS-1 of a staged tile, read a 16-byte chunk at a
/// time (its own chunks: conflict-free, one shared-memory load per chunk).
template <class Policy, class T, class F>
__device__ void for_own_items(typename staged_items<Policy, T>::temp_storage& ts, F&& f) {
  using tile_t = staged_items<Policy, T>;
  CARRY_UNROLL
  for (int v = 0; v < tile_t::vcount; ++v) {
    const uint4 chunk = tile_t::own(ts, v);
    T x[tile_t::chunk_items];
    memcpy(x, &chunk, sizeof(x));
    CARRY_UNROLL
    for (int k = 0; k < tile_t::chunk_items; ++k) f(v * tile_t::chunk_items + k, x[k]);
  }
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
    for_own_items<Policy, F>(ts.flags, [&](int j, const F& f) { m |= f != F(0) ? 1u << j : 0u; });
    return m & live_bits<Policy::items_per_thread>(first, valid);
  }
  __device__ static void prefetch(const by_flags<FlagIt>& sel, const T* in, std::int64_t base) {
    items_t::prefetch_l2(in + base);
    if (sel.vec) flags_t::prefetch_l2(sel.flags + base);
  }
};

/// Selections that look at the items alone (predicate, unique): the staged items and their loads.
template <class Policy, class T>
struct staged_items_only {
  using items_t = staged_items<Policy, T>;
  struct temp_storage {
    typename items_t::temp_storage items;
  };
  template <class Sel>
  __device__ static void load(temp_storage& ts, const Sel&, const T* in, std::int64_t base, int valid, bool vec_in) {
    stage_tile<Policy, T>(ts.items, in + base, valid, vec_in);
    items_t::wait_issued();
    __syncthreads(); // every run readable by every thread
  }
  template <class Sel>
  __device__ static void prefetch(const Sel&, const T* in, std::int64_t base) {
    items_t::prefetch_l2(in + base);
  }
};

template <class Policy, class T, class Pred>
struct staged_selection<Policy, T, by_predicate<Pred>> : staged_items_only<Policy, T> {
  using typename staged_items_only<Policy, T>::temp_storage;
  __device__ static unsigned mask(temp_storage& ts, const by_predicate<Pred>& sel, const T*, std::int64_t,
                                  int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    unsigned m = 0;
    for_own_items<Policy, T>(ts.items, [&](int j, const T& x) { m |= static_cast<bool>(sel.pred(x)) ? 1u << j : 0u; });
    return m & live_bits<Policy::items_per_thread>(first, valid);
  }
};

template <class Policy, class T, class Eq>
struct staged_selection<Policy, T, by_unique<Eq>> : staged_items_only<Policy, T> {
  using items_t = staged_items<Policy, T>;
  using typename staged_items_only<Policy, T>::temp_storage;
  /// The item before the tile comes from the input (in place: unchanged, or rewritten with its own value).
  __device__ static unsigned mask(temp_storage& ts, const by_unique<Eq>& sel, const T* in, std::int64_t base,
                                  int valid) {
    const int first = threadIdx.x * Policy::items_per_thread;
    const unsigned live = live_bits<Policy::items_per_thread>(first, valid);
    if (live == 0) return 0;
    T prev = first > 0 ? *items_t::item(ts.items, first - 1) : base > 0 ? in[base - 1] : T{};
    unsigned m = 0;
    for_own_items<Policy, T>(ts.items, [&](int j, const T& x) {
      m |= !static_cast<bool>(sel.eq(prev, x)) ? 1u << j : 0u;
      prev = x;
    });
    if (first == 0 && base == 0) m |= 1u; // the input's first item heads its run
    return m & live;
  }
};

/// Counts of one round: picks before this lane's chunk, in the round, and this lane's own picks (bit k:
/// item k of its chunk), from the masks of the round's owner lanes (a broadcast shuffle each).
struct round_counts {
  int before = 0, total = 0;
  unsigned mine = 0;
};
template <int CI, int OWNERS>
__device__ round_counts count_round(unsigned bits, int r, int my_owner, int shift) {
  round_counts c;
  unsigned owner_mask = 0;
  CARRY_UNROLL
  for (int q = 0; q < OWNERS; ++q) {
    const unsigned m = __shfl_sync(0xffffffffu, bits, r * OWNERS + q);
    const int n = __popc(m);
    c.before += q < my_owner ? n : 0;
    owner_mask = q == my_owner ? m : owner_mask;
    c.total += n;
  }
  c.mine = (owner_mask >> shift) & ((1u << CI) - 1);
  c.before += __popc(owner_mask & ((1u << shift) - 1));
  return c;
}

/// Writes a warp's picks in input order (bits: the lanes' blocked masks, bit j = item j picked) to
/// out[0], out[1], ... and, in a partition, its rejected items (`rejected`, same form) to rejected_out[0],
/// ...: round by round, each lane takes one 16-byte chunk of 32 consecutive chunks of the warp's run into
/// registers; the round's region of the tile, now free, takes the picks compacted (then the rejected);
/// the warp copies them out as consecutive runs (128 bytes a store). Rounds without any are skipped.
template <class Policy, bool PARTITION, class T, class OutIt>
__device__ void write_runs(typename staged_items<Policy, T>::temp_storage& ts, unsigned bits, unsigned rejected,
                           OutIt out, OutIt rejected_out) {
  using tile_t = staged_items<Policy, T>;
  constexpr unsigned full = 0xffffffffu;
  constexpr int ci = tile_t::chunk_items, vcount = tile_t::vcount, owners = 32 / vcount;
  static_assert(32 % vcount == 0, "carry: a round is whole lanes' chunks");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int my_owner = lane / vcount, shift = (lane % vcount) * ci;
  const unsigned lanes_with = __ballot_sync(full, bits != 0 || (PARTITION && rejected != 0));
  unsigned rounds = 0;
  CARRY_UNROLL
  for (int r = 0; r < vcount; ++r)
    rounds |= ((lanes_with >> (r * owners)) & (owners == 32 ? full : (1u << owners) - 1)) != 0 ? 1u << r : 0u;
  while (rounds != 0) {
    const int r = __ffs(rounds) - 1;
    rounds &= rounds - 1;
    const round_counts s = count_round<ci, owners>(bits, r, my_owner, shift);
    round_counts j;
    if constexpr (PARTITION) j = count_round<ci, owners>(rejected, r, my_owner, shift);
    uint4* region = ts.chunks + warp * tile_t::warp_chunks + r * 32; // the swizzle stays inside it
    const uint4 chunk = region[tile_t::swizzle(r * 32 + lane) - r * 32];
    T x[ci];
    memcpy(x, &chunk, sizeof(x));
    __syncwarp(); // the region is read before it is overwritten
    T* scratch = reinterpret_cast<T*>(region);
    CARRY_UNROLL
    for (int k = 0; k < ci; ++k) {
      const unsigned below = (1u << k) - 1;
      if ((s.mine >> k) & 1u) scratch[s.before + __popc(s.mine & below)] = x[k];
      if (PARTITION && ((j.mine >> k) & 1u)) scratch[s.total + j.before + __popc(j.mine & below)] = x[k];
    }
    __syncwarp();
    for (int i = lane; i < s.total; i += 32) out[i] = scratch[i];
    out += s.total;
    if constexpr (PARTITION) {
      for (int i = lane; i < j.total; i += 32) rejected_out[i] = scratch[s.total + i];
      rejected_out += j.total;
    }
    __syncwarp(); // the copies are out before a later round reuses registers (regions differ)
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
  using total_reduce = block_reduce<std::uint64_t, Policy::block_threads, 1>;
  struct temp_storage {
    typename selection::temp_storage tile;
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

  /// Phase 1 of the three kernels, staged: the number of selected items of tile `tile`.
  __device__ static void count(temp_storage& ts, const T* in, const Sel& sel, const tile_plan& plan,
                               std::int64_t tile, bool vec_in, std::uint64_t* counts) {
    lookback::allow_dependents(); // a count + scatter pair: the scatter may start loading now
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
    const OutIt selected_out = out + static_cast<std::int64_t>(before + warp_offset);
    if constexpr (PARTITION) {
      const int first = threadIdx.x * items;
      const int warp_first = (threadIdx.x / 32) * 32 * items;
      const int rejected_before = (warp_first < valid ? warp_first : valid) - warp_offset;
      write_runs<Policy, true, T>(ts.tile.items, mask, ~mask & live_bits<items>(first, valid), selected_out,
                                  out + static_cast<std::int64_t>(rejected_offset(total, base, before) + rejected_before));
    } else {
      write_runs<Policy, false, T>(ts.tile.items, mask, 0u, selected_out, selected_out);
    }
  }

  /// The single pass: ticket, staged load, rank, the engine's look-back over tile counts, gathered writes.
  template <class OutIt, class NumT>
  __device__ static void single_pass(temp_storage& ts, const T* in, const Sel& sel, OutIt out, const tile_plan& plan,
                                     bool vec_in, const count_state& state, pass_flags how, NumT* d_num) {
    // ---- warm the L2 with the tile launch order would give this block, while the ticket is out ----
    if (prefetch_guess<Policy>(plan, vec_in)) selection::prefetch(sel, in, plan.tile_base(blockIdx.x));
    // ---- take a ticket (one tile: block 0) ----
    const std::int64_t tile = how.ticketed ? lookback::block_ticket(ts.ticket, state.counter) : 0;
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    // ---- load into shared memory, select, rank ----
    int thread_offset, tile_count;
    const unsigned mask = load_and_rank(ts, in, sel, base, valid, vec_in, thread_offset, tile_count);
    // ---- warp 0: publish the tile's count, look back (in place: see compact_agent::single_pass) ----
    tile_selected_before<Policy>(ts.selected_before, state, tile, last, tile_count, how);
    // ---- write: each warp its picks, coalesced ----
    const std::uint64_t before = ts.selected_before;
    const std::uint64_t total = before + static_cast<std::uint64_t>(tile_count); // a partition: one tile
    write(ts, mask, thread_offset, valid, base, before, total, out);
    if (last && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }

  /// Small inputs: the grid is one thread-block cluster of up to 16 tiles (tile = rank). Every block
  /// pushes its count into every block's inbox (the engine's cluster exchange), so each knows the counts
  /// before it and the total: one launch, no temp storage, a partition as well as a selection. In place
  /// is safe: the exchange ends in a cluster barrier that every block reaches after its loads.
  template <class OutIt, class NumT>
  __device__ static void cluster_pass(temp_storage& ts, const T* in, const Sel& sel, OutIt out, const tile_plan& plan,
                                      bool vec_in, NumT* d_num) {
    const int tile = static_cast<int>(blockIdx.x), tiles = static_cast<int>(plan.num_tiles);
    lookback::cluster_started();
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    int thread_offset, tile_count;
    const unsigned mask = load_and_rank(ts, in, sel, base, valid, vec_in, thread_offset, tile_count);
    // ---- every tile's count, in every block ----
    lookback::cluster_push(ts.inbox, static_cast<std::uint32_t>(tile_count), tile, 0, tiles);
    std::uint64_t before = 0, total = 0;
    for (int t = 0; t < tiles; ++t) {
      before += t < tile ? ts.inbox[t] : 0u;
      total += ts.inbox[t];
    }
    write(ts, mask, thread_offset, valid, base, before, total, out);
    if (tile == tiles - 1 && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
  }

  /// Count + scatter (up to compact_tuning::fused_scan_max_tiles tiles): the scan of the tile counts
  /// folded into the scatter. The block loads and ranks its tile while the count kernel runs (it is
  /// that kernel's programmatic dependent), waits for it, then folds the counts before its tile and all
  /// of them with the engine's block reduce (a few KB from L2).
  template <class OutIt, class NumT>
  __device__ static void scatter_after_counts(temp_storage& ts, const T* in, const Sel& sel, OutIt out,
                                              const tile_plan& plan, bool vec_in, const std::uint64_t* counts,
                                              NumT* d_num) {
    const std::int64_t tile = plan.num_tiles - 1 - blockIdx.x;
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    int thread_offset, tile_count;
    const unsigned mask = load_and_rank(ts, in, sel, base, valid, vec_in, thread_offset, tile_count);
    if (threadIdx.x == 0) lookback::wait_for_previous_grid(); // the count kernel's writes are visible
    __syncthreads();
    std::uint64_t before = 0, all = 0;
    for (std::int64_t t = threadIdx.x; t < plan.num_tiles; t += Policy::block_threads) {
      const std::uint64_t c = counts[t];
      before += t < tile ? c : 0;
      all += c;
    }
    before = total_reduce(ts.totals).reduce_live(before, sum{}, Policy::block_threads);
    if (threadIdx.x == 0) ts.selected_before = before;
    __syncthreads();
    all = total_reduce(ts.totals).reduce_live(all, sum{}, Policy::block_threads);
    if (threadIdx.x == 0) ts.total = all;
    __syncthreads();
    before = ts.selected_before;
    const std::uint64_t total = ts.total;
    write(ts, mask, thread_offset, valid, base, before, total, out);
    if (tile == plan.num_tiles - 1 && threadIdx.x == 0) *d_num = static_cast<NumT>(total);
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
