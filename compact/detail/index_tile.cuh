// The index tile of a compaction, for inputs that are not pointers (counting, transform, a user's
// iterator): nothing of the items is stored. The selection is a bit per item, evaluated block-striped
// (coalesced, one ballot a word); the positions of the picks are staged in output order, and the write
// reads each picked item from the iterator as it stores it, warps storing whole 32-item groups.
#pragma once

#include <cstdint>

#include "staged_compact.cuh"

namespace carry {
namespace compact_detail {

/// What an index tile selects by: the bits of a tile of `in` starting at `base` and, where the items
/// alone decide (counts_alone), the thread's count of its block-striped items without the bits.
template <class Policy, class Sel>
struct index_selection;

/// Selections that read nothing from memory before their items: no L2 prefetch of a guessed tile.
struct reads_nothing_ahead {
  template <class S>
  __device__ static bool prefetches(const S&) {
    return false;
  }
  template <class S>
  __device__ static void prefetch(const S&, std::int64_t) {}
};

template <class Policy, class FlagIt>
struct index_selection<Policy, by_flags<FlagIt>> {
  static constexpr bool counts_alone = false; // the flags' loads are the cost: the bits' chunked path
  template <class InIt>
  __device__ static void bits(std::uint32_t* b, const by_flags<FlagIt>& sel, InIt, std::int64_t base,
                              int valid) {
    flag_bits<Policy, 2>(b, sel.flags + base, valid, sel.vec); // 32 registers a thread: 2 chunks in flight
  }
  /// A single pass warms the L2 with its guessed tile's flags where they load as chunks. Measured (H100,
  /// counting-iterator items, 2^24 / 2^28): u32 flags at 99 % 69.2 -> 61.7 / 840 -> 831 us, at 50 % 631 ->
  /// 610 at 2^28, u8 flags at 99 % 546 -> 496; at 1 % u32 flags 414 -> 443 (still 1.34x CUB).
  __device__ static bool prefetches(const by_flags<FlagIt>& sel) {
    return vector_flags<Policy, FlagIt>() && sel.vec;
  }
  __device__ static void prefetch(const by_flags<FlagIt>& sel, std::int64_t base) {
    if constexpr (vector_flags<Policy, FlagIt>())
      staged_items<Policy, value_of<FlagIt>>::prefetch_l2(sel.flags + base);
  }
};
/// Stored bits: the tile's words copied (the grid that wrote them waited for first).
template <class Policy>
struct index_selection<Policy, by_bits> : reads_nothing_ahead {
  static constexpr bool counts_alone = false;
  template <class InIt>
  __device__ static void bits(std::uint32_t* b, const by_bits& sel, InIt, std::int64_t base, int) {
    copy_tile_words<Policy>(b, sel, base);
  }
};
template <class Policy, class Pred>
struct index_selection<Policy, by_predicate<Pred>> : reads_nothing_ahead {
  static constexpr bool counts_alone = true;
  template <class InIt>
  __device__ static auto picked(const by_predicate<Pred>& sel, InIt in, std::int64_t base) {
    const InIt tile_in = in + base;
    return [=](int i) { return static_cast<bool>(sel.pred(tile_in[i])); };
  }
  template <class InIt>
  __device__ static void bits(std::uint32_t* b, const by_predicate<Pred>& sel, InIt in, std::int64_t base,
                              int valid) {
    ballot_bits<Policy>(b, valid, picked(sel, in, base));
  }
  template <class InIt>
  __device__ static int count(const by_predicate<Pred>& sel, InIt in, std::int64_t base, int valid) {
    return count_picked<Policy>(valid, picked(sel, in, base));
  }
};
template <class Policy, class Eq>
struct index_selection<Policy, by_unique<Eq>> : reads_nothing_ahead {
  static constexpr bool counts_alone = true;
  template <class InIt>
  __device__ static auto picked(const by_unique<Eq>& sel, InIt in, std::int64_t base) {
    return [=](int i) {
      const std::int64_t g = base + i;
      return g == 0 || !static_cast<bool>(sel.eq(in[g - 1], in[g]));
    };
  }
  template <class InIt>
  __device__ static void bits(std::uint32_t* b, const by_unique<Eq>& sel, InIt in, std::int64_t base,
                              int valid) {
    ballot_bits<Policy>(b, valid, picked(sel, in, base));
  }
  template <class InIt>
  __device__ static int count(const by_unique<Eq>& sel, InIt in, std::int64_t base, int valid) {
    return count_picked<Policy>(valid, picked(sel, in, base));
  }
};

/// The index tile: the tile is its selection bits (word w: tile items 32w .. 32w + 31). A thread's ITEMS
/// bits lie in one word (32 % ITEMS == 0), so the first thread of word w holds the count selected before
/// it (its block-scan offset), which the staging reads by a shuffle.
template <class Policy, class T, class Sel>
struct index_tile {
  static constexpr int items = Policy::items_per_thread, threads = Policy::block_threads;
  static constexpr int tile_items = Policy::tile_items;
  static constexpr int words = selection_words<Policy>();
  static constexpr int min_blocks = 2048 / threads; // a full SM: nothing in flight but the selection
  static constexpr bool stages = true;              // stage() writes shared memory that write() reads
  static_assert(items <= 32 && 32 % items == 0, "carry: a thread's selection lies in one word");
  static_assert(tile_items <= 65536, "carry: tile positions are 16-bit");
  struct temp_storage {
    std::uint32_t bits[words];
    std::uint16_t picks[tile_items]; // staged positions: the selected in order, then (partition) the rejected
  };

