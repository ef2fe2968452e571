// Host/device planning of a radix sort: pass choice, temp layout, argument checks, and the routing of
// passes through the caller's buffers when some passes are skipped on the device. Plain C++, CPU-tested.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../scan/util/plan.hpp"
#include "../../scan/lookback/words.hpp"
#include "../radix_sort_options.hpp"
#include "../tuning.hpp"

namespace carry {
namespace radix_detail {

/// Which device structure sorts a call.
enum class sort_path {
  empty,       ///< n == 0: nothing to do
  copy,        ///< an empty bit range: the stable order is the input order (a copy; nothing in place)
  cluster,     ///< up to radix_tuning::cluster_tiles tiles: one cluster, every pass in one launch
  onesweep,    ///< histogram of every digit up front, then one look-back pass per digit
  three_kernel ///< per digit: upsweep, the engine's exclusive sum, downsweep
};

/// The path for n keys in tiles of `tile_items`, `passes` digit passes, `cluster_tiles` = the largest
/// cluster the device co-schedules for the cluster kernel (0: none).
///   n 2^14, tiles of 4096, 4 passes, clusters of 16 -> cluster;  n 2^20 -> onesweep
CARRY_HD inline sort_path choose_sort_path(std::int64_t n, int passes, radix_sort_algorithm algorithm,
                                           std::int64_t tile_items, int cluster_tiles) {
  if (n <= 0) return sort_path::empty;
  if (passes == 0) return sort_path::copy;
  if (algorithm == radix_sort_algorithm::three_kernel) return sort_path::three_kernel;
  const std::int64_t tiles = detail::ceil_div(n, tile_items);
  if (algorithm == radix_sort_algorithm::automatic && cluster_tiles >= 1 && tiles <= cluster_tiles)
    return sort_path::cluster;
  return sort_path::onesweep;
}

/// Items a thread for the cluster path: the fewest of items_max / 4, items_max / 2 and items_max whose
/// tiles of threads x items still cover n in `cluster_tiles` tiles (more, shorter tiles: fewer serial
/// rank rounds a pass), or items_max when none does.
///   n 2^14, 256 threads, items_max 16, 16 tiles -> 4 (16 tiles of 1024);  n 2^16 -> 16
CARRY_HD constexpr int cluster_items(std::int64_t n, int threads, int items_max, int cluster_tiles) {
  for (int items = items_max / 4 > 0 ? items_max / 4 : 1; items < items_max; items *= 2)
    if (detail::ceil_div(n, std::int64_t{threads} * items) <= cluster_tiles) return items;
  return items_max;
}

/// Threads of the cluster path's blocks for its largest tiles (tile_items keys, items_max a thread of
/// `threads`): `wide_threads` with the same tiles where wide blocks are on and the tile splits evenly
/// over them (each thread then holds tile_items / wide_threads), else `threads`.
///   tile 4096, items_max 16, wide on, 512 / 256 -> 512 (8 items a thread);  wide off -> 256
CARRY_HD constexpr int cluster_full_threads(int tile_items, int items_max, bool wide, int wide_threads,
                                            int threads) {
  return wide && items_max % 2 == 0 && tile_items % wide_threads == 0 ? wide_threads : threads;
}

/// The cluster path's local form (cluster_sort.cuh): after the top digit's pass, block r of `blocks`
/// sorts by the lower digits the keys of the digits whose output starts in the r-th blocks-th part of
/// the n keys. The block for a digit whose first key goes to output position `start`:
///   n 65536, 16 blocks: start 0 -> 0;  4095 -> 0;  4096 -> 1;  65535 -> 15;  65536 (empty last digits) -> 15
CARRY_HD constexpr int local_owner(std::uint64_t start, std::int64_t n, int blocks) {
  const std::uint64_t o =
      n > 0 ? start * static_cast<std::uint64_t>(blocks) / static_cast<std::uint64_t>(n) : 0u;
  return o >= static_cast<std::uint64_t>(blocks) ? blocks - 1 : static_cast<int>(o);
}

/// The ranges that local_owner gives, as the cluster kernel builds them (each digit d, in parallel there,
/// writes its start into lo[r] for the blocks r after the previous digit's block up to its own): lo[r] =
/// the first output position of block r's range, lo[blocks] = n (lo has blocks + 1 entries). Every digit
/// lies inside one range. Returns the largest range (the local form runs when it fits one block).
///   counts [3 1 0 4] (4 digits), n 8, 2 blocks: starts [0 3 4 4], owners [0 0 1 1] -> lo [0 4 8], largest 4
CARRY_HD inline std::int64_t local_ranges(const std::uint32_t* counts, int digits, std::int64_t n, int blocks,
                                          std::int64_t* lo) {
  for (int r = 0; r <= blocks; ++r) lo[r] = n;
  std::uint64_t start = 0;
  int prev = -1;
  for (int d = 0; d < digits; ++d) {
    const int o = local_owner(start, n, blocks);
    for (int r = prev + 1; r <= o; ++r) lo[r] = static_cast<std::int64_t>(start);
    prev = o;
    start += counts[d];
  }
  std::int64_t largest = 0;
  for (int r = 0; r < blocks; ++r)
    if (lo[r + 1] - lo[r] > largest) largest = lo[r + 1] - lo[r];
  return largest;
}

/// Whether a onesweep call of n keys also launches the bucket form (radix_tuning::bucket_max_n; the
/// histogram then chooses on the device between it and the passes): the automatic algorithm, at least
/// two passes, n up to `max_n`, keys and values of at most `bytes_max` bytes together (`item_bytes`),
/// and look-back words cleared once for the whole call in one portion (the MSD pass borrows the last
/// pass's set).
///   n 2^18, 4 passes, automatic, u32 keys (4 bytes), clear_once, 1 portion, max 2^18 -> true;
///   n 2^18 + 1 -> false;  1 pass -> false;  u64/u64 pairs (16 bytes, max 12) -> false
CARRY_HD constexpr bool bucket_applies(std::int64_t n, int passes, radix_sort_algorithm algorithm,
                                       std::size_t item_bytes, bool clear_once, std::int64_t portions,
                                       std::int64_t max_n, int bytes_max) {
  return algorithm == radix_sort_algorithm::automatic && passes >= 2 && n > 0 && n <= max_n &&
         item_bytes <= static_cast<std::size_t>(bytes_max) && clear_once && portions == 1;
}

/// The bucket form's MSD pass for a skip mask: the top pass that runs when at least two of `passes` run,
/// else -1 (one pass is its own MSD pass; none, nothing to sort).
///   skip 0b0000, 4 passes -> 3;  skip 0b1000 -> 2;  skip 0b1110 -> -1 (one runs);  skip 0b1111 -> -1
CARRY_HD constexpr int bucket_msd_pass(unsigned skip_mask, int passes) {
  int top = -1, runs = 0;
  for (int p = 0; p < passes; ++p)
    if (!(skip_mask >> p & 1u)) top = p, ++runs;
  return runs >= 2 ? top : -1;
}
/// The passes below the MSD pass `top` that run (they sort each bucket), as a mask.
///   skip 0b0100, top 3 -> 0b0011;  skip 0, top 1 -> 0b0001
CARRY_HD constexpr unsigned bucket_lower_passes(unsigned skip_mask, int top) {
  return ~skip_mask & ((1u << top) - 1u);
}

/// Items a thread of the onesweep tiles for n keys: `mid_items` (radix_tuning::mid_items, when > 0) up to
/// `mid_max_n` keys, `items` above.
///   n 2^18, items 20, mid 8, mid_max_n 2^19 -> 8;  n 2^20 -> 20;  mid 0 -> 20
CARRY_HD constexpr int onesweep_items(std::int64_t n, int items, int mid_items, std::int64_t mid_max_n) {
  return mid_items > 0 && n <= mid_max_n ? mid_items : items;
}

/// Threads of the onesweep blocks for n keys: `wide_threads` (radix_tuning::wide_threads, when > 0 and not
/// `threads`) for the large tiles (`items` == `large_items`) of inputs of at least `wide_min_n` keys,
/// `threads` otherwise.
///   n 2^26, items 24 (large), threads 256, wide 384, wide_min_n 2^25 -> 384;  n 2^24 -> 256;
///   items 8 (the mid tile) -> 256;  wide 0 -> 256
CARRY_HD constexpr int onesweep_threads_for(std::int64_t n, int items, int large_items, int threads,
                                            int wide_threads, std::int64_t wide_min_n) {
  return wide_threads > 0 && wide_threads != threads && items == large_items && n >= wide_min_n ? wide_threads
                                                                                                : threads;
}

/// Tiles of one onesweep launch (a portion): the largest whole number of tiles within portion_items_max.
CARRY_HD constexpr std::int64_t portion_tiles(std::int64_t tile_items) {
  return radix_tuning::portion_items_max / tile_items;
}

/// Blocks of one onesweep launch: one a tile, or (persistent blocks taking tickets) at most one wave of
/// `blocks_per_sm` on each of `sms` multiprocessors, never more than the tiles.
CARRY_HD constexpr std::int64_t onesweep_grid(std::int64_t portion_tiles, bool persistent, int sms,
                                              int blocks_per_sm) {
  const std::int64_t wave = static_cast<std::int64_t>(sms) * blocks_per_sm;
  return persistent && wave > 0 && wave < portion_tiles ? wave : portion_tiles;
}

/// A stable counting sort by bin in passes of `digit_bits`-bit digits, least significant first: the passes
/// num_bins needs (1 up to 2^digit_bits bins).
///
///   8-bit digits: 1 bin -> 1, 256 -> 1, 257 -> 2, 65536 -> 2, 2^24 -> 3
CARRY_HD constexpr int digit_passes(std::int64_t num_bins, int digit_bits) {
  int passes = 1;
  while (passes * digit_bits < 63 && (std::int64_t{1} << (passes * digit_bits)) < num_bins) ++passes;
  return passes;
}

/// A three-kernel digit pass (upsweep, scan, downsweep): tiles of `tile_items`, `grid` blocks each taking an
/// even share of whole tiles (in order), `passes` digit passes for the bins asked for.
struct three_kernel_plan {
  detail::tile_plan tiles;
  std::int64_t grid = 0;
  std::int64_t tiles_per_block = 0;
  int passes = 1;
  /// The tiles of block b: [first, last).
  CARRY_HD std::int64_t first_tile(std::int64_t b) const { return b * tiles_per_block; }
  CARRY_HD std::int64_t last_tile(std::int64_t b) const {
    const std::int64_t e = (b + 1) * tiles_per_block;
    return e < tiles.num_tiles ? e : tiles.num_tiles;
  }
};

///   n 2^28, tiles of 4096, 256 bins -> 65536 tiles, 1024 blocks of 64 tiles, 1 pass
CARRY_HD inline three_kernel_plan
plan_three_kernel(std::int64_t n, int tile_items, std::int64_t num_bins,
                  std::int64_t grid_max = radix_tuning::default_policy::three_grid_max) {
  three_kernel_plan p;
  p.tiles = detail::plan_tiles(n, tile_items);
  const std::int64_t t = p.tiles.num_tiles;
  p.grid = t < grid_max ? t : grid_max;
  p.tiles_per_block = p.grid > 0 ? (t + p.grid - 1) / p.grid : 0;
  if (p.tiles_per_block > 0) p.grid = (t + p.tiles_per_block - 1) / p.tiles_per_block; // no empty block
  p.passes = digit_passes(num_bins, radix_tuning::digit_bits);
  return p;
}

/// The call's control words, zeroed by the memset that starts every onesweep call.
struct sort_control {
  unsigned unsorted;  ///< set by the histogram when two neighbouring keys are out of order
  unsigned arrivals;  ///< histogram blocks done (the last one turns counts into digit offsets)
  unsigned skip_mask; ///< bit p: pass p is skipped (its digit is constant, or the keys are sorted)
  unsigned
      equal_keys; ///< every key has the same image over all its bits (adaptive only): the result is a fill
  unsigned bucket_top;    ///< bucket form chosen (histogram): its MSD pass + 1; 0: the passes run
  unsigned bucket_passes; ///< bucket form: bit p, pass p (below the MSD pass) sorts the buckets
};

/// Where a sort keeps its scratch in temp storage.
struct sort_layout {
  sort_path path = sort_path::empty;
  int passes = 0;
  detail::tile_plan tiles;
  std::int64_t portion_tiles = 0; // onesweep: tiles a launch
  std::int64_t portions = 0;
  bool clear_once = false; // onesweep: every pass's look-back words zeroed by the first memset
  bool alternate = false;  // onesweep, one portion, not clear_once: two sets, the first zeroed by the
                           // memset; executed pass j uses set j % 2 and zeroes the other's words
  int state_sets = 0;      // onesweep: look-back state sets (clear_once: passes; alternate: 2, or 1
                           // for one pass; else 1, prepared before each launch)
  lookback::temp_part alt_keys, alt_values; // the third buffer of the pointer forms
  lookback::temp_part hist, control, bases; // onesweep: digit counts, control, digit offsets
  lookback::temp_part state;                // onesweep: state_sets x (counter + words)
  std::size_t state_set_bytes = 0, state_words_offset = 0;
  lookback::temp_part counts, scan; // three-kernel: per-block digit counts, their scan
  std::int64_t three_grid = 0;
  std::size_t allocation = 1;

