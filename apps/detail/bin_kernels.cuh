// bin_by_key's digits for the radix sort's digit passes (one onesweep pass up to 256 bins, three-kernel
// passes over 8-bit digits of the bin past that) and the kernel that writes the bucket offsets.
#pragma once

#include <cstdint>

#include "../../radixsort/detail/digit.cuh"
#include "../tuning.hpp"
#include "histogram_kernels.cuh"
#include "plan.hpp"

namespace carry {
namespace apps_detail {

/// A key's digit in pass `shift / 8`: bits [shift, shift + 8) of its clamped bin.
template <class K, class BinOp>
struct bin_digit {
  key_binner<K, BinOp> bins;
  int shift;
  // a binner to count_samples (the upsweep) and the digit of the downsweep alike
  using sample_type = K;
  static constexpr std::size_t level_bytes = 0;
  __device__ bin_digit bind(void*) const { return *this; }
  __device__ int bin_of(const K& k) const {
    return static_cast<int>((static_cast<unsigned>(bins.bin_of(k)) >> shift) &
                            ((1u << radix_tuning::digit_bits) - 1u));
  }
};

/// The digit of bin_by_key's one onesweep pass (num_bins <= 256): the clamped bin itself, no shift or
/// mask. `recompute` (apps_tuning::bin_recompute): the pass recomputes it from the keys it holds, as the
/// sort's passes do (radix_detail::digit_recompute), so its whole and padded tile forms apply.
template <class K, class BinOp>
struct bin_whole_digit {
  key_binner<K, BinOp> bins;
  static constexpr bool recompute = apps_tuning::bin_recompute;
  __device__ int bin_of(const K& k) const { return bins.bin_of(k); }
};

/// Blocks of offsets_from_scan_kernel for `n` offsets (grid-stride, at most 1024 blocks).
inline unsigned offsets_blocks(std::int64_t n) {
  const std::int64_t b = (n + 255) / 256;
  return static_cast<unsigned>(b < 1 ? 1 : b > 1024 ? 1024 : b);
}

/// The bucket offsets: offsets[d] = scanned[d * stride] (d < num_bins), offsets[num_bins] = n.
template <class O>
__global__ void __launch_bounds__(256)
    offsets_from_scan_kernel(const std::uint64_t* scanned, std::int64_t stride, O* offsets, int num_bins,
                             std::int64_t n) {
  for (std::int64_t d = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; d <= num_bins;
       d += std::int64_t{gridDim.x} * blockDim.x)
    offsets[d] = static_cast<O>(d < num_bins ? scanned[d * stride] : static_cast<std::uint64_t>(n));
}

} // namespace apps_detail
} // namespace carry
