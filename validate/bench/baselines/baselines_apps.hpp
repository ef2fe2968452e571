// CUB baselines of the apps (histograms, an 8-bit radix sort pass, a widening exclusive sum) behind a
// plain host API.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace carry_validate {

/// cub::DeviceHistogram::HistogramEven with num_bins + 1 levels over [lower, upper).
template <class T, class C, class L>
cudaError_t cub_histogram_even(void* d_temp, std::size_t& temp_bytes, const T* d_samples, C* d_hist,
                               int num_bins, L lower, L upper, std::int64_t n, cudaStream_t stream);
/// cub::DeviceHistogram::HistogramRange with num_bins + 1 levels.
template <class T, class C, class L>
cudaError_t cub_histogram_range(void* d_temp, std::size_t& temp_bytes, const T* d_samples, C* d_hist,
                                int num_bins, const L* d_levels, std::int64_t n, cudaStream_t stream);
/// cub::DeviceRadixSort::SortPairs / SortKeys over bits [begin_bit, end_bit) (offset64: 64-bit num_items).
template <class K, class V>
cudaError_t cub_sort_pairs(void* d_temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                           const V* values_in, V* values_out, std::int64_t n, int begin_bit, int end_bit,
                           bool offset64, cudaStream_t stream);
template <class K>
cudaError_t cub_sort_keys(void* d_temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                          std::int64_t n, int begin_bit, int end_bit, bool offset64, cudaStream_t stream);
/// cub::DeviceScan::ExclusiveSum of u32 requests into u64 offsets (a widening input iterator), then one
/// thread reads the last offset and request into *d_total: what allocate_slots does.
cudaError_t cub_slots_u32_u64(void* d_temp, std::size_t& temp_bytes, const std::uint32_t* d_requests,
                              std::uint64_t* d_offsets, std::uint64_t* d_total, std::int64_t n, bool offset64,
                              cudaStream_t stream);

} // namespace carry_validate
