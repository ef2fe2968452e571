// Host-side planning and launches of the apps: histograms, histogram offsets, bin_by_key, slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include <cuda_runtime.h>

#include "../../radixsort/detail/digit_pass.cuh"
#include "../../scan/util/launch.cuh"
#include "../../scan/device_scan.cuh"
#include "../../scan/lookback/prepare.cuh"
#include "../tuning.hpp"
#include "bin_kernels.cuh"
#include "histogram_kernels.cuh"
#include "plan.hpp"
#include "slots_kernels.cuh"

namespace carry {
namespace apps_detail {

/// Zeroes n counters (a memset node under capture: every call, every replay).
template <class C>
cudaError_t zero(C* p, std::int64_t n, cudaStream_t stream) {
  return cudaMemsetAsync(p, 0, static_cast<std::size_t>(n) * sizeof(C), stream);
}

template <class T, class Binner, class C>
struct hist_tag {};
template <class T, class Binner, class C>
struct global_tag {}; // the global path's kernel

/// Lowers `per_sm` to the blocks of `kernel` (threads a block) its registers and threads let an SM run at
/// once (apps_tuning::histogram_occupancy; the caller bounds shared memory's share itself): the
/// occupancy calculator, asked once per device and kernel (Tag), no synchronisation.
template <class Tag, class Kernel>
cudaError_t resident_blocks(Kernel* kernel, int threads, std::int64_t& per_sm) {
  if constexpr (apps_tuning::histogram_occupancy) {
    cudaError_t e = cudaSuccess;
    const int blocks = detail::once_per_device<Tag>([&] {
      int b = 0;
      e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, threads, 0);
      return e == cudaSuccess ? b : -1;
    });
    if (e != cudaSuccess) return e;
    if (blocks >= 1 && blocks < per_sm) per_sm = blocks;
  }
  return cudaSuccess;
}

/// Counts the samples (a pointer or any random-access iterator) into `hist` (num_bins counters the
/// caller zeroed): the shared or the global path.
template <class It, class Binner, class C>
cudaError_t count_into(It samples, std::int64_t n, const Binner& binner, int num_bins, C* hist,
                       cudaStream_t stream) {
  using T = detail::iter_value<It>;
  static_assert(std::is_integral<C>::value && (sizeof(C) == 4 || sizeof(C) == 8),
                "carry: histogram counters are 4- or 8-byte integers");
  if (n == 0) return cudaSuccess;
  detail::device_limits lim;
  if (const cudaError_t e = detail::current_limits(lim); e != cudaSuccess) return e;
  constexpr int threads = apps_tuning::histogram_threads;
  constexpr int unroll =
      is_key_binner<Binner>::value ? apps_tuning::bin_histogram_unroll : apps_tuning::histogram_unroll;
  const bool vec = detail::chunk_ok<T>(samples);
  const histogram_path path = choose_histogram_path(n, num_bins, Binner::level_bytes,
                                                    static_cast<std::size_t>(lim.smem_per_block_max));
  if (path == histogram_path::shared) {
    const std::size_t smem = histogram_smem_bytes(num_bins, Binner::level_bytes);
    auto* kernel = histogram_shared_kernel<threads, unroll, It, Binner, C>;
    if (const cudaError_t e = detail::set_once<detail::smem_tag<hist_tag<It, Binner, C>>>(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, lim.smem_per_block_max);
        e != cudaSuccess)
      return e;
    std::int64_t per_sm = static_cast<std::int64_t>(lim.smem_per_sm) / static_cast<std::int64_t>(smem + 1024);
    if (per_sm > apps_tuning::histogram_blocks_per_sm) per_sm = apps_tuning::histogram_blocks_per_sm;
    if (const cudaError_t e = resident_blocks<hist_tag<It, Binner, C>>(kernel, threads, per_sm);
        e != cudaSuccess)
      return e;
    if (per_sm < 1) per_sm = 1;
    const std::int64_t grid = histogram_grid(n, sizeof(T), threads, per_sm * lim.sms);
    kernel<<<static_cast<unsigned>(grid), threads, smem, stream>>>(samples, n, binner, num_bins, hist, vec);
  } else {
    auto* kernel = histogram_global_kernel<threads, unroll, It, Binner, C>;
    std::int64_t per_sm = apps_tuning::histogram_blocks_per_sm;
    if (const cudaError_t e = resident_blocks<global_tag<It, Binner, C>>(kernel, threads, per_sm);
        e != cudaSuccess)
      return e;
    if (per_sm < 1) per_sm = 1;
    const std::int64_t grid = histogram_grid(n, sizeof(T), threads, per_sm * lim.sms);
    kernel<<<static_cast<unsigned>(grid), threads, 0, stream>>>(samples, n, binner, hist, vec);
  }
  return detail::after_launch(stream);
}

/// Every histogram: bins checked, the output zeroed and counted (no temp storage).
template <class It, class Binner, class C>
cudaError_t dispatch_histogram(void* d_temp_storage, std::size_t& temp_storage_bytes, It samples, C* hist,
                               int num_bins, bin_error bins, const Binner& binner, std::int64_t n,
                               cudaStream_t stream) {
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = 1;
    return cudaSuccess;
  }
  if (check_histogram_args(detail::checked_address(samples), hist, n, bins) != arg_error::none)
    return cudaErrorInvalidValue;
  if (const cudaError_t e = zero(hist, num_bins, stream); e != cudaSuccess) return e;
  return count_into(samples, n, binner, num_bins, hist, stream);
}

