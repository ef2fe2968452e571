// The run calls' pieces (reduce_by_key, run_length_encode, non_trivial_runs, select_unique_by_key): the
// items they scan, their operators, and the outputs that write each run at its first or last item.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../../scan/detail/by_key.hpp"

namespace carry {
namespace compact_detail {

using detail::keyed;
using detail::output_tags;
using detail::run_ends;
using detail::segment_starts;

// The items of the run scans carry two flags in the top bits of their count: whether the item starts a
// run (head) and whether it ends one (end). The folds keep the right operand's flags, so after an
// inclusive scan every item still holds its own, and the outputs never read the keys again to tell.

template <class I>
constexpr I end_bit = static_cast<I>(I{1} << (8 * sizeof(I) - 1));
template <class I>
constexpr I head_bit = static_cast<I>(I{1} << (8 * sizeof(I) - 2));
template <class I>
constexpr I run_flags = static_cast<I>(end_bit<I> | head_bit<I>);

/// The index type of a run call over n items: 32 bits while every count and position fits below the
/// flags, else 64 (the scanned items stay 8 bytes for 4-byte values up to 2^30 - 1 items).
template <class Fn>
auto with_run_index(std::int64_t n, Fn&& fn) {
  if (n <= static_cast<std::int64_t>(UINT32_MAX >> 2)) return fn(std::uint32_t{});
  return fn(std::uint64_t{});
}

/// The count and flags of item g: head and end flags, and `marked` counted once.
template <class I>
CARRY_HD I flagged_count(bool marked, bool head, bool end) {
  return static_cast<I>((marked ? I{1} : I{0}) | (head ? head_bit<I> : I{0}) | (end ? end_bit<I> : I{0}));
}
/// Counts add up below the flags; the flags are the right operand's.
template <class I>
CARRY_HD I add_counts(I a, I b) {
  return static_cast<I>(((a & ~run_flags<I>) + (b & ~run_flags<I>)) | (b & run_flags<I>));
}

// ---- reduce_by_key: the by-key scan's (head, value) pairs with counted heads; each run written once ----

/// The counted segmented operator: the by-key fold (restarted by every run start in b), heads counted,
/// so an inclusive scan's count is the item's run index + 1.
///
///   {1 | head, 3} (+) {0, 4} = {1, 7};   {1 | head, 3} (+) {1 | head, 4} = {2 | head, 4}
template <class Op>
struct counted_segments {
  Op op;
  template <class V, class H>
  CARRY_HD keyed<V, H> operator()(const keyed<V, H>& a, const keyed<V, H>& b) const {
    return {add_counts(a.head, b.head), (b.head & ~run_flags<H>) != 0 ? b.value : op(a.value, b.value)};
  }
};

/// The input of reduce_by_key: item g is {1 if a run starts at g, with its head and end flags; values[g]}.
template <class KeyIt, class ValIt, class Eq, class V, class H>
struct run_input {
  using value_type = keyed<V, H>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = keyed<V, H>;
  using iterator_category = std::random_access_iterator_tag;
  KeyIt keys;
  ValIt values;
  Eq eq;
  std::int64_t n, pos;
  CARRY_HD keyed<V, H> operator[](std::int64_t i) const {
    const std::int64_t g = pos + i;
    const bool head = segment_starts(keys, g, eq);
    return {flagged_count<H>(head, head, run_ends(keys, g, n, eq)), static_cast<V>(values[g])};
  }
  CARRY_HD keyed<V, H> operator*() const { return (*this)[0]; }
  CARRY_HD run_input operator+(std::int64_t k) const { return {keys, values, eq, n, pos + k}; }
};

/// The output of reduce_by_key: the pair at item g (run index + 1 and flags, the run's fold so far)
/// writes the run's key at its first item, its aggregate at its last, and the run count at the input's
/// last item.
template <class KeyIt, class UniqueIt, class AggIt, class NumIt>
struct reduce_by_key_output : output_tags {
  KeyIt keys;
  UniqueIt unique;
  AggIt aggregates;
  NumIt num_runs;
  std::int64_t n, pos;
  struct slot {
    reduce_by_key_output o;
    std::int64_t g;
    template <class V, class H>
    CARRY_HD void operator=(const keyed<V, H>& p) const {
      const H count = p.head & ~run_flags<H>;
      if (p.head & head_bit<H>) o.unique[count - 1] = o.keys[g];
      if (p.head & end_bit<H>) o.aggregates[count - 1] = p.value;
      if (g == o.n - 1) *o.num_runs = count;
    }
  };
  CARRY_HD slot operator[](std::int64_t i) const { return {*this, pos + i}; }
  CARRY_HD reduce_by_key_output operator+(std::int64_t k) const {
    reduce_by_key_output c = *this;
    c.pos += k;
    return c;
  }
};

// ---- run_length_encode, non_trivial_runs: a plain scan of (marks so far and flags, latest run start) ----

/// An item of the run-length scans: how many marked items (run starts, or second items of runs) lie in
/// the span, with the head and end flags of its last item; and the position of its latest run start (0
/// if none: the max keeps the latest).
template <class I>
struct run_span {
  I count;
  I start;
};

/// (count, start) fold: counts add (flags from the right), starts take the later one. Associative.
///
///   {1, 5} (+) {0, 0} = {1, 5};   {1, 5} (+) {2, 9} = {3, 9}
struct span_op {
  template <class I>
  CARRY_HD run_span<I> operator()(const run_span<I>& a, const run_span<I>& b) const {
    return {add_counts(a.count, b.count), a.start > b.start ? a.start : b.start};
  }
};

/// Whether item g is the second item of a run (a run of two or more starts at g - 1).
template <class KeyIt, class Eq>
CARRY_HD bool second_of_run(const KeyIt& keys, std::int64_t g, const Eq& eq) {
  return g >= 1 && !segment_starts(keys, g, eq) && segment_starts(keys, g - 1, eq);
}

/// The input of the run-length scans: item g is {marked and flags, g if a run starts at g else 0};
/// marked = a run starts at g (run_length_encode) or g is a run's second item (NON_TRIVIAL).
template <bool NON_TRIVIAL, class KeyIt, class Eq, class I>
struct span_input {
  using value_type = run_span<I>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = run_span<I>;
  using iterator_category = std::random_access_iterator_tag;
  KeyIt keys;
  Eq eq;
  std::int64_t n, pos;
  CARRY_HD run_span<I> operator[](std::int64_t i) const {
    const std::int64_t g = pos + i;
    const bool head = segment_starts(keys, g, eq);
    const bool marked = NON_TRIVIAL ? second_of_run(keys, g, eq) : head;
    return {flagged_count<I>(marked, head, run_ends(keys, g, n, eq)), static_cast<I>(head ? g : 0)};
  }
  CARRY_HD run_span<I> operator*() const { return (*this)[0]; }
  CARRY_HD span_input operator+(std::int64_t k) const { return {keys, eq, n, pos + k}; }
};

/// The output of the run-length scans, at item g with the scan's {count and flags, start}: a run's last
/// item writes its length (and, NON_TRIVIAL, its offset, for runs of two or more) at index count - 1;
/// run_length_encode writes the run's first item at its first item; the input's last item the count.
/// Firsts: the unique items (run_length_encode) or the offsets (non_trivial_runs).
template <bool NON_TRIVIAL, class KeyIt, class FirstIt, class LenIt, class NumIt>
struct span_output : output_tags {
  KeyIt keys;
  FirstIt firsts;
  LenIt lengths;
  NumIt num_runs;
  std::int64_t n, pos;
  struct slot {
    span_output o;
    std::int64_t g;
    template <class I>
    CARRY_HD void operator=(const run_span<I>& p) const {
      const I count = p.count & ~run_flags<I>;
      if constexpr (!NON_TRIVIAL)
        if (p.count & head_bit<I>) o.firsts[count - 1] = o.keys[g];
      if (p.count & end_bit<I>) {
        const I length = static_cast<I>(g - static_cast<std::int64_t>(p.start) + 1);
        if constexpr (NON_TRIVIAL) {
          if (length > 1) {
            o.firsts[count - 1] = p.start;
            o.lengths[count - 1] = length;
          }
        } else {
          o.lengths[count - 1] = length;
        }
      }
      if (g == o.n - 1) *o.num_runs = count;
    }
  };
  CARRY_HD slot operator[](std::int64_t i) const { return {*this, pos + i}; }
  CARRY_HD span_output operator+(std::int64_t k) const {
    span_output c = *this;
    c.pos += k;
    return c;
  }
};

// ---- select_unique_by_key: the compaction over (key, value) pairs ----

/// A key and its value, as select_unique_by_key's compaction moves them.
template <class K, class V>
struct key_value {
  K key;
  V value;
};

/// keys[i] and values[i] read as one key_value item.
template <class KeyIt, class ValIt>
struct zip_input {
  using K = std::remove_cv_t<typename std::iterator_traits<KeyIt>::value_type>;
  using V = std::remove_cv_t<typename std::iterator_traits<ValIt>::value_type>;
  using value_type = key_value<K, V>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = key_value<K, V>;
  using iterator_category = std::random_access_iterator_tag;
  KeyIt keys;
  ValIt values;
  CARRY_HD key_value<K, V> operator[](std::int64_t i) const { return {keys[i], values[i]}; }
  CARRY_HD key_value<K, V> operator*() const { return (*this)[0]; }
  CARRY_HD zip_input operator+(std::int64_t k) const { return {keys + k, values + k}; }
};

/// A key_value item written as keys_out[i] and values_out[i].
template <class KeyOut, class ValOut>
struct zip_output : output_tags {
  struct slot {
    KeyOut k;
    ValOut v;
    template <class K, class V>
    CARRY_HD void operator=(const key_value<K, V>& p) const {
      *k = p.key;
      *v = p.value;
    }
  };
  KeyOut keys;
  ValOut values;
  CARRY_HD slot operator[](std::int64_t i) const { return {keys + i, values + i}; }
  CARRY_HD zip_output operator+(std::int64_t k) const { return {{}, keys + k, values + k}; }
};

/// The key equality lifted to key_value items (the values never compared, so never loaded for it).
template <class Eq>
struct key_equal {
  Eq eq;
  template <class KV>
  CARRY_HD bool operator()(const KV& a, const KV& b) const {
    return static_cast<bool>(eq(a.key, b.key));
  }
};

} // namespace compact_detail
} // namespace carry
