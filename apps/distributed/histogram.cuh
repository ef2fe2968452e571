// Distributed histograms over the shards of an NCCL communicator: dist::histogram_even and
// histogram_offsets (each rank counts its shard; one all-reduce of the counters).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../../scan/device_scan.cuh"
#include "../histogram.cuh"
#include "communicator.hpp"
#include "detail/kernels.cuh"

namespace carry {
namespace dist {

/// The histogram of every rank's samples, on every rank: each rank counts its shard into its
/// d_histogram (carry::histogram_even, exact bins), then one all-reduce sums the counters in place.
/// Every rank passes the same bins and counter type. Counters: 4- or 8-byte integers.
///
///   rank 0: [3 1 7 0], rank 1: [4 1 6 3], 4 bins over [0, 8)  ->  every rank: [3 2 1 2]
template <class SampleIt, class CounterT, class LevelT>
cudaError_t histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIt d_samples,
                           CounterT* d_histogram, int num_bins, LevelT lower, LevelT upper,
                           std::int64_t num_items, const communicator& comm, cudaStream_t stream = 0) {
  if (!comm.valid()) return cudaErrorInvalidValue;
  if (const cudaError_t e = carry::histogram_even(d_temp_storage, temp_storage_bytes, d_samples, d_histogram,
                                                  num_bins, lower, upper, num_items, stream);
      e != cudaSuccess || d_temp_storage == nullptr)
    return e;
  return from_nccl(ncclAllReduce(d_histogram, d_histogram, static_cast<std::size_t>(num_bins),
                                 detail::nccl_type<CounterT>(), ncclSum, comm.get(), stream));
}

/// The global bucket offsets of every rank's samples, on every rank: num_bins + 1 offsets, the last the
/// global count (each rank counts its shard, one all-reduce of the counts, the exclusive sum).
///
///   rank 0: [3 1 7 0], rank 1: [4 1 6 3], 4 bins over [0, 8)  ->  every rank: [0 3 5 6 8]
template <class SampleIt, class OffsetT, class LevelT>
cudaError_t histogram_offsets(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIt d_samples,
                              OffsetT* d_offsets, int num_bins, LevelT lower, LevelT upper,
                              std::int64_t num_items, const communicator& comm, cudaStream_t stream = 0) {
  if (!comm.valid() || num_bins < 1) return cudaErrorInvalidValue;
  const std::int64_t slots = static_cast<std::int64_t>(num_bins) + 1;
  std::size_t hist_bytes = 0, scan_bytes = 0;
  if (const cudaError_t e =
          carry::histogram_even(nullptr, hist_bytes, d_samples, static_cast<OffsetT*>(nullptr), num_bins,
                                lower, upper, num_items, stream);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e = carry::exclusive_sum(nullptr, scan_bytes, static_cast<const OffsetT*>(nullptr),
                                                 static_cast<OffsetT*>(nullptr), slots, stream);
      e != cudaSuccess)
    return e;
  lookback::temp_builder carve;
  const lookback::temp_part hist_at = carve.add(hist_bytes), scan_at = carve.add(scan_bytes),
                            counts_at = carve.add(sizeof(OffsetT) * static_cast<std::size_t>(slots));
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = carve.allocation();
    return cudaSuccess;
  }
  if (temp_storage_bytes < carve.allocation() || d_offsets == nullptr) return cudaErrorInvalidValue;
  auto* counts = counts_at.as<OffsetT>(d_temp_storage);
  // ---- this rank's counts (the histogram's own check first), the last slot 0 ----
  if (const cudaError_t e = carry::histogram_even(hist_at.as<void>(d_temp_storage), hist_bytes, d_samples,
                                                  counts, num_bins, lower, upper, num_items, stream);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e = cudaMemsetAsync(counts + num_bins, 0, sizeof(OffsetT), stream); e != cudaSuccess)
    return e;
  // ---- every rank's, then their exclusive sum ----
  if (const cudaError_t e =
          from_nccl(ncclAllReduce(counts, counts, static_cast<std::size_t>(num_bins),
                                  detail::nccl_type<OffsetT>(), ncclSum, comm.get(), stream));
      e != cudaSuccess)
    return e;
  return carry::exclusive_sum(scan_at.as<void>(d_temp_storage), scan_bytes,
                              static_cast<const OffsetT*>(counts), d_offsets, slots, stream);
}

} // namespace dist
} // namespace carry
