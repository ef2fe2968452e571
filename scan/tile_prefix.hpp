// The carry-in of a tile and the one carry fix-up every tile shape applies with it.
#pragma once

#include "util/config.hpp"

namespace carry {

/// A carry-in for a tile: a value, or none (the first tile of an inclusive scan).
template <class T>
struct tile_prefix {
  T value;
  bool valid;
};

/// carry (+) x, or x where there is no carry. Every fix-up in the engine (block scans, the staged
/// drain, warp-striped segments, the spine) goes through here, so the operand order is the same
/// everywhere: the carry is always the earlier operand.
template <class T, class Op>
CARRY_HD T with_carry(const tile_prefix<T>& carry, const T& x, Op op) {
  return carry.valid ? op(carry.value, x) : x;
}

/// The carry that follows x: carry (+) x, always valid.
template <class T, class Op>
CARRY_HD tile_prefix<T> extend(const tile_prefix<T>& carry, const T& x, Op op) {
  return {with_carry(carry, x, op), true};
}

/// The fix-up of a run of N thread-local inclusive prefixes, in place: inclusive, each becomes
/// carry (+) itself; exclusive, each becomes carry (+) the one before it, the first the carry itself
/// (an exclusive scan always has a carry: init at least).
///
///   run [3 4 11], carry 10:  inclusive -> [13 14 21];  exclusive -> [10 13 14]
template <bool EXCLUSIVE, class T, class Op, int N>
CARRY_HD void apply_carry(T (&run)[N], const tile_prefix<T>& carry, Op op) {
  if constexpr (EXCLUSIVE) {
    T prev = carry.value;
    CARRY_UNROLL
    for (int j = 0; j < N; ++j) {
      const T local = run[j];
      run[j] = prev;
      prev = op(carry.value, local);
    }
  } else if (carry.valid) {
    CARRY_UNROLL
    for (int j = 0; j < N; ++j) run[j] = op(carry.value, run[j]);
  }
}

} // namespace carry
