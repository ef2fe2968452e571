// A CPU model of the engine's keyed agent: the input cut into threads of ITEMS items, each thread's
// keyed_thread (live items, run starts, run ends) built as the agent builds it, its aggregate folded by
// the call's behaviour, the carry-in a sequential fold of the earlier threads' aggregates, then emit.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include <carry/scan/detail/by_key.hpp>
#include <carry/scan/tile_prefix.hpp>

namespace carry_validate {

/// A sink that writes through to the behaviour's outputs and checks each put against the span the
/// thread declared for its array (consecutive indices from lo, exactly as many as declared): what the
/// agent's staged sink relies on. Throws std::logic_error on a put outside it.
template <class B>
struct checked_sink {
  const B& b;
  std::int64_t next[2] = {0, 0};
  int left[2] = {0, 0};
  template <int A>
  void span(std::int64_t lo, int count) {
    next[A] = lo;
    left[A] = count;
  }
  template <int A, class T>
  void put(std::int64_t i, const T& v) {
    if (left[A] <= 0 || i != next[A]) throw std::logic_error("keyed model: a put outside the thread's span");
    ++next[A];
    --left[A];
    carry::detail::direct_sink<B>{b}.template put<A>(i, v);
  }
  template <int A, class Thread>
  void put_key(std::int64_t i, const Thread& t, int j) {
    put<A>(i, t.keys[j]);
  }
  void done() const {
    if (left[0] != 0 || left[1] != 0)
      throw std::logic_error("keyed model: fewer puts than the span declared");
  }
};

/// Runs behaviour b over keys and values as the keyed agent would (any tile cut: the carry-in of a
/// thread is the fold of every earlier thread's aggregate); the run marks by the agent's mark_runs, with
/// its padding (past the end: the thread's first key); returns what b.emit gave per item (the scans'
/// values; other behaviours write through their own outputs, each put checked against its span).
template <int ITEMS, class B, class K, class V>
std::vector<V> run_keyed_model(const B& b, const std::vector<K>& keys, const std::vector<V>& values) {
  using A = typename B::aggregate;
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  std::vector<V> out(keys.size());
  carry::tile_prefix<A> carry{A{}, false};
  auto at = [&](std::int64_t g) { return keys[static_cast<std::size_t>(g)]; };
  for (std::int64_t f = 0; f < n; f += ITEMS) {
    carry::detail::keyed_thread<K, V, ITEMS> t{};
    t.first = f;
    t.last = n - 1;
    for (int j = 0; j < ITEMS; ++j) {
      t.keys[j] = f + j < n ? at(f + j) : at(f);
      t.values[j] = f + j < n ? values[static_cast<std::size_t>(f + j)] : V{};
    }
    carry::detail::mark_runs(t, n - f, f > 0 ? at(f - 1) : at(f), f + ITEMS < n ? at(f + ITEMS) : at(f),
                             b.eq);
    t.prev_head = f >= 1 && (f == 1 || !b.eq(at(f - 2), at(f - 1)));
    const A total = b.reduce(t);
    V r[ITEMS];
    checked_sink<B> sink{b};
    b.emit(t, carry, r, sink);
    sink.done();
    for (int j = 0; j < ITEMS && f + j < n; ++j) out[static_cast<std::size_t>(f + j)] = r[j];
    carry = {carry.valid ? b.scan_op()(carry.value, total) : total, true};
  }
  return out;
}

} // namespace carry_validate