/// The histogram and its exclusive scan: num_bins + 1 offsets, the last the total counted.
template <class It, class Binner, class C>
cudaError_t dispatch_offsets(void* d_temp_storage, std::size_t& temp_storage_bytes, It samples, C* offsets,
                             int num_bins, bin_error bins, const Binner& binner, std::int64_t n,
                             cudaStream_t stream) {
  const std::int64_t nb = bins == bin_error::none ? num_bins : 1;
  std::size_t scan_bytes = 0;
  if (const cudaError_t e = carry::exclusive_sum<C>(nullptr, scan_bytes, nullptr, nullptr, nb + 1, stream);
      e != cudaSuccess)
    return e;
  const offsets_layout layout = make_offsets_layout(nb, sizeof(C), scan_bytes);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = layout.allocation;
    return cudaSuccess;
  }
  if (check_histogram_args(detail::checked_address(samples), offsets, n, bins) != arg_error::none ||
      temp_storage_bytes < layout.allocation)
    return cudaErrorInvalidValue;
  if (n == 0) return zero(offsets, nb + 1, stream);
  C* counts = layout.counts.as<C>(d_temp_storage); // the last, a zero, becomes the total in the scan
  if (const cudaError_t e = zero(counts, nb + 1, stream); e != cudaSuccess) return e;
  if (const cudaError_t e = count_into(samples, n, binner, num_bins, counts, stream); e != cudaSuccess)
    return e;
  std::size_t bytes = layout.scan.bytes;
  return carry::exclusive_sum(layout.scan.in(d_temp_storage), bytes, static_cast<const C*>(counts), offsets,
                              nb + 1, stream);
}

// ---- bin_by_key ----

template <class K, class V>
using bin_shape = radix_detail::three_kernel_shape<K, V>;

/// The start every bin_by_key form shares once its temp layout is known (`allocation` bytes): the size
/// query, the argument checks, inputs and outputs that overlap, and the empty input (the offsets, when
/// wanted, all 0). `done`: the call ends here, with the status returned (an error never sets it).
template <bool HAS_VALUES, class K, class V, class O>
cudaError_t bin_call_start(void* d_temp_storage, std::size_t& temp_storage_bytes, std::size_t allocation,
                           const K* keys_in, const K* keys_out, const V* values_in, const V* values_out,
                           O* offsets, int num_bins, std::int64_t n, cudaStream_t stream, bool& done) {
  done = false;
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = allocation;
    done = true;
    return cudaSuccess;
  }
  if (check_bin_args(keys_in, keys_out, HAS_VALUES && values_in == nullptr,
                     HAS_VALUES && values_out == nullptr, num_bins, n, temp_storage_bytes,
                     allocation) != arg_error::none)
    return cudaErrorInvalidValue;
  if (n > 0 && (detail::ranges_overlap(keys_in, keys_out, static_cast<std::size_t>(n) * sizeof(K)) ||
                (HAS_VALUES &&
                 detail::ranges_overlap(values_in, values_out, static_cast<std::size_t>(n) * sizeof(V)))))
    return cudaErrorInvalidValue;
  if (n > 0) return cudaSuccess;
  done = true;
  return offsets != nullptr ? zero(offsets, num_bins + 1, stream) : cudaSuccess;
}

