// bin_by_key's counting-sort kernels past 256 bins (up to 256 it is the radix sort's onesweep pass): a
// stable pass over one 8-bit digit of the bin. Upsweep (each block's digit counts over its share of the
// tiles), the engine's scan of the counts (dispatch), and downsweep (the engine's block multisplit ranks
// each tile; a scatter through shared memory writes runs). The radix sort's three-kernel form runs the
// same kernels with its own digit.
#pragma once

#include <cstdint>

#include "../../radixsort/detail/digit.cuh"
#include "../../scan/block/multisplit.cuh"
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
    return static_cast<int>((static_cast<unsigned>(bins.bin_of(k)) >> shift) & ((1u << apps_tuning::bin_digit_bits) - 1u));
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

/// Upsweep: block b's digit counts over its tiles, to counts[d * grid + b] (digit-major, so that the
/// engine's exclusive sum of the whole array gives each block its start in every digit). Counted in
/// shared memory, flushed to 64-bit totals every 2^16 tiles (no 32-bit counter wraps).
/// `Digit` (bin_digit, or the radix sort's radix_digit): bin_of(key) in [0, 256), and the binner interface
/// of count_samples.
template <int THREADS, int TILE_ITEMS, class K, class Digit>
__global__ void __launch_bounds__(THREADS)
    bin_upsweep_kernel(const K* keys, bin_plan plan, Digit digit, bool vec, std::uint64_t* counts) {
  constexpr int radix = 1 << apps_tuning::bin_digit_bits;
  static_assert(THREADS == radix, "carry: one thread per digit");
  __shared__ unsigned c[radix];
  const std::int64_t b = blockIdx.x;
  std::uint64_t total = 0;
  constexpr std::int64_t flush_tiles = 1 << 16;
  for (std::int64_t t0 = plan.first_tile(b); t0 < plan.last_tile(b); t0 += flush_tiles) {
    const std::int64_t t1 = t0 + flush_tiles < plan.last_tile(b) ? t0 + flush_tiles : plan.last_tile(b);
    c[threadIdx.x] = 0;
    __syncthreads();
    const std::int64_t begin = plan.tiles.tile_base(t0);
    const std::int64_t end = t1 == plan.tiles.num_tiles ? plan.tiles.num_items : plan.tiles.tile_base(t1);
    count_samples<4>(keys + begin, end - begin, digit, c, vec, threadIdx.x, THREADS);
    __syncthreads();
    total += c[threadIdx.x];
    __syncthreads();
  }
  counts[threadIdx.x * plan.grid + b] = total;
}

/// Downsweep: block b ranks its tiles in order with the engine's multisplit and scatters keys (then
/// values) through shared memory (the radix sort's staged-tile scatter): the items of one digit leave as
/// one run at the digit's running global offset (`scanned[d * grid + b]` to start with).
template <int THREADS, int ITEMS, bool HAS_VALUES, class K, class V, class Digit>
__global__ void __launch_bounds__(THREADS, apps_tuning::bin_min_blocks)
    bin_downsweep_kernel(const K* keys_in, K* keys_out, const V* values_in, V* values_out, bin_plan plan,
                         Digit digit, const std::uint64_t* scanned) {
  using storage = radix_detail::staged_tile_storage<ITEMS, HAS_VALUES, K, V, Digit>;
  using ms = typename storage::ranker;
  static_assert(THREADS == ms::radix, "carry: one thread per digit");
  __shared__ storage ts;
  __shared__ std::uint64_t base[ms::radix]; // running global offset of each digit
  const std::int64_t b = blockIdx.x;
  base[threadIdx.x] = scanned[threadIdx.x * plan.grid + b];
  for (std::int64_t tile = plan.first_tile(b); tile < plan.last_tile(b); ++tile) {
    // ---- load (warp-striped) ----
    const std::int64_t tb = plan.tiles.tile_base(tile);
    const int valid = plan.tiles.valid_items(tile);
    K k[ITEMS];
    unsigned d[ITEMS];
    int pos[ITEMS];
    radix_detail::load_keys<ITEMS>(keys_in + tb, valid, digit, k, d);
    // ---- rank (the engine's multisplit) ----
    ms::rank(ts.rank, d, valid, pos);
    {
      const int dd = threadIdx.x;
      ts.adjust[dd] = base[dd] - static_cast<std::uint64_t>(ms::start(ts.rank, dd));
      base[dd] += static_cast<std::uint64_t>(ms::count(ts.rank, dd, valid));
    }
    // ---- scatter through shared memory (its first barrier publishes the adjustments) ----
    radix_detail::scatter_tile<ITEMS, HAS_VALUES>(ts, digit, k, [&](int j) { return d[j]; }, pos, valid, keys_out,
                                                 HAS_VALUES ? values_in + tb : values_in, values_out);
  }
}

/// Blocks of offsets_from_scan_kernel for `n` offsets (grid-stride, at most 1024 blocks).
inline unsigned offsets_blocks(std::int64_t n) {
  const std::int64_t b = (n + 255) / 256;
  return static_cast<unsigned>(b < 1 ? 1 : b > 1024 ? 1024 : b);
}

/// The bucket offsets: offsets[d] = scanned[d * stride] (d < num_bins), offsets[num_bins] = n.
template <class O>
__global__ void __launch_bounds__(256)
    offsets_from_scan_kernel(const std::uint64_t* scanned, std::int64_t stride, O* offsets, int num_bins, std::int64_t n) {
  for (std::int64_t d = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; d <= num_bins;
       d += std::int64_t{gridDim.x} * blockDim.x)
    offsets[d] = static_cast<O>(d < num_bins ? scanned[d * stride] : static_cast<std::uint64_t>(n));
}

} // namespace apps_detail
} // namespace carry
