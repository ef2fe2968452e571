// Decoupled look-back (Merrill & Garland 2016): warp 0 of a tile folds its predecessors' published values.
#pragma once

#include "tile_status.cuh"
#include "warp.cuh"

namespace carry {
namespace detail {

/// Lane reads tile `tile`'s status, spinning until every live lane's tile has published in this epoch.
/// Dead lanes read nothing and count as aggregates. With max_cycles >= 0 (lane 0's clock decides, so
/// the warp stops together) it gives up after that many cycles: lanes whose tile has not published
/// come back with state_invalid.
template <int DELAY_NS, class T, class Status>
__device__ __forceinline__ void read_published(const Status& st, std::int64_t tile, bool live, epoch_t epoch,
                                               unsigned& state, T& v, long long max_cycles = -1) {
  const unsigned full = 0xffffffffu;
  state = live ? unsigned{state_invalid} : unsigned{state_aggregate};
  const long long start = max_cycles >= 0 ? clock64() : 0;
  while (true) {
    if (state == state_invalid) st.read(tile, epoch, state, v);
    if (!__any_sync(full, state == state_invalid)) break;
    if (max_cycles >= 0 && __shfl_sync(full, static_cast<int>(clock64() - start > max_cycles), 0)) break;
    if constexpr (DELAY_NS > 0) __nanosleep(DELAY_NS);
  }
}

/// Fast mode: the exclusive prefix of `tile` (> 0), the fold of every earlier tile. Called by all of
/// warp 0; `st` holds each tile's aggregate, later replaced by its inclusive prefix. Each window of 32
/// predecessors is reduced as a tree, and the search stops at the nearest inclusive prefix, so the
/// grouping depends on timing: floating-point results may differ in the last bits from run to run.
template <int DELAY_NS, class T, class Op, class Status>
__device__ T look_back(const Status& st, std::int64_t tile, epoch_t epoch, Op op) {
  const int lane = threadIdx.x % warp_threads;
  const unsigned full = 0xffffffffu;
  std::int64_t end = tile - 1;
  unsigned state;
  T v, acc;
  bool has_acc = false;
  while (true) {
    const std::int64_t k = end - (warp_threads - 1) + lane; // lanes before tile 0 are dead
    read_published<DELAY_NS>(st, k, k >= 0, epoch, state, v);
    const unsigned prefixes = __ballot_sync(full, state == state_prefix);
    const int dead = end >= warp_threads - 1 ? 0 : static_cast<int>(warp_threads - 1 - end);
    const int first = prefixes ? warp_threads - 1 - __clz(prefixes) : dead;
    T w = shfl_idx(full, warp_reduce_ordered(v, op, lane, full, warp_threads, first), 0);
    acc = has_acc ? op(w, acc) : w;
    has_acc = true;
    if (prefixes) return acc;
    end -= warp_threads;
  }
}

// Deterministic mode. Tiles form groups of 32 (group g: tiles 32g .. 32g+31). The canonical values are
//   excl(t) = incl(32g-1) (+) tree(a[32g .. t-1])          (no incl term in group 0)
//   incl(32g+31) = excl(32g+31) (+) a(32g+31)              (published by the group's last tile)
// where tree(...) is warp_reduce_ordered over lanes [0, w): its shape depends on w only. A tile finds
// the nearest group boundary whose incl is published, or starts from group 0, and rebuilds the later
// boundaries group by group with the same formula, so every path yields the same bits. `prefixes` holds
// one word per group: slot q is incl(32q+31).

/// incl(32g - 1) for g >= 1.
template <int DELAY_NS, class T, class Op, class Status>
__device__ T boundary_prefix(const Status& aggregates, const Status& prefixes, std::int64_t g, epoch_t epoch,
                             Op op) {
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
    if (k >= 1) prefixes.read(k - 1, epoch, state, v); // incl(32k - 1): the last tile of group k-1
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
    read_published<DELAY_NS>(aggregates, warp_threads * q + lane, true, epoch, state, v);
    const T head = shfl_idx(full, warp_reduce_ordered(v, op, lane, full, warp_threads - 1), 0);
    const T last = shfl_idx(full, v, warp_threads - 1);
    base = has_base ? op(op(base, head), last) : op(head, last);
    has_base = true;
  }
  return base;
}

/// Deterministic mode: the exclusive prefix of `tile` (> 0). Called by all of warp 0.
template <int DELAY_NS, class T, class Op, class Status>
__device__ T look_back_deterministic(const Status& aggregates, const Status& prefixes, std::int64_t tile,
                                     epoch_t epoch, Op op) {
  const int lane = threadIdx.x % warp_threads;
  const unsigned full = 0xffffffffu;
  const std::int64_t g = tile / warp_threads;
  const int w = static_cast<int>(tile - g * warp_threads); // predecessors inside the group
  T partial;
  if (w > 0) {
    unsigned state;
    T v;
    read_published<DELAY_NS>(aggregates, g * warp_threads + lane, lane < w, epoch, state, v);
    partial = shfl_idx(full, warp_reduce_ordered(v, op, lane, full, w), 0);
    if (g == 0) return partial;
  }
  const T base = boundary_prefix<DELAY_NS, T>(aggregates, prefixes, g, epoch, op);
  return w > 0 ? op(base, partial) : base;
}

} // namespace detail
} // namespace carry
