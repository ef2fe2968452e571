// Public facade of the histograms: histogram_even, histogram_range, histogram_offsets and bin_by_key
// (CUB's DeviceHistogram shape, num_bins instead of num_levels; two-phase temp storage, stream last).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../scan/detail/accumulator.hpp"
#include "../scan/util/stage.cuh"
#include "detail/dispatch.cuh"

namespace carry {

/// The samples may be any random-access iterator (a pointer loads 16-byte chunks; a counting or
/// transform iterator is read sample by sample, a chunk's worth a lane).
///
/// Counts samples into num_bins evenly spaced bins over [lower, upper): sample x goes to bin
/// floor((x - lower) * num_bins / (upper - lower)), exactly for integers (no overflow for any range of
/// any 8- to 64-bit type); samples outside [lower, upper), NaN and +-inf are not counted. Every one of
/// the num_bins counters (u32, i32, u64 or i64: the caller's type) is written, n == 0 included (zeros).
/// Needs no temp storage (the size query asks for 1 byte). Bins 1 .. 2^24.
///
///   samples [3 1 7 0 4 1 6 3], 4 bins over [0, 8)  ->  histogram [3 2 1 2]  (bins [0,2) [2,4) [4,6) [6,8))
///
/// Differences from cub::DeviceHistogram::HistogramEven: num_bins, not num_levels (= num_bins + 1);
/// one channel; bad bins (num_bins outside 1 .. 2^24, lower >= upper, non-finite bounds) are refused
/// with cudaErrorInvalidValue.
template <class SampleIt, class CounterT, class LevelT>
cudaError_t histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIt d_samples,
                           CounterT* d_histogram, int num_bins, LevelT lower, LevelT upper,
                           std::int64_t num_items, cudaStream_t stream = 0) {
  using T = detail::iter_value<SampleIt>;
  const apps_detail::bin_error bins = apps_detail::check_even_bins<LevelT>(num_bins, lower, upper);
  const auto binner = apps_detail::make_even_binner<T>(bins, num_bins, lower, upper);
  return apps_detail::dispatch_histogram(d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_bins,
                                         bins, binner, num_items, stream);
}

/// Counts samples into the num_bins bins between num_bins + 1 ascending levels (device memory): bin i
/// holds [d_levels[i], d_levels[i + 1]). Samples outside [d_levels[0], d_levels[num_bins]) and NaN are not
/// counted. The levels stay on the device (checking their order would need a copy to the host, a hidden
/// synchronisation): levels that do not ascend give unspecified counts, never a write outside the
/// histogram. Needs no temp storage.
///
///   samples [3 1 7 0 4 1 6 3], levels [0 2 5 8]  ->  histogram [3 3 2]
template <class SampleIt, class CounterT, class LevelT>
cudaError_t histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIt d_samples,
                            CounterT* d_histogram, int num_bins, const LevelT* d_levels,
                            std::int64_t num_items, cudaStream_t stream = 0) {
  using T = detail::iter_value<SampleIt>;
  const bool bins_ok = num_bins >= 1 && num_bins <= apps_detail::max_bins && d_levels != nullptr;
  const apps_detail::range_binner<T, LevelT> binner{d_levels, bins_ok ? num_bins : 1};
  return apps_detail::dispatch_histogram(
      d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_bins,
      bins_ok ? apps_detail::bin_error::none : apps_detail::bin_error::bad_count, binner, num_items, stream);
}

/// histogram_even and the exclusive scan of its counts in one call: num_bins + 1 offsets, offset b =
/// samples in bins below b, the last = every sample counted: the bucket offsets of a counting sort.
///
///   samples [3 1 7 0 4 1 6 3], 4 bins over [0, 8)  ->  offsets [0 3 5 6 8]
template <class SampleIt, class OffsetT, class LevelT>
cudaError_t histogram_offsets(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIt d_samples,
                              OffsetT* d_offsets, int num_bins, LevelT lower, LevelT upper,
                              std::int64_t num_items, cudaStream_t stream = 0) {
  using T = detail::iter_value<SampleIt>;
  const apps_detail::bin_error bins = apps_detail::check_even_bins<LevelT>(num_bins, lower, upper);
  const auto binner = apps_detail::make_even_binner<T>(bins, num_bins, lower, upper);
  return apps_detail::dispatch_offsets(d_temp_storage, temp_storage_bytes, d_samples, d_offsets, num_bins,
                                       bins, binner, num_items, stream);
}

/// Counting sort: keys (and values) scattered stably into bucket order, bin_op(key) giving each key's
/// bin in [0, num_bins) (results outside are clamped into it). With d_offsets (may be null), the
/// num_bins + 1 bucket offsets too: the keys of bin b land at [d_offsets[b], d_offsets[b + 1]). Up to 256
/// bins one counting pass; more bins take one pass per 8 bits of the bin (a stable LSD sort of the bin),
/// through a scratch copy in temp storage. Inputs and outputs may not overlap.
///
///   keys [3 1 7 0 4 1 6 3], bin_op = k / 2, 4 bins  ->  keys [1 0 1 3 3 4 7 6], offsets [0 3 5 6 8]
///
/// The values in may be any random-access iterator of V (a counting iterator: each key's original
/// index); an iterator other than a pointer of V is staged into temp storage first (n values written and
/// read once more; the size query counts that buffer).
template <class K, class ValueIt, class V, class OffsetT, class BinOp>
cudaError_t bin_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                       K* d_keys_out, ValueIt d_values_in, V* d_values_out, OffsetT* d_offsets, int num_bins,
                       BinOp bin_op, std::int64_t num_items, cudaStream_t stream = 0) {
  auto call = [&](void* t, std::size_t& bytes, const V* values_in) {
    return apps_detail::dispatch_bin<true>(t, bytes, d_keys_in, d_keys_out, values_in, d_values_out,
                                           d_offsets, num_bins, bin_op, num_items, stream);
  };
  if constexpr (std::is_convertible<ValueIt, const V*>::value)
    return call(d_temp_storage, temp_storage_bytes, static_cast<const V*>(d_values_in));
  else
    return detail::with_staged<V>(
        d_temp_storage, temp_storage_bytes, d_values_in, num_items,
        num_items <= 0 || (d_keys_in != nullptr && d_keys_out != nullptr && d_values_out != nullptr), stream,
        call);
}

/// bin_by_key of keys alone.
///
///   keys [3 1 7 0 4 1 6 3], bin_op = k / 2, 4 bins  ->  keys [1 0 1 3 3 4 7 6], offsets [0 3 5 6 8]
template <class K, class OffsetT, class BinOp>
cudaError_t bin_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* d_keys_in,
                       K* d_keys_out, OffsetT* d_offsets, int num_bins, BinOp bin_op, std::int64_t num_items,
                       cudaStream_t stream = 0) {
  return apps_detail::dispatch_bin<false>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                          static_cast<const K*>(nullptr), static_cast<K*>(nullptr), d_offsets,
                                          num_bins, bin_op, num_items, stream);
}

} // namespace carry
