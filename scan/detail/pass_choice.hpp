// Which device pass a scan call runs, from its size and options (plain C++, CPU-tested).
#pragma once

#include <cstdint>

#include "../scan_options.hpp"
#include "../tuning.hpp"
#include "plan.hpp"

namespace carry {
namespace detail {

/// Whether the call belongs to the single-pass family (auto: from tuning::auto_single_pass_from on).
CARRY_HD inline bool uses_single_pass(std::int64_t n, const scan_options& opt) {
  return opt.algorithm == scan_algorithm::single_pass ||
         (opt.algorithm == scan_algorithm::automatic && n >= tuning::auto_single_pass_from);
}

/// Which tile shape a call uses: the hierarchical one, the single-pass one, or the small-input one
/// (single-pass family, n <= tuning::small_n_max, when the caller has a small policy).
enum class tile_family { hierarchical, single_pass, small };

CARRY_HD inline tile_family choose_family(std::int64_t n, const scan_options& opt, bool has_small_policy) {
  if (!uses_single_pass(n, opt)) return tile_family::hierarchical;
  return has_small_policy && n <= tuning::small_n_max ? tile_family::small : tile_family::single_pass;
}

/// The pass a scan call runs, given its family's tile size; the size query and the real call both ask.
CARRY_HD inline pass_kind choose_pass(std::int64_t n, tile_family family, std::int64_t tile_items) {
  if (n <= 0) return pass_kind::empty;
  if (n <= tile_items) return pass_kind::single_tile;
  return family == tile_family::hierarchical ? pass_kind::hierarchical : pass_kind::single_pass;
}

}  // namespace detail
}  // namespace carry
