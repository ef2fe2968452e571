// Options of a device scan call: which device algorithm, and whether floating-point results must be
// reproducible.
#pragma once

#include "operators.hpp"

namespace carry {

/// The device-level algorithm of a scan.
enum class scan_algorithm {
  automatic,    ///< the faster of the two for the size and type (measured, see scan/tuning.hpp)
  hierarchical, ///< reduce-then-scan: upsweep, spine, downsweep (12 bytes moved per 4-byte item)
  single_pass   ///< decoupled look-back, one launch (8 bytes moved per 4-byte item)
};

/// Options of carry's device scans. Defaults: automatic algorithm, fastest (not reproducible) fold.
///
/// Determinism. With `deterministic = true` a scan returns bitwise the same output for the same input
/// on every run, whatever the timing of its blocks: the hierarchical pass always is; the single pass
/// then folds predecessors strictly left to right. With `deterministic = false` the single pass folds
/// in whatever grouping the look-back met, so float and double sums may differ in the last bits from
/// run to run (integer results are exact either way).
struct scan_options {
  scan_algorithm algorithm = scan_algorithm::automatic;
  bool deterministic = false;
};

template <>
struct is_call_options<scan_options> : std::true_type {};

} // namespace carry
