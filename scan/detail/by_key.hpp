// The by-key scans' pieces: the (head, value) pair, the segmented operator, the keyed input and outputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../util/config.hpp"

namespace carry {
namespace detail {

/// An item of a by-key scan: its value, and whether a segment (a run of equal keys) starts at it or,
/// once folded, anywhere in the span it covers (H: the head's type; reduce_by_key counts heads in it).
template <class V, class H = std::uint32_t>
struct keyed {
  H head;
  V value;
};

/// The segmented operator: a fold that restarts at every head. Associative whenever op is, never
/// commutative; a's and b's values meet only when no segment starts in b.
///
///   {1, 3} (+) {0, 4} = {1, 7};   {1, 3} (+) {1, 4} = {1, 4}
template <class Op>
struct segmented {
  Op op;
  template <class V>
  CARRY_HD keyed<V> operator()(const keyed<V>& a, const keyed<V>& b) const {
    return {a.head | b.head, b.head ? b.value : op(a.value, b.value)};
  }
};

/// Whether item g of keys starts a segment: the first item, or one not equal to the item before it.
template <class KeyIt, class Eq>
CARRY_HD bool segment_starts(const KeyIt& keys, std::int64_t g, const Eq& eq) {
  return g == 0 || !static_cast<bool>(eq(keys[g - 1], keys[g]));
}

/// Whether item g ends a run of n items: the last item, or one not equal to the item after it.
template <class KeyIt, class Eq>
CARRY_HD bool run_ends(const KeyIt& keys, std::int64_t g, std::int64_t n, const Eq& eq) {
  return g == n - 1 || !static_cast<bool>(eq(keys[g], keys[g + 1]));
}

/// The input of a by-key scan: item i is keyed<V>{segment_starts(pos + i), values[pos + i]}.
template <class KeyIt, class ValIt, class Eq, class V>
struct keyed_input {
  using value_type = keyed<V>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = keyed<V>;
  using iterator_category = std::random_access_iterator_tag;
  KeyIt keys;
  ValIt values;
  Eq eq;
  std::int64_t pos;
  CARRY_HD keyed<V> operator[](std::int64_t i) const {
    const std::int64_t g = pos + i;
    return {segment_starts(keys, g, eq) ? 1u : 0u, static_cast<V>(values[g])};
  }
  CARRY_HD keyed<V> operator*() const { return (*this)[0]; }
  CARRY_HD keyed_input operator+(std::int64_t k) const { return {keys, values, eq, pos + k}; }
};

/// What an output iterator of the by-key scans declares.
struct output_tags {
  using value_type = void;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = void;
  using iterator_category = std::output_iterator_tag;
};

/// The output of an inclusive by-key scan: writes each pair's value to out[pos + i].
template <class OutIt>
struct keyed_output : output_tags {
  struct slot {
    OutIt at;
    template <class V>
    CARRY_HD void operator=(const keyed<V>& p) const {
      *at = p.value;
    }
  };
  OutIt out;
  std::int64_t pos;
  CARRY_HD slot operator[](std::int64_t i) const { return {out + (pos + i)}; }
  CARRY_HD keyed_output operator+(std::int64_t k) const { return {{}, out, pos + k}; }
};

/// The output of an exclusive by-key scan: pair p at item g (the fold of the items before g, restarted
/// at the last head) becomes init at a segment's first item, else op(init, p.value).
template <class OutIt, class KeyIt, class Eq, class Op, class V>
struct exclusive_keyed_output : output_tags {
  struct slot_ref {
    OutIt at;
    KeyIt keys;
    Eq eq;
    Op op;
    V init;
    std::int64_t g;
    CARRY_HD void operator=(const keyed<V>& p) const {
      *at = segment_starts(keys, g, eq) ? init : op(init, p.value);
    }
  };
  OutIt out;
  KeyIt keys;
  Eq eq;
  Op op;
  V init;
  std::int64_t pos;
  CARRY_HD slot_ref operator[](std::int64_t i) const { return {out + (pos + i), keys, eq, op, init, pos + i}; }
  CARRY_HD exclusive_keyed_output operator+(std::int64_t k) const { return {{}, out, keys, eq, op, init, pos + k}; }
};

} // namespace detail
} // namespace carry
