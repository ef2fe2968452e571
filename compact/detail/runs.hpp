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

/// The index type of a run call over n items: 32 bits while every count and position fits, else 64
/// (the scanned items stay 8 bytes for 4-byte values up to 2^32 - 1 items).
template <class Fn>
auto with_run_index(std::int64_t n, Fn&& fn) {
  if (n <= static_cast<std::int64_t>(UINT32_MAX)) return fn(std::uint32_t{});
  return fn(std::uint64_t{});
}

// ---- reduce_by_key: the by-key scan's (head, value) pairs with counted heads; each run written once ----

/// The output of reduce_by_key: the pair at item g (run index + 1, the run's fold so far) writes the
/// run's key at its first item, its aggregate at its last, and the run count at the input's last item.
template <class KeyIt, class UniqueIt, class AggIt, class NumIt, class Eq>
struct reduce_by_key_output : output_tags {
  KeyIt keys;
  UniqueIt unique;
  AggIt aggregates;
  NumIt num_runs;
  Eq eq;
  std::int64_t n, pos;
  struct slot {
    reduce_by_key_output o;
    std::int64_t g;
    template <class V, class H>
    CARRY_HD void operator=(const keyed<V, H>& p) const {
      const H run = p.head - 1;
      if (segment_starts(o.keys, g, o.eq)) o.unique[run] = o.keys[g];
      if (run_ends(o.keys, g, o.n, o.eq)) o.aggregates[run] = p.value;
      if (g == o.n - 1) *o.num_runs = p.head;
    }
  };
  CARRY_HD slot operator[](std::int64_t i) const { return {*this, pos + i}; }
  CARRY_HD reduce_by_key_output operator+(std::int64_t k) const {
    reduce_by_key_output c = *this;
    c.pos += k;
    return c;
  }
};

// ---- run_length_encode, non_trivial_runs: a plain scan of (marks so far, latest run start) ----

/// An item of the run-length scans: how many marked items (run starts, or second items of runs) lie in
/// the span, and the position of its latest run start (0 if none: the max keeps the latest).
template <class I>
struct run_span {
  I count;
  I start;
};

/// (count, start) fold: counts add, starts take the later one. Associative and commutative.
///
///   {1, 5} (+) {0, 0} = {1, 5};   {1, 5} (+) {2, 9} = {3, 9}
struct span_op {
  template <class I>
  CARRY_HD run_span<I> operator()(const run_span<I>& a, const run_span<I>& b) const {
    return {static_cast<I>(a.count + b.count), a.start > b.start ? a.start : b.start};
  }
};

/// Whether item g is the second item of a run (a run of two or more starts at g - 1).
template <class KeyIt, class Eq>
CARRY_HD bool second_of_run(const KeyIt& keys, std::int64_t g, const Eq& eq) {
  return g >= 1 && !segment_starts(keys, g, eq) && segment_starts(keys, g - 1, eq);
}

/// The input of the run-length scans: item g is {marked, g if a run starts at g else 0}; marked = a
/// run starts at g (run_length_encode) or g is a run's second item (NON_TRIVIAL: runs of two or more).
template <bool NON_TRIVIAL, class KeyIt, class Eq, class I>
struct span_input {
  using value_type = run_span<I>;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = run_span<I>;
  using iterator_category = std::random_access_iterator_tag;
  KeyIt keys;
  Eq eq;
  std::int64_t pos;
  CARRY_HD run_span<I> operator[](std::int64_t i) const {
    const std::int64_t g = pos + i;
    const bool head = segment_starts(keys, g, eq);
    const bool marked = NON_TRIVIAL ? second_of_run(keys, g, eq) : head;
    return {static_cast<I>(marked ? 1 : 0), static_cast<I>(head ? g : 0)};
  }
  CARRY_HD run_span<I> operator*() const { return (*this)[0]; }
  CARRY_HD span_input operator+(std::int64_t k) const { return {keys, eq, pos + k}; }
};

/// The output of the run-length scans, at item g with the scan's {count, start}: a run's last item
/// writes its length (and, NON_TRIVIAL, its offset, for runs of two or more) at index count - 1;
/// run_length_encode writes the run's first item at its first item; the input's last item the count.
/// Firsts: the unique items (run_length_encode) or the offsets (non_trivial_runs).
template <bool NON_TRIVIAL, class KeyIt, class FirstIt, class LenIt, class NumIt, class Eq>
struct span_output : output_tags {
  KeyIt keys;
  FirstIt firsts;
  LenIt lengths;
  NumIt num_runs;
  Eq eq;
  std::int64_t n, pos;
  struct slot {
    span_output o;
    std::int64_t g;
    template <class I>
    CARRY_HD void operator=(const run_span<I>& p) const {
      const I run = p.count - 1;
      if constexpr (!NON_TRIVIAL)
        if (segment_starts(o.keys, g, o.eq)) o.firsts[run] = o.keys[g];
      if (run_ends(o.keys, g, o.n, o.eq)) {
        const I length = static_cast<I>(g - static_cast<std::int64_t>(p.start) + 1);
        if constexpr (NON_TRIVIAL) {
          if (length > 1) {
            o.firsts[run] = p.start;
            o.lengths[run] = length;
          }
        } else {
          o.lengths[run] = length;
        }
      }
      if (g == o.n - 1) *o.num_runs = p.count;
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
