// Host/device planning of the apps (histograms, bin_by_key, slots): grids, paths, temp layouts, checks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../scan/util/plan.hpp"
#include "../../radixsort/detail/plan.hpp"
#include "../../scan/lookback/words.hpp"
#include "../tuning.hpp"
#include "bin_math.hpp"

namespace carry {
namespace apps_detail {

using detail::arg_error;

// ---- histograms ----

/// Where a histogram's counters live while the samples stream by.
enum class histogram_path {
  empty,  ///< n == 0: only the zeroed histogram
  shared, ///< per-block counters in shared memory, merged into the caller's at the end
  global  ///< every sample a (warp-aggregated) global atomic on the caller's counters
};

/// Shared counters when the bins fit (and, for range bins, the levels beside them: `level_bytes` each).
CARRY_HD constexpr histogram_path choose_histogram_path(std::int64_t n, std::int64_t num_bins,
                                                        std::size_t level_bytes, std::size_t smem_limit) {
  if (n <= 0) return histogram_path::empty;
  const std::size_t need =
      static_cast<std::size_t>(num_bins) * 4 + static_cast<std::size_t>(num_bins + 1) * level_bytes;
  return num_bins <= apps_tuning::shared_bins_max && need <= smem_limit ? histogram_path::shared
                                                                        : histogram_path::global;
}

/// Shared memory of a shared-path block: the counters, then the levels (range bins), 16-byte aligned.
CARRY_HD constexpr std::size_t histogram_smem_bytes(std::int64_t num_bins, std::size_t level_bytes) {
  const std::size_t counters = (static_cast<std::size_t>(num_bins) * 4 + 15) / 16 * 16;
  return counters + static_cast<std::size_t>(num_bins + 1) * level_bytes;
}

/// Blocks of a histogram launch: enough for every thread to have a 16-byte chunk, at most `resident`
/// (one wave), and enough that no block counts more than samples_per_block_max samples.
///
///   2^28 u32 samples, 1056 resident -> 1056;  1000 samples -> 1;  2^40 samples, 1056 resident -> 1056
CARRY_HD constexpr std::int64_t histogram_grid(std::int64_t n, int sample_bytes, int threads,
                                               std::int64_t resident) {
  const std::int64_t per_chunk = sample_bytes >= 16 ? 1 : 16 / sample_bytes;
  const std::int64_t chunks = (n + per_chunk - 1) / per_chunk;
  std::int64_t grid = (chunks + threads - 1) / threads;
  if (grid > resident) grid = resident;
  const std::int64_t floor_blocks =
      (n + apps_tuning::samples_per_block_max - 1) / apps_tuning::samples_per_block_max;
  if (grid < floor_blocks) grid = floor_blocks;
  return grid < 1 ? 1 : grid;
}

/// A histogram call's arguments once the size query is out of the way. The histogram describes the whole
/// input, so it is written even when n == 0 and must never be null; the samples matter only when n > 0.
CARRY_HD inline arg_error check_histogram_args(const void* d_samples, const void* d_histogram, std::int64_t n,
                                               bin_error bins) {
  if (n < 0) return arg_error::negative_count;
  if (d_histogram == nullptr) return arg_error::null_output;
  if (bins != bin_error::none) return arg_error::null_input; // bad bins: refused like a bad input
  if (n > 0 && d_samples == nullptr) return arg_error::null_input;
  return arg_error::none;
}

/// histogram_offsets' temp storage: the counters (num_bins + 1 of the caller's type, the last one a
/// zero that the scan turns into the total) and the engine's exclusive sum over them.
struct offsets_layout {
  lookback::temp_part counts, scan;
  std::size_t allocation = 1;
};
CARRY_HD inline offsets_layout make_offsets_layout(std::int64_t num_bins, std::size_t counter_bytes,
                                                   std::size_t scan_temp_bytes) {
  offsets_layout l;
  lookback::temp_builder b;
  l.counts = b.add(static_cast<std::size_t>(num_bins + 1) * counter_bytes);
  l.scan = b.add(scan_temp_bytes);
  l.allocation = b.allocation();
  return l;
}

// ---- bin_by_key ----

/// A bin_by_key call's digit passes: the radix sort's three-kernel plan (radixsort/detail/plan.hpp).
using bin_plan = radix_detail::three_kernel_plan;
using radix_detail::digit_passes;
///   n 2^28, tiles of 4096, 256 bins -> 65536 tiles, 1024 blocks of 64 tiles, 1 pass
CARRY_HD inline bin_plan plan_bins(std::int64_t n, int tile_items, std::int64_t num_bins) {
  return radix_detail::plan_three_kernel(n, tile_items, num_bins);
}

/// bin_by_key's temp storage: the digit counts of every block (radix x grid, 64-bit, digit-major) and the
/// engine's exclusive sum over them; with more than one pass, a scratch copy of the keys (and values)
/// to ping-pong through, and the bin histogram behind the offsets (num_bins + 1 counters, its scan).
struct bin_layout {
  lookback::temp_part counts, scan, keys, values, bin_counts, bin_scan;
  std::size_t allocation = 1;
};
CARRY_HD inline bin_layout make_bin_layout(const bin_plan& p, std::int64_t num_bins, std::size_t key_bytes,
                                           std::size_t value_bytes, std::size_t count_scan_bytes,
                                           std::size_t bin_scan_bytes) {
  bin_layout l;
  lookback::temp_builder b;
  const std::size_t radix = std::size_t{1} << radix_tuning::digit_bits;
  l.counts = b.add(radix * static_cast<std::size_t>(p.grid) * sizeof(std::uint64_t));
  l.scan = b.add(count_scan_bytes);
  if (p.passes > 1) {
    const auto n = static_cast<std::size_t>(p.tiles.num_items);
    l.keys = b.add(n * key_bytes);
    l.values = b.add(n * value_bytes);
    l.bin_counts = b.add(static_cast<std::size_t>(num_bins + 1) * sizeof(std::uint64_t));
    l.bin_scan = b.add(bin_scan_bytes);
  }
  l.allocation = b.allocation();
  return l;
}

/// Whether bin_by_key runs as one onesweep pass (the radix sort's: a bin histogram, its scan, one
/// look-back pass with the bin as the digit): when every bin fits one 8-bit digit. More bins take the
/// counting-sort passes above (upsweep, scan, downsweep per 8-bit digit of the bin).
CARRY_HD constexpr bool bin_by_onesweep(std::int64_t num_bins) {
  return num_bins <= (std::int64_t{1} << radix_tuning::digit_bits);
}

/// The one-pass form's temp storage: the radix sort's onesweep layout for one pass (its histogram part
/// holds the bin counts, then control, look-back words, digit offsets), nested whole, then the engine's
/// exclusive sum of the 256 counts (`scan_bytes`, asked by the dispatch). n == 0: no sort parts.
///   n 2^28, tiles of 4096 -> 65536 tiles in one portion: one state set of 64 MB (not cleared once)
struct bin_onesweep_layout {
  radix_detail::sort_layout sort; // offsets within `nested`
  lookback::temp_part nested, scan;
  std::size_t allocation = 1;
};
CARRY_HD inline bin_onesweep_layout make_bin_onesweep_layout(std::int64_t n, std::int64_t tile_items,
                                                             std::size_t key_bytes, std::size_t value_bytes,
                                                             std::size_t scan_bytes) {
  bin_onesweep_layout l;
  const radix_detail::sort_path path =
      n > 0 ? radix_detail::sort_path::onesweep : radix_detail::sort_path::empty;
  l.sort = radix_detail::make_sort_layout(path, n, 1, tile_items, key_bytes, value_bytes, false, 0, 0);
  lookback::temp_builder b;
  l.nested = b.add(l.sort.allocation);
  l.scan = b.add(scan_bytes);
  l.allocation = b.allocation();
  return l;
}

/// bin_by_key's arguments: keys in and out (values when given: both or neither), 1 <= num_bins <= 2^24.
/// Nothing describes the whole input but the offsets, which may be null (not wanted).
CARRY_HD inline arg_error check_bin_args(const void* keys_in, const void* keys_out, bool values_in_null,
                                         bool values_out_null, std::int64_t num_bins, std::int64_t n,
                                         std::size_t temp_given, std::size_t temp_needed) {
  if (n < 0) return arg_error::negative_count;
  if (num_bins < 1 || num_bins > max_bins) return arg_error::null_input;
  if (values_in_null != values_out_null) return arg_error::null_output;
  if (n == 0) return arg_error::none;
  if (keys_in == nullptr) return arg_error::null_input;
  if (keys_out == nullptr) return arg_error::null_output;
  if (temp_given < temp_needed) return arg_error::temp_too_small;
  return arg_error::none;
}

// ---- slots ----

/// allocate_slots' temp storage: the engine's single-pass state over 64-bit-or-narrower offsets
/// (`status_word_bytes` a status word), cleared every call.
struct slots_layout {
  lookback::state_parts state;
  std::size_t allocation = 1;
};
/// A ticketed pass (more than one register tile, or the staged pass even on one tile) has look-back state;
/// one register tile runs as one launch without it.
CARRY_HD inline slots_layout make_slots_layout(std::int64_t tiles, std::size_t status_word_bytes,
                                               bool ticketed) {
  slots_layout l;
  if (!ticketed) return l;
  lookback::temp_builder b;
  l.state = lookback::add_state(b, tiles, 1, false, status_word_bytes);
  l.allocation = b.allocation();
  return l;
}

/// allocate_slots' arguments: the total (and the bounded form's count) describe the whole input, so they
/// are never null; requests and offsets matter only when n > 0.
CARRY_HD inline arg_error check_slots_args(const void* requests, const void* offsets, const void* total,
                                           const void* num_fitted, bool bounded, std::int64_t n,
                                           std::size_t temp_given, std::size_t temp_needed,
                                           std::int64_t tiles) {
  if (n < 0) return arg_error::negative_count;
  if (total == nullptr || (bounded && num_fitted == nullptr)) return arg_error::null_output;
  if (n == 0) return arg_error::none;
  if (requests == nullptr) return arg_error::null_input;
  if (offsets == nullptr) return arg_error::null_output;
  if (temp_given < temp_needed) return arg_error::temp_too_small;
  if (tiles > detail::max_tiles) return arg_error::too_many_tiles;
  return arg_error::none;
}

} // namespace apps_detail
} // namespace carry
