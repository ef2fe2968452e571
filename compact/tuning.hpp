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
/// tiles (the engine's cp.async tile loader); other inputs on register tiles of the same shape.
template <int BLOCK_THREADS, int ITEMS_PER_THREAD, int MIN_BLOCKS, bool STREAMING = true, int LOOKBACK_DELAY_NS = 0,
          block_scan_algorithm ALGORITHM = block_scan_algorithm::coarsened>
struct compact_policy {
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

/// The policy of a compaction of T: 256 threads, 5 blocks per SM (5 x 40 KB of staged items and u8 flags
/// fit an SM's shared memory). See NOTES.md, "Compaction (issue 15)", for the measured shapes.
template <class T>
using policy = compact_policy<256, default_items<T>(), 5, true, 0>;

/// Single-pass blocks warm the L2 with their guessed tile before the ticket only when the input has more
/// tiles than this many blocks per SM (about one wave: 5 blocks of 256 threads fit an SM by registers).
constexpr int prefetch_beyond_blocks_per_sm = 5;

/// The smallest input the automatic choice runs as a single pass (below: the three kernels). The single
/// pass reads the input once, the three kernels twice; see NOTES.md, "Compaction (issue 15)".
constexpr std::int64_t single_pass_from = 0;

} // namespace compact_tuning
} // namespace carry
