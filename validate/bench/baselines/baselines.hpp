// CUB, Thrust and memcpy baselines behind a plain host API (the only place that includes CUB or Thrust).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace carry_validate {

// Two-phase like CUB. num_items below 2^31 takes CUB's fast `int` path, larger ones its 64-bit path.
template <class T>
cudaError_t cub_inclusive_sum(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                              std::int64_t num_items, cudaStream_t stream);
template <class T>
cudaError_t cub_exclusive_sum(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                              std::int64_t num_items, cudaStream_t stream);
template <class T>
cudaError_t cub_inclusive_max(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                              std::int64_t num_items, cudaStream_t stream);
template <class T>
cudaError_t cub_reduce_sum(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                           std::int64_t num_items, cudaStream_t stream);

/// Scans over other inputs (the transform-scan benchmark): exclusive sum of u8 flags into u32 offsets;
/// inclusive sum of square_mod_1000(i) for i = 0, 1, 2, ... (a transform of a counting iterator) into u32.
struct square_mod_1000 {
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const { return (i * i) % 1000u; }
};
cudaError_t cub_exclusive_sum_u8_u32(void* d_temp, std::size_t& temp_bytes, const std::uint8_t* d_in,
                                     std::uint32_t* d_out, std::int64_t num_items, cudaStream_t stream);
cudaError_t cub_inclusive_sum_u8_u32(void* d_temp, std::size_t& temp_bytes, const std::uint8_t* d_in,
                                     std::uint32_t* d_out, std::int64_t num_items, cudaStream_t stream);
cudaError_t cub_exclusive_sum_squares(void* d_temp, std::size_t& temp_bytes, std::uint32_t* d_out,
                                      std::int64_t num_items, cudaStream_t stream);
cudaError_t cub_inclusive_sum_squares(void* d_temp, std::size_t& temp_bytes, std::uint32_t* d_out,
                                      std::int64_t num_items, cudaStream_t stream);

/// thrust::inclusive_scan on the stream (Thrust allocates its own temp storage).
template <class T>
void thrust_inclusive_sum(const T* d_in, T* d_out, std::int64_t num_items, cudaStream_t stream);

} // namespace carry_validate

namespace carry_validate {
/// "CCCL major.minor.patch" of the CUB these baselines were built with.
const char* cccl_version();
} // namespace carry_validate
