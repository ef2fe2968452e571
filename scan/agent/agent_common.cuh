// Pieces every per-tile agent shares: tile types, the ordered reduction of a loaded tile, packed bytes.
#pragma once

#include <type_traits>

#include "../block_reduce.cuh"
#include "../block_scan.cuh"
#include "../operators.hpp"
#include "../util/plan.hpp"
#include "../tile/tile_io.cuh"

namespace carry {
namespace detail {

/// The warp scan of an agent's coarsened block scan over thread totals (Policy::warp_scan; default
/// Brent-Kung, as the scans').
template <class Policy, class = void>
struct warp_scan_of : std::integral_constant<warp_scan_shape, warp_scan_shape::brent_kung> {};
template <class Policy>
struct warp_scan_of<Policy, std::void_t<decltype(Policy::warp_scan)>>
    : std::integral_constant<warp_scan_shape, Policy::warp_scan> {};

template <class Policy, class T>
struct tile_types {
  static constexpr int threads = Policy::block_threads;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int tile_items = Policy::tile_items;
  using scan_t = block_scan<T, threads, Policy::algorithm, items>;
  using reduce_t = block_reduce<T, threads, items>;
  using io = tile_io<T, threads, items, Policy::streaming, Policy::warp_transpose>;
};

/// Folds the first `valid` items of a loaded tile into one value (valid in thread 0), in order.
template <class Policy, class T, class Op>
__device__ T reduce_loaded_tile(typename tile_types<Policy, T>::reduce_t::temp_storage& ts,
                                T (&items)[Policy::items_per_thread], int valid, Op op) {
  using tt = tile_types<Policy, T>;
  if (valid == tt::tile_items) return typename tt::reduce_t(ts).reduce(items, op);
  // A partial tile: the padding must not enter a reduction. Fold live items into item 0 and let the
  // dead threads (a suffix of the block, as the arrangement is blocked) carry copies that are dropped.
  const int first = threadIdx.x * tt::items;
  T v = items[0];
  CARRY_UNROLL
  for (int j = 1; j < tt::items; ++j)
    if (first + j < valid) v = op(v, items[j]);
  return typename tt::reduce_t(ts).reduce_live(v, op, (valid + tt::items - 1) / tt::items);
}

// ---- packed bytes: sums of 1-byte integers, four to a 32-bit word (the staged tile's full tiles) ----

/// Whether T under Op is a sum of 1-byte integers (mod 256), which the staged tile does four at a time.
template <class T, class Op>
constexpr bool packed_byte_sum() {
  return sizeof(T) == 1 && std::is_integral<T>::value && std::is_same<Op, carry::sum>::value;
}

/// Per-byte a + b (mod 256) of four bytes at once: no carry crosses a byte.
__device__ __forceinline__ unsigned add_bytes(unsigned a, unsigned b) {
  return ((a & 0x7f7f7f7fu) + (b & 0x7f7f7f7fu)) ^ ((a ^ b) & 0x80808080u);
}
/// Inclusive prefix sums of the four bytes of w, plus `carry` added to each.
__device__ __forceinline__ unsigned scan_bytes(unsigned w, unsigned carry) {
  w = add_bytes(w, w << 8);
  w = add_bytes(w, w << 16);
  return add_bytes(w, carry * 0x01010101u);
}

/// A single-pass tile's carry-in, given its aggregate: publishes the aggregate, looks back
} // namespace detail
} // namespace carry