  template <class InIt>
  __device__ unsigned load(temp_storage& ts, const Sel& sel, InIt in, std::int64_t base, int valid, bool) {
    index_selection<Policy, Sel>::bits(ts.bits, sel, in, base, valid);
    __syncthreads();
    return own_bits<items>(ts.bits, words) &
           detail::live_mask<items>(valid - static_cast<int>(threadIdx.x) * items);
  }
  /// The thread's count of selected items (the count kernel): evaluated without the bits where the
  /// items alone decide.
  template <class InIt>
  __device__ int count(temp_storage& ts, const Sel& sel, InIt in, std::int64_t base, int valid, bool vec) {
    using selection = index_selection<Policy, Sel>;
    if constexpr (selection::counts_alone)
      return selection::count(sel, in, base, valid);
    else
      return __popc(load(ts, sel, in, base, valid, vec));
  }
  /// Whether a single pass warms the L2 with its guessed tile, and the warming: the selection's reads
  /// (nothing else of an index tile is read from memory).
  __device__ static bool prefetches(const Sel& sel, bool) {
    return index_selection<Policy, Sel>::prefetches(sel);
  }
  template <class InIt>
  __device__ static void prefetch(const Sel& sel, InIt, std::int64_t base) {
    index_selection<Policy, Sel>::prefetch(sel, base);
  }

  /// A selection writes each thread's own picks when under a quarter of the tile is selected; else
  /// (and every partition) the positions are staged.
  __device__ static bool sparse(int tile_count, int valid) { return tile_count * 4 < valid; }
  /// Over three quarters selected, a selection stages its positions a word a round.
  __device__ static bool dense(int tile_count, int valid) { return tile_count * 4 > valid * 3; }

