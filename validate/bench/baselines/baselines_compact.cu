// Definitions of the CUB compaction baselines, instantiated for the types the tests and benchmark use.
#include <climits>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "baselines_compact.hpp"
#include "tests/common/compact_ops.hpp"

namespace carry_validate {

template <class T>
cudaError_t cub_select_if_less(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                               std::int64_t* d_num, std::int64_t n, T bound, bool offset64,
                               cudaStream_t stream) {
  if (!offset64 && n <= INT_MAX)
    return cub::DeviceSelect::If(d_temp, temp_bytes, d_in, d_out, d_num, static_cast<int>(n),
                                 less_than<T>{bound}, stream);
  return cub::DeviceSelect::If(d_temp, temp_bytes, d_in, d_out, d_num, n, less_than<T>{bound}, stream);
}
template <class T>
cudaError_t cub_select_unique(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                              std::int64_t* d_num, std::int64_t n, bool offset64, cudaStream_t stream) {
  if (!offset64 && n <= INT_MAX)
    return cub::DeviceSelect::Unique(d_temp, temp_bytes, d_in, d_out, d_num, static_cast<int>(n), stream);
  return cub::DeviceSelect::Unique(d_temp, temp_bytes, d_in, d_out, d_num, n, stream);
}
template <class T>
cudaError_t cub_partition_less(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                               std::int64_t* d_num, std::int64_t n, T bound, bool offset64,
                               cudaStream_t stream) {
  if (!offset64 && n <= INT_MAX)
    return cub::DevicePartition::If(d_temp, temp_bytes, d_in, d_out, d_num, static_cast<int>(n),
                                    less_than<T>{bound}, stream);
  return cub::DevicePartition::If(d_temp, temp_bytes, d_in, d_out, d_num, n, less_than<T>{bound}, stream);
}

#define CARRY_VALIDATE_CUB_COMPACT(T)                                                                        \
  template cudaError_t cub_select_if_less<T>(void*, std::size_t&, const T*, T*, std::int64_t*, std::int64_t, \
                                             T, bool, cudaStream_t);                                         \
  template cudaError_t cub_select_unique<T>(void*, std::size_t&, const T*, T*, std::int64_t*, std::int64_t,  \
                                            bool, cudaStream_t);                                             \
  template cudaError_t cub_partition_less<T>(void*, std::size_t&, const T*, T*, std::int64_t*, std::int64_t, \
                                             T, bool, cudaStream_t);
CARRY_VALIDATE_CUB_COMPACT(std::uint32_t)
CARRY_VALIDATE_CUB_COMPACT(std::uint64_t)
CARRY_VALIDATE_CUB_COMPACT(std::uint8_t)

template <class In, class T, class F>
cudaError_t cub_flagged_over(void* d_temp, std::size_t& temp_bytes, In in, const F* d_flags, T* d_out,
                             std::int64_t* d_num, std::int64_t n, bool partition, bool offset64,
                             cudaStream_t stream) {
  if (!offset64 && n <= INT_MAX) {
    const int m = static_cast<int>(n);
    return partition ? cub::DevicePartition::Flagged(d_temp, temp_bytes, in, d_flags, d_out, d_num, m, stream)
                     : cub::DeviceSelect::Flagged(d_temp, temp_bytes, in, d_flags, d_out, d_num, m, stream);
  }
  return partition ? cub::DevicePartition::Flagged(d_temp, temp_bytes, in, d_flags, d_out, d_num, n, stream)
                   : cub::DeviceSelect::Flagged(d_temp, temp_bytes, in, d_flags, d_out, d_num, n, stream);
}
template <class T, class F>
cudaError_t cub_flagged(void* d_temp, std::size_t& temp_bytes, const T* d_in, const F* d_flags, T* d_out,
                        std::int64_t* d_num, std::int64_t n, bool partition, bool offset64,
                        cudaStream_t stream) {
  if (d_in == nullptr)
    return cub_flagged_over(d_temp, temp_bytes, thrust::counting_iterator<T>(0), d_flags, d_out, d_num, n,
                            partition, offset64, stream);
  return cub_flagged_over(d_temp, temp_bytes, d_in, d_flags, d_out, d_num, n, partition, offset64, stream);
}
#define CARRY_VALIDATE_CUB_FLAGGED(T, F)                                                                     \
  template cudaError_t cub_flagged<T, F>(void*, std::size_t&, const T*, const F*, T*, std::int64_t*,         \
                                         std::int64_t, bool, bool, cudaStream_t);
CARRY_VALIDATE_CUB_FLAGGED(std::uint32_t, std::uint8_t)
CARRY_VALIDATE_CUB_FLAGGED(std::uint32_t, bool)
CARRY_VALIDATE_CUB_FLAGGED(std::uint32_t, std::uint32_t)
CARRY_VALIDATE_CUB_FLAGGED(std::uint32_t, int)
CARRY_VALIDATE_CUB_FLAGGED(std::uint64_t, std::uint8_t)
CARRY_VALIDATE_CUB_FLAGGED(std::uint8_t, std::uint8_t)

cudaError_t cub_select_if_iota(void* d_temp, std::size_t& temp_bytes, std::uint32_t* d_out,
                               std::int64_t* d_num, std::int64_t n, std::uint32_t bound, bool offset64,
                               cudaStream_t stream) {
  const thrust::counting_iterator<std::uint32_t> first(0);
  if (!offset64 && n <= INT_MAX)
    return cub::DeviceSelect::If(d_temp, temp_bytes, first, d_out, d_num, static_cast<int>(n),
                                 hashed_less{bound}, stream);
  return cub::DeviceSelect::If(d_temp, temp_bytes, first, d_out, d_num, n, hashed_less{bound}, stream);
}
cudaError_t cub_partition_iota(void* d_temp, std::size_t& temp_bytes, std::uint32_t* d_out,
                               std::int64_t* d_num, std::int64_t n, std::uint32_t bound, bool offset64,
                               cudaStream_t stream) {
  const thrust::counting_iterator<std::uint32_t> first(0);
  if (!offset64 && n <= INT_MAX)
    return cub::DevicePartition::If(d_temp, temp_bytes, first, d_out, d_num, static_cast<int>(n),
                                    hashed_less{bound}, stream);
  return cub::DevicePartition::If(d_temp, temp_bytes, first, d_out, d_num, n, hashed_less{bound}, stream);
}

template <class V>
cudaError_t cub_keyed(keyed_op op, void* d_temp, std::size_t& temp_bytes, const std::uint32_t* d_keys,
                      const V* d_values, std::uint32_t* d_out_a, V* d_out_b, std::int64_t* d_num,
                      std::int64_t n, cudaStream_t stream) {
  if (n > INT_MAX) return cudaErrorInvalidValue;
  const int ni = static_cast<int>(n);
  switch (op) {
  case keyed_op::scan_by_key:
    return cub::DeviceScan::InclusiveSumByKey(d_temp, temp_bytes, d_keys, d_values, d_out_b, ni,
                                              cuda::std::equal_to<>{}, stream);
  case keyed_op::reduce_by_key:
    return cub::DeviceReduce::ReduceByKey(d_temp, temp_bytes, d_keys, d_out_a, d_values, d_out_b, d_num,
                                          cuda::std::plus<>{}, ni, stream);
  case keyed_op::unique_by_key:
    return cub::DeviceSelect::UniqueByKey(d_temp, temp_bytes, d_keys, d_values, d_out_a, d_out_b, d_num, ni,
                                          stream);
  default:
    break;
  }
  if constexpr (std::is_same<V, std::uint32_t>::value) {
    if (op == keyed_op::encode)
      return cub::DeviceRunLengthEncode::Encode(d_temp, temp_bytes, d_keys, d_out_a, d_out_b, d_num, ni,
                                                stream);
    return cub::DeviceRunLengthEncode::NonTrivialRuns(d_temp, temp_bytes, d_keys, d_out_a, d_out_b, d_num, ni,
                                                      stream);
  }
  return cudaErrorInvalidValue;
}
template cudaError_t cub_keyed<std::uint32_t>(keyed_op, void*, std::size_t&, const std::uint32_t*,
                                              const std::uint32_t*, std::uint32_t*, std::uint32_t*,
                                              std::int64_t*, std::int64_t, cudaStream_t);
template cudaError_t cub_keyed<float>(keyed_op, void*, std::size_t&, const std::uint32_t*, const float*,
                                      std::uint32_t*, float*, std::int64_t*, std::int64_t, cudaStream_t);

} // namespace carry_validate
