// The accumulator type of a scan over iterators or of mixed types (CUB's rule, with carry's sums).
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace carry {

/// The first template argument of a scan when the call names no accumulator: the rule below picks it.
struct default_accumulator {};

namespace detail {

template <class It>
using iter_value = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;

/// What an output iterator made of proxies declares (the run calls' zipped outputs, the distributed
/// scan's seeded output): no value type, so a scan into it names or infers its accumulator elsewhere.
struct output_tags {
  using value_type = void;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = void;
  using iterator_category = std::output_iterator_tag;
};

/// The value type an output iterator stores, or void (a discard iterator, a proxy without one).
template <class It>
using out_value = std::conditional_t<std::is_pointer<It>::value, std::remove_cv_t<std::remove_pointer_t<It>>,
                                     std::remove_cv_t<typename std::iterator_traits<It>::value_type>>;

template <class Op, class A, class B, class = void>
struct op_result {};
template <class Op, class A, class B>
struct op_result<Op, A, B,
                 std::void_t<decltype(std::declval<const Op&>()(std::declval<A>(), std::declval<B>()))>> {
  using type = std::decay_t<decltype(std::declval<const Op&>()(std::declval<A>(), std::declval<B>()))>;
};
template <class Op, class A, class B, class = void>
struct has_op_result : std::false_type {};
template <class Op, class A, class B>
struct has_op_result<Op, A, B, std::void_t<typename op_result<Op, A, B>::type>> : std::true_type {};

/// `fallback` unless it is void, else `other`.
template <class Fallback, class Other>
using non_void_or = std::conditional_t<std::is_void<Fallback>::value, Other, Fallback>;

/// A scan's accumulator:
///   - Acc, when the call names one (inclusive_scan<std::int64_t>(...));
///   - a sum (SUM): the output's value type (u8 flags into u32 offsets never wrap at 256), or the input's
///     where the output has none;
///   - any other operator: op(init, input value)'s type, as CUB (an inclusive scan's init: the input
///     value), or, where that call does not compile (carry's operators take two values of one type),
///     the output's value type, else the input's.
template <class Acc, bool SUM, class Op, class Init, class InIt, class OutIt>
struct scan_accumulator {
  using type = Acc;
};
template <bool SUM, class Op, class Init, class InIt, class OutIt>
struct scan_accumulator<default_accumulator, SUM, Op, Init, InIt, OutIt> {
  using fallback = non_void_or<out_value<OutIt>, iter_value<InIt>>;
  template <bool, class = void>
  struct pick {
    using type = fallback;
  };
  template <class D>
  struct pick<true, D> {
    using type = typename op_result<Op, Init, iter_value<InIt>>::type;
  };
  using type = typename pick<!SUM && has_op_result<Op, Init, iter_value<InIt>>::value>::type;
};
template <class Acc, bool SUM, class Op, class Init, class InIt, class OutIt>
using scan_accumulator_t = typename scan_accumulator<Acc, SUM, Op, Init, InIt, OutIt>::type;

/// Whether a scan's arguments take the iterator overloads: no null pointer constant (the pointer
/// overloads take those), and not pointers to one type (EXCLUSIVE: with an init of that type), which
/// the pointer overloads serve.
template <class InIt, class OutIt, class Init = void>
constexpr bool iterator_scan_args() {
  if constexpr (std::is_null_pointer<InIt>::value || std::is_null_pointer<OutIt>::value) {
    return false;
  } else if constexpr (std::is_pointer<InIt>::value && std::is_pointer<OutIt>::value) {
    using A = std::remove_cv_t<std::remove_pointer_t<InIt>>;
    using B = std::remove_pointer_t<OutIt>;
    return !(std::is_same<A, B>::value && !std::is_const<B>::value &&
             (std::is_void<Init>::value || std::is_same<Init, A>::value));
  } else {
    return true;
  }
}

} // namespace detail
} // namespace carry
