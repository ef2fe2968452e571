// The run calls' pieces (reduce_by_key, run_length_encode, non_trivial_runs, select_unique_by_key): their
// behaviours on the engine's keyed agent (aggregates, operators, outputs), and the (key, value) pairs of
// select_unique_by_key's compaction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../../scan/detail/accumulator.hpp"
#include "../../scan/detail/by_key.hpp"

namespace carry {
namespace compact_detail {

using detail::keyed;
using detail::keyed_thread;
using carry::tile_prefix;
using detail::output_tags;

/// The index type of a run call over n items: 32 bits while every count and position fits, else 64.
template <class Fn>
auto with_run_index(std::int64_t n, Fn&& fn) {
  if (n <= static_cast<std::int64_t>(UINT32_MAX)) return fn(std::uint32_t{});
  return fn(std::uint64_t{});
}

/// The number of set bits of a mask.
CARRY_HD inline int bit_count(unsigned m) {
#ifdef __CUDA_ARCH__
  return __popc(m);
#else
  return __builtin_popcount(m);
#endif
}

/// The highest set bit of a non-zero mask.
CARRY_HD inline int top_bit(unsigned m) {
#ifdef __CUDA_ARCH__
  return 31 - __clz(static_cast<int>(m));
#else
  int b = 31;
  while (!((m >> b) & 1u)) --b;
  return b;
#endif
}

// ---- reduce_by_key: (runs started, value) pairs, the fold restarted at every run start ----

/// The counted segmented operator: the by-key fold (restarted by every run start in b), run starts
/// counted, so a carry-in's count is the number of runs started before it.
///
///   {1, 3} (+) {0, 4} = {1, 7};   {1, 3} (+) {1, 4} = {2, 4}
template <class Op>
struct counted_segments {
  Op op;
  template <class V, class H>
  CARRY_HD keyed<V, H> operator()(const keyed<V, H>& a, const keyed<V, H>& b) const {
    return {static_cast<H>(a.head + b.head), b.head != 0 ? b.value : op(a.value, b.value)};
  }
};

/// reduce_by_key as a keyed agent's behaviour: a thread folds its items as (run start, value) pairs; its
/// outputs replay the fold from the carry-in: a run's key at its first item, its aggregate at its last,
/// at index (runs started so far) - 1; the run count at the input's last item.
template <class K, class V, class H, class Op, class Eq, class UniqueIt, class AggIt, class NumIt>
struct reduce_by_key_behaviour {
  using key_type = K;
  using value_type = V;
  using aggregate = keyed<V, H>;
  using op_type = counted_segments<Op>;
  using index_type = H; // the runs' indices
  static constexpr bool with_values = true, stores_values = false, uses_prev_head = false;
  static constexpr int staged_arrays = 2; // the unique keys (at run starts), the aggregates (at run ends)
  static constexpr bool keys_by_position = true; // staged: a run start's tile position, its key at the flush
  using staged0 = K;
  using staged1 = V;
  Eq eq;
  Op op;
  UniqueIt unique;
  AggIt aggregates;
  NumIt num_runs;
  CARRY_HD op_type scan_op() const { return {op}; }
  CARRY_HD UniqueIt out0() const { return unique; }
  CARRY_HD AggIt out1() const { return aggregates; }
  template <int ITEMS>
  CARRY_HD aggregate reduce(const keyed_thread<K, V, ITEMS>& t) const {
    return {static_cast<H>(bit_count(t.heads)), detail::fold_last_run(t, op)};
  }
  /// Run r's key goes to index r at its start, its aggregate to index r at its end: a thread's keys to
  /// runs .. runs + heads - 1, its aggregates from runs - 1 (an end before its first head closes the run
  /// the carry-in holds) or runs on, one an end. A thread without a carry-in starts the input's first run.
  template <int ITEMS, class Sink>
  CARRY_HD void emit(const keyed_thread<K, V, ITEMS>& t, const tile_prefix<aggregate>& carry, V (&)[ITEMS],
                     Sink& sink) const {
    const std::int64_t runs =
        carry.valid ? static_cast<std::int64_t>(carry.value.head) : 0; // before the thread
    const unsigned first_end = t.ends & (0u - t.ends);
    sink.template span<0>(runs, bit_count(t.heads));
    sink.template span<1>(runs - ((t.heads & detail::upto_bit(first_end)) != 0 ? 0 : 1), bit_count(t.ends));
    std::int64_t at = runs - 1; // the index of the run the item is in
    V run = carry.value.value;
    auto step = [&](int j) {
      if ((t.heads >> j) & 1u) {
        ++at;
        run = t.values[j];
        sink.template put_key<0>(at, t, j);
      } else {
        run = op(run, t.values[j]);
      }
      if ((t.ends >> j) & 1u) sink.template put<1>(at, run);
    };
    detail::for_live_items<ITEMS>(t.live, step);
    if (t.last >= t.first && t.last < t.first + ITEMS) *num_runs = static_cast<H>(runs + bit_count(t.heads));
  }
};

// ---- run_length_encode, non_trivial_runs: (marked items so far, latest run start) ----

/// The aggregate of the run-length calls: how many marked items (run starts, or second items of runs)
/// lie in the span, and the position of its latest run start (0 if none: the max keeps the latest).
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

/// A placeholder value type for the calls that read no values.
struct no_value {};

/// run_length_encode (marks: run starts; firsts: the first item of each run) and non_trivial_runs
/// (NON_TRIVIAL; marks: second items of runs; firsts: the offset of each run of two or more) as a keyed
/// agent's behaviour: a run's outputs at its last item (its first item, for run_length_encode's), at
/// index (marks so far) - 1; the count at the input's last item.
template <bool NON_TRIVIAL, class K, class I, class Eq, class FirstIt, class LenIt, class NumIt>
struct span_behaviour {
  using key_type = K;
  using value_type = no_value;
  using aggregate = run_span<I>;
  using op_type = span_op;
  using index_type = I; // the runs' indices
  static constexpr bool with_values = false, stores_values = false, uses_prev_head = NON_TRIVIAL;
  static constexpr int staged_arrays = 2; // firsts, lengths
  using staged0 = std::conditional_t<NON_TRIVIAL, I, K>;
  using staged1 = I;
  Eq eq;
  FirstIt firsts;
  LenIt lengths;
  NumIt num_runs;
  CARRY_HD op_type scan_op() const { return {}; }
  CARRY_HD FirstIt out0() const { return firsts; }
  CARRY_HD LenIt out1() const { return lengths; }
  /// The thread's marked items: run starts, or second items (not a start, the item before one: bit j-1,
  /// or the item before the thread's first for j = 0).
  template <int ITEMS>
  CARRY_HD static unsigned marks(const keyed_thread<K, no_value, ITEMS>& t) {
    if constexpr (NON_TRIVIAL)
      return ~t.heads & ((t.heads << 1) | (t.prev_head ? 1u : 0u)) & t.live;
    else
      return t.heads;
  }
  template <int ITEMS>
  CARRY_HD aggregate reduce(const keyed_thread<K, no_value, ITEMS>& t) const {
    return {static_cast<I>(bit_count(marks(t))),
            t.heads != 0 ? static_cast<I>(t.first + top_bit(t.heads)) : I{0}};
  }
  /// One pass over the items: a run's start is the latest head (or the carry-in's), its index the marks
  /// so far less one. run_length_encode puts a run's first item at its head and its length at its end;
  /// non_trivial_runs both at the end of a run longer than one (an end that is no head). A thread's
  /// puts to an array take consecutive indices from count - 1 (an end before the thread's first mark:
  /// the carry-in's run) or count on.
  template <int ITEMS, class Sink>
  CARRY_HD void emit(const keyed_thread<K, no_value, ITEMS>& t, const tile_prefix<aggregate>& carry,
                     no_value (&)[ITEMS], Sink& sink) const {
    const unsigned m = marks(t);
    const I count = carry.valid ? carry.value.count : I{0};
    const unsigned closing = NON_TRIVIAL ? t.ends & ~t.heads : t.ends; // the ends that put an output
    const unsigned first_close = closing & (0u - closing);
    const std::int64_t close_lo =
        static_cast<std::int64_t>(count) - ((m & detail::upto_bit(first_close)) != 0 ? 0 : 1);
    if constexpr (NON_TRIVIAL) {
      sink.template span<0>(close_lo, bit_count(closing));
    } else {
      sink.template span<0>(static_cast<std::int64_t>(count), bit_count(t.heads));
    }
    sink.template span<1>(close_lo, bit_count(closing));
    I at = static_cast<I>(count - 1); // the index of the latest mark's run (wraps below 0 until the first)
    I start = carry.valid ? carry.value.start : I{0};
    const I first = static_cast<I>(t.first);
    auto step = [&](int j) {
      if ((m >> j) & 1u) ++at;
      if ((t.heads >> j) & 1u) {
        start = static_cast<I>(first + j);
        if constexpr (!NON_TRIVIAL) sink.template put<0>(static_cast<std::int64_t>(at), t.keys[j]);
      }
      if ((closing >> j) & 1u) {
        const I length = static_cast<I>(first + j - start + 1);
        if constexpr (NON_TRIVIAL) sink.template put<0>(static_cast<std::int64_t>(at), start);
        sink.template put<1>(static_cast<std::int64_t>(at), length);
      }
    };
    detail::for_live_items<ITEMS>(t.live, step);
    if (t.last >= t.first && t.last < t.first + ITEMS) *num_runs = static_cast<I>(count + bit_count(m));
  }
};

// ---- select_unique_by_key: each run's first key and the value beside it ----

/// select_unique_by_key as a keyed agent's behaviour: run starts counted (run_span's count; its start
/// unused), a run's first key and its value put at its first item, at index (runs started so far) - 1;
/// the count at the input's last item.
template <class K, class V, class I, class Eq, class KeyOut, class ValOut, class NumIt>
struct unique_behaviour {
  using key_type = K;
  using value_type = V;
  using aggregate = run_span<I>;
  using op_type = span_op;
  using index_type = I; // the runs' indices
  static constexpr bool with_values = true, stores_values = false, uses_prev_head = false;
  static constexpr int staged_arrays = 2;        // keys, values
  static constexpr bool keys_by_position = true; // staged: a run start's tile position, its key at the flush
  using staged0 = K;
  using staged1 = V;
  Eq eq;
  KeyOut keys;
  ValOut values;
  NumIt num_selected;
  CARRY_HD op_type scan_op() const { return {}; }
  CARRY_HD KeyOut out0() const { return keys; }
  CARRY_HD ValOut out1() const { return values; }
  template <int ITEMS>
  CARRY_HD aggregate reduce(const keyed_thread<K, V, ITEMS>& t) const {
    return {static_cast<I>(bit_count(t.heads)), I{0}};
  }
  template <int ITEMS, class Sink>
  CARRY_HD void emit(const keyed_thread<K, V, ITEMS>& t, const tile_prefix<aggregate>& carry, V (&)[ITEMS],
                     Sink& sink) const {
    const I count = carry.valid ? carry.value.count : I{0};
    sink.template span<0>(static_cast<std::int64_t>(count), bit_count(t.heads));
    sink.template span<1>(static_cast<std::int64_t>(count), bit_count(t.heads));
    I at = static_cast<I>(count - 1);
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j) // heads are live items
      if ((t.heads >> j) & 1u) {
        ++at;
        sink.template put_key<0>(static_cast<std::int64_t>(at), t, j);
        sink.template put<1>(static_cast<std::int64_t>(at), t.values[j]);
      }
    if (t.last >= t.first && t.last < t.first + ITEMS)
      *num_selected = static_cast<I>(count + bit_count(t.heads));
  }
};

// ---- select_unique_by_key's other forms: the compaction over (key, value) pairs ----

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
