// Single-pass agent of the keyed calls (scans by key, reduce by key, run-length encoding): a tile of keys
// and values in registers, each item's run start and run end found from its neighbours, one aggregate a
// thread through the engine's block scan and look-back, then the call's outputs item by item.
#pragma once

#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../detail/by_key.hpp"
#include "../tile/tile_io.cuh"
#include "single_pass_agent.cuh"

namespace carry {
namespace detail {

// ---- the keyed single pass: keys (and values) of a tile in registers (blocked), neighbours through
// shared memory; a behaviour B folds a thread's items into its aggregate (B::reduce), and writes the
// outputs once the block scan and look-back give the thread's carry-in (B::emit). B: key_type,
// value_type, aggregate, op_type, with_values, eq (the key equality); emit gets the thread's items, the
// carry-in, and V results[ITEMS] that the agent stores to `out` when B::stores_values (a scan by key) ----
template <class Policy, bool CANONICAL, class B>
struct keyed_agent {
  using K = typename B::key_type;
  using V = typename B::value_type;
  using A = typename B::aggregate;
  using Op = typename B::op_type;
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = Policy::min_blocks;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int tile_items = block_threads * items;
  static_assert(items >= 2 && items <= 32, "carry: a keyed thread holds 2 to 32 items (32-bit masks)");
  using key_io = tile_io<K, block_threads, items, Policy::streaming>;
  using val_io = tile_io<V, block_threads, items, Policy::streaming>;
  using scan_t = block_scan<A, block_threads, block_scan_algorithm::coarsened, 1>;
  struct temp_storage {
    union {
      typename key_io::temp_storage keys;
      typename val_io::temp_storage values;
    } io;
    K firsts[block_threads], lasts[block_threads], penults[block_threads]; // each thread's edge keys
    typename scan_t::temp_storage scan;
    std::uint32_t tile_index;
  };

  template <class Source>
  __device__ static void consume(temp_storage& ts, const Source& in, const B& b, const tile_plan& plan, Op op,
                                 A init, const scan_state<A>& state, bool, bool vec_out) {
    // ---- take a ticket: tiles go out in the order blocks start ----
    const std::int64_t tile = lookback::block_ticket(ts.tile_index, state.counter);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    const std::int64_t base = plan.tile_base(tile);
    const int first = static_cast<int>(threadIdx.x) * items;
    keyed_thread<K, V, items> t;
    t.first = base + first;
    t.last = in.n - 1;

    // ---- keys (vectors where the pointer allows); each thread's edge keys to its neighbours ----
    key_io::load(ts.io.keys, in.keys + base, valid, in.vec_keys, t.keys, tile_items, K{});
    ts.firsts[threadIdx.x] = t.keys[0];
    ts.lasts[threadIdx.x] = t.keys[items - 1];
    ts.penults[threadIdx.x] = t.keys[items - 2];
    K before{}, before2{}, after{}; // the keys around the tile: read by the threads at its edges
    if (threadIdx.x == 0) {
      if (base > 0) before = in.keys[base - 1];
      if (base > 1) before2 = in.keys[base - 2];
    }
    if (threadIdx.x == block_threads - 1 && base + tile_items < in.n) after = in.keys[base + tile_items];
    __syncthreads();
    const K prev = threadIdx.x > 0 ? ts.lasts[threadIdx.x - 1] : before;
    const K prev2 = threadIdx.x > 0 ? ts.penults[threadIdx.x - 1] : before2;
    const K next = threadIdx.x + 1 < block_threads ? ts.firsts[threadIdx.x + 1] : after;

    // ---- run starts and ends ----
    t.live = t.heads = t.ends = 0;
    CARRY_UNROLL
    for (int j = 0; j < items; ++j) {
      if (first + j >= valid) continue;
      const std::int64_t g = t.first + j;
      const bool head = g == 0 || !static_cast<bool>(b.eq(j == 0 ? prev : t.keys[j - 1], t.keys[j]));
      const bool end = g == t.last || !static_cast<bool>(b.eq(t.keys[j], j + 1 < items ? t.keys[j + 1] : next));
      t.live |= 1u << j;
      t.heads |= head ? 1u << j : 0u;
      t.ends |= end ? 1u << j : 0u;
    }
    t.prev_head = t.first >= 1 && (t.first == 1 || !static_cast<bool>(b.eq(prev2, prev)));

    // ---- values (the io buffer is free again: every warp passed the barrier above) ----
    if constexpr (B::with_values)
      val_io::load(ts.io.values, in.values + base, valid, in.vec_values, t.values, tile_items, V{});

    // ---- the thread's aggregate; block scan, warp 0 publishes and looks back ----
    A totals[1] = {b.reduce(t)};
    A aggregate;
    auto get_prefix = scan_tile_prefix<Policy::lookback_delay_ns, false, CANONICAL>(state, tile, last, op, init);
    const tile_prefix<A> carry = scan_t(ts.scan).thread_carry_with_callback(totals, op, get_prefix, aggregate);

    // ---- the outputs ----
    V results[items];
    b.emit(t, carry, results);
    if constexpr (B::stores_values) {
      using Out = typename B::output_type;
      if constexpr (std::is_same<Out, V*>::value) {
        val_io::store(ts.io.values, b.out + base, valid, vec_out, results, tile_items);
      } else {
        CARRY_UNROLL
        for (int j = 0; j < items; ++j)
          if (first + j < valid) b.out[t.first + j] = results[j];
      }
    }
  }
};

} // namespace detail
} // namespace carry
