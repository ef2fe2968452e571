// Per-tile agents: what one block does with one tile in each pass (upsweep, spine, downsweep, single pass).
#pragma once

#include "../block_reduce.cuh"
#include "../block_scan.cuh"
#include "look_back.cuh"
#include "plan.hpp"
#include "tile_io.cuh"

namespace carry {
namespace detail {

template <class Policy, class T>
struct tile_types {
  static constexpr int threads = Policy::block_threads;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int tile_items = Policy::tile_items;
  using scan_t = block_scan<T, threads, Policy::algorithm, items>;
  using reduce_t = block_reduce<T, threads, items>;
  using io = tile_io<T, threads, items, Policy::streaming>;
};

/// Folds the first `valid` items of a loaded tile into one value (valid in thread 0), in order.
template <class Policy, class T, class Op>
__device__ T reduce_loaded_tile(typename tile_types<Policy, T>::reduce_t::temp_storage& ts,
                                T (&items)[Policy::items_per_thread], int valid, Op op) {
  using tt = tile_types<Policy, T>;
  if (valid == tt::tile_items) return typename tt::reduce_t(ts).reduce(items, op);
  // A partial tile: the padding must not enter a reduction. Fold live items into item 0 and let the
  // dead threads (a suffix of the block, as the arrangement is blocked) carry copies that are dropped.
  const int first = threadIdx.x * tt::items;
  T v = items[0];
  CARRY_UNROLL
  for (int j = 1; j < tt::items; ++j)
    if (first + j < valid) v = op(v, items[j]);
  return typename tt::reduce_t(ts).reduce_live(v, op, (valid + tt::items - 1) / tt::items);
}

// ---- hierarchical pass, phase 1: upsweep — each tile reduced to its total ----
template <class Policy, class T, class Op>
struct upsweep_agent {
  using tt = tile_types<Policy, T>;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::reduce_t::temp_storage reduce;
  };
  __device__ static void consume(temp_storage& ts, const T* in, T* totals, const tile_plan& plan, Op op, bool vec,
                                 std::int64_t tile) {
    const int valid = plan.valid_items(tile);
    T items[tt::items];
    tt::io::load(ts.io, in + plan.tile_base(tile), valid, vec, items, tt::tile_items);
    T total = reduce_loaded_tile<Policy>(ts.reduce, items, valid, op);
    if (threadIdx.x == 0) totals[tile] = total;
  }
};

// ---- hierarchical pass, phase 2: spine — one block scans the tile totals, looping over chunks ----
template <class Policy, class T, class Op>
struct spine_agent {
  using tt = tile_types<Policy, T>;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::scan_t::temp_storage scan;
  };
  __device__ static void consume(temp_storage& ts, T* totals, std::int64_t num_totals, Op op) {
    const tile_plan chunks = plan_tiles(num_totals, tt::tile_items);
    const bool vec = vector_aligned<T, tt::items>(totals);
    tile_prefix<T> carry{T{}, false};
    for (std::int64_t c = 0; c < chunks.num_tiles; ++c) {
      const int valid = chunks.valid_items(c);
      T items[tt::items];
      tt::io::load(ts.io, totals + chunks.tile_base(c), valid, vec, items, tt::tile_items);
      T aggregate;
      typename tt::scan_t(ts.scan).template scan<false>(items, op, carry, aggregate);
      tt::io::store(ts.io, totals + chunks.tile_base(c), valid, vec, items, tt::tile_items);
      carry = tile_prefix<T>{carry.valid ? op(carry.value, aggregate) : aggregate, true};
      __syncthreads();  // the block's temp storage is reused by the next chunk
    }
  }
};

