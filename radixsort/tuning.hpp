// Tuning constants of the radix sort, one place, each with how it was chosen: the peer method, the
// items a thread, the blocks an SM, persistent blocks and the cluster's items were measured
// (validate/results/h100-tune-radix*.log); the others were sized by resources (NOTES.md, issue 17).
#pragma once

#include <cstdint>

namespace carry {
namespace radix_tuning {

/// Digit width of every pass: 8 bits, 256 digits = one thread per digit in a 256-thread block (the
/// look-back over the digit counts then needs no loop; CUB's onesweep uses 8 as well).
constexpr int digit_bits = 8;
constexpr int radix = 1 << digit_bits;
constexpr int threads = 256;

/// Threads of a onesweep block (its mid and large tiles; the histogram, cluster and three-kernel blocks
/// keep `threads`), by what its tile holds: keys-only tiles of keys up to 4 bytes 256
/// (CARRY_RADIX_THREADS_KEYS4), 8-byte keys and pairs whose wider type is at most 8 bytes 384
/// (CARRY_RADIX_ONESWEEP_THREADS), 16-byte values 256 (not measured at 384). Above radix the first radix
/// threads own a digit each (publish, look-back, offsets) and every thread ranks and scatters items, so
/// a tile grows without lengthening any warp's ranking rounds, as CUB's sm_90 onesweep tiles of 384
/// threads do (NOTES.md, fifteenth session). Measured (sixteenth session, h100-tune-radix-t384.log, two
/// rounds alternating, CUB in the same runs), 384 threads at 2 blocks an SM, unplaced, against the
/// 256-thread tiles then the default (24 items placed for 4-byte keys, 12 placed for 8-byte keys, 24 for
/// 4-byte pairs, 16 for 8-byte pairs; 3 blocks an SM, 2 for u64/u64):
///   - u32 keys: 20 items 2^26 1488-1489 us, 16 items 1640-1641, against 1400 (2^24: 408, 445 against
///     389), so 4-byte keys keep 256 threads;
///   - u64 keys: 12 items 4554-4557 us, 15 items 4703-4706, against 4716-4720 (CUB 4351-4356);
///   - pairs u32/u32: 20 items 2432-2434 us, 16 items 2625-2626, against 2517-2518 (2^24 672 against 671-674);
///   - 12 items for 8-byte pairs: u64/u64 8061-8108 us against 8398-8400 (CUB 8117-8180), u32/u64
///     3325-3378 against 3584-3589 (CUB 3153-3233), u64/u32 6697-6737 against 7353-7354 (CUB 6408-6490);
///   - the mid tiles (2^16, 2^18) within 3 % either way (u64 keys 2^16 70.4 us against 68.0, 2^18 86.1
///     against 88.6).
/// Then the items of the 384-thread pairs (h100-tune-radix-pairs384.log, two rounds, CUB in the same
/// runs; the 256-thread tiles `t256` in the same runs): 4-byte pairs at 2^26 24 items 2327-2328 us
/// (1.011-1.013x CUB), 22 items 2372-2376, 20 items 2440-2446, t256 2502-2506 (2^24: 659, 656, 671, 673);
/// 8-byte pairs at 13 items against 12: u32/u64 3210-3215 us against 3292-3295 (CUB 3213-3229), u64/u32
/// 6672-6673 against 6746-6757, u64/u64 8703-8707 against 8817-8937 (t256 9828-9850); 2^24 847 against
/// 864-866, 1686 against 1705-1708, 2031 against 2045-2051. So 24 and 13: 48.1 and 46.9 KB of shared
/// memory with the staged digits; ptxas 80 registers, no spill (u8/u8 pairs spill 32 bytes).
/// Nsight Compute of one pass (h100-ncu-radix-7ace7b1.txt, u32 2^24, 20 items): carry's pairs pass
/// moves the bytes CUB's does (DRAM 134.6 MB read, 121.4 written; CUB 134.8, 119.9) in 155 us against
/// 145, executing 72.2 M warp instructions against 51.0 M; its keys pass 36.3 M against 44.4 M (87.7 us
/// against 90.8).
#ifndef CARRY_RADIX_ONESWEEP_THREADS
#define CARRY_RADIX_ONESWEEP_THREADS 384
#endif
#ifndef CARRY_RADIX_THREADS_KEYS4
#define CARRY_RADIX_THREADS_KEYS4 256
#endif
/// The onesweep block's threads for a tile whose wider type is WIDEST bytes (keys only: the key's).
template <bool HAS_VALUES, int WIDEST>
constexpr int onesweep_threads = WIDEST > 8 ? threads
                                 : !HAS_VALUES && WIDEST <= 4 ? CARRY_RADIX_THREADS_KEYS4
                                                              : CARRY_RADIX_ONESWEEP_THREADS;
static_assert(CARRY_RADIX_ONESWEEP_THREADS % 32 == 0 && CARRY_RADIX_ONESWEEP_THREADS >= radix &&
                  CARRY_RADIX_ONESWEEP_THREADS <= 1024 && CARRY_RADIX_THREADS_KEYS4 % 32 == 0 &&
                  CARRY_RADIX_THREADS_KEYS4 >= radix && CARRY_RADIX_THREADS_KEYS4 <= 1024,
              "carry: onesweep blocks are whole warps, at least one thread a digit");

/// Items a thread per tile by the wider of key and value and the block's threads (onesweep_threads): 4-byte
/// keys 24 items of 256 threads (6144 a tile, 24 KB staged); 4-byte pairs 24 of 384 (9216); 8-byte keys
/// 15 of 384 (5760, placed, dynamic shared memory), 8-byte pairs 13 (4992); 16-byte values 4 of 256. The 384-thread figures are measured above
/// (onesweep_threads); what follows is the history of the 256-thread tiles. Sized by shared memory and
/// registers. For u32
/// keys 16 beat 8 and 12 (below); with early counts, leader counts and a look-back window of 4, 20 items
/// at 3 blocks an SM beat 16 at 4 (h100-tune-radix-8806bdc-2.log, u32 2^26, CUB 1443-1447 us in the same
/// runs: keys 1800 against 1867 us, pairs 2716 against 3087). 24 items exceeded 48 KB of static shared
/// memory until the multisplit's counters shared their bytes with the stage (staged_tile_storage):
/// then (h100-tune-radix-4c79c57.log, h100-tune-radix-e019d0d.log, CUB 1441-1446 us in the same runs)
/// u32 keys at 2^26 1432-1437 us against 1515 at 20 items, 1457 at 28; at 2^24 400-402 against 413,
/// 421 at 28; pairs u32/u32 2^26 2461-2514 against 2597 (28: 2443), 2^24 670 against 690. ptxas: u32
/// keys spill 36 bytes at 24 items (8 at 20, 84 at 28), pairs none.
#ifndef CARRY_RADIX_ITEMS4
#define CARRY_RADIX_ITEMS4 24
#endif
/// 8-byte tiles (the wider of key and value 8 bytes: u64, i64 and f64 keys; 8-byte values): 12 a thread,
/// 3072 keys a tile, 46 KB of shared memory. Measured (h100-tune-radix-114d990.log, u64 keys, CUB's best
/// in the same runs): 8 items (the former 16 KB stage) 5821 us at 2^26 (0.748x CUB), 10 items 5203
/// (0.838x), 12 items 4816 (0.904x); at 2^24 1497 / 1339 / 1240 us (0.80x / 0.90x / 0.97x). ptxas: u64
/// keys 64 registers at 8 and 12 items (no spill), pairs 70-72 at 8 and 80 at 12 (no spill); 13 items
/// take 72 registers for keys and 48.4 KB, 14 exceed 48 KB of static shared memory. Whole tiles for
/// 8-byte keys at 10 items: level (5214 us, CARRY_RADIX_WHOLE_KEY_BYTES below). Pairs whose wider type
/// is 8 bytes (CARRY_RADIX_ITEMS8_PAIRS), 12 against 8 items at 2^26 (h100-tune-radix-5c0c088.log):
/// u64/u64 9568 us against 10480 (CUB 8173), u32/u64 4068 against 4474 (CUB 3156). With the counters in
/// the stage's bytes (h100-tune-radix-e019d0d.log, CUB's best in the same runs): pairs at 16 items
/// u64/u64 2^26 9001 us (0.899x) against 9318 at 12 (0.874x), u32/u64 3620 (0.903x) against 4036
/// (0.793x); 2^24 2228 against 2319 and 908 against 1014; 14 items between (9071, 3649). u64 keys
/// gained nothing from more items: 2^26 4974 us at 14, 4992 at 16, 4885-5032 at 12 (CUB 4350-4359),
/// so they keep 12.
#ifndef CARRY_RADIX_ITEMS8
#define CARRY_RADIX_ITEMS8 15
#endif
/// Seventeenth session, 8-byte keys placed at 384 threads (placed_stage, dynamic shared memory): 15 items
/// in the whole-tile form (CARRY_RADIX_WHOLE_KEY_BYTES 8; ptxas 80 registers, no spill). Three rounds
/// (h100-tune-radix-u64-2.log, CUB in the same runs), 2^26 / 2^24 / 2^22: 12 items 4420-4423 /
/// 1150-1152 / 345 us, 13: 4319-4381 / 1128-1134 / 343-344, 14: 4249-4255 / 1112 / 338-340, 14 whole
/// 4259-4282 / 1099-1101 / 333, 15 whole 4195-4198 (1.04x CUB) / 1086-1088 (1.10x) / 329-330 (1.22x),
/// 16 whole (12 bytes spilled) 4324-4325 / 1114 / 331. Placed and unwhole, 15 items spilled 16 bytes
/// and tied with 12 (h100-tune-radix-dyn.log).
/// (Those were 256-thread tiles; at 384 threads 8-byte pairs take 13 items, 4-byte pairs 24: above.)
#ifndef CARRY_RADIX_ITEMS8_PAIRS
#define CARRY_RADIX_ITEMS8_PAIRS 13
#endif
#ifndef CARRY_RADIX_ITEMS4_PAIRS
#define CARRY_RADIX_ITEMS4_PAIRS 24
#endif
template <int BYTES, bool HAS_VALUES = false>
constexpr int items() {
  return BYTES <= 4   ? (HAS_VALUES ? CARRY_RADIX_ITEMS4_PAIRS : CARRY_RADIX_ITEMS4)
         : BYTES <= 8 ? (HAS_VALUES ? CARRY_RADIX_ITEMS8_PAIRS : CARRY_RADIX_ITEMS8)
                      : 4;
}
/// Items a thread of the onesweep tiles of mid-sized inputs (n <= 2^CARRY_RADIX_MID_MAX_LOG2, above the
/// cluster path), by the wider of key and value (0: the tile above at every size). Below about 2^20 a
/// pass has fewer tiles than the SMs' resident blocks, so its time is one tile's latency (20 serial
/// ranking rounds, the look-back) plus the launch, not throughput: more, shorter tiles.
/// Measured (h100-tune-radix-pdl-mid.log, CUB in the same runs; all with CARRY_RADIX_PDL=2, below):
/// 8 items for 4-byte, 6 for 8-byte tiles against the large tiles: u32 keys 2^17 38.9 us against 43.9,
/// 2^18 43.6 against 46.5 (CUB 62.1), 2^19 55.4 against 51.8 (slower: so up to 2^18); pairs u32/u32
/// 2^17 48.6 against 59.5, 2^18 55.5 against 63.9; u64 keys 2^16 68.0 against 75.2, 2^17 74.5 against
/// 81.4, 2^18 88.6 (level); 12 items for 4-byte tiles: 2^18 44.0, 2^19 53.2; 8 for 8-byte: u64 2^16
/// 69.9. Up to 2^20 (h100-tune-radix-pdl-early.log): u64 at 2^20 153 us against 143.
/// Nineteenth session (h100-tune-radix-lastsync.log, two rounds, CUB in the same run): 4 and 6 items for
/// 4-byte tiles (256 and 171 tiles at 2^18, more tiles than SMs) against 8: u32 keys 2^18 48.2-48.8 and
/// 46.0-46.1 us against 43.2-43.3, 2^17 39.9-40.0 and 39.0-39.4 against 38.9-39.0; pairs 2^18 60.0-60.2
/// and 53.2-53.5 against 53.1-53.2. Shorter tiles do not shorten the pass; 8 stays.
#ifndef CARRY_RADIX_MID_ITEMS4
#define CARRY_RADIX_MID_ITEMS4 8
#endif
#ifndef CARRY_RADIX_MID_ITEMS8
#define CARRY_RADIX_MID_ITEMS8 6
#endif
#ifndef CARRY_RADIX_MID_MAX_LOG2
#define CARRY_RADIX_MID_MAX_LOG2 18
#endif
template <int BYTES>
constexpr int mid_items() {
  return BYTES <= 4 ? CARRY_RADIX_MID_ITEMS4 : BYTES <= 8 ? CARRY_RADIX_MID_ITEMS8 : 0;
}
constexpr std::int64_t mid_items_max_n = std::int64_t{1} << CARRY_RADIX_MID_MAX_LOG2;

/// The onesweep path's kernels after the first (the passes, the finishing copy) launch as programmatic
/// dependents of the kernel before them (lookback::launch_prepared), and wait for it to finish before
/// they read anything, so the launch of each grid overlaps the tail of the one before. When a block
/// lets the next grid launch: CARRY_RADIX_PDL=1 as it starts (pdl_early), 2 after its last tile (the
/// histogram: as it exits), 0 no programmatic launches. Measured (h100-tune-radix-pdl-mid.log, large
/// tiles only, CUB in the same runs) against 0: u32 keys 2^17 43.9 us against 51.1, 2^18 46.5 against
/// 53.5, 2^19 51.8 against 59.0, 2^20 65.1 against 73.4, 2^24 410 against 418; u64 keys 2^16 75.2
/// against 87.2, 2^20 138 against 152; pairs 2^20 88.4 against 95.3; sorted, all-equal, two-valued u32
/// at 2^26 318 / 217 / 447 against 323 / 224 / 455. Trigger at the start (1) lost at 2^19 and 2^20
/// (u32 keys 62.0 and 76.7 us, pairs 85.3 and 102.6): the next pass's blocks, placed while the pass
/// still held some SMs' slots, spread unevenly over the SMs.
#ifndef CARRY_RADIX_PDL
#define CARRY_RADIX_PDL 2
#endif
constexpr bool pdl = CARRY_RADIX_PDL != 0;
constexpr bool pdl_early = CARRY_RADIX_PDL == 1;

/// Measured and dropped (h100-tune-radix-4c79c57.log, CUB in the same runs): cluster blocks of 512
/// threads, two a digit (each warp half the ranking rounds; the multisplit's early counts then handed
/// each digit's start and count to thread d through shared memory after the scan's barrier): u32 keys
/// 2^14 18.7 us against 16.1 at 256 threads, 2^16 24.9 against 23.1, pairs 22.5 / 32.2 against 19.9 /
/// 31.2. Removed.
/// Items a thread at most on the cluster path (small inputs, below), by the wider of key and value: 16 for
/// 4-byte types (the onesweep tile's 20 put 2^16 u32 keys in 13 tiles of 5120 instead of 16 of 4096:
/// 39.7 us against 33.6, h100-radix-f2933c0.txt against the h100-radix.txt committed in 1d9a5ce); 8 for
/// 8-byte types (the onesweep's former 8: more would not fit 48 KB of static shared memory beside the
/// cluster's inbox); the onesweep tile's otherwise.
template <int BYTES>
constexpr int cluster_items_max() {
  return BYTES <= 4 ? 16 : BYTES <= 8 ? 8 : items<BYTES>();
}

/// Blocks an SM the onesweep kernel's registers must allow (__launch_bounds__). Measured with
/// atomic_or peers, u32 keys at 2^26 (h100-tune-radix.log): 1 (104 registers, 2 blocks) 3085 us,
/// 3: 2631, 4: 2459; 8 items a thread with 4 blocks: 3255; 12 items with 3 blocks: 2944. With 20 items
/// a thread (above), 16 at 4 blocks lost to 20 at 3 (1599 against 1511 us, h100-tune-radix-bf4fa31.log).
/// Keys only (CARRY_RADIX_MIN_BLOCKS; the persistent grid is this many blocks an SM) and pairs
/// (CARRY_RADIX_MIN_BLOCKS_PAIRS) apart: ptxas at 4 blocks (64 registers) spills 16 bytes for u32 keys
/// at 20 items (whole tiles) and 88 for u32/u32 pairs; u64 keys at 12 items need 64 registers at 3.
/// Keys at 4 (h100-tune-radix-5c0c088.log, 2^26): u32 1574 us against 1513 at 3, u64 5172 against 4808
/// (the same 64-register kernel: only the persistent grid grew), so 3.
#ifndef CARRY_RADIX_MIN_BLOCKS
#define CARRY_RADIX_MIN_BLOCKS 3
#endif
/// Pairs (fourteenth session, h100-tune-radix-pairs-blocks.log and h100-tune-radix-blocks2.log, two
/// rounds each, CUB in the same runs): ptxas fits the u32/u32 pairs kernel (24 items) in 64 registers
/// without spills at 4 blocks, yet 4 blocks lost: 2^26 2697-2699 us against 2495-2502 at 3, 2^24 689
/// against 670-675; u64/u64 9580-9614 against 8864-9035, u32/u64 3832-3935 against 3517-3521. At 2
/// blocks (126 registers for u32/u32, no spills) u32/u32 lost (2812 against 2450-2502) and so did
/// u32/u64 in both runs (3607-3612 against 3517-3521, 3611-3622 against 3553-3589), but 8-byte keys
/// with 8-byte values (u64/u64, 16 items) gained: 2^26 8175-8254 us (0.99-1.00x CUB) against 8864-9035
/// (0.91-0.92x), 2^24 2120-2130 against 2225-2244. So pairs take 3 blocks, and 8-byte keys with 8-byte
/// values 2 (then a knob of their own). u64/u32 pairs at 2 blocks were mixed
/// (h100-tune-radix-pairs84.log, at e16d63e, two rounds): 2^26 7241-7246 us against 7354-7355, 2^24
/// 1865-1869 against 1799-1801, so they keep 3; 16-byte values were not measured (3).
/// Keys at 2 blocks lost too (u32 2^26 1623-1625 us against 1399, u64 5421-5425 against 4890).
/// (Those were 256-thread blocks.) Blocks of 384 threads (onesweep_threads: pairs up to 8-byte types and
/// 8-byte keys) run 2 an SM, 24 warps as 3 of 256 (measured there; CUB's sm_90 onesweep runs the same);
/// pairs with 16-byte values keep 256 threads at 3.
#ifndef CARRY_RADIX_MIN_BLOCKS_PAIRS
#define CARRY_RADIX_MIN_BLOCKS_PAIRS 2
#endif
#ifndef CARRY_RADIX_MIN_BLOCKS_KEYS8
#define CARRY_RADIX_MIN_BLOCKS_KEYS8 2
#endif
#ifndef CARRY_RADIX_MIN_BLOCKS_PAIRS16
#define CARRY_RADIX_MIN_BLOCKS_PAIRS16 3
#endif
/// The onesweep kernel's blocks an SM for keys of KEY_BYTES and values of VALUE_BYTES (keys only: none).
template <bool HAS_VALUES, int KEY_BYTES, int VALUE_BYTES>
constexpr int onesweep_min_blocks = !HAS_VALUES            ? (KEY_BYTES <= 4 ? CARRY_RADIX_MIN_BLOCKS : CARRY_RADIX_MIN_BLOCKS_KEYS8)
                                    : VALUE_BYTES > 8 || KEY_BYTES > 8 ? CARRY_RADIX_MIN_BLOCKS_PAIRS16
                                                                       : CARRY_RADIX_MIN_BLOCKS_PAIRS;

/// Wide tiles for large inputs of 4-byte keys (keys only): blocks of CARRY_RADIX_WIDE_THREADS_KEYS4 (384)
/// threads x the large tile's items (24: 9216 keys, placed, dynamic shared memory), 2 blocks an SM
/// (CARRY_RADIX_MIN_BLOCKS_WIDE), for inputs of at least 2^CARRY_RADIX_WIDE_MIN_LOG2 keys; smaller
/// inputs keep 256 x 24. Measured (eighteenth session; carry_probe_outputs, u32 keys sorted into 4-6
/// separately allocated outputs, CUB into the same outputs in the same runs, means of the medians;
/// h100-probe-variants-wide.txt), 384 x 24 against 256 x 24:
///   - 2^28 5459 / 5484 us against 5560 / 5642 (two runs: 1.012-1.016x CUB against 0.984-0.999x), and the
///     slowest output sits 1.4-1.7 % above the others for 384 x 24 (5517-5551 us) against 4.3-4.5 % for
///     256 x 24 (5744-5820);
///   - 2^27 2784 against 2884 us; 2^26 1407-1416 against 1409-1416; 2^23-2^24 level (393 against 392);
///   - 2^22 144.8 against 142.2 us, 2^19 64.5 against 57.9 (fewer tiles than the SMs' slots), 2^20-2^21
///     1-3 % faster;
///   - 384 x 28 and 384 x 32: 2^28 5486 and 5720 us, 2^24 414.5 and 448.8 (slower).
/// So from 2^25 (level at 2^23-2^26, faster above; the threshold is where it cannot lose). The
/// benchmark at 552e4b0 (h100-radix-keys-552e4b0.txt against h100-radix.txt at 3632a61): u32 keys 2^28
/// 5675 -> 5481 us (0.975x -> 1.009x CUB), f32 5827 -> 5733 (1.00x -> 1.016x); 2^26 u32 1407 -> 1398,
/// f32 1458 -> 1479 (one run each).
#ifndef CARRY_RADIX_WIDE_THREADS_KEYS4
#define CARRY_RADIX_WIDE_THREADS_KEYS4 384
#endif
#ifndef CARRY_RADIX_WIDE_MIN_LOG2
#define CARRY_RADIX_WIDE_MIN_LOG2 25
#endif
#ifndef CARRY_RADIX_MIN_BLOCKS_WIDE
#define CARRY_RADIX_MIN_BLOCKS_WIDE 2
#endif
/// The wide tile's threads for keys of KEY_BYTES (0: no wide tile; only 4-byte keys without values).
template <bool HAS_VALUES, int KEY_BYTES>
constexpr int wide_threads = !HAS_VALUES && KEY_BYTES == 4 ? CARRY_RADIX_WIDE_THREADS_KEYS4 : 0;
constexpr std::int64_t wide_min_n = std::int64_t{1} << CARRY_RADIX_WIDE_MIN_LOG2;
constexpr int wide_min_blocks = CARRY_RADIX_MIN_BLOCKS_WIDE;
static_assert(CARRY_RADIX_WIDE_THREADS_KEYS4 % 32 == 0 && CARRY_RADIX_WIDE_THREADS_KEYS4 >= 256 &&
                  CARRY_RADIX_WIDE_THREADS_KEYS4 <= 1024,
              "carry: wide onesweep blocks are whole warps, at least one thread a digit");

/// How the multisplit's lanes find the others of their digit (block::peer_method): CARRY_RADIX_PEERS=0/1/2
/// (match_any, ballot, atomic_or). With load/store counts, u32 keys at 2^26 took 4304 / 3585 / 3079 us,
/// CUB 1440 (h100-tune-radix.log; again in h100-tune-radix-7f01b2b.log: 2920 / 2484 against 2067).
#ifndef CARRY_RADIX_PEERS
#define CARRY_RADIX_PEERS 2
#endif
constexpr int peers = CARRY_RADIX_PEERS; // block::peer_method's value (plain C++ here)

/// How the multisplit keeps a warp's running digit counts (block::count_method): 0 a load and a
/// dependent store a round (measured above, the default), 1 one atomicAdd by each digit group's lowest
/// lane, its old value shuffled to the group (CUB's sm_90 onesweep: 8 ballots, then this). Measured
/// (h100-tune-radix-8806bdc.log, u32 2^26, CUB 1443-1448 us): on its own equal to load/store (2041
/// against 2062 us; with ballot peers 2707, match_any 2956); with early counts (below) 1953 against
/// 2043, so the default.
#ifndef CARRY_RADIX_COUNTS
#define CARRY_RADIX_COUNTS 1
#endif
constexpr int counts = CARRY_RADIX_COUNTS; // block::count_method's value
/// The cluster path's count method (block::count_method, as above for the onesweep tiles): its tiles
/// rank 4-16 rounds on one latency chain, where the onesweep's large tiles are bound by their issue rate.
/// Load/store (0) against leader atomics (h100-tune-radix-506418c.log, u32 keys, CUB in the same runs):
/// 2^16 23.5 us against 24.1, pairs 31.2 against 32.4, 2^14 level (16.1 against 16.0); the probe's
/// kernel span agreed (2^16 20.0 against 20.7 us, 2^14 13.8 against 14.0). Load/store everywhere
/// (counts0) lost at u64 2^24 (1408 against 1226 us).
#ifndef CARRY_RADIX_CLUSTER_COUNTS
#define CARRY_RADIX_CLUSTER_COUNTS 0
#endif
constexpr int cluster_counts = CARRY_RADIX_CLUSTER_COUNTS;

/// The warp scan inside every block scan of a radix tile (the multisplit's digit counts, the cluster
/// path's digit totals; warp_scan_shape): 1 Kogge-Stone (5 dependent shuffle steps), 0 Brent-Kung (9, the
/// scan engine's default). Measured on the cluster path (validate/probe/probe_cluster.cu, kernel time by
/// %globaltimer, u32 keys, with the mailbox below): 2^14 14.0 us against 15.4, 2^16 20.7 against 21.6.
#ifndef CARRY_RADIX_SCAN_WARPS
#define CARRY_RADIX_SCAN_WARPS 1
#endif
constexpr int scan_warps = CARRY_RADIX_SCAN_WARPS; // warp_scan_shape's value

/// Tile positions two to a register (a packed_positions form of the multisplit, 8 registers fewer at
/// the 64-register cap) were measured in every form and removed: within 1 % of int positions (keys
/// 2037 against 2062 us, with early and leader counts 1958 against 1953, with a window of 4 2026
/// against 1867; h100-tune-radix-8806bdc*.log, u32 2^26).

/// Early counts (block::multisplit::rank_early_by): a tile's digit histogram by shared atomics without
/// return and its block scan come first, each digit's count is published for the look-back at once,
/// and the ranking rounds then count up from the scanned starts (no position pass after them). CUB's
/// onesweep publishes so. Why: Nsight Compute of the default pass (u32 2^24, 8806bdc,
/// h100-ncu-onesweep-8806bdc.txt) put 28 % of its warp instructions and 28 % of its stall samples in the
/// look-back's spin on predecessors' words that were not yet published: a tile published its counts
/// only after its ranking rounds, the longest part of a tile.
/// Measured (h100-tune-radix-8806bdc.log, u32 2^26): with leader counts 1953 us against 2041 (4 %);
/// with the window and tile below, 1800. Pairs alone lost (3103 against 3016) and gain with 20 items.
#ifndef CARRY_RADIX_EARLY
#define CARRY_RADIX_EARLY 1
#endif
constexpr bool early_counts = CARRY_RADIX_EARLY != 0;

/// Keys-only onesweep tiles staged in their ranking rounds (staged_tile_storage's PLACED: each key is
/// written to the stage as soon as its round gives its final position, the early counts having scanned
/// the tile first), so no thread holds ITEMS positions across the tile, at the price of a stage of its
/// own beside the ranker's counters (43 KB for 24 4-byte or 12 8-byte keys, was 26 KB). Measured
/// (h100-tune-radix-placed.log, CUB in the same run): u32 keys 2^26 1399 us (1.032x CUB) against 1437
/// unplaced (1.005x), 2^24 387 against 401; u64 keys 2^26 4709 (0.925x) against 4885 (0.891x), 2^24 1198
/// against 1244. ptxas still gives u32 keys 80 registers at 3 blocks (16 bytes spilled, 36 unplaced); at
/// 4 blocks (64 registers, 108 bytes spilled) it lost: 1631 us, 20 items at 4 blocks 1498. Also measured
/// and dropped: the rounds recomputing each digit from an opaque copy of the key (an empty volatile asm,
/// so that ptxas could not keep the histogram's digit addresses live until the rounds): 1414 us, no
/// fewer registers. Large tiles only (LARGE: the tile shape's items, not the mid tiles'): the mid tiles
/// are one tile's latency, which a store in every round lengthens: u64 keys (6-item mid tiles) 2^16
/// 71.6 us placed against 67.6, 2^18 93.6 against 89.2 (h100-radix-1cab5d4.txt against -e2f2cbf.txt);
/// u32 (8-item mid tiles) level.
/// Keys up to CARRY_RADIX_PLACED_KEY_BYTES (sixteenth session: 4): 8-byte keys run 384-thread tiles of
/// 12 (onesweep_threads), whose placed stage (36 KB) beside the ranker's counters (24 KB) does not fit
/// 48 KB of static shared memory; unplaced there they beat the placed 256-thread tile (4554-4557 us
/// against 4716-4720). Seventeenth session: the tile storage past 48 KB is dynamic shared memory
/// (radix_detail::dynamic_tile_storage: 63.5 KB at 12 items, 71 KB at the 15 of CARRY_RADIX_ITEMS8; 2
/// blocks an SM), and placed 8-byte keys gained
/// (h100-tune-radix-dyn.log, CUB in the same run): u64 keys 2^26 4482 us against 4617 (0.971x CUB
/// against 0.943x), 2^24 1151 against 1190; 15 items placed (CUB's tile of 5760, ptxas 16 bytes
/// spilled) level (4488, 1147). 4-byte keys placed at 384 threads, 2 blocks an SM, were level at 24
/// items (1397 us against 1399; 20 bytes spilled) and slower at 20 (1488); 256 x 28 placed (47 KB) level
/// at 2^26 (1397) and slower at 2^24 (402 against 388). So 8.
#ifndef CARRY_RADIX_PLACED
#define CARRY_RADIX_PLACED 1
#endif
#ifndef CARRY_RADIX_PLACED_KEY_BYTES
#define CARRY_RADIX_PLACED_KEY_BYTES 8
#endif
/// Measured and removed (seventeenth session, h100-tune-radix-dyn.log, one round, CUB in the same run;
/// the code is in commit 1f7da74): pairs placed, keys staged in their ranking rounds and values in a
/// stage of their own (no staged digit byte, two barriers fewer, key and value written out in one loop;
/// 100 KB of dynamic shared memory a block at 384 x 24 4-byte pairs). Against the default u32/u32 pairs
/// (2^26 2256 us, 2^24 603): values staged after the ranking at 24 items 2319 / 633 (ptxas 236 bytes
/// spilled), at 20 items 2392 / 623 (no spill); values loaded before the ranking and staged in its
/// rounds at 24 items 2900 / 777 (168 bytes spilled), at 20 2461 / 647; 8-byte pairs placed too (after,
/// 13 items) u64/u64 8876 against 8685. Fewer instructions and barriers did not pay for the stages'
/// shared memory (2 blocks an SM leave about 25 KB of L1) or the spills; not profiled.
template <bool HAS_VALUES, bool LARGE, int KEY_BYTES = 4>
constexpr bool placed_stage =
    !HAS_VALUES && LARGE && early_counts && CARRY_RADIX_PLACED != 0 && KEY_BYTES <= CARRY_RADIX_PLACED_KEY_BYTES;

/// The most static shared memory a block may declare (48 KB on every CUDA GPU); a onesweep tile whose
/// storage needs more takes it as dynamic shared memory (radix_detail::dynamic_tile_storage, up to
/// 227 KB a block on sm_90).
constexpr int static_shared_max = 48 * 1024;

/// Measured and removed (fourteenth session, h100-tune-radix-prefetch.log; CUB in the same runs, two
/// rounds each): L2 prefetches in the onesweep pass (cp.async.bulk.prefetch.L2 of whole tiles, each
/// warp's run, as the scan engine's guessed tile). Against none (u32 keys 2^26 1397 us, 2^24 388; u64
/// keys 2^26 4866; pairs u32/u32 2^26 2449, 2^24 673):
///   - the guessed first tile's keys before the ticket: keys 1403 / 395.5, u64 4877, pairs 2480 / 679;
///   - persistent blocks asking for the tile one grid of tickets ahead: keys 1417 / 395, u64 5054;
///   - both: keys 1413, u64 5050;
///   - pairs asking for their tile's values as the tile starts: pairs 2621 / 701 (7 % slower).
/// None gained. My reading (not measured further): 3 blocks an SM already cover a tile's load latency,
/// and the early requests add to the DRAM traffic while the scatter writes.
/// Measured and removed (fifteenth session, h100-tune-radix-stream-early.log, two rounds, CUB in the same
/// runs; base: u32 keys 2^26 1395-1396 us, pairs u32/u32 2529-2541, u32/u64 3591-3599, u64/u32
/// 7343-7414, u64 keys 4865-4866):
///   - tile loads streaming (ld.global.cs, evict first in L2, keys and values): keys 1427, u64 keys
///     4930-4933, pairs u32/u32 3051-3055 (20 % slower), u32/u64 3877-3883, u64/u32 7637-7638;
///   - pairs loading their values before the staged keys are written out, not after (no spill by
///     ptxas, 80 registers either way): u32/u32 2596-2605, u32/u64 3878-3892, u64/u32 7719-7867;
///   - both: u32/u32 2886-2902.
/// So the values' load latency is not what holds the pairs pass back, and an evict-first hint on the
/// reads costs more than it saves the scatter's partially written lines.
/// Measured and removed (eighteenth session, h100-probe-variants-hints.txt: carry_probe_outputs built
/// with each knob, u32 keys sorted into 4 separately allocated outputs, two rounds, CUB into the same
/// outputs in the same runs), means of 8 medians, base 5654 / 1409 / 394.5 us at 2^28 / 2^26 / 2^24:
///   - key loads with an L2 evict-first policy (createpolicy + ld.global.L2::cache_hint, L1 as plain
///     loads): 5719 / 1439 / 401.6 (1-2 % slower, as the .cs loads above);
///   - the next pass's look-back words zeroed with an evict-first policy: 5641 / 1411 / 392.1 (level);
///   - the scattered keys stored with an L2 evict-last policy: 5594 / 1409 / 392.0 (1 % faster at 2^28
///     only; not adopted: evict-last lines would outlive the call in the caller's L2).
/// None removed the dependence of a pass's time on where its output lies (NOTES.md, eighteenth session:
/// one of the four outputs stays 3 % slower in every variant).

/// Words a onesweep look-back thread reads a round trip (lookback::look_back_chain's WINDOW), keys-only
/// kernels (the persistent ones); pairs read 1. Nsight Compute of the 8806bdc pass (above) counted 11.6
/// walk steps a warp a tile, each an L2 round trip. Measured before early counts
/// (h100-tune-radix-3418aea.log): 4 and 8 slower at every size. With early and leader counts
/// (h100-tune-radix-8806bdc-2.log, u32 keys, CUB in the same runs): window 4 2^26 1867 us against 1983,
/// 2^20 80.7 against 89.7, 2^18 61.3 against 65.9; window 8 2140 (slower); pairs lost with 4 (16 items
/// 3176 against 3087; 20 items 2807 against 2716), so they keep 1.
#ifndef CARRY_RADIX_LOOKBACK_WINDOW
#define CARRY_RADIX_LOOKBACK_WINDOW 4
#endif
/// Measured and removed: a window of its own for the mid-size tiles (h100-tune-radix-506418c.log, u32
/// keys 2^18, CUB 61-64 us in the same runs): 4 (the above) 43.5 us, 8 49.6, 16 54.5, 32 95.1; 2^17
/// 39.2 / 44.2 / 47.3 / 76.3; u64 2^16 67.7 / 74.0 / 76.0 / 103.7. Wider windows cost more than the
/// shorter walks save.
/// Pairs again at 24 items (fourteenth session, h100-tune-radix-pairs-blocks.log, CUB in the same runs):
/// a window of 4 (pw4) against 1, u32/u32 2^20 86.8-87.1 us against 93.0, but 2^24 681-688 against
/// 670-675 and 2^26 2576-2582 against 2495-2502; u32/u64 2^26 3616-3766 against 3517-3521. So 1.
#ifndef CARRY_RADIX_LOOKBACK_WINDOW_PAIRS
#define CARRY_RADIX_LOOKBACK_WINDOW_PAIRS 1
#endif
template <bool HAS_VALUES>
constexpr int lookback_window = HAS_VALUES ? CARRY_RADIX_LOOKBACK_WINDOW_PAIRS : CARRY_RADIX_LOOKBACK_WINDOW;

/// Onesweep blocks: one a tile, or one wave of persistent blocks that take tile tickets until the
/// portion is done (a skipped pass then costs one wave of blocks that exit, not one block a tile).
/// Measured (h100-tune-radix-7f01b2b.log, u32, 2^26, CUB 1445 us in the same runs): keys-only
/// persistent 2048 us against 2067 one a tile, sorted 497 against 534, all-equal 471 against 507,
/// two values 714 against 747; but pairs u32/u32 3846 against 3020 (2^24: 1011 against 783). So keys
/// only. Also measured and dropped: the look-back inside the rank (2142 us), a 50 ns back-off in it
/// (2092), the histogram adding warp-uniform runs once (sorted 540, equal 515, two 724: mixed).
template <bool HAS_VALUES>
constexpr bool persistent_onesweep = !HAS_VALUES;

/// Whole tiles (every onesweep tile but the input's last) in a form of their own, with no per-item
/// check and no ballot of live lanes a ranking round; and how the last, partial tile ranks: padded
/// (its dead items take the last digit, so it ranks the whole tile without checks either) or checked.
/// Measured (h100-tune-radix-bf4fa31.log, u32, CUB's best in the same runs; "old" = neither):
///   keys, whole + padded: 2^26 1511 us (0.954x CUB) against old 1660 (0.868x), 2^24 418 against 459,
///   2^18 52.3 against 60.0; whole + checked last tile 1568 (ptxas: the checked form spills beside
///   the whole one); 16 items at 4 blocks 1599, 18 items 1802;
///   pairs u32/u32: whole + padded 2650 us at 2^26, padded alone 2636, old 2566 (2^24: 691 / 690 /
///   689; 2^18: 61.7 / 65.2 / 71.5), and bin_by_key's pass (same kernel, apps' digit) went from 2801 to
///   3177 us at 2^28 with whole + padded (h100-bench-apps of 1ea3d20: ptxas, 120 bytes of spills
///   against none). So pairs kept the old form then (256 threads; at 384, below, they take both);
///   u64 keys with whole + padded (1ea3d20): 5979 us at 2^26 against 5871, so 8-byte keys kept it too,
///   until their keys were placed (seventeenth session: 384 x 15 placed and whole, items8 above).
/// Sixteenth session (h100-tune-radix-whole-pairs.log, one round, CUB in the same run; then the bench at
/// the commit that made it the default): pairs of 384 threads whose key and value are
/// at most 4 bytes take both forms, whole and padded: u32/u32 2^26 2264 us (1.037x CUB) against 2331
/// (1.009x) checked, padded alone 2307; 2^24 609 against 659 (padded 640), although ptxas spills 144
/// bytes in the whole form (80 registers; none checked). Pairs with an 8-byte key or value gained
/// nothing (u64/u64 8651 against 8702, u32/u64 3294 against 3259, u64/u32 6705 against 6615), so they
/// keep the checked form (CARRY_RADIX_WHOLE_PAIR_BYTES). A pass whose digits are held rather than
/// recomputed from the key (bin_by_key's with values) keeps it too: radix_detail::whole_form /
/// padded_form, where the digit's type is known (it lost there: 2544 -> 2907 us at 2^28).
#ifndef CARRY_RADIX_WHOLE_KEYS
#define CARRY_RADIX_WHOLE_KEYS 1
#endif
#ifndef CARRY_RADIX_WHOLE_PAIRS
#define CARRY_RADIX_WHOLE_PAIRS 1
#endif
#ifndef CARRY_RADIX_PADDED_KEYS
#define CARRY_RADIX_PADDED_KEYS 1
#endif
#ifndef CARRY_RADIX_PADDED_PAIRS
#define CARRY_RADIX_PADDED_PAIRS 1
#endif
#ifndef CARRY_RADIX_WHOLE_KEY_BYTES
#define CARRY_RADIX_WHOLE_KEY_BYTES 8
#endif
#ifndef CARRY_RADIX_WHOLE_PAIR_BYTES
#define CARRY_RADIX_WHOLE_PAIR_BYTES 4
#endif
/// The rule both forms share: pairs by their own switch, when key and value are at most WHOLE_PAIR_BYTES;
/// keys by theirs, when at most WHOLE_KEY_BYTES.
constexpr bool tile_form_on(bool has_values, int key_bytes, int keys_switch, int pairs_switch, int value_bytes = 0) {
  return has_values ? (pairs_switch != 0 && key_bytes <= CARRY_RADIX_WHOLE_PAIR_BYTES &&
                       value_bytes <= CARRY_RADIX_WHOLE_PAIR_BYTES)
                    : (keys_switch != 0 && key_bytes <= CARRY_RADIX_WHOLE_KEY_BYTES);
}
template <bool HAS_VALUES, int KEY_BYTES, int VALUE_BYTES = 0>
constexpr bool whole_tiles =
    tile_form_on(HAS_VALUES, KEY_BYTES, CARRY_RADIX_WHOLE_KEYS, CARRY_RADIX_WHOLE_PAIRS, VALUE_BYTES);
template <bool HAS_VALUES, int KEY_BYTES, int VALUE_BYTES = 0>
constexpr bool padded_partial_tiles =
    tile_form_on(HAS_VALUES, KEY_BYTES, CARRY_RADIX_PADDED_KEYS, CARRY_RADIX_PADDED_PAIRS, VALUE_BYTES);

/// Small inputs: up to this many tiles run as one cluster of blocks (one launch, digit counts exchanged
/// in distributed shared memory, every pass in the same launch), with the fewest of a quarter, a half or
/// all of the tile shape's items a thread that still fit (plan.hpp, cluster_items: 2^14 u32 keys in 16
/// tiles of 1024). Measured (h100-tune-radix-7f01b2b.log): 2^14 u32 keys 23.8 us against 28.2 with
/// tiles of 4096, pairs 26.5 against 39.2; CUB 47.1. 16 is the largest cluster sm_90 allows
/// (non-portable); the dispatch asks the device what it can co-schedule and falls back to the onesweep
/// path when it cannot.
constexpr int cluster_tiles = 16;

/// The cluster path's tiles rank padded (every tile whole to the multisplit, the last tile's dead items
/// as the last digit; no per-item check and no ballot a round) rather than checked. Measured
/// (h100-radix-88ec46f.txt against h100-radix-f5242e9.txt, CUB within 2 % in both): u32 keys 2^14
/// 21.9 us against 22.8, 2^16 32.1 against 35.2; f32 2^16 33.3 against 38.6; pairs u32/u32 2^16 39.3
/// against 44.5; u64 2^16 80.2 against 81.7. Onesweep sizes unchanged (within 1 %).
#ifndef CARRY_RADIX_CLUSTER_PADDED
#define CARRY_RADIX_CLUSTER_PADDED 1
#endif
constexpr bool cluster_padded = CARRY_RADIX_CLUSTER_PADDED != 0;

/// The cluster path's last pass ends without the cluster barrier the other passes end with
/// (cluster_sort.cuh: its fence waits for the pass's global stores; the barrier protects only a next
/// pass, and no block can leave before every count it expects has arrived in its inbox). Prediction
/// (before measuring): one barrier of about 1050 cycles at 2^16 (the phase probe,
/// h100-probe-cluster-mailbox.txt), 0.3-0.5 us a call at 2^14 and 2^16. Measured against the barrier
/// after every pass (h100-tune-radix-lastsync.log: variant `lastsync`, a knob removed since; two rounds,
/// CUB in the same run): u32 keys 2^16 22.5 / 22.7 us against 23.1 / 23.1 (CUB 54.2-55.4), pairs
/// u32/u32 30.7 / 30.8 against 31.1 / 31.1; but 2^14 16.3 / 16.3 against 16.1 / 16.1 (pairs 19.9 / 20.1
/// against 19.8 / 19.9), a loss of 0.1-0.2 us that the barrier's cost does not explain (not probed).

/// The cluster path's local form (cluster_sort.cuh, cluster_layout): of two passes or more, the top
/// digit's pass runs first (MSD), its counts exchanged like any pass's; when every block's range
/// (radix_detail::local_owner: the digits whose output starts in the block's blocks-th part of n) fits
/// cluster_local_items(ITEMS) a thread, the pass scatters, one cluster barrier follows, and each block
/// sorts its range by every digit (a range holds several top digits) in its own shared memory (the
/// bucket form's block sort, block_sort.cuh), with no more exchanges or cluster barriers; otherwise the
/// LSD passes run as before (the top one skipped when its digit is constant, pointer forms).
/// Predicted (a pass about 10000 cycles at 2^16, of which the L2 loads, exchange, sums and barrier are
/// about 4800; a local pass about 5000): u32 keys 2^16 22.6 us to 18-20. Measured against the passes
/// (h100-tune-radix-local-90b42e3.log and h100-tune-radix-wide-9b57b44.log, CUB 46.7-56.2 in the same
/// runs), 256-thread blocks: u32 keys 2^14 (4 items) 12.7 us against 16.5, 2^15 (8) 16.4 against 18.4,
/// pairs u32/u32 2^14 14.6 against 20.0; but 2^16 (16 items) 24.2 against 22.7: each local pass took
/// about 3.7 us at 18 items a thread, twice 2^15's, the block sorts being latency-bound on 8 warps
/// (two counting chains a warp did not help: h100-tune-radix-chains-fa3b713.log). Hence the local form
/// up to 8 items a thread, and wide blocks for 2^16 (cluster_wide, below).
#ifndef CARRY_RADIX_CLUSTER_LOCAL
#define CARRY_RADIX_CLUSTER_LOCAL 1
#endif
constexpr bool cluster_local = CARRY_RADIX_CLUSTER_LOCAL != 0;
/// Items a thread of the local phase for cluster tiles of `items`: an eighth more (at least one), so that
/// a range of n / blocks keys and one digit's share fits (uniform u32 keys at 2^16: 4096 + about 305
/// against 256 x 18 = 4608). More items cost more ranking rounds in every local pass.
constexpr int cluster_local_items(int items) { return items + (items / 8 > 0 ? items / 8 : 1); }
/// The local form only for tiles of at most this many items a thread (cluster_sort.cuh, cluster_layout):
/// its block sorts cost about in proportion to the items (measurement above).
#ifndef CARRY_RADIX_CLUSTER_LOCAL_MAX_ITEMS
#define CARRY_RADIX_CLUSTER_LOCAL_MAX_ITEMS 8
#endif
constexpr int cluster_local_max_items = CARRY_RADIX_CLUSTER_LOCAL_MAX_ITEMS;

/// Wide cluster blocks: where the cluster path's tiles take all of cluster_items_max (2^16 4-byte keys in
/// 16 tiles of 4096), blocks of cluster_wide_threads with half the items a thread (the same tiles), their
/// shared memory dynamic; threads 256-511 rank and scatter but own no digit. Why: the local form's
/// block sorts are latency-bound on 8 warps (measurement above); 16 warps of 9 items each should take
/// each local pass from about 3.7 us to 2 (as 2^15's tiles of 8 items), for one exchanged pass of 512
/// threads (about 0.5 us slower, h100-tune-radix-4c79c57.log's 512-thread blocks). Measured
/// (h100-tune-radix-wide-9b57b44.log, two rounds, CUB in the same run): u32 keys 2^16 21.3 / 21.3 us
/// (CUB 55.6 / 56.2) against 22.6 / 22.7 with neither (nowidenolocal) and 24.2 / 24.4 with the local form
/// at 16 items of 256 threads (nowidelocal16); pairs u32/u32 2^16 25.3 against 30.8. Wide blocks without
/// the local form lose (25.2 / 25.3: four exchanged passes of 512 threads).
#ifndef CARRY_RADIX_CLUSTER_WIDE
#define CARRY_RADIX_CLUSTER_WIDE 1
#endif
constexpr bool cluster_wide = CARRY_RADIX_CLUSTER_WIDE != 0;
constexpr int cluster_wide_threads = 512;
/// Diagnostic (off in releases): the cluster path always takes its largest tiles (cluster_full: the wide
/// blocks), whatever n, so that compute-sanitizer can run them on one to sixteen blocks. It (with a
/// knob, since removed, that put the 256-thread kernels in dynamic shared memory: racecheck got through
/// those in 41 s) found why racecheck never got through the wide blocks: one block did not finish in 270
/// s while its threads waited for the cluster's start at two places, and did in 3 s once they waited at
/// one (NOTES.md, twenty-second session; h100-sanitize-6f36c9b.txt).
#ifndef CARRY_RADIX_CLUSTER_FULL_ONLY
#define CARRY_RADIX_CLUSTER_FULL_ONLY 0
#endif
constexpr bool cluster_full_only = CARRY_RADIX_CLUSTER_FULL_ONLY != 0;

/// The cluster path's exchange of digit counts (cluster_sort.cuh): each block's counts are known early
/// (the multisplit's histogram and scan come first) and travel through the engine's mailbox
/// (lookback::mailbox_send: each warp's counts as 16-byte st.async into every block's inbox, counted on
/// the receiver's transaction barrier) while the ranking rounds run. Measured and removed:
///   - the late exchange (rank, a cluster barrier, then 16 remote loads a thread; h100-tune-radix-
///     114d990.log): u32 keys 2^14 22.1 us against 20.5 for the early push below, 2^16 31.8 against 28.4;
///   - the early push (each thread's 2-byte count stored into every block, then a release arrive at the
///     cluster barrier, whose MEMBAR waits for every remote store: Nsight Compute put 23 % of the stall
///     samples there, h100-ncu-cluster-86811a5.txt): the mailbox took the u32 kernel from 17.7 to 15.4 us
///     at 2^14 and from 24.9 to 21.6 at 2^16 (validate/probe/probe_cluster.cu, %globaltimer span), and
///     the sort (h100-tune-radix-fce7474.log, with Kogge-Stone scans, CUB in the same runs) from 19.0 to
///     15.9 us at 2^14 (CUB 46.8) and from 27.0 to 23.8 at 2^16 (CUB 53.3-54.0); pairs u32/u32 22.4 to
///     19.9 and 35.4 to 32.1.
/// Measured and removed (61efde3): keys-only sorts keeping the keys in shared memory between passes, each
/// pass writing every key into the stage of the block that owns its output position (distributed
/// shared memory) and only the last writing global memory: 2^14 u32 keys 22.2 us against 20.5, 2^16
/// 35.8 against 28.3 (h100-tune-radix-61efde3.log). Scattered 4-byte remote stores cost more than the
/// staged, coalesced global writes and the next pass's loads from L2.

/// Mid-size inputs by buckets (radixsort/detail/bucket_sort.cuh): above the cluster path and up to
/// 2^CARRY_RADIX_BUCKET_MAX_LOG2 keys (0: never), a call whose top executed digit splits the keys into
/// buckets of at most bucket_items x 256 keys (the histogram's last block decides, on the device) runs
/// one onesweep pass on that digit (MSD) and then one block a bucket that sorts its bucket by the lower
/// executed digits in shared memory, LSD; otherwise (a larger bucket) the onesweep passes as before.
/// Why: at 2^18 a onesweep pass is one mid tile's latency (about 9.5 us, four of them), where a block
/// sorts a bucket of about 1024 keys by three digits without leaving shared memory. Predicted: u32 keys
/// at 2^18 from 43 us to 25-32 us. Measured (h100-tune-radix-bucket.log, two rounds, variant nobucket =
/// CARRY_RADIX_BUCKET_MAX_LOG2=0, CUB in the same run): u32 keys 2^18 33.9-34.2 us against 43.1-43.2,
/// 2^17 31.6-32.0 against 39.1-39.2, pairs u32/u32 2^18 37.0-37.3 against 53.2, u64 keys 2^18 53.1-53.4
/// against 82.9-83.1 and 2^16 46.4-46.8 against 67.3-67.6 (above the 8-byte keys' cluster limit); 2^20
/// (outside the form) level. Short of the prediction by the launches that find nothing to do: under
/// Nsight Compute (h100-timeline-bucket-c386afc.csv) the MSD pass takes 9.5 us, the bucket kernel 10.4
/// (10.3 at 2^17: latency, not size), each skipped pass and the finish 2.7. Then (09128ad) the MSD pass
/// became the last pass's launch and the bucket sort the finishing launch (bucket_finish_kernel), two
/// launches fewer whichever way the histogram goes: u32 keys 2^18 32.2-32.3 us, 2^17 30.3, pairs 2^18
/// 35.5, u64 keys 2^18 51.4-51.9 (h100-tune-radix-fold-09128ad.log, two rounds; CUB 61.7-63.8 at 2^18
/// against 61.9-64.9 in the run above, a different session). Keys and values of at most
/// bucket_bytes_max bytes together (the bucket's keys and values staged beside the ranker's counters fit
/// 48 KB).
#ifndef CARRY_RADIX_BUCKET_MAX_LOG2
#define CARRY_RADIX_BUCKET_MAX_LOG2 18
#endif
#ifndef CARRY_RADIX_BUCKET_ITEMS
#define CARRY_RADIX_BUCKET_ITEMS 8
#endif
constexpr std::int64_t bucket_max_n = CARRY_RADIX_BUCKET_MAX_LOG2 > 0 ? std::int64_t{1} << CARRY_RADIX_BUCKET_MAX_LOG2 : 0;
constexpr int bucket_items = CARRY_RADIX_BUCKET_ITEMS;
constexpr int bucket_bytes_max = 12;

/// Onesweep look-back words are packed 32-bit counts (state in 2 bits, counts below 2^30): a launch
/// sorts a portion of at most this many items, so no chain count can overflow; a larger input takes one
/// launch per portion, each starting from the digit offsets the previous one left. 2^29 (was 2^28) so
/// that 2^28 keys, which do not fill whole tiles of 5120 up to 2^28, take one launch a pass, not two
/// (the second for 4096 keys, each with its own prepared words: h100-timeline-*.csv).
constexpr std::int64_t portion_items_max = std::int64_t{1} << 29;

/// When the look-back words of every pass together fit in this many bytes, they are cleared once, in
/// the memset that starts the call. Above it, with one portion, two sets alternate: the memset clears
/// the first and each executed pass clears the other's words tile by tile as it goes (sort_layout::
/// alternate; at 2^26 u32 keys this replaced four prepare launches of 5.5 us each, h100-timeline-*.csv).
/// With several portions each launch is prepared (zeroed) on its own, so the words take one portion's
/// worth of memory whatever the input.
constexpr std::size_t clear_once_bytes_max = std::size_t{8} << 20;

/// The up-front histogram: one wave of histogram_blocks_per_sm blocks an SM (also its __launch_bounds__,
/// so the wave is resident), grid-stride over segments in which each lane reads histogram_vectors
/// 16-byte vectors of keys, counts each key's digits with one shared atomic a pass and checks their
/// order in its own registers, in the key's width. Nsight Compute durations at 2^26 u32
/// (h100-timeline-b542b78.csv, cold caches): the former count (runs of equal digits merged in a lane,
/// every key checked against n) took 267 us against CUB's histogram's 122, sorted 243 against 101; it
/// used 48 registers, so of the 8 blocks an SM it launched 5 were resident and the rest ran as a second,
/// partial wave. The plain count needs 61-63 registers: 4 blocks an SM (5 or 6 spill).
/// Earlier (h100-tune-radix-e3cc00a.log): these vectors against warp-striped reads of 8 keys a lane,
/// sorted 462 us against 496, random 2062 against 2048.
#ifndef CARRY_RADIX_HIST_BLOCKS
#define CARRY_RADIX_HIST_BLOCKS 4
#endif
#ifndef CARRY_RADIX_HIST_VECTORS
#define CARRY_RADIX_HIST_VECTORS 4
#endif
constexpr int histogram_blocks_per_sm = CARRY_RADIX_HIST_BLOCKS;
constexpr int histogram_vectors = CARRY_RADIX_HIST_VECTORS;

} // namespace radix_tuning
} // namespace carry
