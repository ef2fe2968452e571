// A CPU model of the engine's keyed agent: the input cut into threads of ITEMS items, each thread's
// keyed_thread (live items, run starts, run ends) built as the agent builds it, its aggregate folded by
// the call's behaviour, the carry-in a sequential fold of the earlier threads' aggregates, then emit.
#pragma once

#include <cstdint>
#include <vector>

#include <carry/scan/detail/by_key.hpp>
#include <carry/scan/tile_prefix.hpp>

namespace carry_validate {

/// Runs behaviour b over keys and values as the keyed agent would (any tile cut: the carry-in of a
/// thread is the fold of every earlier thread's aggregate); returns what b.emit gave per item (the
/// scans' values; other behaviours write through their own outputs).
template <int ITEMS, class B, class K, class V>
std::vector<V> run_keyed_model(const B& b, const std::vector<K>& keys, const std::vector<V>& values) {
  using A = typename B::aggregate;
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  std::vector<V> out(keys.size());
  carry::tile_prefix<A> carry{A{}, false};
  for (std::int64_t f = 0; f < n; f += ITEMS) {
    carry::detail::keyed_thread<K, V, ITEMS> t{};
    t.first = f;
    t.last = n - 1;
    for (int j = 0; j < ITEMS && f + j < n; ++j) {
      const std::int64_t g = f + j;
      const auto i = static_cast<std::size_t>(g);
      t.keys[j] = keys[i];
      t.values[j] = values[i];
      t.live |= 1u << j;
      if (g == 0 || !b.eq(keys[i - 1], keys[i])) t.heads |= 1u << j;
      if (g == n - 1 || !b.eq(keys[i], keys[i + 1])) t.ends |= 1u << j;
    }
    t.prev_head = f >= 1 && (f == 1 || !b.eq(keys[static_cast<std::size_t>(f - 2)], keys[static_cast<std::size_t>(f - 1)]));
    const A total = b.reduce(t);
    V r[ITEMS];
    carry::detail::direct_sink<B> sink{b};
    b.emit(t, carry, r, sink);
    for (int j = 0; j < ITEMS && f + j < n; ++j) out[static_cast<std::size_t>(f + j)] = r[j];
    carry = {carry.valid ? b.scan_op()(carry.value, total) : total, true};
  }
  return out;
}

} // namespace carry_validate
