// Definitions of the CUB radix-sort baselines, instantiated for the key and value types the tests, the
// tool and the benchmark use.
#include <climits>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "baselines_radix.hpp"

namespace carry_validate {

template <class K>
cudaError_t cub_radix_keys(void* d_temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                           std::int64_t n, int begin_bit, int end_bit, bool descending, bool offset64,
                           cudaStream_t stream) {
  if (!offset64 && n <= INT_MAX) {
    const int m = static_cast<int>(n);
    return descending ? cub::DeviceRadixSort::SortKeysDescending(d_temp, temp_bytes, keys_in, keys_out, m,
                                                                 begin_bit, end_bit, stream)
                      : cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, keys_in, keys_out, m, begin_bit,
                                                       end_bit, stream);
  }
  return descending ? cub::DeviceRadixSort::SortKeysDescending(d_temp, temp_bytes, keys_in, keys_out, n,
                                                               begin_bit, end_bit, stream)
                    : cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, keys_in, keys_out, n, begin_bit,
                                                     end_bit, stream);
}

template <class K, class V>
cudaError_t cub_radix_pairs(void* d_temp, std::size_t& temp_bytes, const K* keys_in, K* keys_out,
                            const V* values_in, V* values_out, std::int64_t n, int begin_bit, int end_bit,
                            bool descending, bool offset64, cudaStream_t stream) {
  if (!offset64 && n <= INT_MAX) {
    const int m = static_cast<int>(n);
    return descending
               ? cub::DeviceRadixSort::SortPairsDescending(d_temp, temp_bytes, keys_in, keys_out, values_in,
                                                           values_out, m, begin_bit, end_bit, stream)
               : cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out,
                                                 m, begin_bit, end_bit, stream);
  }
  return descending
             ? cub::DeviceRadixSort::SortPairsDescending(d_temp, temp_bytes, keys_in, keys_out, values_in,
                                                         values_out, n, begin_bit, end_bit, stream)
             : cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, keys_in, keys_out, values_in, values_out,
                                               n, begin_bit, end_bit, stream);
}

#define CARRY_KEYS(K)                                                                                        \
  template cudaError_t cub_radix_keys<K>(void*, std::size_t&, const K*, K*, std::int64_t, int, int, bool,    \
                                         bool, cudaStream_t);
CARRY_KEYS(std::uint8_t)
CARRY_KEYS(std::uint16_t)
CARRY_KEYS(std::uint32_t)
CARRY_KEYS(std::uint64_t)
CARRY_KEYS(std::int8_t)
CARRY_KEYS(std::int16_t)
CARRY_KEYS(std::int32_t)
CARRY_KEYS(std::int64_t)
CARRY_KEYS(float)
CARRY_KEYS(double)
CARRY_KEYS(__half)
CARRY_KEYS(__nv_bfloat16)
#undef CARRY_KEYS
#define CARRY_PAIRS(K, V)                                                                                    \
  template cudaError_t cub_radix_pairs<K, V>(void*, std::size_t&, const K*, K*, const V*, V*, std::int64_t,  \
                                             int, int, bool, bool, cudaStream_t);
CARRY_PAIRS(std::uint32_t, std::uint8_t)
CARRY_PAIRS(std::uint32_t, std::uint16_t)
CARRY_PAIRS(std::uint32_t, std::uint32_t)
CARRY_PAIRS(std::uint32_t, std::uint64_t)
CARRY_PAIRS(std::uint32_t, value12)
CARRY_PAIRS(std::uint32_t, value16)
CARRY_PAIRS(std::uint64_t, std::uint32_t)
CARRY_PAIRS(std::uint64_t, std::uint64_t)
CARRY_PAIRS(float, std::uint32_t)
CARRY_PAIRS(std::int16_t, std::uint32_t)
#undef CARRY_PAIRS

} // namespace carry_validate
