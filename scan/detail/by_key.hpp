// The keyed calls' pieces: the (head, value) pair, the segmented operator, a thread's items as the keyed
// agent hands them over, and the by-key scans' behaviour (its fold and its outputs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../tile_prefix.hpp"
#include "../util/config.hpp"
#include "../util/plan.hpp"

namespace carry {
namespace detail {

/// An item of a by-key scan: its value, and whether a segment (a run of equal keys) starts at it or,
/// once folded, anywhere in the span it covers (H: the head's type; reduce_by_key counts heads in it).
template <class V, class H = std::uint32_t>
struct keyed {
  H head;
  V value;
};

/// The segmented operator: a fold that restarts at every head. Associative whenever op is, never
/// commutative; a's and b's values meet only when no segment starts in b.
///
///   {1, 3} (+) {0, 4} = {1, 7};   {1, 3} (+) {1, 4} = {1, 4}
template <class Op>
struct segmented {
  Op op;
  template <class V>
  CARRY_HD keyed<V> operator()(const keyed<V>& a, const keyed<V>& b) const {
    return {a.head | b.head, b.head ? b.value : op(a.value, b.value)};
  }
  /// Whether a (+) b is b, bit for bit, whatever a is (heads are 0 or 1): b starts a segment. Both
  /// look-backs stop at such an aggregate (lookback::absorbing_op).
  template <class V>
  CARRY_HD bool absorbs(const keyed<V>& b) const {
    return b.head != 0;
  }
};

/// What the keyed agent reads: keys and values (values unread by calls without them), n items in all;
/// vec_keys / vec_values: pointers the host found aligned for the tile's vector loads.
template <class KeyIt, class ValIt>
struct keyed_source {
  KeyIt keys;
  ValIt values;
  std::int64_t n;
  bool vec_keys, vec_values;
};

/// A thread's items as the keyed agent hands them to a call's behaviour: keys, values, and bit masks
/// over the thread's ITEMS items (bit j: item j) of those that exist (live: the low bits), start a run
/// (heads) and end one (ends); whether the item before the thread's first starts a run (prev_head; only
/// for behaviours with uses_prev_head, false for item 0); the position of the first item, and of the
/// input's last (n - 1).
template <class K, class V, int ITEMS>
struct keyed_thread {
  K keys[ITEMS];
  V values[ITEMS];
  unsigned live, heads, ends;
  bool prev_head;
  std::int64_t first, last;
};

/// Bits 0 .. j of a mask given its bit j alone (`bit` = 1 << j): (bit << 1) - 1, all 32 when j = 31.
CARRY_HD constexpr unsigned upto_bit(unsigned bit) {
  return (bit << 1) - 1u;
}

/// step(j) for each live item j of a thread in order: a whole thread without a test an item.
template <int ITEMS, class Step>
CARRY_HD void for_live_items(unsigned live, Step&& step) {
  if (live == live_mask<ITEMS>(ITEMS)) {
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j) step(j);
  } else {
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j)
      if ((live >> j) & 1u) step(j);
  }
}

/// A thread's live, heads and ends from its keys (t.first, t.last set), `count` live items, `prev` the key
/// before its first item and `next` the one after its last (any live key where there is none: they are
/// only compared, and the masks below decide those items): one key comparison an item, an item ending a
/// run exactly when the next one starts one; the input's first item starts a run and its last ends one.
///
///   input [5 5 7 7 9 9] as threads of 3: the second, keys [7 9 9] with prev 7 and the input's last item
///   at its bit 2: heads 0b010, ends 0b101 (the 7 ends before the 9; the input ends)
template <int ITEMS, class K, class V, class Eq>
CARRY_HD void mark_runs(keyed_thread<K, V, ITEMS>& t, std::int64_t count, const K& prev, const K& next,
                        const Eq& eq) {
  unsigned differs = static_cast<bool>(eq(prev, t.keys[0])) ? 0u : 1u; // bit j: key j != the key before it
  CARRY_UNROLL
  for (int j = 1; j < ITEMS; ++j) differs |= static_cast<bool>(eq(t.keys[j - 1], t.keys[j])) ? 0u : 1u << j;
  const unsigned tail = static_cast<bool>(eq(t.keys[ITEMS - 1], next)) ? 0u : 1u << (ITEMS - 1);
  t.live = live_mask<ITEMS>(count);
  t.heads = (differs | (t.first == 0 ? 1u : 0u)) & t.live;
  const std::int64_t last_at = t.last - t.first; // the input's last item, if this thread holds it
  t.ends = ((differs >> 1) | tail | (last_at >= 0 && last_at < ITEMS ? 1u << last_at : 0u)) & t.live;
}