/// bin_by_key in one onesweep pass (num_bins <= 256): the bin histogram (count_into) into the sort
/// layout's counts, the engine's exclusive sum of them into the pass's digit offsets (bins past
/// num_bins: n), the bucket offsets from those, then the radix sort's onesweep pass with the bin as
/// its digit (stable: a tile's keys rank in order, tiles take tickets in order).
template <bool HAS_VALUES, class K, class V, class O, class BinOp>
cudaError_t dispatch_bin_onesweep(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* keys_in,
                                  K* keys_out, const V* values_in, V* values_out, O* offsets, int num_bins,
                                  BinOp bin_op, std::int64_t n, cudaStream_t stream) {
  using VV =
      std::conditional_t<HAS_VALUES, V, radix_detail::null_value>; // keys only: the sort's keys-only kernels
  using shape = radix_detail::tile_shape<K, VV>;
  constexpr int radix = radix_tuning::radix;
  std::size_t scan_bytes = 0;
  if (const cudaError_t e =
          carry::exclusive_sum<std::uint64_t>(nullptr, scan_bytes, nullptr, nullptr, radix, stream);
      e != cudaSuccess)
    return e;
  const bin_onesweep_layout layout = make_bin_onesweep_layout(n > 0 ? n : 0, shape::tile_items, sizeof(K),
                                                              HAS_VALUES ? sizeof(V) : 0, scan_bytes);
  bool done = false;
  if (const cudaError_t e =
          bin_call_start<HAS_VALUES>(d_temp_storage, temp_storage_bytes, layout.allocation, keys_in, keys_out,
                                     values_in, values_out, offsets, num_bins, n, stream, done);
      done || e != cudaSuccess)
    return e;
  if (layout.sort.tiles.num_tiles > detail::max_tiles) return cudaErrorInvalidValue;
  const key_binner<K, BinOp> binner{bin_op, num_bins};
  const radix_detail::sort_layout& sl = layout.sort;
  void* sort_temp = layout.nested.in(d_temp_storage); // aligned: the sort layout's parts sit at their offsets
  // ---- bin counts (zeroed with control and, when they fit, the look-back words) ----
  const lookback::temp_part cleared = sl.cleared();
  if (const cudaError_t e = cudaMemsetAsync(cleared.in(sort_temp), 0, cleared.bytes, stream);
      e != cudaSuccess)
    return e;
  auto* counts = sl.hist.as<std::uint64_t>(sort_temp);
  auto* bases = sl.bases.as<std::uint64_t>(sort_temp);
  if (const cudaError_t e = count_into(keys_in, n, binner, num_bins, counts, stream); e != cudaSuccess)
    return e;
  // ---- the engine's exclusive sum: each bin's first output position (portion 0's digit offsets) ----
  std::size_t bytes = layout.scan.bytes;
  if (const cudaError_t e =
          carry::exclusive_sum(layout.scan.in(d_temp_storage), bytes,
                               static_cast<const std::uint64_t*>(counts), bases, radix, stream);
      e != cudaSuccess)
    return e;
  if (offsets != nullptr) { // before the pass: a second portion's last tile reuses portion 0's offset slots
    offsets_from_scan_kernel<<<offsets_blocks(num_bins + 1), 256, 0, stream>>>(bases, 1, offsets, num_bins,
                                                                               n);
    if (const cudaError_t e = detail::after_launch(stream); e != cudaSuccess) return e;
  }
  // ---- one onesweep pass, the bin as its digit ----
  detail::device_limits lim;
  if (const cudaError_t e = detail::current_limits(lim); e != cudaSuccess) return e;
  radix_detail::pass_buffers<K> kb;
  kb.in = keys_in, kb.out = keys_out;
  radix_detail::pass_buffers<VV> vb;
  if constexpr (HAS_VALUES) vb.in = values_in, vb.out = values_out;
  const bin_whole_digit<K, BinOp> digit{binner};
  return radix_detail::launch_onesweep_pass<HAS_VALUES>(sort_temp, sl, 0, 1, digit, kb, vb,
                                                        sl.control.as<radix_detail::sort_control>(sort_temp),
                                                        bases, lim.sms, stream);
}

