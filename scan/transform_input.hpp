// carry::transform_input: a random-access input iterator that reads f(it[i]) (the scans' and reduce's
// transform option, as thrust::transform_iterator without Thrust).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "util/config.hpp"

namespace carry {

/// Reads f(it[i]) at index i: pass it wherever carry takes an input iterator.
///
///   d_in = [1 2 3 4], f = x * x  ->  carry::inclusive_sum(..., carry::make_transform_input(d_in, f), d_out, 4)
///                                    writes [1 5 14 30]
template <class It, class F>
struct transform_input {
  using value_type = std::decay_t<decltype(std::declval<const F&>()(*std::declval<const It&>()))>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = value_type;
  using iterator_category = std::random_access_iterator_tag;
  It it;
  F f;
  CARRY_HD value_type operator[](std::int64_t i) const { return f(it[i]); }
  CARRY_HD value_type operator*() const { return f(*it); }
  CARRY_HD transform_input operator+(std::int64_t k) const { return {it + k, f}; }
};

/// transform_input{it, f}.
template <class It, class F>
CARRY_HD transform_input<It, F> make_transform_input(It it, F f) {
  return {it, f};
}

} // namespace carry
