// The tile-prefix callback of a single pass: publish the tile's aggregate, look back, publish its
// inclusive prefix; usable with any status format, value type and operator.
#pragma once

#include "../tile_prefix.hpp"
#include "look_back.cuh"

namespace carry {
namespace lookback {

/// The carry-in of tile `tile` given its aggregate, called by all of one warp (lane 0's answer counts):
/// block scans take it as their prefix callback. Tile 0 publishes seed (+) aggregate (seeded) or its
/// aggregate, as its inclusive prefix (classic) or its aggregate (canonical, which folds every tile's
/// published aggregate from the seed on), and gets the seed as carry-in (none when not seeded). Later
/// tiles publish their aggregate, look back and publish their inclusive prefix (canonical: only a group's
/// last tile, into `groups`). `publish` false (the last tile: nobody reads its words) skips the stores.
/// For the scan, seed = init of an exclusive scan; for counts (compaction), seed = 0 or none.
template <int DELAY_NS, bool CANONICAL, class Format, class Op>
struct tile_prefix_op {
  using T = typename Format::value_type;
  Format status;
  Format groups; // canonical mode: one word per group of 32 tiles
  std::int64_t tile;
  bool publish;
  Op op;
  T seed;
  bool seeded;

  /// What tile `t` publishes as its aggregate: tile 0 folds the seed in first, so every fold of the
  /// published values starts from the seed (the canonical formula's first term).
  __device__ static T published(const T& aggregate, std::int64_t t, Op op, const T& seed, bool seeded) {
    return seeded && t == 0 ? op(seed, aggregate) : aggregate;
  }

  __device__ tile_prefix<T> operator()(const T& aggregate) const {
    const bool leader = threadIdx.x % warp_threads == 0;
    if (tile == 0) {
      if (leader && publish)
        status.publish(0, CANONICAL ? state_aggregate : state_prefix,
                       published(aggregate, 0, op, seed, seeded));
      return {seed, seeded};
    }
    if (leader && publish) status.publish(tile, state_aggregate, aggregate);
    return {look_back_and_publish(aggregate, leader), true};
  }

  /// operator() in two halves, for a tile that knows its aggregate well before it needs its carry-in
  /// (operator() keeps its own copy of the publish: built from these halves it ran the reversed partition
  /// of u32 pointers 4 % slower, NOTES.md):
  /// announce publishes the aggregate at once (the warp's leader; later tiles' look-backs find it
  /// sooner), resolve (all of the warp) looks back and publishes the inclusive prefix.
  __device__ void announce(const T& aggregate) const {
    if (threadIdx.x % warp_threads != 0 || !publish) return;
    if (tile == 0)
      status.publish(0, CANONICAL ? state_aggregate : state_prefix,
                     published(aggregate, 0, op, seed, seeded));
    else
      status.publish(tile, state_aggregate, aggregate);
  }
  __device__ tile_prefix<T> resolve(const T& aggregate) const {
    if (tile == 0) return {seed, seeded};
    return {look_back_and_publish(aggregate, threadIdx.x % warp_threads == 0), true};
  }

private:
  /// A later tile's carry-in (its aggregate published): the look-back, then its inclusive prefix published
  /// (canonical: only a group's last tile, into `groups`).
  __device__ T look_back_and_publish(const T& aggregate, bool leader) const {
    if constexpr (CANONICAL) {
      const T exclusive = look_back_deterministic<DELAY_NS, T>(status, groups, tile, op);
      if (leader && publish && tile % warp_threads == warp_threads - 1) // a group boundary: slot = group
        groups.publish(tile / warp_threads, state_prefix, op(exclusive, aggregate));
      return exclusive;
    } else {
      const T exclusive = look_back<DELAY_NS, T>(status, tile, op);
      if (leader && publish) status.publish(tile, state_prefix, op(exclusive, aggregate));
      return exclusive;
    }
  }
};

} // namespace lookback
} // namespace carry
