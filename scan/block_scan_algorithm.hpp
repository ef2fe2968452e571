// The block-scan algorithm enum (plain C++, shared by tuning, the tool and the CPU tests).
#pragma once

namespace carry {

/// The block-wide scan algorithms of the seeds. `coarsened` is the default and the fastest.
enum class block_scan_algorithm { kogge_stone, kogge_stone_double_buffer, brent_kung, blelloch, coarsened };

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
