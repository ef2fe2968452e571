// Scan operators (sum, maximum, minimum), the default equality, the default-operator traits.
#pragma once

#include <type_traits>

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

/// Whether T is a call's options struct (scan_options, compact_options: each header says so).
template <class T>
struct is_call_options : std::false_type {};

/// Whether Eq can be an equality functor argument: not a number or a pointer, so that a stream given as
/// a literal 0, nullptr or a cudaStream_t where a call takes (equality_op, stream) picks the overload
/// without the functor (as it would in CUB's calls, which take no functor there); nor an options struct,
/// which comes after the functor (a call that passes one in its place fails to match, not deep inside).
template <class Eq>
constexpr bool equality_functor = !std::is_arithmetic_v<Eq> && !std::is_pointer_v<Eq> &&
                                  !std::is_null_pointer_v<Eq> && !is_call_options<Eq>::value;

} // namespace carry
