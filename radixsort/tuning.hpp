// Tuning constants of the radix sort, one place, each with how it was chosen: the peer method, the
// items a thread and the blocks an SM were measured (validate/results/h100-tune-radix.log); the others
// were sized by resources and are not yet swept (validate/results/NOTES.md, "Radix sort (issue 17)").
#pragma once

#include <cstdint>

namespace carry {
namespace radix_tuning {

/// Digit width of every pass: 8 bits, 256 digits = one thread per digit in a 256-thread block (the
/// look-back over the digit counts then needs no loop; CUB's onesweep uses 8 as well).
constexpr int digit_bits = 8;
constexpr int radix = 1 << digit_bits;
constexpr int threads = 256;

/// Items a thread per tile by the wider of key and value: tiles of 16 KB staged, whatever the types
/// (4-byte: 16 items, 4096 a tile; 8-byte: 8; 16-byte: 4). Sized by shared memory (stage 16 KB, digits,
/// 8 warps x 256 counters and masks: about 38 KB a block) and registers; for u32 keys 16 beat 8 and 12
/// (below).
#ifndef CARRY_RADIX_ITEMS4
#define CARRY_RADIX_ITEMS4 16
#endif
template <int BYTES>
constexpr int items() {
  return BYTES <= 4 ? CARRY_RADIX_ITEMS4 : BYTES <= 8 ? 8 : 4;
}
/// Blocks an SM the onesweep kernel's registers must allow (__launch_bounds__). Measured with
/// atomic_or peers, u32 keys at 2^26 (h100-tune-radix.log): 1 (104 registers, 2 blocks) 3085 us,
/// 3: 2631, 4: 2459; 8 items a thread with 4 blocks: 3255; 12 items with 3 blocks: 2944.
#ifndef CARRY_RADIX_MIN_BLOCKS
#define CARRY_RADIX_MIN_BLOCKS 4
#endif
constexpr int onesweep_min_blocks = CARRY_RADIX_MIN_BLOCKS;

/// How the multisplit's lanes find the others of their digit (block::peer_method). A tuning sweep
/// builds with CARRY_RADIX_PEERS=0/1/2 (match_any, ballot, atomic_or) to compare them
/// (carry_tune_radix_*, h100-tune-radix.log): u32 keys at 2^26 took 4304 / 3585 / 3079 us, CUB 1440.
#ifndef CARRY_RADIX_PEERS
#define CARRY_RADIX_PEERS 2
#endif
constexpr int peers = CARRY_RADIX_PEERS; // block::peer_method's value (plain C++ here)

/// When a onesweep tile resolves its digit offsets. 0 (the measured default): after its rank. 1: as
/// soon as the rank's first phase has the tile's digit counts (multisplit::rank_by's on_counts), before
/// its block scan, so the tiles after it find an inclusive prefix sooner. Built by the tuning sweep
/// (carry_tune_radix_early); not yet measured.
#ifndef CARRY_RADIX_EARLY_LOOKBACK
#define CARRY_RADIX_EARLY_LOOKBACK 0
#endif
constexpr bool early_lookback = CARRY_RADIX_EARLY_LOOKBACK != 0;

/// Nanoseconds a onesweep look-back thread sleeps before re-reading an unpublished word (0: it spins,
/// the measured default; spinning threads take issue slots from the ranking warps of their SM). Built
/// by the tuning sweep (carry_tune_radix_sleep); not yet measured.
#ifndef CARRY_RADIX_LOOKBACK_NS
#define CARRY_RADIX_LOOKBACK_NS 0
#endif
constexpr int lookback_delay_ns = CARRY_RADIX_LOOKBACK_NS;

/// Onesweep blocks: one a tile (0, the measured default) or one wave of persistent blocks that take
/// tile tickets until the portion is done (1: a skipped pass costs one wave instead of a 16384-block
/// grid at 2^26). Built by the tuning sweep (carry_tune_radix_persistent); not yet measured.
#ifndef CARRY_RADIX_PERSISTENT
#define CARRY_RADIX_PERSISTENT 0
#endif
constexpr bool persistent_onesweep = CARRY_RADIX_PERSISTENT != 0;

/// The histogram's last run of each lane, when every lane of the warp ends on the same digit (sorted,
/// constant or low-entropy keys): added once for the warp (1) instead of by 32 lanes contending for one
/// shared counter (0, the measured default). Built by the tuning sweep (carry_tune_radix_warpruns);
/// not yet measured.
#ifndef CARRY_RADIX_HISTOGRAM_WARP_RUNS
#define CARRY_RADIX_HISTOGRAM_WARP_RUNS 0
#endif
constexpr bool histogram_warp_runs = CARRY_RADIX_HISTOGRAM_WARP_RUNS != 0;

/// The cluster path's items a thread: always the tile shape's (0, the measured default), or the fewest of
/// a quarter, a half or all of them that still fit the cluster (1: 2^14 u32 keys in 16 tiles of 1024,
/// a quarter of the serial rank rounds a pass; plan.hpp, cluster_items). Built by the tuning sweep
/// (carry_tune_radix_smallitems); not yet measured.
#ifndef CARRY_RADIX_CLUSTER_SMALL_ITEMS
#define CARRY_RADIX_CLUSTER_SMALL_ITEMS 0
#endif
constexpr bool cluster_small_items = CARRY_RADIX_CLUSTER_SMALL_ITEMS != 0;

/// Small inputs: up to this many tiles run as one cluster of blocks (one launch, digit counts exchanged
/// in distributed shared memory, every pass in the same launch). 16 is the largest cluster sm_90 allows
/// (non-portable); the dispatch asks the device what it can co-schedule and falls back to the onesweep
/// path when it cannot.
constexpr int cluster_tiles = 16;

/// Onesweep look-back words are packed 32-bit counts (state in 2 bits, counts below 2^30): a launch
/// sorts a portion of at most this many items, so no chain count can overflow; a larger input takes one
/// launch per portion, each starting from the digit offsets the previous one left.
constexpr std::int64_t portion_items_max = std::int64_t{1} << 28;

/// When the look-back words of every pass together fit in this many bytes, they are cleared once, in
/// the memset that starts the call; above it, each pass launch is prepared (zeroed) on its own, so the
/// words take one portion's worth of memory whatever the input.
constexpr std::size_t clear_once_bytes_max = std::size_t{8} << 20;

/// Blocks of the up-front histogram: one wave of this many blocks an SM (grid-stride over the keys).
constexpr int histogram_blocks_per_sm = 4;
/// Items a histogram thread reads per round (warp-striped, one coalesced load each).
constexpr int histogram_items = 8;

} // namespace radix_tuning
} // namespace carry
