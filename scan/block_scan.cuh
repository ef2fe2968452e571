// Block-level scan facade: one block_scan type over five swappable algorithms (CUB's BlockScan shape).
#pragma once

#include "block_scan_algorithm.hpp"
#include "block/blelloch.cuh"
#include "block/brent_kung.cuh"
#include "block/coarsened.cuh"
#include "block/kogge_stone.cuh"
#include "block/kogge_stone_double_buffer.cuh"
#include "tile_prefix.hpp"

namespace carry {

namespace detail {
template <class T, int B, int I, block_scan_algorithm A, warp_scan_shape W>
struct block_scan_core;
template <class T, int B, int I, warp_scan_shape W>
struct block_scan_core<T, B, I, block_scan_algorithm::kogge_stone, W> {
  using type = block::kogge_stone<T, B, I>;
};
template <class T, int B, int I, warp_scan_shape W>
struct block_scan_core<T, B, I, block_scan_algorithm::kogge_stone_double_buffer, W> {
  using type = block::kogge_stone_double_buffer<T, B, I>;
};
template <class T, int B, int I, warp_scan_shape W>
struct block_scan_core<T, B, I, block_scan_algorithm::brent_kung, W> {
  using type = block::brent_kung<T, B, I>;
};
template <class T, int B, int I, warp_scan_shape W>
struct block_scan_core<T, B, I, block_scan_algorithm::blelloch, W> {
  using type = block::blelloch<T, B, I>;
};
template <class T, int B, int I, warp_scan_shape W>
struct block_scan_core<T, B, I, block_scan_algorithm::coarsened, W> {
  using type = block::coarsened<T, B, I, W>;
};
} // namespace detail

/// Block-wide scan of BLOCK_THREADS x ITEMS values held in registers, blocked (thread t holds tile
/// items t*ITEMS .. t*ITEMS+ITEMS-1). Any associative operator, commutative or not (operands are always
/// combined as earlier (+) later); any trivially copyable T; any block size. Reusing temp_storage needs a
/// __syncthreads() in between, as in CUB.
///
///   4 threads x 2 items, sum:  [3 1 | 7 0 | 4 1 | 6 3]
///   inclusive_scan  -> [3 4 | 11 11 | 15 16 | 22 25]
///   exclusive_scan(init 0) -> [0 3 | 4 11 | 11 15 | 16 22]
/// WARPS: the coarsened algorithm's warp scan (warp_scan_shape); the other algorithms have their own.
template <class T, int BLOCK_THREADS, block_scan_algorithm ALGORITHM = block_scan_algorithm::coarsened,
          int ITEMS = 1, warp_scan_shape WARPS = warp_scan_shape::brent_kung>
class block_scan {
  using core = typename detail::block_scan_core<T, BLOCK_THREADS, ITEMS, ALGORITHM, WARPS>::type;

public:
  static constexpr int tile_items = BLOCK_THREADS * ITEMS;
  struct temp_storage {
    typename core::temp_storage core;
    T prefix;
    bool prefix_valid;
  };

  __device__ explicit block_scan(temp_storage& ts) : ts_(ts) {}

  template <class Op>
  __device__ void inclusive_scan(T (&items)[ITEMS], Op op) {
    T aggregate;
    scan<false>(items, op, tile_prefix<T>{T{}, false}, aggregate);
  }
  template <class Op>
  __device__ void inclusive_scan(T (&items)[ITEMS], Op op, T& aggregate) {
    scan<false>(items, op, tile_prefix<T>{T{}, false}, aggregate);
  }
  template <class Op>
  __device__ void exclusive_scan(T (&items)[ITEMS], T init, Op op) {
    T aggregate;
    scan<true>(items, op, tile_prefix<T>{init, true}, aggregate);
  }
  template <class Op>
  __device__ void exclusive_scan(T (&items)[ITEMS], T init, Op op, T& aggregate) {
    scan<true>(items, op, tile_prefix<T>{init, true}, aggregate);
  }

