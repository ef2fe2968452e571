// Options of a radix sort call: which pass structure runs it.
#pragma once

namespace carry {

/// The device-level pass structure of a radix sort.
enum class radix_sort_algorithm {
  automatic,   ///< one cluster for small inputs (one launch), else onesweep (radixsort/tuning.hpp)
  onesweep,    ///< up-front histogram of every digit, then one look-back pass per digit (~8 B per u32 key)
  three_kernel ///< per digit: upsweep counts, the engine's scan of them, downsweep scatter (~12 B per u32 key)
};

/// Options of carry's radix sorts. `adaptive` (onesweep only): skip the passes whose digit is the same
/// in every key, copy instead of sorting when the keys are already in order, and (keys only) fill the
/// output with the first key when every key is the same over all its bits, except floating ±0.0 (all
/// found by the up-front histogram pass, which reads every key anyway).
struct radix_sort_options {
  radix_sort_algorithm algorithm = radix_sort_algorithm::automatic;
  bool adaptive = true;
};

} // namespace carry