  /// Stages the tile's positions in output order (the selected, then in a partition the rejected), which
  /// depends on nothing outside the tile, so a single pass does it before its look-back. Dense: each
  /// warp takes its own words a round each, lane l placing item 32w + l (consecutive lanes, consecutive
  /// slots: no bank conflict; a thread's own picks would land 32 slots apart). Else each thread places
  /// its own picks (fewer instructions when a word holds few; a partition places every item, branch-free).
  /// The caller synchronises the block before write().
  template <bool PARTITION>
  __device__ void stage(temp_storage& ts, unsigned mask, int thread_offset, int tile_count, int valid) const {
    if (!PARTITION && sparse(tile_count, valid)) return;
    if (!PARTITION && dense(tile_count, valid)) {
      const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
      const unsigned below = (1u << lane) - 1;
      CARRY_UNROLL
      for (int r = 0; r < items; ++r) {
        const int word_first = (warp * items + r) * 32;
        const int selected_before = __shfl_sync(0xffffffffu, thread_offset, r * 32 / items); // in the tile
        if (word_first >= valid) break;                                                      // warp-uniform
        const unsigned word = ts.bits[word_first / 32]; // no bit past valid
        if ((word >> lane) & 1u)
          ts.picks[selected_before + __popc(word & below)] = static_cast<std::uint16_t>(word_first + lane);
      }
      return;
    }
    const int first = static_cast<int>(threadIdx.x) * items;
    if constexpr (PARTITION) { // every live item placed: the thread's rejected follow earlier threads' ones
      int picked_at = thread_offset, rejected_at = tile_count + first - thread_offset;
      const unsigned live = detail::live_mask<items>(valid - first);
      CARRY_UNROLL
      for (int j = 0; j < items; ++j) {
        const bool picked = (mask >> j) & 1u;
        if ((live >> j) & 1u)
          ts.picks[picked ? picked_at : rejected_at] = static_cast<std::uint16_t>(first + j);
        picked_at += picked ? 1 : 0;
        rejected_at += picked ? 0 : 1;
      }
    } else {
      int rank = thread_offset;
      for (unsigned m = mask; m != 0; m &= m - 1)
        ts.picks[rank++] = static_cast<std::uint16_t>(first + __ffs(m) - 1);
    }
  }

  /// out[at + k] = the item at staged position from[k], k < count: consecutive threads to consecutive
  /// outputs, shifted so that warps store whole 32-item groups (group_lead).
  template <class InIt, class OutIt>
  __device__ static void write_staged(OutIt out, std::uint64_t at, InIt tile_in, const std::uint16_t* from,
                                      int count) {
    if (count <= 0) return;
    const int lead = group_lead(out, at);
    const OutIt dst = out + static_cast<std::int64_t>(at);
#pragma unroll 4
    for (int k = static_cast<int>(threadIdx.x); k < lead + count; k += threads)
      if (k >= lead) dst[k - lead] = static_cast<T>(tile_in[from[k - lead]]);
  }

  /// The selected items at `before` (+ their rank), then (partition) the rejected ones at rej[rank among
  /// the tile's rejected], every item read from the iterator as it is written: a sparse selection by each
  /// thread its own picks, else the staged positions written as whole 32-item groups.
  /// Measured (H100, counting-iterator items, 2^28): a write shifted off the 32-item groups costs 18 %
  /// (a write alone: 391 us against 330); at 1 % the thread form 222 us against 232 for the positions.
  template <bool PARTITION, class InIt, class OutIt, class RejOut>
  __device__ void write(temp_storage& ts, InIt in, unsigned mask, int thread_offset, int tile_count,
                        int valid, std::int64_t base, std::uint64_t before, const RejOut& rej,
                        OutIt out) const {
    const InIt tile_in = in + base;
    if (!PARTITION && sparse(tile_count, valid)) { // ---- sparse: each thread its own picks ----
      const int first = static_cast<int>(threadIdx.x) * items;
      std::uint64_t k = before + static_cast<std::uint64_t>(thread_offset);
      for (unsigned m = mask; m != 0; m &= m - 1)
        out[static_cast<std::int64_t>(k++)] = static_cast<T>(tile_in[first + __ffs(m) - 1]);
      return;
    }
    // ---- else: the staged positions, the selected then (partition) the rejected ----
    write_staged(out, before, tile_in, ts.picks, tile_count);
    if constexpr (PARTITION) write_staged(rej, 0, tile_in, ts.picks + tile_count, valid - tile_count);
  }
};

} // namespace compact_detail
} // namespace carry
