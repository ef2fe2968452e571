// Scan operators (sum, maximum, minimum) and the default-operator traits shared by every module.
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

} // namespace carry
