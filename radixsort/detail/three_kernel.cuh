// The three-kernel digit pass: a stable counting sort over one 8-bit digit. Upsweep (each block's digit
// counts over its share of the tiles, the engine's block histogram), the engine's exclusive sum of the
// counts, downsweep (the engine's block multisplit ranks each tile; a scatter through shared memory writes
// runs). The sort's three_kernel form and bin_by_key past 256 bins run it, each with its digit.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "../../scan/block/histogram.cuh"
#include "../../scan/block/multisplit.cuh"
#include "../../scan/device_scan.cuh"
#include "../../scan/util/launch.cuh"
#include "../tuning.hpp"
#include "digit.cuh"
#include "plan.hpp"

namespace carry {
namespace radix_detail {

/// The three-kernel pass's tile for keys K and values V: 256 threads (one a digit) x the items of the wider.
template <class K, class V, class P = radix_tuning::default_policy>
struct three_kernel_shape {
  static constexpr int threads = radix_tuning::threads;
  static constexpr int items =
      (sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V)) <= 4 ? P::three_items4 : P::three_items8;
  static constexpr int tile_items = threads * items;
};

// ---- kernels ----

/// Upsweep: block b's digit counts over its tiles, to counts[d * grid + b] (digit-major, so that the
/// engine's exclusive sum of the whole array gives each block its start in every digit). Counted in
/// shared memory, flushed to 64-bit totals every 2^16 tiles (no 32-bit counter wraps).
/// `Digit` (the sort's radix_digit, or bin_by_key's bin_digit): bin_of(key) in [0, 256), and the binner
/// interface of count_samples.
template <int THREADS, int TILE_ITEMS, class K, class Digit>
__global__ void __launch_bounds__(THREADS)
    upsweep_kernel(const K* keys, three_kernel_plan plan, Digit digit, bool vec, std::uint64_t* counts) {
  constexpr int radix = radix_tuning::radix;
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
    block::count_samples<4>(keys + begin, end - begin, digit, c, vec, threadIdx.x, THREADS);
    __syncthreads();
    total += c[threadIdx.x];
    __syncthreads();
  }
  counts[threadIdx.x * plan.grid + b] = total;
}

/// Downsweep: block b ranks its tiles in order with the engine's multisplit and scatters keys (then
/// values) through shared memory (the radix sort's staged-tile scatter): the items of one digit leave as
/// one run at the digit's running global offset (`scanned[d * grid + b]` to start with).
template <int THREADS, int ITEMS, bool HAS_VALUES, class K, class V, class Digit,
          class P = radix_tuning::default_policy>
__global__ void __launch_bounds__(THREADS, P::three_min_blocks)
    downsweep_kernel(const K* keys_in, K* keys_out, const V* values_in, V* values_out, three_kernel_plan plan,
                     Digit digit, const std::uint64_t* scanned) {
  using storage =
      staged_tile_storage<ITEMS, HAS_VALUES, K, V, Digit, P::counts, false, radix_tuning::threads, P>;
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
    load_keys<ITEMS>(keys_in + tb, valid, digit, k, d);
    // ---- rank (the engine's multisplit) ----
    ms::rank(ts.rank, d, valid, pos);
    {
      const int dd = threadIdx.x;
      ts.adjust[dd] = base[dd] - static_cast<std::uint64_t>(ms::start(ts.rank, dd));
      base[dd] += static_cast<std::uint64_t>(ms::count(ts.rank, dd, valid));
    }
    // ---- scatter through shared memory (its first barrier publishes the adjustments) ----
    scatter_tile<ITEMS, HAS_VALUES>(
        ts, digit, k, [&](int j) { return d[j]; }, pos, valid, keys_out,
        HAS_VALUES ? values_in + tb : values_in, values_out);
  }
}

// ---- the pass ----

/// One three-kernel pass of `digit` from keys_in (and values_in) to keys_out (and values_out): upsweep
/// counts into `counts` (radix x plan.grid, digit-major), the engine's exclusive sum of them in place
/// (`scan_temp`, `scan_bytes`: its temp storage), downsweep. V = null_value (pointers null): keys only.
///
///   digit = bits [0, 8): keys [0x103 0x201 0x102] -> [0x201 0x102 0x103] (stable by the low byte)
template <bool HAS_VALUES, class P = radix_tuning::default_policy, class K, class V, class Digit>
cudaError_t three_kernel_pass(const K* keys_in, K* keys_out, const V* values_in, V* values_out,
                              const three_kernel_plan& plan, const Digit& digit, std::uint64_t* counts,
                              void* scan_temp, std::size_t scan_bytes, cudaStream_t stream) {
  using shape = three_kernel_shape<K, V, P>; // the plan was made with its tile_items
  const unsigned grid = static_cast<unsigned>(plan.grid);
  // ---- upsweep: each block's digit counts ----
  upsweep_kernel<shape::threads, shape::tile_items, K, Digit>
      <<<grid, shape::threads, 0, stream>>>(keys_in, plan, digit, detail::chunk_aligned<K>(keys_in), counts);
  if (const cudaError_t e = detail::after_launch(stream); e != cudaSuccess) return e;
  // ---- the engine's exclusive sum of the counts, digit-major ----
  if (const cudaError_t e =
          carry::exclusive_sum(scan_temp, scan_bytes, static_cast<const std::uint64_t*>(counts), counts,
                               plan.grid * radix_tuning::radix, stream);
      e != cudaSuccess)
    return e;
  // ---- downsweep: rank, scatter ----
  downsweep_kernel<shape::threads, shape::items, HAS_VALUES, K, V, Digit, P>
      <<<grid, shape::threads, 0, stream>>>(keys_in, keys_out, values_in, values_out, plan, digit, counts);
  return detail::after_launch(stream);
}

} // namespace radix_detail
} // namespace carry
