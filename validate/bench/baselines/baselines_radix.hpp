// CUB baselines of the radix sort (DeviceRadixSort keys and pairs, ascending and descending, over a bit
// range, 32- or 64-bit num_items) behind a plain host API.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace carry_validate {

/// Value types of 12 and 16 bytes for the pairs tests and benchmarks.
struct value12 {
  std::uint32_t w[3];
};
struct value16 {
  std::uint32_t w[4];
};

/// cub::DeviceRadixSort::SortKeys / SortKeysDescending (offset64: the 64-bit num_items path).
template <class K>
cudaError_t cub_radix_keys(void* d_temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                           std::int64_t n, int begin_bit, int end_bit, bool descending, bool offset64,
                           cudaStream_t stream);
/// cub::DeviceRadixSort::SortPairs / SortPairsDescending.
template <class K, class V>
cudaError_t cub_radix_pairs(void* d_temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                            const V* values_in, V* values_out, std::int64_t n, int begin_bit, int end_bit,
                            bool descending, bool offset64, cudaStream_t stream);

} // namespace carry_validate
