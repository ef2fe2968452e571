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

/// A tile boundary of a four-run merge (at an item of one run): how many items of each run come before it
/// in the stable merge (ties: the earlier run first); their sum is its place in the merge.
struct merge4_bound {
  std::int64_t at[4];
  CARRY_HD std::int64_t place() const { return at[0] + at[1] + at[2] + at[3]; }
};

/// Item pos of run r (of four: run[q] has len[q] items) as a boundary: the items of earlier runs not after
/// it, of later runs before it, and its own pos.
template <class K, class Less>
CARRY_HD merge4_bound bound_at(const K* const run[4], const std::int64_t len[4], int r, std::int64_t pos,
                               Less less) {
  const K key = run[r][pos];
  merge4_bound v{};
  for (int q = 0; q < 4; ++q) {
    if (q == r) {
      v.at[q] = pos;
      continue;
    }
    std::int64_t lo = 0, hi = len[q];
    while (lo < hi) { // earlier runs: the first item after key; later runs: the first not before it
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (q < r ? !less(key, run[q][mid]) : less(run[q][mid], key))
        lo = mid + 1;
      else
        hi = mid;
    }
    v.at[q] = lo;
  }
  return v;
}

/// How a four-run merge cuts its tiles and lays out its scratch. Every `every`-th item of each run is a
/// sample (run q's samples numbered from first[q], run by run); the samples merged stably give the tile
/// boundaries: a tile starts at every `per_tile`-th merged sample, so it holds fewer than
/// (per_tile + 4) * every items (run q's items in it lie between (samples of q in it) + 1 of its samples).
/// The scratch, in 8-byte words: the boundaries (four words each, tiles + 1 of them), the samples' keys and
/// numbers three times (gathered, each run pair merged, all merged), then the two-run merges' splits.
///
///   runs of 300, 0, 129, 1 items, every 128, per_tile 2: samples 3 + 0 + 2 + 1 = 6, tiles 3
struct merge4_plan {
  std::int64_t every = 0, per_tile = 0, samples = 0, tiles = 0, first[5] = {};
  std::int64_t bounds = 0, keys[3] = {}, tags[3] = {}, splits = 0, words = 0; // word offsets, and the total
};
CARRY_HD constexpr merge4_plan plan_merge4(const std::int64_t len[4], int key_bytes, std::int64_t tile,
                                           std::int64_t every, std::int64_t two_splits_words) {
  merge4_plan p;
  p.every = every;
  p.per_tile = tile / every - 4;
  for (int q = 0; q < 4; ++q) p.first[q + 1] = p.first[q] + (len[q] + every - 1) / every;
  p.samples = p.first[4];
  p.tiles = p.samples > 0 ? (p.samples + p.per_tile - 1) / p.per_tile : 0;
  const std::int64_t key_words = (p.samples * key_bytes + 7) / 8;
  std::int64_t w = 0;
  p.bounds = w;
  w += 4 * (p.tiles + 1);
  for (int i = 0; i < 3; ++i) {
    p.keys[i] = w;
    w += key_words;
    p.tags[i] = w;
    w += p.samples;
  }
  p.splits = w;
  p.words = w + two_splits_words;
  return p;
}

/// The policy's value for keys K with values of VALUE_BYTES bytes (0: keys alone): keys4 for keys of at most
/// 4 bytes alone, pairs4 with values of at most 4 bytes, wide where either is wider.
template <class K, int VALUE_BYTES, class T>
constexpr T by_width(T keys4, T pairs4, T wide) {
  return sizeof(K) > 4 || VALUE_BYTES > 4 ? wide : VALUE_BYTES == 0 ? keys4 : pairs4;
}

