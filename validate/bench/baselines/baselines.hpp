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

/// thrust::inclusive_scan on the stream (Thrust allocates its own temp storage).
template <class T>
void thrust_inclusive_sum(const T* d_in, T* d_out, std::int64_t num_items, cudaStream_t stream);

} // namespace carry_validate

namespace carry_validate {
/// "CCCL major.minor.patch" of the CUB these baselines were built with.
const char* cccl_version();
} // namespace carry_validate
