// The radix sort's tuning: a policy type whose members are the tuned values (one row each, with the
// same-run H100 measurement that chose it), and the shapes every kernel derives from it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace carry {
namespace radix_tuning {

// ---- fixed by the algorithm, not tuned ----
constexpr int digit_bits = 8; // 256 digits = one thread a digit in a 256-thread block (CUB's onesweep: 8 too)
constexpr int radix = 1 << digit_bits;
constexpr int threads = 256;                 // histogram, cluster and three-kernel blocks
constexpr int static_shared_max = 48 * 1024; // beyond it a tile's storage is dynamic shared memory
constexpr int cluster_tiles = 16;            // the largest portable cluster on sm_90
constexpr int cluster_wide_threads = 512;
constexpr int bucket_bytes_max = 12; // key + value bytes the bucket form's block sort holds
constexpr std::int64_t portion_items_max = std::int64_t{1} << 29;  // 30-bit look-back counts cannot overflow
constexpr std::size_t clear_once_bytes_max = std::size_t{8} << 20; // every pass's words cleared by one memset
constexpr int cluster_local_items(int items) {
  return items + (items / 8 > 0 ? items / 8 : 1);
}

/// The sort's tuned values on sm_90 (H100 80GB HBM3, CUDA 13.0, CCCL 3.0.1). Each row: the value, then
/// the measurement that chose it (median us, CUB in the same run; the runs are in git history and
/// validate/results/NOTES.md). A tuner passes a type of the same shape.
// A table, one row a value and its figure:
// clang-format off
struct policy_sm90 {
  // ---- onesweep blocks ----
  static constexpr int threads_keys4 = 256;       // u32 keys 2^26: 256x24 1400 us, 384x20 1488 (CUB 1443)
  static constexpr int threads_onesweep = 384;    // u32/u32 2^26: 384x24 2327 us, 256x24 2502; u64 384x15 4195, 256x12 4420
  static constexpr int items4 = 24;               // u32 keys 2^26: 24 1432-1437 us, 20 1515, 28 1457
  static constexpr int items8 = 15;               // u64 keys 2^26: 15 whole 4195 us (1.04x CUB), 14 4249, 16 4324 (spills)
  static constexpr int items4_pairs = 24;         // u32/u32 2^26: 24 2327 us, 22 2372, 20 2440
  static constexpr int items8_pairs = 13;         // u32/u64 2^26: 13 3210 us, 12 3292; u64/u64 8703 against 8817
  static constexpr int min_blocks = 3;            // u32 keys 2^26: 3 1513 us, 4 1574, 2 1623
  static constexpr int min_blocks_keys8 = 2;      // u64 keys at 384x15: 71 KB of dynamic shared memory, 2 fit an SM
  static constexpr int min_blocks_pairs = 2;      // u64/u64 2^26 at 256 threads: 2 8175 us, 3 8864 (384 threads: 2 fit)
  static constexpr int min_blocks_pairs16 = 3;    // 16-byte values, 256x4: not measured against another value
  // ---- wide tiles for large inputs of 4-byte keys ----
  static constexpr int wide_threads_keys4 = 384;  // u32 keys 2^28: 384x24 5459-5484 us, 256x24 5560-5642; 2^22 144.8 against 142.2
  static constexpr int wide_min_log2 = 25;        // level at 2^23-2^26, faster above: from where it cannot lose
  static constexpr int min_blocks_wide = 2;       // 384x24 placed keys take 2 blocks an SM
  // ---- mid-size tiles (a pass of fewer tiles than resident blocks is one tile's latency) ----
  static constexpr int mid_items4 = 8;            // u32 keys 2^18: 8 43.2 us, 6 46.0, 4 48.2, large tile 46.5
  static constexpr int mid_items8 = 6;            // u64 keys 2^16: 6 68.0 us, 8 69.9, large tile 75.2
  static constexpr int mid_max_log2 = 18;         // u32 keys 2^19: mid 55.4 us, large 51.8
  // ---- ranking (block::multisplit) ----
  static constexpr int peers = 2;                 // atomic_or masks; u32 2^26: 3079 us, ballot 3585, match_any 4304
  static constexpr int counts = 1;                // leader atomics; with early counts 1953 us, load/store 2043
  static constexpr int cluster_counts = 0;        // load/store on the cluster path: u32 2^16 23.5 us, leader 24.1
  static constexpr int scan_warps = 1;            // Kogge-Stone warp scans: cluster u32 2^16 20.7 us, Brent-Kung 21.6
  static constexpr bool early_counts = true;      // counts published before the ranking: u32 2^26 1953 us, late 2041
  static constexpr bool placed = true;            // keys staged in their rounds: u32 2^26 1399 us, unplaced 1437
  static constexpr int placed_key_bytes = 8;      // u64 keys placed at 384x12 dynamic: 4482 us, unplaced 4617
  static constexpr bool whole_keys = true;        // whole + padded tiles: u32 2^26 1511 us, checked 1660
  static constexpr bool whole_pairs = true;       // u32/u32 384x24 2^26: whole 2264 us, checked 2331
  static constexpr bool padded_keys = true;       // (with whole_keys above)
  static constexpr bool padded_pairs = true;      // (with whole_pairs above; padded alone 2307)
  static constexpr int whole_key_bytes = 8;       // u64 keys whole at 15 items: 4195 us, 14 unwhole 4249
  static constexpr int whole_pair_bytes = 4;      // 8-byte pairs gained nothing: u64/u64 8651 against 8702
  // ---- look-back and launches ----
  static constexpr int lookback_window = 4;       // keys: u32 2^26 window 4 1867 us, 1 1983, 8 2140
  static constexpr int lookback_window_pairs = 1; // pairs: window 4 lost (20 items 2807 us against 2716)
  static constexpr int pdl = 2;                   // dependents after a block's last tile: u32 2^18 46.5 us, none 53.5, at start 62.0 at 2^19
  // ---- the cluster path (small inputs) ----
  static constexpr bool cluster_padded = true;    // padded last tiles: u32 2^16 32.1 us, checked 35.2
  static constexpr bool cluster_local = true;     // local block sorts after the top pass: u32 2^14 12.7 us, passes 16.5
  static constexpr int cluster_local_max_items = 8; // 2^16 at 16 items a thread lost to the passes (latency-bound block sorts)
  static constexpr bool cluster_wide = true;      // 512x8 blocks for 2^16: u32 21.3 us against 22.6 at 256x16
  // ---- the bucket form (mid sizes) and the up-front histogram ----
  static constexpr int bucket_max_log2 = 18;      // u32 keys 2^18: 33.9-34.2 us, the passes 43.1-43.2
  static constexpr int bucket_items = 8;          // 2048-key buckets: one block's shared memory
  static constexpr int histogram_blocks_per_sm = 4; // u32 2^26: 4 a resident wave; 3 slower (histogram 3 of 4 SMs' slots)
  static constexpr int histogram_vectors = 4;     // 16-byte loads in flight a thread; 2 slower
  // ---- the three-kernel pass (the sort's three_kernel form, bin_by_key past 256 bins) ----
  static constexpr int three_items4 = 8;          // 256 x 16 took 166 registers: one block an SM, 0.26x CUB at 2^28
  static constexpr int three_items8 = 4;
  static constexpr int three_min_blocks = 4;
  static constexpr std::int64_t three_grid_max = 1024; // a constant, so the size query depends on n alone: ~4 waves
  // ---- the stable merge of sorted runs (the distributed sort's last step; cold L2, 2^27 + 2^27 u32) ----
  static constexpr int merge_threads_keys4 = 512;   // u32 keys: 512x19 771 us, 512x15 786, 384x15 795, 256x11 858; the kernel before 1142 (CUB DeviceMerge 781, copy 715)
  static constexpr int merge_items_keys4 = 19;      // (odd: a thread's run of outputs in shared memory meets no bank twice)
  static constexpr int merge_min_blocks_keys4 = 3;  // 512x15: 3 784 us, 4 786, 2 879 (64 registers)
  static constexpr int merge_threads_pairs4 = 384;  // u32/u32: 384x15 1541 us, 512x11 1543, 256x15 1560; the kernel before 2068 (CUB 1884, copy 1426)
  static constexpr int merge_items_pairs4 = 15;     // its keys and sources: 46 KB of the 48 static
  static constexpr int merge_min_blocks_pairs4 = 4; // 256x15: 4 1560 us, 6 1577, 8 1962 (408 bytes spilled)
  static constexpr int merge_threads_wide = 256;    // 8-byte keys or values, 2^26 + 2^26: within 4 % of the best shape tried, kept:
  static constexpr int merge_items_wide = 7;        // u64 keys 885 us (256x9 864, 512x5 865; CUB 781); u64/u64 1563 (384x9 1515; CUB 1572); u32/u64 1206 (256x11 1159; CUB 1184)
  static constexpr int merge_min_blocks_wide = 1;   // u64 keys at 256x7: 1 885 us, 3 883
  // ---- the four-run merge in one pass (three or four runs; 2^28 u32 as four sorted runs, cold L2, H100) ----
  static constexpr bool merge4_keys4 = false;         // keys alone keep the two-run tree: 1562 us against 1760-1967 in one pass (the tiles' shared-memory merges cost more than the pass saves)
  static constexpr bool merge4_pairs4 = true;         // u32/u32: 2441 us at 256x9 against the tree's 3087 (1.26x)
  static constexpr bool merge4_wide = false;          // 8-byte keys or values: not measured, the tree
  static constexpr std::int64_t merge4_sample_every = 128; // a sample every 128 items a run: a tile boundary every (tile / 128 - 4) merged samples
  static constexpr int merge4_threads = 256;          // pairs: 256x9 min 6 2441 us, 384x9 min 4 2444, 256x7 min 8 2460, 256x15 min 4 2528, 256x11 min 4 2763
  static constexpr int merge4_items_keys4 = 15;       // (keys, not shipped: 384x9 1760 us, 256x9 1777, 256x15 1832; the tree 1562)
  static constexpr int merge4_min_blocks_keys4 = 4;
  static constexpr int merge4_items_pairs4 = 9;       // two key stages and the sources: 28 KB
  static constexpr int merge4_min_blocks_pairs4 = 6;
  static constexpr int merge4_items_wide = 7;         // (not shipped)
  static constexpr int merge4_min_blocks_wide = 2;
};
// clang-format on

/// The table: the policy each shipped kernel is built with (one row: sm_90; other architectures run it too).
/// Dispatch takes a policy type as a template parameter defaulting to it (radix_detail::dispatch_sort);
/// tuners pass their own type of the same shape.
using default_policy = policy_sm90;

/// Whether a block of `t` threads is whole warps with at least one thread a digit.
constexpr bool valid_block(int t) {
  return t % 32 == 0 && t >= radix && t <= 1024;
}
template <class P>
constexpr bool valid_policy = valid_block(P::threads_onesweep) && valid_block(P::threads_keys4) &&
                              valid_block(P::wide_threads_keys4);
static_assert(valid_policy<default_policy>,
              "carry: onesweep blocks are whole warps, at least one thread a digit");

// ---- what the kernels and the dispatch derive from a policy P ----

/// The onesweep block's threads for a tile whose wider type is WIDEST bytes (keys only: the key's).
template <class P, bool HAS_VALUES, int WIDEST>
constexpr int onesweep_threads = WIDEST > 8                   ? threads
                                 : !HAS_VALUES && WIDEST <= 4 ? P::threads_keys4
                                                              : P::threads_onesweep;
/// Items a thread of the large onesweep tile by the wider of key and value.
template <class P, int BYTES, bool HAS_VALUES = false>
constexpr int items() {
  return BYTES <= 4   ? (HAS_VALUES ? P::items4_pairs : P::items4)
         : BYTES <= 8 ? (HAS_VALUES ? P::items8_pairs : P::items8)
                      : 4;
}
/// Items a thread of the mid-size tiles (n <= mid_items_max_n; 0: the large tile at every size).
template <class P, int BYTES>
constexpr int mid_items() {
  return BYTES <= 4 ? P::mid_items4 : BYTES <= 8 ? P::mid_items8 : 0;
}
template <class P>
constexpr std::int64_t mid_items_max_n = std::int64_t{1} << P::mid_max_log2;
/// Programmatic launches of the passes: 0 none, 1 a block lets the next grid launch as it starts, 2 after its
/// last tile.
template <class P>
constexpr bool pdl = P::pdl != 0;
template <class P>
constexpr bool pdl_early = P::pdl == 1;
/// Items a thread at most on the cluster path: 16 for 4-byte types (2^16 u32 in 16 tiles of 4096), 8 for
/// 8-byte types (what fits 48 KB beside the cluster's inbox).
template <class P, int BYTES>
constexpr int cluster_items_max() {
  return BYTES <= 4 ? 16 : BYTES <= 8 ? 8 : items<P, BYTES>();
}
/// Blocks an SM the onesweep kernel's registers must allow (__launch_bounds__).
template <class P, bool HAS_VALUES, int KEY_BYTES, int VALUE_BYTES>
constexpr int onesweep_min_blocks = !HAS_VALUES ? (KEY_BYTES <= 4 ? P::min_blocks : P::min_blocks_keys8)
                                    : VALUE_BYTES > 8 || KEY_BYTES > 8 ? P::min_blocks_pairs16
                                                                       : P::min_blocks_pairs;
/// The wide tile's threads for keys of KEY_BYTES (0: no wide tile; only 4-byte keys without values).
template <class P, bool HAS_VALUES, int KEY_BYTES>
constexpr int wide_threads = !HAS_VALUES && KEY_BYTES == 4 ? P::wide_threads_keys4 : 0;
template <class P>
constexpr std::int64_t wide_min_n = std::int64_t{1} << P::wide_min_log2;
/// Whether a onesweep tile stages its keys in the ranking rounds: keys only, the large tile (LARGE).
template <class P, bool HAS_VALUES, bool LARGE, int KEY_BYTES = 4>
constexpr bool placed_stage =
    !HAS_VALUES && LARGE && P::early_counts && P::placed && KEY_BYTES <= P::placed_key_bytes;
/// Words a look-back thread reads a round trip.
template <class P, bool HAS_VALUES>
constexpr int lookback_window = HAS_VALUES ? P::lookback_window_pairs : P::lookback_window;
/// Keys-only passes run one wave of persistent blocks taking tile tickets (pairs lost with it: u32/u32
/// 2^26 3846 us against 3020 one block a tile; keys 2048 against 2067).
template <bool HAS_VALUES>
constexpr bool persistent_onesweep = !HAS_VALUES;
/// Whether a tile form applies (keys_switch for keys only, pairs_switch with values), by the widths the
/// policy allows it for: whole tiles in a form of their own (no per-item check), and the last tile padded
/// (its dead items rank last).
template <class P>
constexpr bool tile_form_on(bool has_values, int key_bytes, bool keys_switch, bool pairs_switch,
                            int value_bytes = 0) {
  return has_values ? (pairs_switch && key_bytes <= P::whole_pair_bytes && value_bytes <= P::whole_pair_bytes)
                    : (keys_switch && key_bytes <= P::whole_key_bytes);
}
template <class P, bool HAS_VALUES, int KEY_BYTES, int VALUE_BYTES = 0>
constexpr bool whole_tiles = tile_form_on<P>(HAS_VALUES, KEY_BYTES, P::whole_keys, P::whole_pairs,
                                             VALUE_BYTES);
template <class P, bool HAS_VALUES, int KEY_BYTES, int VALUE_BYTES = 0>
constexpr bool padded_partial_tiles = tile_form_on<P>(HAS_VALUES, KEY_BYTES, P::padded_keys, P::padded_pairs,
                                                      VALUE_BYTES);
template <class P>
constexpr std::int64_t bucket_max_n = P::bucket_max_log2 > 0 ? std::int64_t{1} << P::bucket_max_log2 : 0;

} // namespace radix_tuning
} // namespace carry