  /// The bytes the first memset zeroes: counts, control and the state sets (clear_once: every pass's;
  /// alternate: the first).
  CARRY_HD lookback::temp_part cleared() const {
    const std::size_t end = clear_once  ? state.offset + state.bytes
                            : alternate ? state.offset + state_set_bytes
                                        : control.offset + control.bytes;
    return {hist.offset, end - hist.offset};
  }
};

/// The temp layout of a call. `scan_bytes`: the engine's exclusive_sum temp size for the three-kernel
/// counts (radix x three_grid u64; asked by the dispatch, 0 for other paths). `double_buffer`: the
/// caller gave the second buffer (no n-sized scratch).
CARRY_HD inline sort_layout make_sort_layout(sort_path path, std::int64_t n, int passes,
                                             std::int64_t tile_items, std::size_t key_bytes,
                                             std::size_t value_bytes, bool double_buffer,
                                             std::int64_t three_grid, std::size_t scan_bytes) {
  sort_layout l;
  l.path = path;
  l.passes = passes;
  l.tiles = detail::plan_tiles(n, tile_items);
  lookback::temp_builder b;
  const bool needs_alt =
      !double_buffer && passes >= 2 &&
      (path == sort_path::cluster || path == sort_path::onesweep || path == sort_path::three_kernel);
  if (needs_alt) {
    l.alt_keys = b.add(static_cast<std::size_t>(n) * key_bytes);
    l.alt_values = b.add(static_cast<std::size_t>(n) * value_bytes);
  }
  if (path == sort_path::onesweep) {
    const std::int64_t pt = portion_tiles(tile_items);
    l.portion_tiles = l.tiles.num_tiles < pt ? l.tiles.num_tiles : pt;
    l.portions = detail::ceil_div(l.tiles.num_tiles, l.portion_tiles);
    l.hist = b.add(static_cast<std::size_t>(passes) * radix_tuning::radix * sizeof(std::uint64_t));
    l.control = b.add(sizeof(sort_control));
    // one state set: a ticket counter, then portion_tiles x radix packed words
    l.state_words_offset = lookback::temp_alignment;
    l.state_set_bytes =
        lookback::align_up(l.state_words_offset + static_cast<std::size_t>(l.portion_tiles) *
                                                      radix_tuning::radix * sizeof(std::uint32_t),
                           lookback::temp_alignment);
    l.clear_once = l.portions == 1 &&
                   static_cast<std::size_t>(passes) * l.state_set_bytes <= radix_tuning::clear_once_bytes_max;
    l.alternate = l.portions == 1 && !l.clear_once;
    l.state_sets = l.clear_once ? passes : l.alternate ? (passes < 2 ? passes : 2) : 1;
    l.state = b.add(static_cast<std::size_t>(l.state_sets) * l.state_set_bytes);
    l.bases = b.add(static_cast<std::size_t>(passes) * 2 * radix_tuning::radix * sizeof(std::uint64_t));
  }
  if (path == sort_path::three_kernel) {
    l.three_grid = three_grid;
    l.counts = b.add(static_cast<std::size_t>(three_grid) * radix_tuning::radix * sizeof(std::uint64_t));
    l.scan = b.add(scan_bytes);
  }
  l.allocation = b.allocation();
  return l;
}

/// Argument problems, in the order they are checked.
enum class sort_error {
  none,
  negative_count,
  bad_bits,
  null_keys,
  null_values,
  temp_too_small,
  overlap,
  too_many_tiles
};

/// Checks a call once the size query is out of the way. Bit ranges are checked whatever n (0 <= begin
/// <= end <= key_bits; begin == end sorts by nothing: a copy). n == 0 is fine whatever the pointers.
/// `keys_overlap` / `values_overlap`: the pointer forms' input and output share bytes.
CARRY_HD inline sort_error check_sort_args(const void* keys_in, const void* keys_out, const void* values_in,
                                           const void* values_out, bool has_values, std::int64_t n,
                                           int begin_bit, int end_bit, int key_bits, std::size_t temp_given,
                                           std::size_t temp_needed, bool overlap, std::int64_t num_tiles) {
  if (n < 0) return sort_error::negative_count;
  if (begin_bit < 0 || end_bit > key_bits || begin_bit > end_bit) return sort_error::bad_bits;
  if (n == 0) return sort_error::none;
  if (keys_in == nullptr || keys_out == nullptr) return sort_error::null_keys;
  if (has_values && (values_in == nullptr || values_out == nullptr)) return sort_error::null_values;
  if (temp_given < temp_needed) return sort_error::temp_too_small;
  if (overlap) return sort_error::overlap;
  if (num_tiles > detail::max_tiles) return sort_error::too_many_tiles;
  return sort_error::none;
}

// ---- routing: which buffer each executed pass reads and writes ----

/// The passes that run: those not in skip_mask, of `passes`.
CARRY_HD constexpr int executed_passes(unsigned skip_mask, int passes) {
  int k = 0;
  for (int p = 0; p < passes; ++p) k += (skip_mask >> p & 1u) ? 0 : 1;
  return k;
}
/// Executed passes before pass p.
CARRY_HD constexpr int executed_before(unsigned skip_mask, int p) {
  return executed_passes(skip_mask, p);
}

/// The three buffers of one array (keys or values) and how passes move through them.
///  pointer form (double_buffer false): `in` (read only), `out`, `alt` (temp storage). The executed
///    passes j = 0 .. k-1 go in -> ... -> out, alternating so that the last lands in out:
///    dst(j) = out when k-1-j is even, else alt; src(0) = in, src(j) = dst(j-1). k == 0: copy in -> out.
///  double-buffer form: `in` = the current buffer, `out` = the other; pass j writes out when j is even,
///    in when odd. The result must land where the host's selector says after all `passes` (CUB's rule:
///    `out` when passes is odd); with k executed passes of another parity, one copy puts it there.
///
///   pointer form, 4 passes, pass 1 skipped (k = 3): in -> out -> alt -> out
template <class T>
struct pass_buffers {
  const T* in = nullptr;
  T* out = nullptr;
  T* alt = nullptr;
  bool double_buffer = false;

  CARRY_HD T* dst(int j, int k) const {
    if (double_buffer) return j % 2 == 0 ? out : const_cast<T*>(in);
    return (k - 1 - j) % 2 == 0 ? out : alt;
  }
  CARRY_HD const T* src(int j, int k) const { return j == 0 ? in : dst(j - 1, k); }
  /// Where the data is after k executed passes.
  CARRY_HD const T* result(int k) const { return k == 0 ? in : dst(k - 1, k); }
  /// Where the caller expects it (host_passes: the passes the host planned).
  CARRY_HD const T* target(int host_passes) const {
    if (double_buffer) return host_passes % 2 == 0 ? in : out;
    return out;
  }
  /// Whether a copy result -> target finishes the call.
  CARRY_HD bool needs_copy(int k, int host_passes) const { return result(k) != target(host_passes); }
};

} // namespace radix_detail
} // namespace carry
