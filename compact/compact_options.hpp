// Options of a compaction call (select, unique, partition): which device algorithm runs it.
#pragma once

namespace carry {

/// The device-level algorithm of a compaction.
enum class compact_algorithm {
  automatic,    ///< the faster form for the call (measured, see compact/tuning.hpp)
  three_kernel, ///< per-tile counts, the engine's scan of the counts, scatter (reads the input twice)
  single_pass   ///< one launch on the engine's decoupled look-back (reads the input once)
};

/// Options of carry's compactions. In-place calls always run the single pass (its look-back orders the
/// tiles, so no tile overwrites input another tile has yet to read); a partition over more than one
/// tile always runs the three kernels (a stable partition places its rejected items after all selected
/// ones, so it needs the total count before it writes any of them).
struct compact_options {
  compact_algorithm algorithm = compact_algorithm::automatic;
};

} // namespace carry