template <bool HAS_VALUES, class K, class V, class O, class BinOp>
cudaError_t dispatch_bin(void* d_temp_storage, std::size_t& temp_storage_bytes, const K* keys_in, K* keys_out,
                         const V* values_in, V* values_out, O* offsets, int num_bins, BinOp bin_op,
                         std::int64_t n, cudaStream_t stream) {
  using shape = bin_shape<K, V>;
  const std::int64_t nb = num_bins >= 1 && num_bins <= max_bins ? num_bins : 1;
  if (bin_by_onesweep(nb))
    return dispatch_bin_onesweep<HAS_VALUES>(d_temp_storage, temp_storage_bytes, keys_in, keys_out, values_in,
                                             values_out, offsets, num_bins, bin_op, n, stream);
  const bin_plan plan = plan_bins(n > 0 ? n : 0, shape::tile_items, nb);
  const std::int64_t num_counts = std::int64_t{radix_tuning::radix} * plan.grid;
  std::size_t count_scan = 0, bin_scan = 0;
  if (num_counts > 0)
    if (const cudaError_t e =
            carry::exclusive_sum<std::uint64_t>(nullptr, count_scan, nullptr, nullptr, num_counts, stream);
        e != cudaSuccess)
      return e;
  if (plan.passes > 1)
    if (const cudaError_t e =
            carry::exclusive_sum<std::uint64_t>(nullptr, bin_scan, nullptr, nullptr, nb + 1, stream);
        e != cudaSuccess)
      return e;
  const bin_layout layout =
      make_bin_layout(plan, nb, sizeof(K), HAS_VALUES ? sizeof(V) : 0, count_scan, bin_scan);
  bool done = false;
  if (const cudaError_t e =
          bin_call_start<HAS_VALUES>(d_temp_storage, temp_storage_bytes, layout.allocation, keys_in, keys_out,
                                     values_in, values_out, offsets, num_bins, n, stream, done);
      done || e != cudaSuccess)
    return e;
  const key_binner<K, BinOp> binner{bin_op, num_bins};
  auto* counts = layout.counts.as<std::uint64_t>(d_temp_storage);
  K* key_scratch = plan.passes > 1 ? layout.keys.as<K>(d_temp_storage) : nullptr;
  V* value_scratch = plan.passes > 1 && HAS_VALUES ? layout.values.as<V>(d_temp_storage) : nullptr;
  const K* src_keys = keys_in;
  const V* src_values = values_in;
  for (int p = 0; p < plan.passes; ++p) {
    const bool to_out = (plan.passes - 1 - p) % 2 == 0; // the last pass lands in the output
    K* dst_keys = to_out ? keys_out : key_scratch;
    V* dst_values = to_out ? values_out : value_scratch;
    const bin_digit<K, BinOp> digit{binner, p * radix_tuning::digit_bits};
    // ---- one three-kernel pass of the radix sort: upsweep, the engine's scan, downsweep ----
    if (const cudaError_t e = radix_detail::three_kernel_pass<HAS_VALUES>(
            src_keys, dst_keys, src_values, dst_values, plan, digit, counts, layout.scan.in(d_temp_storage),
            layout.scan.bytes, stream);
        e != cudaSuccess)
      return e;
    src_keys = dst_keys;
    src_values = dst_values;
  }
  if (offsets == nullptr) return cudaSuccess;
  // ---- the bucket offsets: one pass has them in its scanned counts (block 0's start of each digit);
  // more passes count the bins first ----
  if (plan.passes == 1) {
    offsets_from_scan_kernel<<<offsets_blocks(nb + 1), 256, 0, stream>>>(counts, plan.grid, offsets, num_bins,
                                                                         n);
    return detail::after_launch(stream);
  }
  auto* bin_counts = layout.bin_counts.as<std::uint64_t>(d_temp_storage);
  if (const cudaError_t e = zero(bin_counts, nb + 1, stream); e != cudaSuccess) return e;
  if (const cudaError_t e = count_into(keys_in, n, binner, num_bins, bin_counts, stream); e != cudaSuccess)
    return e;
  std::size_t bytes = layout.bin_scan.bytes;
  if (const cudaError_t e =
          carry::exclusive_sum(layout.bin_scan.in(d_temp_storage), bytes,
                               static_cast<const std::uint64_t*>(bin_counts), bin_counts, nb + 1, stream);
      e != cudaSuccess)
    return e;
  offsets_from_scan_kernel<<<offsets_blocks(nb + 1), 256, 0, stream>>>(bin_counts, 1, offsets, num_bins, n);
  return detail::after_launch(stream);
}

// ---- slots ----

