// Scan operators (sum, maximum, minimum), the default equality, the default-operator traits.
#pragma once

#include "util/config.hpp"

namespace carry {

/// a + b. Identity: T{} for arithmetic types.
struct sum {
  template <class T>
  CARRY_HD T operator()(const T& a, const T& b) const {
    return static_cast<T>(a + b);
  }
};
/// The larger of a and b (a on ties, so the earlier operand wins).
struct maximum {
  template <class T>
  CARRY_HD T operator()(const T& a, const T& b) const {
    return b > a ? b : a;
  }
};
/// The smaller of a and b (a on ties).
struct minimum {
  template <class T>
  CARRY_HD T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

/// Equality with operator==: the default of select_unique and of the by-key scans.
struct equal_to {
  template <class T>
  CARRY_HD bool operator()(const T& a, const T& b) const {
    return a == b;
  }
};

} // namespace carry
