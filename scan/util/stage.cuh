// Staging of an input iterator into a buffer of temp storage, for the passes that read their input more
// than once or through pointers only (the sorts' and bin_by_key's values): one kernel, one read of the
// iterator and one write of the buffer.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "../lookback/layout.hpp"
#include "launch.cuh"

namespace carry {
namespace detail {

/// out[i] = in[i] for i < n, grid-stride (64-bit indices).
template <class It, class T>
__global__ void __launch_bounds__(256) stage_kernel(It in, T* out, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = static_cast<T>(in[i]);
}

/// Launches stage_kernel on `stream` (nothing for n <= 0): a block of 256 threads per 256 items, at most
/// 2^16 blocks (grid-stride past that).
template <class It, class T>
cudaError_t stage(It in, T* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  std::int64_t grid = (n + 255) / 256;
  if (grid > 65536) grid = 65536;
  stage_kernel<<<static_cast<unsigned>(grid), 256, 0, stream>>>(in, out, n);
  return after_launch(stream);
}

/// A call whose input of n items of T comes from the iterator `in`, run through its pointer form `call(temp,
/// bytes, const T* staged)`: the size query lays out the call's own temp storage and a staging buffer (the
/// engine's temp_builder); the call stages `in` there, then runs on it. `args_ok` is the caller's check of
/// what the staging needs before it writes (nothing is written to any output when it fails:
/// cudaErrorInvalidValue).
template <class T, class It, class Call>
cudaError_t with_staged(void* d_temp_storage, std::size_t& temp_storage_bytes, It in, std::int64_t n,
                        bool args_ok, cudaStream_t stream, Call call) {
  std::size_t own = 0;
  if (const cudaError_t e = call(nullptr, own, static_cast<const T*>(nullptr)); e != cudaSuccess) return e;
  lookback::temp_builder layout;
  const lookback::temp_part own_part = layout.add(own),
                            staged_part = layout.add(static_cast<std::size_t>(n > 0 ? n : 0) * sizeof(T));
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = layout.allocation();
    return cudaSuccess;
  }
  if (temp_storage_bytes < layout.allocation() || !args_ok) return cudaErrorInvalidValue;
  T* staged = staged_part.as<T>(d_temp_storage);
  if (const cudaError_t e = stage(in, staged, n, stream); e != cudaSuccess) return e;
  return call(own_part.in(d_temp_storage), own, static_cast<const T*>(staged));
}

} // namespace detail
} // namespace carry
