// The index tile of a compaction, for inputs that are not pointers (counting, transform, a user's
// iterator): nothing of the items is stored. The selection is a bit per item, evaluated block-striped
// (coalesced, one ballot a word); the write reads each picked item from the iterator as it stores it,
// a warp's picks of one word to consecutive outputs.
#pragma once

#include <cstdint>

#include "staged_compact.cuh"

namespace carry {
namespace compact_detail {

/// What an index tile selects by: the bits of a tile of `in` starting at `base`.
template <class Policy, class Sel>
struct index_selection;

template <class Policy, class FlagIt>
struct index_selection<Policy, by_flags<FlagIt>> {
  template <class InIt>
  __device__ static void bits(std::uint32_t* b, const by_flags<FlagIt>& sel, InIt, std::int64_t base, int valid) {
    flag_bits<Policy>(b, sel.flags + base, valid, sel.vec);
  }
};
template <class Policy, class Pred>
struct index_selection<Policy, by_predicate<Pred>> {
  template <class InIt>
  __device__ static void bits(std::uint32_t* b, const by_predicate<Pred>& sel, InIt in, std::int64_t base,
                              int valid) {
    const InIt tile_in = in + base;
    ballot_bits<Policy>(b, valid, [&](int i) { return static_cast<bool>(sel.pred(tile_in[i])); });
  }
};
template <class Policy, class Eq>
struct index_selection<Policy, by_unique<Eq>> {
  template <class InIt>
  __device__ static void bits(std::uint32_t* b, const by_unique<Eq>& sel, InIt in, std::int64_t base, int valid) {
    ballot_bits<Policy>(b, valid, [&](int i) {
      const std::int64_t g = base + i;
      return g == 0 || !static_cast<bool>(sel.eq(in[g - 1], in[g]));
    });
  }
};

/// The index tile: the tile is its selection bits (word w: tile items 32w .. 32w + 31). A thread's ITEMS
/// bits lie in one word (32 % ITEMS == 0), so the first thread of word w holds the count selected before
/// it (its block-scan offset), which the dense write reads by a shuffle.
template <class Policy, class T, class Sel>
struct index_tile {
  static constexpr int items = Policy::items_per_thread, threads = Policy::block_threads;
  static constexpr int tile_items = Policy::tile_items;
  static constexpr int words = tile_items / 32;
  static constexpr int min_blocks = 2048 / threads; // a full SM: nothing in flight but the selection
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
    return own_bits<items>(ts.bits, words) & live_bits<items>(static_cast<int>(threadIdx.x) * items, valid);
  }
  template <class InIt>
  __device__ static void prefetch(const Sel&, InIt, std::int64_t) {}

  /// The selected items at `before` (+ their rank), then (partition) the rejected ones at
  /// rejected_offset(total, base, before) (+ their rank among the rejected), every item read from the
  /// iterator as it is written, in one of three forms chosen by the tile's density (block-uniform):
  ///   sparse (a selection of under 1/4): each thread its own picks;
  ///   dense (over 3/4): each warp its own words, a word a round, lane l writing item 32w + l to its
  ///     place, so that a round's stores fill one run;
  ///   else, and every partition: the positions staged in output order, then consecutive threads to
  ///   consecutive outputs.
  /// Measured (H100, counting-iterator items, 2^28): at 1 % the thread form 222 us against 232 for the
  /// staged positions; at 99 % the word rounds 509 us against 527; at 50 % the positions 368 us
  /// against 393 for the rounds; a partition by rounds 763 us against 530.
  template <bool PARTITION, class InIt, class OutIt>
  __device__ void write(temp_storage& ts, InIt in, unsigned mask, int thread_offset, int tile_count, int valid,
                        std::int64_t base, std::uint64_t before, std::uint64_t total, OutIt out) const {
    const InIt tile_in = in + base;
    const int first = static_cast<int>(threadIdx.x) * items;
    if constexpr (!PARTITION) {
      // ---- sparse: each thread its own picks ----
      if (tile_count * 4 < valid) {
        std::uint64_t k = before + static_cast<std::uint64_t>(thread_offset);
        for (unsigned m = mask; m != 0; m &= m - 1)
          out[static_cast<std::int64_t>(k++)] = static_cast<T>(tile_in[first + __ffs(m) - 1]);
        return;
      }
      // ---- dense: a word a round, each warp its own words ----
      if (tile_count * 4 > valid * 3) {
        const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
        const unsigned below = (1u << lane) - 1;
        CARRY_UNROLL
        for (int r = 0; r < items; ++r) {
          const int word_first = (warp * items + r) * 32;
          if (word_first >= valid) break;
          const unsigned word = ts.bits[word_first / 32]; // no bit past valid
          const int at = __shfl_sync(0xffffffffu, thread_offset, r * 32 / items) + __popc(word & below);
          if ((word >> lane) & 1u)
            out[static_cast<std::int64_t>(before + static_cast<std::uint64_t>(at))] =
                static_cast<T>(tile_in[word_first + lane]);
        }
        return;
      }
    }
    // ---- else: positions staged in output order (the selected, then the rejected), then written ----
    int rank = thread_offset;
    for (unsigned m = mask; m != 0; m &= m - 1) ts.picks[rank++] = static_cast<std::uint16_t>(first + __ffs(m) - 1);
    if constexpr (PARTITION) { // the thread's rejected follow those of earlier threads: first - thread_offset
      int r = tile_count + first - thread_offset;
      for (unsigned m = ~mask & live_bits<items>(first, valid); m != 0; m &= m - 1)
        ts.picks[r++] = static_cast<std::uint16_t>(first + __ffs(m) - 1);
    }
    __syncthreads();
    const int staged = PARTITION ? valid : tile_count;
    const std::uint64_t rejected_at = rejected_offset(total, base, before);
    for (int k = static_cast<int>(threadIdx.x); k < staged; k += threads)
      out[static_cast<std::int64_t>(staged_destination(k, tile_count, before, rejected_at))] =
          static_cast<T>(tile_in[ts.picks[k]]);
  }
};

} // namespace compact_detail
} // namespace carry
