// Host/device planning of a compaction: the pass it runs, its temp-storage layout, its argument checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../scan/util/plan.hpp"
#include "../../scan/lookback/words.hpp"
#include "../compact_options.hpp"

namespace carry {
namespace compact_detail {

using detail::arg_error;
using detail::tile_plan;

/// Which device pass runs a compaction.
enum class compact_pass {
  empty,        ///< n == 0: only the count (0) is written
  one_tile,     ///< one block, no temp storage touched
  three_kernel, ///< count kernel, the engine's scan of the tile counts, scatter kernel
  single_pass,  ///< prepare step + one look-back launch
  cluster,      ///< one launch of one thread-block cluster (up to 16 tiles), no temp storage touched
  count_scatter ///< the three kernels with the scan of the counts folded into the scatter (few tiles)
};

/// The pass for n items in tiles of tile_items. `count_first`: a partition that counts every tile before
/// it writes (a stable one, whose rejected items wait for the total; a reversed one over a computed
/// input, see dispatch_compact); any other call plans as a selection. `single_pass_from`: the smallest n
/// at which the automatic choice takes the single pass (tuning.hpp). `cluster_tiles`: the most tiles the
/// device co-schedules as one cluster for this call (0: none); the automatic choice (and in place, and a
/// partition) takes it whenever the tiles fit. `fused_tiles`: up to this many tiles an automatic
/// count-first partition folds the scan of the counts into the scatter (0: never; the register tiles
/// lack it).
CARRY_HD constexpr compact_pass choose_compact_pass(std::int64_t n, std::int64_t tile_items,
                                                    compact_algorithm algo, bool in_place, bool count_first,
                                                    std::int64_t single_pass_from, int cluster_tiles = 0,
                                                    std::int64_t fused_tiles = 0) {
  if (n <= 0) return compact_pass::empty;
  if (n <= tile_items) return compact_pass::one_tile;
  const std::int64_t tiles = (n + tile_items - 1) / tile_items;
  if (tiles <= cluster_tiles && (algo == compact_algorithm::automatic || in_place))
    return compact_pass::cluster;
  if (count_first)
    return tiles <= fused_tiles && algo == compact_algorithm::automatic ? compact_pass::count_scatter
                                                                        : compact_pass::three_kernel;
  if (in_place) return compact_pass::single_pass;
  if (algo == compact_algorithm::three_kernel) return compact_pass::three_kernel;
  if (algo == compact_algorithm::single_pass) return compact_pass::single_pass;
  return n >= single_pass_from ? compact_pass::single_pass : compact_pass::three_kernel;
}

/// Warps a tile for count_alone_kernel: the most of 1, 2, 4, 8 that keep tiles x warps within `in_flight`
/// warps (about what the GPU holds at once), at least 1.
///
///   512 tiles, 8192 in flight -> 8;   2048 -> 4;   4096 -> 2;   10000 -> 1
CARRY_HD constexpr int count_alone_warps(std::int64_t tiles, std::int64_t in_flight) {
  int w = 8;
  while (w > 1 && tiles * w > in_flight) w /= 2;
  return w;
}

/// Temp storage of a compaction over `tiles` tiles (> 1). The two forms' parts overlap (a call uses
/// one), and the allocation covers both, so the size query never depends on the pointers or options:
///   three kernels: counts (a 64-bit count per tile, scanned in place) + the engine scan's own temp
///                  (+ a flagged stable partition's selection bits, `bits_bytes`);
///   single pass:   the look-back state (ticket, a 16-byte status word per tile), cleared every call.
struct compact_layout {
  lookback::temp_part counts, scan, bits;
  lookback::state_parts state;
  std::size_t allocation = 1;
};

/// `scan_temp_bytes`: what the engine's inclusive sum of `tiles` 64-bit counts asks for;
/// `status_word_bytes`: the bytes of one status word of the single pass's format.
CARRY_HD inline compact_layout make_compact_layout(std::int64_t tiles, std::size_t scan_temp_bytes,
                                                   std::size_t status_word_bytes,
                                                   std::size_t bits_bytes = 0) {
  compact_layout l;
  if (tiles <= 1) return l;
  lookback::temp_builder three, single;
  l.counts = three.add(static_cast<std::size_t>(tiles) * sizeof(std::uint64_t));
  l.scan = three.add(scan_temp_bytes);
  l.bits = three.add(bits_bytes);
  l.state = lookback::add_state(single, tiles, 1, false, status_word_bytes);
  const std::size_t a = three.allocation(), b = single.allocation();
  l.allocation = a > b ? a : b;
  return l;
}

/// Checks a compaction's arguments once the size query is out of the way. The count output is written
/// even for n == 0 (it describes the whole input), so it must never be null; the other pointers only
/// matter when n > 0 (`null_in`: a null pointer among the inputs, flags included).
CARRY_HD inline arg_error check_compact_args(bool null_in, bool null_out, const void* d_num_selected,
                                             std::int64_t num_items, std::size_t temp_given,
                                             std::size_t temp_needed, std::int64_t num_tiles) {
  if (num_items < 0) return arg_error::negative_count;
  if (d_num_selected == nullptr) return arg_error::null_output;
  if (num_items == 0) return arg_error::none;
  if (null_in) return arg_error::null_input;
  if (null_out) return arg_error::null_output;
  if (temp_given < temp_needed) return arg_error::temp_too_small;
  if (num_tiles > detail::max_tiles) return arg_error::too_many_tiles;
  return arg_error::none;
}

/// Where a tile's first rejected item goes in a stable partition: after every selected item (`total`),
/// then after the rejected items of earlier tiles (tile_base - selected_before of them).
///
///   total 5, tile base 8, 3 selected before it  ->  5 + (8 - 3) = 10
CARRY_HD constexpr std::uint64_t rejected_offset(std::uint64_t total, std::int64_t tile_base,
                                                 std::uint64_t selected_before) {
  return total + static_cast<std::uint64_t>(tile_base) - selected_before;
}

/// Where a tile's first rejected item goes in a reversed partition (CUB's layout: the rejected items
/// from the output's last slot back): past the rejected items of earlier tiles (tile_base -
/// selected_before of them), counted from the end; its later rejected items go downward from there.
///
///   n 8, tile base 4, 2 selected before it  ->  8 - 1 - (4 - 2) = 5
CARRY_HD constexpr std::uint64_t reversed_rejected_offset(std::int64_t n, std::int64_t tile_base,
                                                          std::uint64_t selected_before) {
  return static_cast<std::uint64_t>(n - 1 - tile_base) + selected_before;
}

/// A partition's rejected items of one tile: the i-th goes to out[at + i] (DIR 1: stable) or
/// out[at - i] (DIR -1: reversed). A random-access output, as the tiles write it (r[i], r + k, r += k).
template <class OutIt, int DIR>
struct rejected_output {
  static_assert(DIR == 1 || DIR == -1, "carry: rejected items go up or down");
  OutIt out;
  std::int64_t at;
  CARRY_HD decltype(auto) operator[](std::int64_t i) const { return out[at + DIR * i]; }
  CARRY_HD rejected_output operator+(std::int64_t k) const { return {out, at + DIR * k}; }
  CARRY_HD rejected_output& operator+=(std::int64_t k) {
    at += DIR * k;
    return *this;
  }
};

/// Items of `out + at` before the 32-item group it sits in (pointers whose item size is a power of two up
/// to 16 bytes; 0 for other outputs): a write shifted back by this many starts every warp's store of 32
/// consecutive items on a 32-item boundary, whole sectors but at the run's two ends. Only which thread
/// stores which item depends on it.
///
///   int* out at byte address 0x1000, at = 35  ->  (0x1000 / 4 + 35) % 32 = 3
template <class OutIt>
CARRY_HD int group_lead(const OutIt& out, std::uint64_t at) {
  if constexpr (std::is_pointer<OutIt>::value) {
    constexpr std::size_t size = sizeof(std::remove_pointer_t<OutIt>);
    if constexpr (size <= 16 && (size & (size - 1)) == 0)
      return static_cast<int>((reinterpret_cast<std::uintptr_t>(out + at) / size) % 32);
  }
  return 0;
}
/// group_lead of rejected items: the output's own lead where they go upward; downward, 31 less the lead
/// of their first slot (item j of the write lands at r.at - j, so warps then store whole 32-item groups
/// from each group's top slot down); 0 for outputs without a lead.
///
///   int* out at byte address 0x1000, rejected from index 40 down  ->  31 - 40 % 32 = 23
template <class OutIt, int DIR>
CARRY_HD int group_lead(const rejected_output<OutIt, DIR>& r, std::uint64_t at) {
  if constexpr (DIR == 1) {
    return group_lead(r.out, static_cast<std::uint64_t>(r.at) + at);
  } else {
    if constexpr (std::is_pointer<OutIt>::value) {
      constexpr std::size_t size = sizeof(std::remove_pointer_t<OutIt>);
      if constexpr (size <= 16 && (size & (size - 1)) == 0)
        return 31 - group_lead(r.out, static_cast<std::uint64_t>(r.at - static_cast<std::int64_t>(at)));
    }
    return 0;
  }
}

} // namespace compact_detail
} // namespace carry
