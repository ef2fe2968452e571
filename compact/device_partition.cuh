// Public device-wide partitions of carry (CUB's DevicePartition::If and ::Flagged shapes): stable by default,
// or in CUB's layout (the rejected items reversed), one pass over stored items.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "compact_options.hpp"
#include "detail/dispatch.cuh"
#include "tuning.hpp"

namespace carry {

namespace compact_detail {
/// A partition in the order `options` asks for: stable, or reversed (CUB's layout, one pass).
template <class P, class T, class InIt, class Sel, class OutIt, class NumT>
cudaError_t dispatch_partition(void* d_temp_storage, std::size_t& temp_storage_bytes, InIt in, Sel sel,
                               bool null_sel, OutIt out, NumT* d_num, std::int64_t num_items,
                               const compact_options& options, cudaStream_t stream) {
  if (options.rejected == partition_order::reversed)
    return dispatch_compact<P, true, T, true>(d_temp_storage, temp_storage_bytes, in, sel, null_sel, out,
                                              d_num, num_items, options, stream);
  if (options.rejected != partition_order::stable) return cudaErrorInvalidValue;
  return dispatch_compact<P, true, T>(d_temp_storage, temp_storage_bytes, in, sel, null_sel, out, d_num,
                                      num_items, options, stream);
}
} // namespace compact_detail

/// Partition: the items for which pred(item) is true, in input order, then the others: in input order
/// (the default, stable), or with options.rejected = partition_order::reversed in reverse input order
/// from the output's end back, exactly CUB's DevicePartition::If layout, in one pass over stored items
/// (a stable partition reads them twice: the rejected items wait for the total). *d_num_selected: how
/// many are true.
/// Two-phase temp storage, no allocation, no synchronisation, 64-bit num_items, any random-access d_in,
/// as carry::select_if. Errors (cudaErrorInvalidValue, nothing written): num_items < 0; d_num_selected
/// null; with num_items > 0 a null d_in or d_out, too little temp storage, or d_out overlapping d_in
/// (no in-place partition). num_items == 0: *d_num_selected = 0, nothing else written.
///
///   d_in = [3 1 7 0 4 2 6 3], pred = x > 2  ->  d_out = [3 7 4 6 3 | 1 0 2], *d_num_selected = 5
///   reversed:                                   d_out = [3 7 4 6 3 | 2 0 1]
template <class InputIt, class OutputIt, class NumT, class Pred>
cudaError_t partition(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                      NumT* d_num_selected, std::int64_t num_items, Pred pred, compact_options options,
                      cudaStream_t stream = 0) {
  using T = compact_detail::value_of<InputIt>;
  return compact_detail::dispatch_partition<compact_tuning::policy<T>, T>(
      d_temp_storage, temp_storage_bytes, d_in, compact_detail::by_predicate<Pred>{pred}, false, d_out,
      d_num_selected, num_items, options, stream);
}
template <class InputIt, class OutputIt, class NumT, class Pred>
cudaError_t partition(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                      NumT* d_num_selected, std::int64_t num_items, Pred pred, cudaStream_t stream = 0) {
  return partition(d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected, num_items, pred,
                   compact_options{}, stream);
}

/// Flagged partition (CUB's DevicePartition::Flagged): the items whose flag is non-zero, in input order,
/// then the others, in input order (stable, the default) or reversed from the output's end back (CUB's
/// layout, options.rejected = partition_order::reversed). Flags of any type (bool, any integer width)
/// from any random-access iterator; everything else as carry::partition. The stable form counts from the
/// flags alone and keeps the selection as a bit an item for its scatter, so it reads the flags once: its
/// temp storage is about num_items / 8 bytes (items of 1 to 16 bytes; CUB's is a few KB).
///
///   d_in = [3 1 7 0 4 1 6 3], d_flags = [1 0 2 0 0 1 1 0]  ->  d_out = [3 7 1 6 | 1 0 4 3], *d_num_selected = 4
///   reversed:                                                d_out = [3 7 1 6 | 3 4 0 1]
template <class InputIt, class FlagIt, class OutputIt, class NumT>
cudaError_t partition_flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                              FlagIt d_flags, OutputIt d_out, NumT* d_num_selected, std::int64_t num_items,
                              compact_options options, cudaStream_t stream = 0) {
  using T = compact_detail::value_of<InputIt>;
  using P = compact_tuning::policy<T>;
  return compact_detail::dispatch_partition<P, T>(
      d_temp_storage, temp_storage_bytes, d_in, compact_detail::flag_selector<P, T, InputIt>(d_flags),
      compact_detail::is_null(d_flags), d_out, d_num_selected, num_items, options, stream);
}
template <class InputIt, class FlagIt, class OutputIt, class NumT>
cudaError_t partition_flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                              FlagIt d_flags, OutputIt d_out, NumT* d_num_selected, std::int64_t num_items,
                              cudaStream_t stream = 0) {
  return partition_flagged(d_temp_storage, temp_storage_bytes, d_in, d_flags, d_out, d_num_selected,
                           num_items, compact_options{}, stream);
}

} // namespace carry
