// One block sorts a range of up to THREADS x ITEMS keys (and values) by some of its digits, LSD, in shared
// memory with the engine's multisplit: the bucket form's buckets and the cluster path's local phase.
#pragma once

#include <cstdint>

#include "../../scan/block/multisplit.cuh"
#include "../tuning.hpp"
#include "digit.cuh"
#include "plan.hpp"

namespace carry {
namespace radix_detail {

/// Shared memory of a block of THREADS sorting up to THREADS x ITEMS keys: the ranker's counters, and the
/// range staged in each pass's order, keys and values side by side (both are needed for the next pass).
template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS = radix_tuning::threads,
          class P = radix_tuning::default_policy>
struct block_sort_storage {
  static constexpr int tile_items = THREADS * ITEMS;
  using ranker =
      tile_ranker<ITEMS, P::cluster_counts, THREADS, P>; // one latency chain, as the cluster's tiles
  typename ranker::temp_storage rank;
  K keys[tile_items];
  V values[HAS_VALUES ? tile_items : 1];
};

/// The block's `count` (<= tile_items) keys at ksrc (values at vsrc), sorted stably by the digits of the
/// passes in `lower` (a mask of passes of the call's bits [begin_bit, end_bit) and direction), lowest
/// first, and written to kdst (vdst) in that order. Every item is loaded before the first barrier, so
/// kdst may be ksrc (the block's own range). Each pass: rank by the digit (multisplit, stable), stage
/// keys and values at their ranks, take them back warp-striped.
///   [0x1203 0x1201 0x1202] (u16 keys, lower = pass 0) -> [0x1201 0x1202 0x1203]
template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS, class P>
__device__ __forceinline__ void
sort_block_range(block_sort_storage<ITEMS, HAS_VALUES, K, V, THREADS, P>& ts, const K* ksrc, const V* vsrc,
                 K* kdst, V* vdst, int count, unsigned lower, int begin_bit, int end_bit, bool descending) {
  using ms = typename block_sort_storage<ITEMS, HAS_VALUES, K, V, THREADS>::ranker;
  if (count == 0) return; // the same for every thread
  // ---- load, warp-striped ----
  K key[ITEMS];
  V val[HAS_VALUES ? ITEMS : 1];
  load_keys<ITEMS>(ksrc, count, key);
  if constexpr (HAS_VALUES) load_keys<ITEMS>(vsrc, count, val);
  // ---- one multisplit pass a digit, in shared memory ----
  for (int p = 0; lower >> p != 0u; ++p) {
    if (!(lower >> p & 1u)) continue; // the same for every thread
    const radix_digit<K> digit{pass_digit(begin_bit, end_bit, p, radix_tuning::digit_bits, descending)};
    int pos[ITEMS];
    ms::template rank_by<block::tile_fill::checked>(
        ts.rank, [&](int j) { return static_cast<unsigned>(digit.bin_of(key[j])); }, count, pos);
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j)
      if (ms::item_index(j) < count) {
        ts.keys[pos[j]] = key[j];
        if constexpr (HAS_VALUES) ts.values[pos[j]] = val[j];
      }
    __syncthreads();
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j)
      if (ms::item_index(j) < count) {
        key[j] = ts.keys[ms::item_index(j)];
        if constexpr (HAS_VALUES) val[j] = ts.values[ms::item_index(j)];
      }
    __syncthreads(); // the stage read before the next pass stages into it
  }
  // ---- write ----
  CARRY_UNROLL
  for (int j = 0; j < ITEMS; ++j)
    if (ms::item_index(j) < count) kdst[ms::item_index(j)] = key[j];
  if constexpr (HAS_VALUES) {
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j)
      if (ms::item_index(j) < count) vdst[ms::item_index(j)] = val[j];
  }
}

} // namespace radix_detail
} // namespace carry
