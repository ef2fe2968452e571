// CUB baselines for the 8- to 32-bit integer types.
#include <cstdio>

#include <climits>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cub_scan.cuh"

namespace carry_validate {
CARRY_VALIDATE_CUB_SUMS(std::int8_t)
CARRY_VALIDATE_CUB_SUMS(std::uint8_t)
CARRY_VALIDATE_CUB_SUMS(std::int16_t)
CARRY_VALIDATE_CUB_SUMS(std::uint16_t)
CARRY_VALIDATE_CUB_SUMS(std::int32_t)
CARRY_VALIDATE_CUB_SUMS(std::uint32_t)

cudaError_t cub_exclusive_sum_u8_u32(void* d_temp, std::size_t& temp_bytes, const std::uint8_t* d_in,
                                     std::uint32_t* d_out, std::int64_t n, cudaStream_t stream) {
  if (n <= INT_MAX)
    return cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, static_cast<int>(n), stream);
  return cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n, stream);
}
cudaError_t cub_inclusive_sum_u8_u32(void* d_temp, std::size_t& temp_bytes, const std::uint8_t* d_in,
                                     std::uint32_t* d_out, std::int64_t n, cudaStream_t stream) {
  if (n <= INT_MAX)
    return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, static_cast<int>(n), stream);
  return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, n, stream);
}
cudaError_t cub_exclusive_sum_squares(void* d_temp, std::size_t& temp_bytes, std::uint32_t* d_out,
                                      std::int64_t n, cudaStream_t stream) {
  const auto in =
      thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), square_mod_1000{});
  if (n <= INT_MAX)
    return cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, in, d_out, static_cast<int>(n), stream);
  return cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, in, d_out, n, stream);
}
cudaError_t cub_inclusive_sum_squares(void* d_temp, std::size_t& temp_bytes, std::uint32_t* d_out,
                                      std::int64_t n, cudaStream_t stream) {
  const auto in =
      thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), square_mod_1000{});
  if (n <= INT_MAX)
    return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, in, d_out, static_cast<int>(n), stream);
  return cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, in, d_out, n, stream);
}
} // namespace carry_validate

namespace carry_validate {
const char* cccl_version() {
  static char buf[32];
  std::snprintf(buf, sizeof buf, "%d.%d.%d", CUB_VERSION / 100000, CUB_VERSION / 100 % 1000,
                CUB_VERSION % 100);
  return buf;
}
} // namespace carry_validate
