// Tuning constants of the compaction module, one place, each with the measurement that chose it.
#pragma once

#include <cstdint>

#include "../scan/block_scan_algorithm.hpp"

namespace carry {
namespace compact_tuning {

/// Launch shape of a compaction tile: BLOCK_THREADS threads, ITEMS_PER_THREAD items each (blocked), loads
/// with the streaming (evict-first) hint or not, and how long a look-back warp sleeps between polls.
/// The block scan of the per-thread selection counts is the engine's (ALGORITHM).
template <int BLOCK_THREADS, int ITEMS_PER_THREAD, bool STREAMING = false, int LOOKBACK_DELAY_NS = 0,
          block_scan_algorithm ALGORITHM = block_scan_algorithm::coarsened>
struct compact_policy {
  static constexpr int block_threads = BLOCK_THREADS;
  static constexpr int items_per_thread = ITEMS_PER_THREAD;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr bool streaming = STREAMING;
  static constexpr int lookback_delay_ns = LOOKBACK_DELAY_NS;
  static constexpr block_scan_algorithm algorithm = ALGORITHM;
  static constexpr bool warp_transpose = true;
};

/// Items per thread for T: 64 bytes of items a thread up to 4-byte types (16 items), 8 items of 8 bytes,
/// else 4 (a tile's staging buffer stays at 16 KB for every item size up to 8 bytes).
template <class T>
constexpr int default_items() {
  return sizeof(T) <= 4 ? 16 : sizeof(T) <= 8 ? 8 : 4;
}

/// The policy of a compaction of T. 256 threads x 16 u32 items (4096 a tile): see NOTES.md, "Compaction
/// (issue 15)", for the measured shapes.
template <class T>
using policy = compact_policy<256, default_items<T>(), false, 0>;

/// The smallest input the automatic choice runs as a single pass (below: the three kernels). The single
/// pass reads the input once, the three kernels twice; see NOTES.md, "Compaction (issue 15)".
constexpr std::int64_t single_pass_from = 0;

} // namespace compact_tuning
} // namespace carry