/// The fold with op of a thread's last run (from its latest head, or from its first item when it has
/// none): the value of the thread's aggregate under the segmented operators (their heads restart it).
template <class Op, class K, class V, int ITEMS>
CARRY_HD V fold_last_run(const keyed_thread<K, V, ITEMS>& t, const Op& op) {
  V a = t.values[0];
  for_live_items<ITEMS>(t.live, [&](int j) {
    if (j > 0) a = (t.heads >> j) & 1u ? t.values[j] : op(a, t.values[j]);
  });
  return a;
}

/// A thread's live items folded in order as (head, value) pairs with op (a segmented operator): its
/// aggregate. The model of what the behaviours compute directly (test_cpu checks they agree).
template <class Agg, class Op, class K, class V, int ITEMS>
CARRY_HD Agg fold_pairs(const keyed_thread<K, V, ITEMS>& t, const Op& op) {
  using H = decltype(Agg::head);
  Agg a{static_cast<H>(t.heads & 1u), t.values[0]};
  CARRY_UNROLL
  for (int j = 1; j < ITEMS; ++j)
    if ((t.live >> j) & 1u) a = op(a, Agg{static_cast<H>((t.heads >> j) & 1u), t.values[j]});
  return a;
}

/// A sink that writes a behaviour's run outputs straight to its outputs (out0(), out1()): the CPU model,
/// and the calls without staged outputs. A behaviour declares, once a thread, the indices its puts to
/// each array will use (span: count of them from lo, consecutive); this sink has no use for them.
template <class B>
struct direct_sink {
  const B& b;
  template <int A>
  CARRY_HD void span(std::int64_t, int) {}
  template <int A, class T>
  CARRY_HD void put(std::int64_t i, const T& v) {
    if constexpr (A == 0)
      b.out0()[i] = v;
    else
      b.out1()[i] = v;
  }
  /// Output the key of the thread's item j at index i of array A.
  template <int A, class Thread>
  CARRY_HD void put_key(std::int64_t i, const Thread& t, int j) {
    put<A>(i, t.keys[j]);
  }
};

/// Where the tile's key at position p sits in the keyed agent's key buffer (keys by position): one slot of
/// padding every 32, so that a warp storing its blocked keys (lane l: positions l * ITEMS + j, the same j
/// across the warp) hits 32 distinct 4-byte banks for ITEMS = 16 (u32 keys).
///
///   positions 0 .. 31 -> slots 0 .. 31; 32 -> 33; lane 1's j = 0 (position 16) and lane 3's (48, slot 49)
CARRY_HD constexpr int padded_key_slot(int p) {
  return p + p / 32;
}

/// Whether behaviour B's staged array 0 holds the tile positions of the keys it outputs (B::keys_by_position;
/// default false), the keyed agent keeping the tile's keys in shared memory for the flush: the thread's
/// keys are then dead once its runs are marked, which frees their registers across the look-back.
template <class B, class = void>
struct keys_by_position : std::false_type {};
template <class B>
struct keys_by_position<B, std::void_t<decltype(B::keys_by_position)>>
    : std::integral_constant<bool, B::keys_by_position> {};

/// The by-key scans as a keyed agent's behaviour: a thread folds its items as (head, value) pairs with the
/// segmented operator; its outputs replay the fold from the carry-in, item by item, restarting at each
/// head (exclusive: init at a head, else op(init, the fold of the run's earlier items)).
///
///   keys [1 1 2 2 2 1], values [3 1 7 0 4 1], sum: inclusive [3 4 7 7 11 1], exclusive (0) [0 3 0 7 7 0]
template <bool EXCLUSIVE, class K, class V, class Op, class Eq, class OutIt>
struct scan_by_key_behaviour {
  using key_type = K;
  using value_type = V;
  using aggregate = keyed<V>;
  using op_type = segmented<Op>;
  using output_type = OutIt;
  static constexpr bool with_values = true, stores_values = true, uses_prev_head = false;
  static constexpr int staged_arrays = 0; // no run outputs
  using staged0 = V;
  using staged1 = V;
  Eq eq;
  Op op;
  V init;
  OutIt out;
  CARRY_HD op_type scan_op() const { return {op}; }
  template <int ITEMS>
  CARRY_HD aggregate reduce(const keyed_thread<K, V, ITEMS>& t) const {
    return {t.heads != 0 ? 1u : 0u, fold_last_run(t, op)};
  }
  /// A thread without a carry-in holds the input's first item, a head, so `run` is set before its use.
  template <int ITEMS, class Sink>
  CARRY_HD void emit(const keyed_thread<K, V, ITEMS>& t, const tile_prefix<aggregate>& carry, V (&r)[ITEMS],
                     Sink&) const {
    V run = carry.value.value;
    auto step = [&](int j) {
      const bool head = (t.heads >> j) & 1u;
      if constexpr (EXCLUSIVE) r[j] = head ? init : op(init, run);
      run = head ? t.values[j] : op(run, t.values[j]);
      if constexpr (!EXCLUSIVE) r[j] = run;
    };
    for_live_items<ITEMS>(t.live, step);
  }
};

} // namespace detail
} // namespace carry
