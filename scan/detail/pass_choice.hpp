// Which device pass a scan call runs, from its size and options (plain C++, CPU-tested).
#pragma once

#include <cstdint>

#include "../scan_options.hpp"
#include "../tuning.hpp"
#include "../util/plan.hpp"

namespace carry {
namespace detail {

/// Whether the call belongs to the single-pass family (auto: from tuning::auto_single_pass_from on).
CARRY_HD inline bool uses_single_pass(std::int64_t n, const scan_options& opt) {
  return opt.algorithm == scan_algorithm::single_pass ||
         (opt.algorithm == scan_algorithm::automatic && n >= tuning::auto_single_pass_from);
}

/// Which tile shape a call uses: the small-input one (single-pass family, n <= tuning::small_n_max,
/// when the caller has a small policy), else the single-pass or the hierarchical one.
enum class tile_family { hierarchical, single_pass, small };

CARRY_HD inline tile_family choose_family(std::int64_t n, const scan_options& opt, bool has_small_policy) {
  if (!uses_single_pass(n, opt)) return tile_family::hierarchical;
  return has_small_policy && n <= tuning::small_n_max ? tile_family::small : tile_family::single_pass;
}

/// How a small-input launch finds each tile's carry-in.
enum class small_mode {
  one_tile,           ///< the whole input is one tile
  cluster,            ///< one cluster of blocks: aggregates meet in distributed shared memory
  look_back,          ///< prepare step + ticket + decoupled look-back (fast fold)
  look_back_canonical ///< prepare step + ticket + the canonical look-back (deterministic)
};

/// The small-input mode for `num_tiles` tiles: one tile; 2 .. cluster_tiles tiles run as one cluster
/// (cluster_tiles: the policy's limit, already capped at what the device can co-schedule); more take
/// the ticketed look-back. In place is fine in every mode: no block reads another tile's input.
CARRY_HD inline small_mode choose_small_mode(std::int64_t num_tiles, int cluster_tiles, bool canonical) {
  if (num_tiles <= 1) return small_mode::one_tile;
  if (num_tiles <= cluster_tiles) return small_mode::cluster;
  return canonical ? small_mode::look_back_canonical : small_mode::look_back;
}

/// Threads of a one-tile small launch: only the warps that hold items (each warp holds warp_items).
CARRY_HD inline int small_tile_threads(std::int64_t n, int block_threads, int warp_items) {
  const std::int64_t warps = ceil_div(n, warp_items);
  const std::int64_t threads = warps * 32;
  return threads < block_threads ? static_cast<int>(threads) : block_threads;
}

/// The pass a scan call runs, given its tile size; the size query and the real call both ask.
CARRY_HD inline pass_kind choose_pass(std::int64_t n, const scan_options& opt, std::int64_t tile_items) {
  if (n <= 0) return pass_kind::empty;
  if (n <= tile_items) return pass_kind::single_tile;
  return uses_single_pass(n, opt) ? pass_kind::single_pass : pass_kind::hierarchical;
}

/// Whether a single pass folds with the canonical, group-aligned look-back: in deterministic mode only.
/// (Fast mode used it from 2048 tiles with the register tiles, where it measured faster; with the
/// staged tiles the classic look-back is as fast or faster at every size: NOTES.md step 20.)
CARRY_HD inline bool canonical_look_back(const scan_options& opt) {
  return opt.deterministic;
}

} // namespace detail
} // namespace carry
