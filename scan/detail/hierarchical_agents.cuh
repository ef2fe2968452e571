// Agents of the hierarchical pass (upsweep, spine, downsweep) and of the reduction's spine.
#pragma once

#include "../agent/agent_common.cuh"

namespace carry {
namespace detail {

/// A tile of Policy from any input iterator, for a fold (padding is never folded): pointers of T by the
/// tile loader's pointer path (vectors where `vec`), other iterators element by element, converted.
template <class Policy, class T, class InIt>
__device__ void load_any(typename tile_types<Policy, T>::io::temp_storage& ts, InIt tile_in, int valid,
                         bool vec, T (&items)[Policy::items_per_thread]) {
  using io = typename tile_types<Policy, T>::io;
  if constexpr (std::is_convertible<InIt, const T*>::value)
    io::load(ts, static_cast<const T*>(tile_in), valid, vec, items, Policy::tile_items);
  else
    io::load(ts, tile_in, valid, vec, items, Policy::tile_items, T{});
}

// ---- hierarchical pass, phase 1: upsweep — each tile reduced to its total ----
template <class Policy, class T, class Op>
struct upsweep_agent {
  using tt = tile_types<Policy, T>;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::reduce_t::temp_storage reduce;
  };
  /// Any input iterator (items converted to T as they load; pointers of T: vectors where `vec`).
  template <class InIt>
  __device__ static void consume(temp_storage& ts, InIt in, T* totals, const tile_plan& plan, Op op, bool vec,
                                 std::int64_t tile) {
    const int valid = plan.valid_items(tile);
    T items[tt::items];
    load_any<Policy>(ts.io, in + plan.tile_base(tile), valid, vec, items);
    T total = reduce_loaded_tile<Policy>(ts.reduce, items, valid, op);
    if (threadIdx.x == 0) totals[tile] = total;
  }
};

// ---- hierarchical pass, phase 2: spine — one block scans the tile totals, looping over chunks ----
// (It runs in the last upsweep block to finish, after a fence: see upsweep_kernel.)
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
      carry = extend(carry, aggregate, op);
      __syncthreads(); // the block's temp storage is reused by the next chunk
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

// ---- reduction: the spine folds the tile totals in order ----
template <class Policy, class T, class Op>
struct reduce_spine_agent {
  using tt = tile_types<Policy, T>;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::reduce_t::temp_storage reduce;
  };
  /// Folds `num_items` items of any input iterator (the tile totals, or a one-tile input itself) onto
  /// init, in order, into *out (any output iterator); pointers of T load as vectors where aligned.
  template <class InIt, class OutIt>
  __device__ static void consume(temp_storage& ts, InIt in, std::int64_t num_items, OutIt out, Op op,
                                 T init) {
    const tile_plan chunks = plan_tiles(num_items, tt::tile_items);
    bool vec = false;
    if constexpr (std::is_convertible<InIt, const T*>::value)
      vec = vector_aligned<T, tt::items>(static_cast<const T*>(in));
    T acc = init;
    for (std::int64_t c = 0; c < chunks.num_tiles; ++c) {
      const int valid = chunks.valid_items(c);
      T items[tt::items];
      load_any<Policy>(ts.io, in + chunks.tile_base(c), valid, vec, items);
      T total = reduce_loaded_tile<Policy>(ts.reduce, items, valid, op);
      if (threadIdx.x == 0) acc = op(acc, total);
      __syncthreads();
    }
    if (threadIdx.x == 0) *out = acc;
  }
};

} // namespace detail
} // namespace carry
