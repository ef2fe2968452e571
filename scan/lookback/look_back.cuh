// Decoupled look-back (Merrill & Garland 2016) over cleared status words: the classic fold, the
// canonical (deterministic) fold, and the per-chain look-back of a vector of chains (Onesweep).
#pragma once

#include <type_traits>
#include <utility>

#include "../util/warp.cuh"
#include "status.cuh"

namespace carry {
namespace lookback {

using detail::shfl_idx;
using detail::warp_reduce_ordered;
using detail::warp_threads;

/// Lane reads word `i` of `st`, spinning until every live lane's word has been published. Dead lanes
/// read nothing and count as aggregates. With max_cycles >= 0 (lane 0's clock decides, so the warp
/// stops together) it gives up after that many cycles: lanes whose word has not been published come
/// back with state_invalid.
template <int DELAY_NS, class T, class Status>
__device__ __forceinline__ void read_published(const Status& st, std::int64_t i, bool live, unsigned& state,
                                               T& v, long long max_cycles = -1) {
  const unsigned full = 0xffffffffu;
  state = live ? unsigned{state_invalid} : unsigned{state_aggregate};
  const long long start = max_cycles >= 0 ? clock64() : 0;
  while (true) {
    if (state == state_invalid) st.read(i, state, v);
    if (!__any_sync(full, state == state_invalid)) break;
    if (max_cycles >= 0 && __shfl_sync(full, static_cast<int>(clock64() - start > max_cycles), 0)) break;
    if constexpr (DELAY_NS > 0) __nanosleep(DELAY_NS);
  }
}

/// Whether Op names the values that swallow everything before them: op.absorbs(b) true means
/// op(a, b) == b, bit for bit, for every a (the by-key scans' segmented operator: b starts a segment).
/// Then any fold over a span depends only on the span's suffix from its last absorbing value (by induction
/// over a tree: a node whose right half holds that value is its right half), so both look-backs stop at
/// such an aggregate as at an inclusive prefix: a scan by key with short runs waits for its nearest
/// predecessors' aggregates (published before any look-back) instead of an inclusive prefix, and the
/// canonical fold gets the same bits as over every predecessor.
template <class Op, class T, class = void>
struct absorbing_op : std::false_type {};
template <class Op, class T>
struct absorbing_op<Op, T, std::void_t<decltype(std::declval<const Op&>().absorbs(std::declval<const T&>()))>>
    : std::true_type {};

/// Lanes with `live` set read word i of `st` (op absorbing), spinning until the last stop among the
/// published words (an inclusive prefix, or a value op absorbs) and every live word after it are published,
/// or every live word is (`wait` false: one read). Returns the ballot of the stops: the highest is where a
/// fold may start; 0 when there is none (every live word published) or, without `wait`, none yet.
/// Unpublished lanes below the last stop hold nothing.
template <int DELAY_NS, class T, class Op, class Status>
__device__ unsigned read_to_stop(const Status& st, std::int64_t i, bool live, const Op& op, unsigned& state,
                                 T& v, bool wait) {
  const unsigned full = 0xffffffffu;
  state = live ? unsigned{state_invalid} : unsigned{state_aggregate};
  while (true) {
    if (state == state_invalid) st.read(i, state, v);
    const unsigned missing = __ballot_sync(full, state == state_invalid);
    const unsigned stops =
        __ballot_sync(full, live && state != state_invalid && (state == state_prefix || op.absorbs(v)));
    if (stops && !(missing & ~((2u << (warp_threads - 1 - __clz(stops))) - 1u))) return stops;
    if (!missing || !wait) return 0u;
    if constexpr (DELAY_NS > 0) __nanosleep(DELAY_NS);
  }
}

/// The lanes below the last stop of `stops` (nonzero) take its value: a canonical fold over the lanes then
/// has the bits of the fold over the words they stand for, and no unpublished bits enter it.
template <class T>
__device__ void fill_below_stop(unsigned stops, T& v) {
  const int j = warp_threads - 1 - __clz(stops);
  const T at = shfl_idx(0xffffffffu, v, j);
  if (static_cast<int>(threadIdx.x % warp_threads) < j) v = at;
}

/// Fast mode: the exclusive prefix of `tile` (> 0), the fold of every earlier tile. Called by all of
/// one warp; `st` holds each tile's aggregate, later replaced by its inclusive prefix. Each window of 32
/// predecessors is reduced as a tree, and the search stops at the nearest inclusive prefix (or aggregate
/// an absorbing op absorbs at), so the grouping depends on timing: floating-point results may differ in
/// the last bits from run to run.
template <int DELAY_NS, class T, class Op, class Status>
__device__ T look_back(const Status& st, std::int64_t tile, Op op) {
  const int lane = threadIdx.x % warp_threads;
  const unsigned full = 0xffffffffu;
  std::int64_t end = tile - 1;
  unsigned state;
  T v, acc;
  bool has_acc = false;
  while (true) {
    const std::int64_t k = end - (warp_threads - 1) + lane; // lanes before tile 0 are dead
    unsigned stops; // inclusive prefixes (and, op absorbing, aggregates it absorbs at)
    if constexpr (absorbing_op<Op, T>::value) {
      stops = read_to_stop<DELAY_NS>(st, k, k >= 0, op, state, v, true);
    } else {
      read_published<DELAY_NS>(st, k, k >= 0, state, v);
      stops = __ballot_sync(full, state == state_prefix);
    }
    const int dead = end >= warp_threads - 1 ? 0 : static_cast<int>(warp_threads - 1 - end);
    const int first = stops ? warp_threads - 1 - __clz(stops) : dead;
    T w = shfl_idx(full, warp_reduce_ordered(v, op, lane, full, warp_threads, first), 0);
    acc = has_acc ? op(w, acc) : w;
    has_acc = true;
    if (stops) return acc;
    end -= warp_threads;
  }
}

// Deterministic mode. Tiles form groups of 32 (group g: tiles 32g .. 32g+31). The canonical values are
//   excl(t) = incl(32g-1) (+) tree(a[32g .. t-1])          (no incl term in group 0)
//   incl(32g+31) = excl(32g+31) (+) a(32g+31)              (published by the group's last tile)
// where tree(...) is warp_reduce_ordered over lanes [0, w): its shape depends on w only. A tile finds
// the nearest group boundary whose incl is published, or starts from group 0, and rebuilds the later
// boundaries group by group with the same formula, so every path yields the same bits. `groups` holds
// one word per group: slot q is incl(32q+31).

/// The canonical fold of the 32 aggregates of one whole group (lane j holds a(32q + j)) onto `base`
/// (none when has_base is false): base (+) tree(a[0..30]) (+) a[31]. Every lane gets the result.
template <class T, class Op>
__device__ T fold_group(const T& v, const T& base, bool has_base, Op op) {
  const int lane = threadIdx.x % warp_threads;
  const unsigned full = 0xffffffffu;
  const T head = shfl_idx(full, warp_reduce_ordered(v, op, lane, full, warp_threads - 1), 0);
  const T last = shfl_idx(full, v, warp_threads - 1);
  return has_base ? op(op(base, head), last) : op(head, last);
}

/// The canonical fold of a partial group (lane j < w holds a(32g + j), w >= 1): tree(a[0..w-1]).
template <class T, class Op>
__device__ T fold_partial_group(const T& v, int w, Op op) {
  const int lane = threadIdx.x % warp_threads;
  const unsigned full = 0xffffffffu;
  return shfl_idx(full, warp_reduce_ordered(v, op, lane, full, w), 0);
}

/// incl(32g - 1) for g >= 1.
template <int DELAY_NS, class T, class Op, class Status>
__device__ T boundary_prefix(const Status& aggregates, const Status& groups, std::int64_t g, Op op) {
  const int lane = threadIdx.x % warp_threads;
  const unsigned full = 0xffffffffu;
  // ---- nearest published boundary, 32 at a time (lane j: boundary of group h - j) ----
  std::int64_t start = 0; // first group to rebuild
  T base;
  bool has_base = false;
  for (std::int64_t h = g;; h -= warp_threads) {
    const std::int64_t k = h - lane;
    unsigned state = state_invalid;
    T v;
    if (k >= 1) groups.read(k - 1, state, v); // incl(32k - 1): the last tile of group k-1
    if constexpr (absorbing_op<Op, T>::value) {
      // group g-1's aggregates in the same round trip: one that absorbs gives incl(32g - 1) without base
      if (h == g) {
        unsigned as;
        T a;
        const unsigned stops =
            read_to_stop<DELAY_NS>(aggregates, warp_threads * (g - 1) + lane, true, op, as, a, false);
        if (stops) {
          fill_below_stop(stops, a);
          return fold_group(a, a, false, op);
        }
      }
    }
    const unsigned found = __ballot_sync(full, state == state_prefix);
    if (found) {
      const int j = __ffs(found) - 1; // the nearest
      base = shfl_idx(full, v, j);
      has_base = true;
      start = h - j;
      break;
    }
    if (h - (warp_threads - 1) <= 1) break; // none down to group 1: rebuild from group 0
  }
  // ---- rebuild boundaries start .. g-1 ----
  for (std::int64_t q = start; q < g; ++q) {
    unsigned state;
    T v;
    read_published<DELAY_NS>(aggregates, warp_threads * q + lane, true, state, v);
    base = fold_group(v, base, has_base, op);
    has_base = true;
  }
  return base;
}

/// Deterministic mode: the exclusive prefix of `tile` (> 0). Called by all of one warp.
template <int DELAY_NS, class T, class Op, class Status>
__device__ T look_back_deterministic(const Status& aggregates, const Status& groups, std::int64_t tile,
                                     Op op) {
  const int lane = threadIdx.x % warp_threads;
  const std::int64_t g = tile / warp_threads;
  const int w = static_cast<int>(tile - g * warp_threads); // predecessors inside the group
  T partial;
  if (w > 0) {
    T v;
    bool cut = false; // an absorbing aggregate in the group before the tile: the boundary cannot matter
    if constexpr (absorbing_op<Op, T>::value) {
      unsigned state;
      const unsigned stops =
          read_to_stop<DELAY_NS>(aggregates, g * warp_threads + lane, lane < w, op, state, v, true);
      if (stops) fill_below_stop(stops, v);
      cut = stops != 0;
    } else {
      unsigned state;
      read_published<DELAY_NS>(aggregates, g * warp_threads + lane, lane < w, state, v);
    }
    partial = fold_partial_group(v, w, op);
    if (g == 0 || cut) return partial;
  }
  const T base = boundary_prefix<DELAY_NS, T>(aggregates, groups, g, op);
  return w > 0 ? op(base, partial) : base;
}

/// One chain of a vector look-back, by one thread (no warp-wide step, so the lanes of a warp may each
/// resolve their own chain, a digit each in radix sort): the fold of chain `chain` over tiles
/// 0 .. tile-1, walking back from tile-1 to the nearest inclusive prefix. Each (tile, chain) word holds
/// the tile's aggregate for that chain, later its inclusive prefix. `zero` is the fold's identity
/// (what tile 0's exclusive prefix is). WINDOW words are read per round trip (tiles k, k-1, ...,
/// k-WINDOW+1, independent loads), then folded nearest first up to the first one not yet published
/// (read again next round) or through an inclusive prefix (done): a walk over m aggregates takes about
/// m / WINDOW round trips instead of m.
template <int DELAY_NS, int WINDOW = 1, class View, class T, class Op>
__device__ T look_back_chain(const View& view, std::int64_t tile, int chain, const T& zero, Op op) {
  static_assert(WINDOW >= 1, "carry: a look-back window of at least one word");
  T acc = zero;
  std::int64_t k = tile - 1;
  while (k >= 0) {
    unsigned state[WINDOW];
    T v[WINDOW];
    CARRY_UNROLL
    for (int i = 0; i < WINDOW; ++i) {
      state[i] = state_invalid;
      v[i] = zero;
      if (k - i >= 0) view.read(k - i, chain, state[i], v[i]);
    }
    // ---- fold nearest first: stop at an unpublished word (k stays on it) or after a prefix ----
    const std::int64_t first = k;
    CARRY_UNROLL
    for (int i = 0; i < WINDOW; ++i) {
      if (k < 0 || state[i] == state_invalid) break;
      acc = op(v[i], acc);
      if (state[i] == state_prefix) return acc;
      --k;
    }
    if constexpr (DELAY_NS > 0)
      if (k == first) __nanosleep(DELAY_NS);
  }
  return acc;
}

} // namespace lookback
} // namespace carry
