// Which device pass a scan call runs, from its size and options (plain C++, CPU-tested).
#pragma once

#include <cstdint>

#include "../scan_options.hpp"
#include "../tuning.hpp"
#include "plan.hpp"

namespace carry {
namespace detail {

/// Whether the call belongs to the single-pass family (its single-tile path uses that tile shape).
CARRY_HD inline bool uses_single_pass(std::int64_t n, const scan_options& opt) {
  return opt.algorithm == scan_algorithm::single_pass ||
         (opt.algorithm == scan_algorithm::automatic && n >= tuning::auto_single_pass_from);
}

/// The pass a scan call runs; the size query and the real call both ask this.
CARRY_HD inline pass_kind choose_pass(std::int64_t n, const scan_options& opt, std::int64_t hierarchical_tile,
                                      std::int64_t single_pass_tile) {
  if (n <= 0) return pass_kind::empty;
  if (uses_single_pass(n, opt)) return n <= single_pass_tile ? pass_kind::single_tile : pass_kind::single_pass;
  return n <= hierarchical_tile ? pass_kind::single_tile : pass_kind::hierarchical;
}

}  // namespace detail
}  // namespace carry
