// The merge's host/device arithmetic: the order it merges by, the merge path of a diagonal, its tile
// shape and split scratch. Plain C++ (host and device), CPU-tested.
#pragma once

#include <algorithm>
#include <cstdint>

#include "../tuning.hpp"
#include "key_traits.hpp"

namespace carry {
namespace radix_detail {

/// a before b in the sort's order (ties: neither; the merge takes the earlier run's key first).
template <class K>
struct merge_order {
  bool descending;
  CARRY_HD bool operator()(const K& a, const K& b) const {
    return key_image(a, descending) < key_image(b, descending);
  }
};

/// How many of a's items come first among the first d items of the stable merge of a and b (merge path:
/// on ties a's items come first). I: the offset type (int inside a tile, std::int64_t across runs).
template <class It, class I, class Less>
CARRY_HD I merge_path(It a, I na, It b, I nb, I d, Less less) {
  I lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (!less(b[d - 1 - mid], a[mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// The merge's tile for keys K with values of VALUE_BYTES bytes (0: keys alone), from policy P.
template <class K, int VALUE_BYTES, class P = radix_tuning::default_policy>
struct merge_shape {
  static constexpr bool narrow = sizeof(K) <= 4 && VALUE_BYTES <= 4;
  static constexpr int threads = !narrow            ? P::merge_threads_wide
                                 : VALUE_BYTES == 0 ? P::merge_threads_keys4
                                                    : P::merge_threads_pairs4;
  static constexpr int items = !narrow            ? P::merge_items_wide
                               : VALUE_BYTES == 0 ? P::merge_items_keys4
                                                  : P::merge_items_pairs4;
  static constexpr int min_blocks = !narrow            ? P::merge_min_blocks_wide
                                    : VALUE_BYTES == 0 ? P::merge_min_blocks_keys4
                                                       : P::merge_min_blocks_pairs4;
  static constexpr std::int64_t tile = std::int64_t{threads} * items;
};

/// The smallest tile a merge of keys K takes (keys alone, with values of at most 4 bytes, or wider).
template <class K>
constexpr std::int64_t merge_tile() {
  return std::min({merge_shape<K, 0>::tile, merge_shape<K, 4>::tile, merge_shape<K, 8>::tile});
}
/// The split scratch a merge of up to n items of keys K needs, whatever its values (merge_two's `splits`:
/// one a tile boundary).
template <class K>
constexpr std::int64_t merge_splits(std::int64_t n) {
  return (n > 0 ? n : 0) / merge_tile<K>() + 2;
}

} // namespace radix_detail
} // namespace carry