// ---- hierarchical pass, phase 3: downsweep — each tile scanned with its carry-in ----
// Also the single-tile path (tile 0 of a one-tile input, no totals).
template <class Policy, bool EXCLUSIVE, class T, class Op>
struct downsweep_agent {
  using tt = tile_types<Policy, T>;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::scan_t::temp_storage scan;
  };
  __device__ static void consume(temp_storage& ts, const T* in, T* out, const T* scanned_totals,
                                 const tile_plan& plan, Op op, T init, bool vec_in, bool vec_out,
                                 std::int64_t tile) {
    const int valid = plan.valid_items(tile);
    tile_prefix<T> carry;
    if constexpr (EXCLUSIVE) {
      carry = {tile > 0 ? op(init, scanned_totals[tile - 1]) : init, true};
    } else {
      carry = {tile > 0 ? scanned_totals[tile - 1] : init, tile > 0};
    }
    T items[tt::items];
    tt::io::load(ts.io, in + plan.tile_base(tile), valid, vec_in, items, tt::tile_items);
    T aggregate;
    typename tt::scan_t(ts.scan).template scan<EXCLUSIVE>(items, op, carry, aggregate);
    tt::io::store(ts.io, out + plan.tile_base(tile), valid, vec_out, items, tt::tile_items);
  }
};

// ---- single pass: scan the tile, publish its aggregate, look back, publish its inclusive prefix ----
template <class Policy, bool EXCLUSIVE, bool DETERMINISTIC, class T, class Op>
struct single_pass_agent {
  using tt = tile_types<Policy, T>;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::scan_t::temp_storage scan;
    std::uint32_t tile;
  };
  __device__ static void consume(temp_storage& ts, const T* in, T* out, const tile_plan& plan, Op op, T init,
                                 const single_pass_state<T>& state, std::uint32_t epoch, bool vec_in,
                                 bool vec_out) {
    // ---- take a ticket: tiles go out in the order blocks start ----
    if (threadIdx.x == 0) ts.tile = take_ticket(state.counter, epoch);
    __syncthreads();
    const std::int64_t tile = ts.tile;
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    T items[tt::items];
    tt::io::load(ts.io, in + plan.tile_base(tile), valid, vec_in, items, tt::tile_items);
    // ---- scan; warp 0 meanwhile publishes and looks back ----
    auto get_prefix = [&](const T& aggregate) -> tile_prefix<T> {
      const bool leader = threadIdx.x == 0;
      if (tile == 0) {
        const T value = EXCLUSIVE ? op(init, aggregate) : aggregate;
        if (leader && !last) state.status.publish(0, DETERMINISTIC ? state_aggregate : state_prefix, value, epoch);
        return {init, EXCLUSIVE};
      }
      if (leader && !last) state.status.publish(tile, state_aggregate, aggregate, epoch);
      if constexpr (DETERMINISTIC) {
        T exclusive = look_back_deterministic<T>(state.status, state.prefixes, tile, epoch, op);
        if (leader && !last && tile % warp_threads == warp_threads - 1)
          state.prefixes.publish(tile, state_prefix, op(exclusive, aggregate), epoch);
        return {exclusive, true};
      } else {
        T exclusive = look_back<T>(state.status, tile, epoch, op);
        if (leader && !last) state.status.publish(tile, state_prefix, op(exclusive, aggregate), epoch);
        return {exclusive, true};
      }
    };
    T aggregate;
    typename tt::scan_t(ts.scan).template scan_with_callback<EXCLUSIVE>(items, op, get_prefix, aggregate);
    tt::io::store(ts.io, out + plan.tile_base(tile), valid, vec_out, items, tt::tile_items);
  }
};

// ---- reduction: the spine folds the tile totals in order ----
template <class Policy, class T, class Op>
struct reduce_spine_agent {
  using tt = tile_types<Policy, T>;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::reduce_t::temp_storage reduce;
  };
  __device__ static void consume(temp_storage& ts, const T* totals, std::int64_t num_totals, T* out, Op op, T init) {
    const tile_plan chunks = plan_tiles(num_totals, tt::tile_items);
    const bool vec = vector_aligned<T, tt::items>(totals);
    T acc = init;
    for (std::int64_t c = 0; c < chunks.num_tiles; ++c) {
      const int valid = chunks.valid_items(c);
      T items[tt::items];
      tt::io::load(ts.io, totals + chunks.tile_base(c), valid, vec, items, tt::tile_items);
      T total = reduce_loaded_tile<Policy>(ts.reduce, items, valid, op);
      if (threadIdx.x == 0) acc = op(acc, total);
      __syncthreads();
    }
    if (threadIdx.x == 0) *out = acc;
  }
};

}  // namespace detail
}  // namespace carry
