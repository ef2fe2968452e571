// Tuning constants of the compaction module, one place, each with the measurement that chose it.
#pragma once

#include <cstdint>

#include "../scan/block_scan_algorithm.hpp"

namespace carry {
namespace compact_tuning {

/// Launch shape of a compaction tile: BLOCK_THREADS threads, ITEMS_PER_THREAD items each (blocked, at most
/// 32: a thread's selection is a 32-bit mask), at least MIN_BLOCKS blocks per SM (the register cap of
/// __launch_bounds__ on the staged kernels), loads with the streaming (evict-first) hint or not, and how
/// long a look-back warp sleeps between polls. The block scan of the per-thread selection counts is the
/// engine's (ALGORITHM). Pointer inputs whose items (and flags) pack into 16-byte chunks run on staged
/// tiles (the engine's cp.async tile loader); other inputs on register tiles of the same shape. PREFETCH:
/// single-pass blocks ask the L2 for the tile launch order would give them before they take a ticket
/// (inputs of more than about one wave, prefetch_beyond_blocks_per_sm); with PREFETCH_AHEAD, only the first
/// wave's, and each tile, once its ticket is out, asks for the tile PREFETCH_AHEAD SMs' worth of tiles ahead.
template <int BLOCK_THREADS, int ITEMS_PER_THREAD, int MIN_BLOCKS, bool STREAMING = true,
          int LOOKBACK_DELAY_NS = 0, block_scan_algorithm ALGORITHM = block_scan_algorithm::coarsened,
          bool PREFETCH = true, int PREFETCH_AHEAD = 0>
struct compact_policy {
  static constexpr bool prefetch = PREFETCH; ///< single pass: warm the L2 with the guessed tile (see below)
  static constexpr int prefetch_ahead = PREFETCH_AHEAD; ///< single pass: SMs' worth of tiles ahead (0: none)
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr int items_per_thread = ITEMS_PER_THREAD;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr int min_blocks = MIN_BLOCKS;
  static constexpr bool streaming = STREAMING;
  static constexpr int lookback_delay_ns = LOOKBACK_DELAY_NS;
  static constexpr block_scan_algorithm algorithm = ALGORITHM;
  static constexpr bool warp_transpose = true;
};

/// Items per thread for T: 32 up to 4-byte types (a 32 KB staged tile of u32), 16 of 8 bytes, else 8.
template <class T>
constexpr int default_items() {
  return sizeof(T) <= 4 ? 32 : sizeof(T) <= 8 ? 16 : 8;
}

/// The policy of a compaction of T: 256 threads x 32 items (u32), 5 blocks per SM (5 x 40 KB of staged items
/// and u8 flags fit an SM's shared memory), streaming loads in the single pass, no look-back back-off.
/// Measured with carry_tune_compact (NOTES.md, "Compaction"), select_if u32 at 2^28 against CUB in the same
/// run: 16 items a thread cost 20-30 % (latency-bound: half the bytes in flight); 6 blocks per SM or
/// 128-thread blocks: within 1 %; a back-off of 100 or 400 ns: within 1 %; streaming loads: +4 % at 1 %
/// selectivity and 2^24, -4 % at 50 % and 2^28 (kept: the single pass reads its input once). One SM's worth
/// of tiles ahead (pointer tiles, past the first wave; index tiles keep their guess), H100, A/B binaries in
/// one call, two rounds: select_if 2^28 1 % 460-464 -> 454-455 us, 50 % 605 -> 593-595, 99 % 774-775 ->
/// 757-758, select_flagged 707-711 -> 680-683, select_unique 548-549 -> 538-541; 2^26 1.1-2.6 % faster, 2^24
/// level; partitions by flags do not ask (reversed, u8 flags: 0.4-1.3 % slower asking); tune_compact: two SMs
/// ahead 457-458 / 591-592 us at 2^28, the old rule (every tile asks from its first, only the first SM's
/// blocks guess) 3-5 % slower at 2^24 (the first wave's loads share the DRAM with the asks); index tiles with
/// u32 flags asking ahead 4-9 % slower.
template <class T>
using policy = compact_policy<256, default_items<T>(), 5, true, 0, block_scan_algorithm::coarsened, true, 1>;

/// The run-length calls' staged pass (run_length_encode, non_trivial_runs over pointer keys of 4 bytes or
/// more): the compaction's tile (256 x 32 u32 keys; 6 blocks an SM, the last row), plain loads. probe_keyed,
/// H100, u32 at 2^28, runs of 4 / 64: run_length_encode 661 / 559 us against 698 / 580 with streaming loads,
/// 725 / 580 without the guessed tile's prefetch, 695 / 581 at 128 x 32 and 10 blocks, and the keyed agent's
/// 781 / 672 (non_trivial_runs 634 / 479 against the keyed agent's 754 / 642). Kogge-Stone warp scans
/// (probe_keyed spans, two rounds): run_length_encode 660-661 / 566 against 660-663 / 558, non_trivial_runs
/// 642-644 / 471.5 against 631-632 / 478: mixed, Brent-Kung kept. One SM's worth of tiles ahead (probe_keyed
/// ahead, two rounds, the guess alone / one ahead / two ahead): run_length_encode runs of 4 at 2^28 627-629 /
/// 610-612 / 650-653 us, 2^26 168 / 165-166 / 176-177, 2^24 53.8 / 54.3-54.4 / 57.4-57.5, runs of 64 at 2^28
/// 505-506 / 511-513 / 536-538; non_trivial_runs runs of 4 at 2^28 626 / 608 / 612-617, runs of 64 481 /
/// 469-470 / 471. Six blocks an SM (40 registers, no spills; probe_keyed, two binaries in one call, two
/// rounds each): non_trivial_runs runs of 4 at 2^28 607-609 -> 582-584 us, 2^26 164-165 -> 159.5-160, runs of
/// 64 468-469 -> 443-444; run_length_encode level (599-602 -> 600-605, 162-163 -> 163-164, 487-490 ->
/// 488-490).
template <class K>
using run_length_policy =
    compact_policy<256, default_items<K>(), 6, false, 0, block_scan_algorithm::coarsened, true, 1>;

/// How many SMs' worth of tiles ahead a single-pass tile asks the L2 for, given its policy's `ahead`:
/// none for an index tile (its u32 flags asked for ahead: 4-9 % slower, H100) or a partition by flags (it
/// reads and writes two streams; reversed, 2^24-2^28: u8 flags 0.4-1.3 % slower asking, u32 flags 0.5 %
/// faster to 1.8 % slower).
///
///   tiles_ahead(1, false, false) -> 1;   tiles_ahead(1, true, false) -> 0;
///   tiles_ahead(1, false, true) -> 0
constexpr int tiles_ahead(int ahead, bool index_tile, bool partition_by_flags) {
  return index_tile || partition_by_flags ? 0 : ahead;
}

/// A flagged stable partition of computed items (an index tile) keeps its selection bits for the scatter
/// (flags read once) from this many bytes of flags; below, the scatter reads the flags again, which the L2
/// still holds, while the count kernel runs (its programmatic dependent), which the stored bits cannot (they
/// wait for the count). Pointer items keep the bits at every size: their scatter loads the items meanwhile.
/// bench_compact A/B, H100, two rounds, counting iterator, flags read again -> bits (us): u32 flags 2^21
/// 14.3-15.4 -> 15.2-16.2, 2^22 21.8 -> 24.8, 2^23 (32 MB) 40.0-41.6 -> 33.4-36.1, 2^24 75-77 -> 57-63; u8
/// flags 2^23 23.2-24.6 -> 24.5-27.3, 2^24 (16 MB) 44.8-48.3 -> 42.7-45.9, 2^28 589-592 -> 519-522; u32
/// items with u8 flags 2^21 16.9 -> 15.5, 2^23 50.0 -> 41.7.
constexpr std::int64_t index_stored_bits_from_flag_bytes = std::int64_t{32} << 20;

/// Whether a flagged stable partition over `tiles` tiles keeps its selection bits for the scatter: staged
/// (pointer) items at every size, computed items from index_stored_bits_from_flag_bytes of flags; never a
/// single tile (it runs in one block, with no count pass).
///
///   keeps_selection_bits(true, 2, 64) -> true;   keeps_selection_bits(false, 4096, 16 << 20) -> false
constexpr bool keeps_selection_bits(bool staged_items, std::int64_t tiles, std::int64_t flag_bytes) {
  return tiles > 1 && (staged_items || flag_bytes >= index_stored_bits_from_flag_bytes);
}

/// The three kernels read the input twice: plain loads there, so that the count kernel's last tiles are
/// still in L2 when the scatter kernel (which takes the tiles from the last one back) reads them again.
/// Measured: partition u32 50 % at 2^28, 1136 us against 1210 us with streaming loads.
template <class P>
struct without_streaming : P {
  static constexpr bool streaming = false;
};

/// Inputs of 2 .. cluster_tiles tiles (up to 2^17 u32 items) run as one thread-block cluster: one launch,
/// no prepare step, no temp storage (at most 16, and at most what the device co-schedules).
constexpr int cluster_tiles = 16;

/// Up to this many tiles (2^24 u32 items) an automatic partition that counts first runs count + scatter,
/// the scatter folding the tile counts itself (each block reads them all from L2 as 16-byte pairs, two in
/// flight a thread: 16 KB at 2048 tiles) instead of the engine's scan of the counts in between (a
/// one-block kernel, 4.1-4.3 us under ncu at 2048 counts): two launches instead of three. Measured
/// (H100, bench_compact partition_50 and iota_partition_50, two rounds, u32; against three kernels):
/// pointers 2^22 (512 tiles) 30.5 -> 26.7-27.0 us, 2^23 47.0-47.2 -> 45.5-45.7, 2^24 86.2-86.4 ->
/// 85.7-85.9, 2^25 159 -> 167; a counting iterator 2^22 17.5-18.2 -> 15.1-15.2, 2^23 24.2-24.5 ->
/// 22.5-22.7, 2^24 37.1-37.8 -> 36.5-36.7, 2^24.5 47.9-48.4 -> 50.6-51.5, 2^25 62.6 -> 72.3-72.6 (the
/// folds' L2 reads grow with the square of the tiles). With one count a thread a round trip the fold
/// won only up to 256 tiles.
constexpr std::int64_t fused_scan_max_tiles = 2048;

/// A count kernel whose items alone decide (a computed input selected by a predicate or unique) gives each
/// tile 1-8 warps, as many as keep the tiles' warps within this many (one wave on the H100: 132 SMs x 64),
/// in small blocks without the agent's shared storage. Measured against the agent's count kernel (H100,
/// bench_compact iota_partition_50, stable, both binaries in one call, two rounds): 2^26 113.8-114.5 ->
/// 110.6-111.4 us, 2^28 415.4-416.1 -> 400.8-402.1; 2^20-2^24 level (8.5-8.8, 14.9-15.1, 36.7-36.8).
/// Without the scatter's shared-memory split (prefer_shared_for) it lost 10 us at 2^20: the SMs drain to
/// change the split between the two kernels. A quarter of the wave (2048: 1 warp a tile from 2^24) leaves
/// room on every SM for the scatter's first blocks, which rank their tiles while the count runs (they wait
/// for it only to read the counts): bench_compact iota_partition_{1,50,99}, stable, H100, three binaries in
/// one call (8192 / 4096 / 2048; 2048 two rounds): 2^23 22.2 / 20.9-21.1 / 20.9-21.2 us (1 %), 21.9 /
/// 21.3-21.5 / 20.6 (50 %), 20.6 / 19.8-19.9 / 19.5-19.6 (99 %); 2^24 35.3 / 34.9 / 34.7-34.9, 36.9 / 36.1
/// / 36.0, 35.0 / 34.8 / 34.4-34.6 (the 109fd55 table, 8192: 36.4, 36.6, 35.1); 2^25 61.3-62.0 against
/// 60.5-61.7; 2^20-2^22 level (2^22 at 50 %: 10.8 against 10.8-10.9).
constexpr std::int64_t count_alone_warps_in_flight = 2048;

/// Single-pass blocks warm the L2 with their guessed tile before the ticket only when the input has more
/// tiles than this many blocks per SM (about one wave: 5 blocks of 256 threads fit an SM by registers).
constexpr int prefetch_beyond_blocks_per_sm = 5;

/// A reversed partition whose count reads nothing (a computed input, a counting or transform iterator,
/// selected by a predicate: every item is written, so the write dominates) counts first, as a stable one
/// does, from reversed_count_first_tiles.first tiles up to (not including) .second, and otherwise runs as
/// one pass. Measured (H100, probe_index reversed, counting iterator, 50 %, two rounds; count first against
/// one pass, CUB): 2^19-2^21 u32 8.5-10.8 against 8.0-10.7 us; 2^22 (512 tiles) 18.2-18.7 against 15.6-15.8
/// (CUB 16.4); 2^23 25.3-25.4 against 26.6 (CUB 23.8-24.0); 2^24 37.8 against 39.8 (CUB 38.9-39.2); 2^25
/// 62.6-63.2 against 63.3-63.4; 2^26 113.8-114.0 against 111.4-111.9; 2^28 413.8-413.9 against 394.9-395.5
/// (CUB 490.6-491.7). Not with flags (probe_index select, u32 flags at 99 %, 2^24: count first 78.0 us
/// against 66.0 one pass, CUB 69.4-70.1: the flags are read twice), nor a selection (select_if at 2^24:
/// count first 20.0 / 28.0 / 37.8 us at 1 / 50 / 99 % against 17.3-17.5 / 26.1-26.3 / 40.2-41.0 one pass).
struct tile_range {
  std::int64_t first, second;
};
constexpr tile_range reversed_count_first_tiles{1024, 4096};

/// The smallest input the automatic choice runs as a single pass (below: the three kernels). The single
/// pass reads the input once, the three kernels twice; see NOTES.md, "Compaction".
constexpr std::int64_t single_pass_from = 0;

} // namespace compact_tuning
} // namespace carry
