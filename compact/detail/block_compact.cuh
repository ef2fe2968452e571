// Block-level pieces of a compaction: what selects an item, and the register tile (items in registers,
// their selection mask, the scatter of selected and rejected items through shared memory).
#pragma once

#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../../scan/tile/staged_tile.cuh"
#include "../../scan/tile/tile_io.cuh"
#include "../../scan/operators.hpp"
#include "plan.hpp"

namespace carry {
namespace compact_detail {

template <class It>
using value_of = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;

// ---- what selects an item ----

/// d_flags[i] != 0 selects item i (flags of any integral type or bool). `vec`: the flag pointer allows
/// vector loads of a full tile.
template <class FlagIt>
struct by_flags {
  FlagIt flags;
  bool vec;
};
/// pred(item) selects it.
template <class Pred>
struct by_predicate {
  Pred pred;
};
/// An item is selected when it is the first or differs (!eq(previous, item)) from the one before it.
template <class Eq>
struct by_unique {
  Eq eq;
};
/// The 32-bit words of a tile's selection bits (word w: items 32w .. 32w + 31 of the tile).
template <class Policy>
CARRY_HD constexpr int selection_words() {
  return (Policy::tile_items + 31) / 32;
}
/// Bit i of words (word i / 32) selects item i: a flagged selection's bits as its count pass stored them
/// (count_bits_kernel), so that the pass after it reads 1 bit an item instead of the flags. Written by the
/// grid launched before the reader: every read waits for it (lookback::wait_for_previous_grid).
struct by_bits {
  const std::uint32_t* words;
};
/// Whether Sel selects by flags.
template <class Sel>
struct is_flag_selection : std::false_type {};
template <class FlagIt>
struct is_flag_selection<by_flags<FlagIt>> : std::true_type {
  using flags = FlagIt;
};

/// Shapes of one policy's tiles of T.
template <class Policy, class T>
struct compact_types {
  static constexpr int threads = Policy::block_threads;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int tile_items = Policy::tile_items;
  static_assert(items <= 32, "carry: a thread's selection is a 32-bit mask");
  using io = detail::tile_io<T, threads, items, Policy::streaming, Policy::warp_transpose>;
};

/// Asks the L2 for a full tile of ITEMS-per-thread items of T at `p` (a pointer the host found vector
/// aligned), each warp its run, with the engine's staged-tile prefetch. A hint: nothing waits for it.
template <class Policy, class T, class It>
__device__ void prefetch_tile(It p) {
  if constexpr (std::is_pointer<It>::value && detail::stageable<T, Policy::items_per_thread>())
    detail::staged_tile<T, Policy::block_threads, Policy::items_per_thread, false>::prefetch_l2(p);
}

/// A tile's items (blocked: thread t holds t*ITEMS ..) and its selection mask (bit j: item j selected;
/// never set past `valid`).
template <class Policy, class T, class Sel>
struct tile_selection;

template <class Policy, class T, class FlagIt>
struct tile_selection<Policy, T, by_flags<FlagIt>> {
  using ct = compact_types<Policy, T>;
  using F = value_of<FlagIt>;
  // each thread loads its own flags as vectors (no shared-memory transpose: the items' buffer is big enough)
  using flag_io = detail::tile_io<F, ct::threads, ct::items, Policy::streaming, false>;
  struct temp_storage {
    typename ct::io::temp_storage items;
    typename flag_io::temp_storage flags;
  };
  template <class InIt>
  __device__ static unsigned load(temp_storage& ts, const by_flags<FlagIt>& sel, InIt in, std::int64_t base,
                                  int valid, bool vec_in, T (&items)[ct::items]) {
    ct::io::load(ts.items, in + base, valid, vec_in, items, ct::tile_items, T{});
    F flags[ct::items];
    flag_io::load(ts.flags, sel.flags + base, valid, sel.vec, flags, ct::tile_items, F{});
    const int first = threadIdx.x * ct::items;
    unsigned mask = 0;
    CARRY_UNROLL
    for (int j = 0; j < ct::items; ++j) mask |= (first + j < valid && flags[j] != F(0)) ? 1u << j : 0u;
    return mask;
  }
  template <class InIt>
  __device__ static void prefetch(const by_flags<FlagIt>& sel, InIt in, std::int64_t base) {
    prefetch_tile<Policy, T>(in + base);
    if (sel.vec) prefetch_tile<Policy, F>(sel.flags + base);
  }
};

template <class Policy, class T, class Pred>
struct tile_selection<Policy, T, by_predicate<Pred>> {
  using ct = compact_types<Policy, T>;
  struct temp_storage {
    typename ct::io::temp_storage items;
  };
  template <class InIt>
  __device__ static unsigned load(temp_storage& ts, const by_predicate<Pred>& sel, InIt in, std::int64_t base,
                                  int valid, bool vec_in, T (&items)[ct::items]) {
    ct::io::load(ts.items, in + base, valid, vec_in, items, ct::tile_items, T{});
    const int first = threadIdx.x * ct::items;
    unsigned mask = 0;
    CARRY_UNROLL
    for (int j = 0; j < ct::items; ++j)
      mask |= (first + j < valid && static_cast<bool>(sel.pred(items[j]))) ? 1u << j : 0u;
    return mask;
  }
  template <class InIt>
  __device__ static void prefetch(const by_predicate<Pred>&, InIt in, std::int64_t base) {
    prefetch_tile<Policy, T>(in + base);
  }
};

template <class Policy, class T, class Eq>
struct tile_selection<Policy, T, by_unique<Eq>> {
  using ct = compact_types<Policy, T>;
  struct temp_storage {
    typename ct::io::temp_storage items;
    T last[ct::threads]; // each thread's last item, for the next thread's first comparison
  };
  /// The item before the tile is read from the input (in place it may have been rewritten by then, but
  /// only with its own value: see NOTES.md, "in place").
  template <class InIt>
  __device__ static unsigned load(temp_storage& ts, const by_unique<Eq>& sel, InIt in, std::int64_t base,
                                  int valid, bool vec_in, T (&items)[ct::items]) {
    ct::io::load(ts.items, in + base, valid, vec_in, items, ct::tile_items, T{});
    ts.last[threadIdx.x] = items[ct::items - 1];
    T before_tile{};
    if (threadIdx.x == 0 && base > 0) before_tile = in[base - 1];
    __syncthreads();
    const int first = threadIdx.x * ct::items;
    T prev = threadIdx.x > 0 ? ts.last[threadIdx.x - 1] : before_tile;
    unsigned mask = 0;
    CARRY_UNROLL
    for (int j = 0; j < ct::items; ++j) {
      const bool head = threadIdx.x == 0 && j == 0 && base == 0;
      const bool selected = first + j < valid && (head || !static_cast<bool>(sel.eq(prev, items[j])));
      mask |= selected ? 1u << j : 0u;
      prev = items[j];
    }
    return mask;
  }
  template <class InIt>
  __device__ static void prefetch(const by_unique<Eq>&, InIt in, std::int64_t base) {
    prefetch_tile<Policy, T>(in + base);
  }
};

/// The selected items of a tile staged in order into `stage` (then, in a partition, the rejected ones in
/// order after them), then written as coalesced runs: the selected to out + selected_offset, the
/// rejected to rej (a rejected_output). `stage` may alias the load buffers: the caller has synchronised
/// the block since the loads.
template <class Policy, bool PARTITION, class T, class OutIt, class RejOut>
__device__ void scatter_staged(T* stage, const T (&items)[Policy::items_per_thread], unsigned mask,
                               int thread_offset, int tile_count, int valid, OutIt out,
                               std::uint64_t selected_offset, const RejOut& rej) {
  constexpr int per_thread = Policy::items_per_thread, threads = Policy::block_threads;
  // ---- stage: selected at their rank, rejected (partition) after all selected ----
  const int first = threadIdx.x * per_thread;
  int rank = thread_offset;
  CARRY_UNROLL
  for (int j = 0; j < per_thread; ++j) {
    const bool selected = (mask >> j) & 1u;
    if (selected)
      stage[rank] = items[j];
    else if (PARTITION && first + j < valid)
      stage[tile_count + (first + j - rank)] = items[j];
    rank += selected;
  }
  __syncthreads();
  // ---- write: consecutive threads, consecutive outputs ----
  const int staged = PARTITION ? valid : tile_count;
  for (int k = threadIdx.x; k < staged; k += threads) {
    if (k < tile_count)
      out[static_cast<std::int64_t>(selected_offset) + k] = stage[k];
    else if constexpr (PARTITION)
      rej[k - tile_count] = stage[k];
  }
}

/// The steps of the tile interface that a tile holding its items (register_tile, staged_tile) takes as
/// they are: its count is its mask's, it warms the L2 where its loads are vectors, and nothing is staged
/// before its write. Tile: the tile type (its load()).
template <class Tile, class Sel>
struct item_tile_steps {
  static constexpr bool stages = false;
  template <class TS, class InIt>
  __device__ int count(TS& ts, const Sel& sel, InIt in, std::int64_t base, int valid, bool vec_in) {
    return __popc(static_cast<Tile*>(this)->load(ts, sel, in, base, valid, vec_in));
  }
  __device__ static bool prefetches(const Sel&, bool vec_in) { return vec_in; }
  template <bool PARTITION, class TS>
  __device__ void stage(TS&, unsigned, int, int, int) const {}
};

/// The register tile, for items that do not pack into 16-byte chunks (a 12-byte struct): each thread
/// holds its items in registers (tile_selection) and the scatter stages them through shared memory. The
/// tile interface the compaction agent uses: load (the thread's selection mask), prefetch, write.
template <class Policy, class T, class Sel>
struct register_tile : item_tile_steps<register_tile<Policy, T, Sel>, Sel> {
  using selection = tile_selection<Policy, T, Sel>;
  using ct = compact_types<Policy, T>;
  static constexpr int min_blocks = 1; // the items sit in registers: no cap from __launch_bounds__
  union temp_storage {
    typename selection::temp_storage load;
    T stage[ct::tile_items];
  };
  T items[ct::items];

  template <class InIt>
  __device__ unsigned load(temp_storage& ts, const Sel& sel, InIt in, std::int64_t base, int valid,
                           bool vec_in) {
    return selection::load(ts.load, sel, in, base, valid, vec_in, items);
  }
  template <class InIt>
  __device__ static void prefetch(const Sel& sel, InIt in, std::int64_t base) {
    selection::prefetch(sel, in, base);
  }
  /// The selected items at `before` (+ their rank), then (partition) the rejected ones at rej[rank among
  /// the tile's rejected].
  template <bool PARTITION, class InIt, class OutIt, class RejOut>
  __device__ void write(temp_storage& ts, InIt, unsigned mask, int thread_offset, int tile_count, int valid,
                        std::int64_t, std::uint64_t before, const RejOut& rej, OutIt out) const {
    __syncthreads(); // every thread is done with the load buffers before they stage
    scatter_staged<Policy, PARTITION>(ts.stage, items, mask, thread_offset, tile_count, valid, out, before,
                                      rej);
  }
};

} // namespace compact_detail
} // namespace carry