/// The merge's tile for keys K with values of VALUE_BYTES bytes (0: keys alone), from policy P.
template <class K, int VALUE_BYTES, class P = radix_tuning::default_policy>
struct merge_shape {
  static constexpr int threads =
      by_width<K, VALUE_BYTES>(P::merge_threads_keys4, P::merge_threads_pairs4, P::merge_threads_wide);
  static constexpr int items =
      by_width<K, VALUE_BYTES>(P::merge_items_keys4, P::merge_items_pairs4, P::merge_items_wide);
  static constexpr int min_blocks = by_width<K, VALUE_BYTES>(
      P::merge_min_blocks_keys4, P::merge_min_blocks_pairs4, P::merge_min_blocks_wide);
  static constexpr std::int64_t tile = std::int64_t{threads} * items;
};

/// The four-run merge's tile (merge_four: every run of a tile staged, the two inner merges written to a
/// second stage, then the outer merge) for keys K with values of VALUE_BYTES bytes, from policy P.
template <class K, int VALUE_BYTES, class P = radix_tuning::default_policy>
struct merge4_shape {
  static constexpr int threads = P::merge4_threads;
  static constexpr int items =
      by_width<K, VALUE_BYTES>(P::merge4_items_keys4, P::merge4_items_pairs4, P::merge4_items_wide);
  static constexpr int min_blocks = by_width<K, VALUE_BYTES>(
      P::merge4_min_blocks_keys4, P::merge4_min_blocks_pairs4, P::merge4_min_blocks_wide);
  static constexpr std::int64_t tile = std::int64_t{threads} * items;
};

/// The smallest tile a merge of keys K takes (keys alone, with values of at most 4 bytes, or wider).
template <class K>
constexpr std::int64_t merge_tile() {
  return std::min({merge_shape<K, 0>::tile, merge_shape<K, 4>::tile, merge_shape<K, 8>::tile});
}
/// Whether three or four runs of keys K with values of VALUE_BYTES bytes (0: keys alone) merge in one pass
/// (merge_four) rather than by the two-run tree: where the policy measured it faster.
template <class K, int VALUE_BYTES, class P = radix_tuning::default_policy>
constexpr bool merge4_pays() {
  return by_width<K, VALUE_BYTES>(P::merge4_keys4, P::merge4_pairs4, P::merge4_wide);
}

/// The smallest tile a four-run merge of keys K takes.
template <class K>
constexpr std::int64_t merge4_tile() {
  return std::min({merge4_shape<K, 0>::tile, merge4_shape<K, 4>::tile, merge4_shape<K, 8>::tile});
}
/// The split scratch of a two-run merge of up to n items of keys K, whatever its values (one a tile
/// boundary).
template <class K>
constexpr std::int64_t merge_two_splits(std::int64_t n) {
  return (n > 0 ? n : 0) / merge_tile<K>() + 2;
}
/// The scratch (8-byte words) of a four-run merge of runs of these lengths in tiles of `tile` (plan_merge4),
/// its samples' merges in the two-run tile.
template <class K, class P = radix_tuning::default_policy>
CARRY_HD constexpr merge4_plan plan_merge4_for(const std::int64_t len[4], std::int64_t tile) {
  const std::int64_t samples = (len[0] + len[1] + len[2] + len[3]) / P::merge4_sample_every + 4;
  return plan_merge4(len, static_cast<int>(sizeof(K)), tile, P::merge4_sample_every,
                     merge_two_splits<K>(samples));
}
/// The split scratch (8-byte words) a merge of up to n items of keys K needs, whatever its values and
/// however many runs: merge_two's, or merge_four's in its smallest tile at the most samples n items in
/// four runs can give (ceil(n / every) + 3: those of one run of n + 3 * every items).
template <class K>
constexpr std::int64_t merge_splits(std::int64_t n) {
  const std::int64_t m = n > 0 ? n : 0;
  const std::int64_t worst[4] = {m + 3 * radix_tuning::default_policy::merge4_sample_every, 0, 0, 0};
  return std::max(merge_two_splits<K>(m), plan_merge4_for<K>(worst, merge4_tile<K>()).words);
}

} // namespace radix_detail
} // namespace carry
