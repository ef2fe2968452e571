// The merge's host/device arithmetic: the order it merges by, the merge path of a diagonal, its tile
// shape and split scratch. Plain C++ (host and device), CPU-tested.
#pragma once

#include <cstdint>

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
/// on ties a's items come first).
template <class It, class Less>
CARRY_HD std::int64_t merge_path(It a, std::int64_t na, It b, std::int64_t nb, std::int64_t d, Less less) {
  std::int64_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (!less(b[d - 1 - mid], a[mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

constexpr int merge_threads = 256;
template <class K>
constexpr int merge_items() { // odd: a thread's run of outputs in shared memory meets no bank twice
  return sizeof(K) <= 4 ? 11 : 7;
}
template <class K>
constexpr std::int64_t merge_tile() {
  return std::int64_t{merge_threads} * merge_items<K>();
}
/// The split scratch a merge of up to n items needs (merge_two's `splits`: one a tile boundary).
template <class K>
constexpr std::int64_t merge_splits(std::int64_t n) {
  return (n > 0 ? n : 0) / merge_tile<K>() + 2;
}

} // namespace radix_detail
} // namespace carry
