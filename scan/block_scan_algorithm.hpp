// The block-scan algorithm enum (plain C++, shared by tuning, the tool and the CPU tests).
#pragma once

namespace carry {

/// The block-wide scan algorithms of the seeds. `coarsened` is the default and the fastest.
enum class block_scan_algorithm { kogge_stone, kogge_stone_double_buffer, brent_kung, blelloch, coarsened };

/// The warp scan of the coarsened scan's phase 2 (over thread totals, then warp totals). Brent-Kung takes
/// 9 dependent shuffle steps, Kogge-Stone 5 (and fewer instructions: every lane runs every step either
/// way). Brent-Kung is the engine's scans' default, as measured; Kogge-Stone serves block scans that sit
/// on a latency chain (a radix tile's digit counts: radix_tuning's measurement).
enum class warp_scan_shape { brent_kung, kogge_stone };

/// Name of an algorithm, as the benchmark and the carry tool print it.
inline const char* block_scan_name(block_scan_algorithm a) {
  switch (a) {
  case block_scan_algorithm::kogge_stone:
    return "kogge_stone";
  case block_scan_algorithm::kogge_stone_double_buffer:
    return "kogge_stone_db";
  case block_scan_algorithm::brent_kung:
    return "brent_kung";
  case block_scan_algorithm::blelloch:
    return "blelloch";
  case block_scan_algorithm::coarsened:
    return "coarsened";
  }
  return "?";
}

} // namespace carry