/// How allocate_slots runs: past one register tile, the engine's staged single pass where the call may
/// take it (REGISTER_ONLY false: the unbounded form over a pointer of requests), the offset type has a
/// staged policy and its tile widens the requests (u32 -> u64: 256 x 16 offsets a tile); otherwise (the
/// bounded form, a request iterator, one tile, other types) the register tiles of slots_kernel.
template <bool REGISTER_ONLY, class R, class O>
struct slots_shape {
  static constexpr int register_tile = apps_tuning::slot_threads * apps_tuning::slot_items<sizeof(R)>();
  using staged_policy = tuning::single_pass_policy<O>;
  static constexpr bool staged_ok() {
    if constexpr (!REGISTER_ONLY && is_staged_policy<staged_policy>::value &&
                  detail::stageable<O, staged_policy::items_per_thread>())
      return detail::staged_tile<O, staged_policy::block_threads, staged_policy::items_per_thread,
                                 staged_policy::streaming>::template widenable<R>();
    else
      return false;
  }
  static constexpr bool staged_types = staged_ok();
  /// Whether n items take the staged pass, and the tiles they are cut into.
  static constexpr bool staged(std::int64_t n) { return staged_types && n > register_tile; }
  static detail::tile_plan tiles(std::int64_t n) {
    return detail::plan_tiles(n > 0 ? n : 0, staged(n) ? staged_policy::tile_items : register_tile);
  }
};

template <bool BOUNDED, class ReqIt, class O, class NumT>
cudaError_t dispatch_slots(void* d_temp_storage, std::size_t& temp_storage_bytes, ReqIt requests, O* offsets,
                           O* total, O capacity, NumT* num_fitted, std::int64_t n, cudaStream_t stream) {
  using R = detail::iter_value<ReqIt>;
  constexpr bool pointer = std::is_pointer<ReqIt>::value; // else the register tiles, element loads
  static_assert(std::is_integral<R>::value && std::is_integral<O>::value,
                "carry: slot requests and offsets are integers");
  using shape = slots_shape<BOUNDED || !pointer, R, O>;
  constexpr int threads = apps_tuning::slot_threads;
  constexpr int items = apps_tuning::slot_items<sizeof(R)>();
  const detail::tile_plan tiles = shape::tiles(n);
  using format = lookback::default_format<O>;
  const bool ticketed = tiles.num_tiles > 1 || shape::staged(n); // else one register tile, one launch
  const slots_layout layout = make_slots_layout(tiles.num_tiles, format::word_bytes, ticketed);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = layout.allocation;
    return cudaSuccess;
  }
  if (check_slots_args(detail::checked_address(requests), offsets, total, num_fitted, BOUNDED, n,
                       temp_storage_bytes, layout.allocation, tiles.num_tiles) != arg_error::none)
    return cudaErrorInvalidValue;
  if (n > 0 && detail::iterators_overlap(requests, offsets, n)) return cudaErrorInvalidValue;
  if (n == 0) { // the total (and the number fitted) are 0
    if (const cudaError_t e = zero(total, 1, stream); e != cudaSuccess || !BOUNDED) return e;
    return zero(num_fitted, 1, stream);
  }
  slots_flags how;
  how.vec_in = detail::vector_ok<R, items>(requests);
  how.vec_out = detail::vector_aligned<O, items>(offsets);
  auto* kernel = slots_kernel<threads, items, BOUNDED, R, O, NumT, ReqIt>;
  if (!ticketed) {
    kernel<<<1, threads, 0, stream>>>(requests, offsets, total, capacity, num_fitted, tiles, slots_state<O>{},
                                      how);
    return detail::after_launch(stream);
  }
  // ---- ticketed: the prepare step, then the staged pass or the register tiles ----
  const slots_state<O> state = lookback::carve_state<format>(d_temp_storage, layout.state);
  if (const cudaError_t e = lookback::launch_prepare(d_temp_storage, layout.state.cleared, stream);
      e != cudaSuccess)
    return e;
  cudaError_t e = cudaErrorInvalidValue;
  if constexpr (shape::staged_types) {
    if (shape::staged(n)) {
      using P = typename shape::staged_policy;
      constexpr auto* staged = &slots_staged_kernel<P, R, O>;
      e = detail::prefer_shared_for<staged>();
      if (e == cudaSuccess)
        e = lookback::launch_prepared(staged, static_cast<unsigned>(tiles.num_tiles),
                                      static_cast<unsigned>(P::block_threads), stream, requests, offsets,
                                      total, tiles, state, detail::chunk_aligned<R>(requests),
                                      detail::chunk_aligned<O>(offsets));
    }
  }
  if (!shape::staged(n)) {
    how.ticketed = true;
    e = lookback::launch_prepared(kernel, static_cast<unsigned>(tiles.num_tiles), threads, stream, requests,
                                  offsets, total, capacity, num_fitted, tiles, state, how);
  }
  if (e != cudaSuccess) return e;
  return detail::after_launch(stream);
}

} // namespace apps_detail
} // namespace carry
