// Definitions of the CUB baselines; each baselines_*.cu instantiates them for a few types.
#pragma once

#include <climits>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include "baselines.hpp"

namespace carry_validate {

template <class T>
cudaError_t cub_inclusive_sum(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                              std::int64_t num_items, cudaStream_t stream) {
  if (num_items <= INT_MAX)
    return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, static_cast<int>(num_items),
                                         stream);
  return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, num_items, stream);
}
template <class T>
cudaError_t cub_exclusive_sum(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                              std::int64_t num_items, cudaStream_t stream) {
  if (num_items <= INT_MAX)
    return cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, static_cast<int>(num_items),
                                         stream);
  return cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, num_items, stream);
}
template <class T>
cudaError_t cub_inclusive_max(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                              std::int64_t num_items, cudaStream_t stream) {
  return cub::DeviceScan::InclusiveScan(d_temp, temp_bytes, d_in, d_out, cuda::maximum<>{},
                                        static_cast<int>(num_items), stream);
}
template <class T>
cudaError_t cub_reduce_sum(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                           std::int64_t num_items, cudaStream_t stream) {
  return cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, num_items, stream);
}

#define CARRY_VALIDATE_CUB_SUMS(T)                                                                           \
  template cudaError_t cub_inclusive_sum<T>(void*, std::size_t&, const T*, T*, std::int64_t, cudaStream_t);  \
  template cudaError_t cub_exclusive_sum<T>(void*, std::size_t&, const T*, T*, std::int64_t, cudaStream_t);  \
  template cudaError_t cub_reduce_sum<T>(void*, std::size_t&, const T*, T*, std::int64_t, cudaStream_t);

} // namespace carry_validate
