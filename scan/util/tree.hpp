// The seeds' tree schedules as per-node operations: one step of Kogge-Stone, Brent-Kung and Blelloch.
// The block scans call these from their thread loops; the CPU tests run the same schedules serially.
#pragma once

#include "config.hpp"

namespace carry {
namespace detail {

// Kogge-Stone, step `stride`: element k (k >= stride) becomes s[k - stride] (+) s[k].
template <class T, class Op>
CARRY_HD T kogge_stone_node(const T* s, int k, int stride, Op op) {
  return k >= stride ? op(s[k - stride], s[k]) : s[k];
}

// Brent-Kung over n live elements, virtually padded to a power of two P. Values only flow to higher
// indices, so padding never reaches a live element and nodes that target the padding are skipped.

/// Nodes of the reduction tree at `stride` whose target is live: idx = (k+1)*2*stride - 1 < n.
CARRY_HD constexpr int brent_kung_up_nodes(int n, int stride) {
  return n / (2 * stride);
}
template <class T, class Op>
CARRY_HD void brent_kung_up_node(T* s, int k, int stride, Op op) {
  int idx = (k + 1) * 2 * stride - 1;
  s[idx] = op(s[idx - stride], s[idx]);
}
/// Nodes of the reverse tree at `stride` whose target idx + stride is live.
CARRY_HD constexpr int brent_kung_down_nodes(int n, int stride) {
  return n > stride ? (n - stride) / (2 * stride) : 0;
}
template <class T, class Op>
CARRY_HD void brent_kung_down_node(T* s, int k, int stride, Op op) {
  int idx = (k + 1) * 2 * stride - 1;
  s[idx + stride] = op(s[idx], s[idx + stride]);
}

// Blelloch over P (a power of two) slots, natively exclusive: the up-sweep builds the tree, the root is
// replaced by a seed, the down-sweep hands prefixes down. Seeding the root with x0 and the tree with
// x1..x(n-1) yields the inclusive scan of x, so no identity element is ever needed.

/// Up-sweep nodes at `stride` whose target lies among the n_live leading slots.
CARRY_HD constexpr int blelloch_up_nodes(int n_live, int stride) {
  return n_live / (2 * stride);
}
/// Down-sweep nodes at `stride` whose subtree starts before n_out (the outputs we need); capped at P.
CARRY_HD constexpr int blelloch_down_nodes(int n_out, int p, int stride) {
  int want = (n_out + 2 * stride - 1) / (2 * stride);
  int have = p / (2 * stride);
  return want < have ? want : have;
}
template <class T, class Op>
CARRY_HD void blelloch_down_node(T* s, int k, int stride, Op op) {
  int idx = (k + 1) * 2 * stride - 1;
  T left = s[idx - stride];
  T prefix = s[idx];
  s[idx - stride] = prefix;
  s[idx] = op(prefix, left);
}

} // namespace detail
} // namespace carry
