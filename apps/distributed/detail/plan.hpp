// Host/device arithmetic of the distributed layer (no NCCL): optional values and their fold, the carry-in
// of a rank from the all-gathered rank totals, shard counts to global offsets, even shards.
#pragma once

#include <cstdint>

#include "../../../scan/util/config.hpp"

namespace carry {
namespace dist {

/// What each rank learns about its part of a sharded result, on the device: its count, where its items
/// start in global order (the counts of the ranks before it) and the global count.
struct shard_info {
  std::int64_t count = 0;
  std::int64_t offset = 0;
  std::int64_t total = 0;
};

namespace detail {

/// A value that may be absent (an empty shard's total, a carry-in before the first non-empty rank).
template <class T>
struct maybe {
  T value;
  int has; // 0 or 1 (an int: the all-gathered slot has no padding bytes of undefined value before it)
};

/// An operator lifted to maybe<T>: absent values are the identity, so any associative operator gets one
/// (a reduce without an init, a fold that starts nowhere).
template <class Op>
struct maybe_op {
  Op op;
  template <class T>
  CARRY_HD maybe<T> operator()(const maybe<T>& a, const maybe<T>& b) const {
    if (!a.has) return b;
    if (!b.has) return a;
    return {op(a.value, b.value), 1};
  }
};

/// x as a present maybe (the transform of a shard's items before the lifted reduce).
template <class T>
struct present {
  template <class U>
  CARRY_HD maybe<T> operator()(const U& x) const {
    return {static_cast<T>(x), 1};
  }
};

/// The carry-in of `rank`: seed (+) totals[0] (+) ... (+) totals[rank - 1], strictly left to right (so a
/// float result is the same bits on every run), absent totals skipped.
template <class T, class Op>
CARRY_HD maybe<T> fold_before(const maybe<T>* totals, int rank, maybe<T> seed, Op op) {
  const maybe_op<Op> lifted{op};
  maybe<T> c = seed;
  for (int q = 0; q < rank; ++q) c = lifted(c, totals[q]);
  return c;
}

/// A rank's shard_info from every rank's count (an all-gathered array of `ranks` counts).
CARRY_HD inline shard_info shard_of(const std::int64_t* counts, int ranks, int rank) {
  shard_info s;
  for (int q = 0; q < ranks; ++q) {
    if (q < rank) s.offset += counts[q];
    s.total += counts[q];
  }
  s.count = counts[rank];
  return s;
}

/// The even shard of `rank` among `ranks` over `total` items: [begin, end), the first total % ranks ranks
/// one item longer (shards differ by at most one item).
struct shard_range {
  std::int64_t begin = 0, end = 0;
};
CARRY_HD inline shard_range even_shard(std::int64_t total, int ranks, int rank) {
  const std::int64_t base = total / ranks, extra = total % ranks;
  shard_range r;
  r.begin = rank * base + (rank < extra ? rank : extra);
  r.end = r.begin + base + (rank < extra ? 1 : 0);
  return r;
}

// ---- the sort's plan ----

/// A key of the distributed sort as it is ordered: its order-preserving image (flipped when descending)
/// and its global index, so that every key is distinct and equal keys keep their global order (stable).
struct sort_sample {
  std::uint64_t image = 0;
  std::int64_t index = 0;
};
CARRY_HD inline bool before(const sort_sample& a, const sort_sample& b) {
  return a.image < b.image || (a.image == b.image && a.index < b.index);
}

/// The local index of sample k of s taken from a shard of n items (regular positions, n > 0).
CARRY_HD inline std::int64_t sample_position(std::int64_t n, int s, int k) {
  return (2 * static_cast<std::int64_t>(k) + 1) * n / (2 * static_cast<std::int64_t>(s));
}

/// The rank a key goes to: how many of the ranks - 1 splitters are not after it.
CARRY_HD inline int destination(const sort_sample* splitters, int ranks, const sort_sample& key) {
  int lo = 0, hi = ranks - 1; // the first splitter after the key
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (before(key, splitters[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

} // namespace detail
} // namespace dist
} // namespace carry
