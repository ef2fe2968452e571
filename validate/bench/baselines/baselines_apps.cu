// Definitions of the CUB apps baselines, instantiated for the types the tests, the tool and the benchmark use.
#include <climits>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/iterator>
#include <thrust/iterator/transform_iterator.h>

#include "baselines_apps.hpp"

namespace carry_validate {

template <class T, class C, class L>
cudaError_t cub_histogram_even(void* d_temp, std::size_t& temp_bytes, const T* d_samples, C* d_hist,
                               int num_bins, L lower, L upper, std::int64_t n, cudaStream_t stream) {
  return cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_samples, d_hist, num_bins + 1, lower,
                                             upper, n, stream);
}
template <class T, class C, class L>
cudaError_t cub_histogram_range(void* d_temp, std::size_t& temp_bytes, const T* d_samples, C* d_hist,
                                int num_bins, const L* d_levels, std::int64_t n, cudaStream_t stream) {
  return cub::DeviceHistogram::HistogramRange(d_temp, temp_bytes, d_samples, d_hist, num_bins + 1, d_levels,
                                              n, stream);
}
template <class K, class V>
cudaError_t cub_sort_pairs(void* d_temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                           const V* values_in, V* values_out, std::int64_t n, int begin_bit, int end_bit,
                           bool offset64, cudaStream_t stream) {
  if (!offset64 && n <= INT_MAX)
    return cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out,
                                           static_cast<int>(n), begin_bit, end_bit, stream);
  return cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                         begin_bit, end_bit, stream);
}
template <class K>
cudaError_t cub_sort_keys(void* d_temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                          std::int64_t n, int begin_bit, int end_bit, bool offset64, cudaStream_t stream) {
  if (!offset64 && n <= INT_MAX)
    return cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, keys_in, keys_out, static_cast<int>(n),
                                          begin_bit, end_bit, stream);
  return cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, keys_in, keys_out, n, begin_bit, end_bit, stream);
}

namespace {
struct widen {
  __host__ __device__ std::uint64_t operator()(std::uint32_t x) const { return x; }
};
__global__ void total_kernel(const std::uint32_t* requests, const std::uint64_t* offsets,
                             std::uint64_t* total, std::int64_t n) {
  *total = n > 0 ? offsets[n - 1] + requests[n - 1] : 0;
}
} // namespace

cudaError_t cub_slots_u32_u64(void* d_temp, std::size_t& temp_bytes, const std::uint32_t* d_requests,
                              std::uint64_t* d_offsets, std::uint64_t* d_total, std::int64_t n, bool offset64,
                              cudaStream_t stream) {
  thrust::transform_iterator<widen, const std::uint32_t*> in(d_requests, widen{});
  cudaError_t e =
      !offset64 && n <= INT_MAX
          ? cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, in, d_offsets, static_cast<int>(n), stream)
          : cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, in, d_offsets, n, stream);
  if (e != cudaSuccess || d_temp == nullptr) return e;
  total_kernel<<<1, 1, 0, stream>>>(d_requests, d_offsets, d_total, n);
  return cudaGetLastError();
}

#define CARRY_HIST(T, C, L)                                                                                  \
  template cudaError_t cub_histogram_even<T, C, L>(void*, std::size_t&, const T*, C*, int, L, L,             \
                                                   std::int64_t, cudaStream_t);                              \
  template cudaError_t cub_histogram_range<T, C, L>(void*, std::size_t&, const T*, C*, int, const L*,        \
                                                    std::int64_t, cudaStream_t);
CARRY_HIST(std::uint32_t, int, std::uint32_t)
CARRY_HIST(std::uint32_t, std::uint32_t, std::uint32_t)
CARRY_HIST(std::uint8_t, int, int)
CARRY_HIST(std::int32_t, int, std::int32_t)
CARRY_HIST(float, int, float)
CARRY_HIST(double, int, double)
#undef CARRY_HIST
template cudaError_t cub_sort_pairs<std::uint32_t, std::uint32_t>(void*, std::size_t&, const std::uint32_t*,
                                                                  std::uint32_t*, const std::uint32_t*,
                                                                  std::uint32_t*, std::int64_t, int, int,
                                                                  bool, cudaStream_t);
template cudaError_t cub_sort_keys<std::uint32_t>(void*, std::size_t&, const std::uint32_t*, std::uint32_t*,
                                                  std::int64_t, int, int, bool, cudaStream_t);

} // namespace carry_validate
