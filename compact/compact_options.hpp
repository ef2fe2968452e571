// Options of a compaction call (select, unique, partition): which device algorithm runs it.
#pragma once

#include "../scan/operators.hpp"

namespace carry {

/// The device-level algorithm of a compaction.
enum class compact_algorithm {
  automatic,    ///< the faster form for the call (measured, see compact/tuning.hpp)
  three_kernel, ///< per-tile counts, the engine's scan of the counts, scatter (reads the input twice)
  single_pass   ///< one launch on the engine's decoupled look-back (reads the input once)
};

/// Where a partition puts the items it rejects: after the selected ones either way.
enum class partition_order {
  stable,  ///< in input order (the default)
  reversed ///< in reverse input order, from the output's end back: CUB's DevicePartition layout
};

/// Options of carry's compactions. In-place calls always run the single pass (its look-back orders the
/// tiles, so no tile overwrites input another tile has yet to read). A stable partition over more than
/// one tile always counts every tile first (its rejected items follow every selected one in input order,
/// so it needs the total count before it writes any of them); a reversed one places its rejected items
/// from the end of the output back and needs no total, so it runs as a selection does (one pass; over a
/// computed input, a counting or transform iterator whose count reads nothing, the automatic choice
/// counts first at the sizes where that measured faster: compact/tuning.hpp).
struct compact_options {
  compact_algorithm algorithm = compact_algorithm::automatic;
  partition_order rejected = partition_order::stable; ///< partitions only; selections ignore it
};

template <>
struct is_call_options<compact_options> : std::true_type {};

} // namespace carry