  /// Scan with a carry-in known to every thread before the scan (the hierarchical downsweep).
  /// `aggregate` is the tile's own total, without the carry-in.
  template <bool EXCLUSIVE, class Op>
  __device__ void scan(T (&items)[ITEMS], Op op, tile_prefix<T> carry, T& aggregate) {
    T thread_prefix;
    core::scan(ts_.core, items, op, thread_prefix, aggregate);
    apply<EXCLUSIVE>(items, op, thread_prefix, carry);
  }

  /// Scan whose carry-in depends on the tile's aggregate (the single-pass look-back): warp 0 calls
  /// `get_prefix(aggregate)`, lane 0's answer is broadcast to the block.
  template <bool EXCLUSIVE, class Op, class PrefixFn>
  __device__ void scan_with_callback(T (&items)[ITEMS], Op op, PrefixFn& get_prefix, T& aggregate) {
    T thread_prefix;
    const tile_prefix<T> carry = scan_and_carry_in(items, op, get_prefix, aggregate, thread_prefix);
    apply<EXCLUSIVE>(items, op, thread_prefix, carry);
  }

  /// As scan_with_callback, for callers that fix up their items themselves (the staged single-pass
  /// tile keeps them in shared memory and passes only each thread's total): returns what this thread's
  /// items are combined with, the tile's carry-in (+) the totals of the threads before it, or none
  /// (thread 0 of a tile without carry-in). Needs a core whose items come back thread-local inclusive.
  template <class Op, class PrefixFn>
  __device__ tile_prefix<T> thread_carry_with_callback(T (&items)[ITEMS], Op op, PrefixFn& get_prefix,
                                                       T& aggregate) {
    static_assert(core::thread_local_result, "carry: this block scan leaves block-inclusive items");
    T thread_prefix;
    const tile_prefix<T> carry = scan_and_carry_in(items, op, get_prefix, aggregate, thread_prefix);
    return thread_carry(op, thread_prefix, carry);
  }

private:
  // ---- core scan; warp 0 asks get_prefix for the tile's carry-in, every thread reads it ----
  template <class Op, class PrefixFn>
  __device__ tile_prefix<T> scan_and_carry_in(T (&items)[ITEMS], Op op, PrefixFn& get_prefix, T& aggregate,
                                              T& thread_prefix) {
    core::scan(ts_.core, items, op, thread_prefix, aggregate);
    if (threadIdx.x < detail::warp_threads) {
      tile_prefix<T> p = get_prefix(aggregate);
      if (threadIdx.x == 0) {
        ts_.prefix = p.value;
        ts_.prefix_valid = p.valid;
      }
    }
    __syncthreads();
    return {ts_.prefix, ts_.prefix_valid};
  }

  /// carry (+) thread_prefix where present (thread 0 has no thread prefix).
  template <class Op>
  __device__ static tile_prefix<T> thread_carry(Op op, const T& thread_prefix, const tile_prefix<T>& carry) {
    if (threadIdx.x == 0) return carry;
    return extend(carry, thread_prefix, op);
  }

  // ---- fix-up: fold the tile's carry-in and the thread's prefix into the values ----
  template <bool EXCLUSIVE, class Op>
  __device__ void apply(T (&items)[ITEMS], Op op, const T& thread_prefix, const tile_prefix<T>& carry) {
    const bool has_thread_prefix = threadIdx.x > 0;
    if constexpr (core::thread_local_result) {
      // items: thread-local inclusive; their carry is carry (+) thread_prefix, where present.
      apply_carry<EXCLUSIVE>(items, thread_carry(op, thread_prefix, carry), op);
    } else {
      // items: block-inclusive already.
      if constexpr (EXCLUSIVE) {
        T prev = has_thread_prefix ? op(carry.value, thread_prefix) : carry.value;
        CARRY_UNROLL
        for (int j = 0; j < ITEMS; ++j) {
          T local = items[j];
          items[j] = prev;
          prev = op(carry.value, local);
        }
      } else {
        apply_carry<false>(items, carry, op);
      }
    }
  }

  temp_storage& ts_;
};

} // namespace carry
