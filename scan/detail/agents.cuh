// Per-tile agents: what one block does with one tile in each pass (upsweep, spine, downsweep, single pass).
#pragma once

#include <type_traits>

#include "../block_reduce.cuh"
#include "../block_scan.cuh"
#include "../operators.hpp"
#include "look_back.cuh"
#include "pass_choice.hpp"
#include "plan.hpp"
#include "staged_tile.cuh"
#include "tile_io.cuh"
#include "warp_striped.cuh"

namespace carry {
namespace detail {

/// A diagnostic hook (carry_tune's `trace`, NOTES.md step 29): a policy with
///   __device__ static long long trace_now();
///   __device__ static void trace(std::int64_t tile, int event, long long t);
/// gets each single-pass staged tile's timeline from thread 0 (events: 0 block start, 1 ticket taken,
/// 2 aggregate known, 3 carry-in known, 4 stores issued). No shipped policy has one.
template <class P, class = void>
struct is_traced : std::false_type {};
template <class P>
struct is_traced<P, std::void_t<decltype(P::trace(std::int64_t{}, 0, P::trace_now()))>> : std::true_type {};

/// Number of SM identifiers (at least the SM count; 132 on the H100).
__device__ __forceinline__ unsigned sm_ids() {
  unsigned n;
  asm("mov.u32 %0, %%nsmid;" : "=r"(n));
  return n;
}

template <class Policy, class T>
struct tile_types {
  static constexpr int threads = Policy::block_threads;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int tile_items = Policy::tile_items;
  using scan_t = block_scan<T, threads, Policy::algorithm, items>;
  using reduce_t = block_reduce<T, threads, items>;
  using io = tile_io<T, threads, items, Policy::streaming, Policy::warp_transpose>;
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
  __device__ static void consume(temp_storage& ts, const T* in, T* totals, const tile_plan& plan, Op op,
                                 bool vec, std::int64_t tile) {
    const int valid = plan.valid_items(tile);
    T items[tt::items];
    tt::io::load(ts.io, in + plan.tile_base(tile), valid, vec, items, tt::tile_items);
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
      carry = tile_prefix<T>{carry.valid ? op(carry.value, aggregate) : aggregate, true};
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

// ---- packed bytes: sums of 1-byte integers, four to a 32-bit word (the staged tile's full tiles) ----

/// Whether T under Op is a sum of 1-byte integers (mod 256), which the staged tile does four at a time.
template <class T, class Op>
constexpr bool packed_byte_sum() {
  return sizeof(T) == 1 && std::is_integral<T>::value && std::is_same<Op, carry::sum>::value;
}

/// Per-byte a + b (mod 256) of four bytes at once: no carry crosses a byte.
__device__ __forceinline__ unsigned add_bytes(unsigned a, unsigned b) {
  return ((a & 0x7f7f7f7fu) + (b & 0x7f7f7f7fu)) ^ ((a ^ b) & 0x80808080u);
}
/// Inclusive prefix sums of the four bytes of w, plus `carry` added to each.
__device__ __forceinline__ unsigned scan_bytes(unsigned w, unsigned carry) {
  w = add_bytes(w, w << 8);
  w = add_bytes(w, w << 16);
  return add_bytes(w, carry * 0x01010101u);
}

/// A single-pass tile's carry-in, given its aggregate: publishes the aggregate, looks back
/// (canonically or not), publishes the inclusive prefix. Called by all of warp 0; lane 0's answer counts.
template <int DELAY_NS, bool EXCLUSIVE, bool CANONICAL, class T, class Op>
__device__ tile_prefix<T> resolve_tile_prefix(const T& aggregate, std::int64_t tile, bool last, Op op, T init,
                                              const single_pass_state<T>& state, epoch_t epoch) {
  const bool leader = threadIdx.x == 0;
  if (tile == 0) {
    const T value = published_aggregate<EXCLUSIVE>(aggregate, 0, op, init);
    if (leader && !last) state.status.publish(0, CANONICAL ? state_aggregate : state_prefix, value, epoch);
    return {init, EXCLUSIVE};
  }
  if (leader && !last) state.status.publish(tile, state_aggregate, aggregate, epoch);
  if constexpr (CANONICAL) {
    T exclusive = look_back_deterministic<DELAY_NS, T>(state.status, state.prefixes, tile, epoch, op);
    if (leader && !last && tile % warp_threads == warp_threads - 1) // a group boundary: slot = group
      state.prefixes.publish(tile / warp_threads, state_prefix, op(exclusive, aggregate), epoch);
    return {exclusive, true};
  } else {
    T exclusive = look_back<DELAY_NS, T>(state.status, tile, epoch, op);
    if (leader && !last) state.status.publish(tile, state_prefix, op(exclusive, aggregate), epoch);
    return {exclusive, true};
  }
}

// ---- single pass: scan the tile, publish its aggregate, look back, publish its inclusive prefix ----
template <class Policy, bool EXCLUSIVE, bool CANONICAL, class T, class Op>
struct single_pass_agent {
  using tt = tile_types<Policy, T>;
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = 1;
  struct temp_storage {
    typename tt::io::temp_storage io;
    typename tt::scan_t::temp_storage scan;
    std::uint32_t tile;
  };

  __device__ static void consume(temp_storage& ts, const T* in, T* out, const tile_plan& plan, Op op, T init,
                                 const single_pass_state<T>& state, epoch_t epoch, bool vec_in,
                                 bool vec_out) {
    // ---- take a ticket: tiles go out in the order blocks start ----
    const std::int64_t tile = block_ticket(ts.tile, state.counter, epoch, plan.num_tiles);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    T items[tt::items];
    tt::io::load(ts.io, in + plan.tile_base(tile), valid, vec_in, items, tt::tile_items);
    // ---- scan; warp 0 meanwhile publishes and looks back ----
    auto get_prefix = [&](const T& aggregate) {
      return resolve_tile_prefix<Policy::lookback_delay_ns, EXCLUSIVE, CANONICAL>(aggregate, tile, last, op,
                                                                                  init, state, epoch);
    };
    T aggregate;
    typename tt::scan_t(ts.scan).template scan_with_callback<EXCLUSIVE>(items, op, get_prefix, aggregate);
    tt::io::store(ts.io, out + plan.tile_base(tile), valid, vec_out, items, tt::tile_items);
  }
};

// ---- single pass, tile staged in shared memory: the same scan as single_pass_agent, bit for bit, but
// the items wait out the look-back in shared memory instead of registers, so more blocks fit per SM
// (1-byte sums: packed-byte arithmetic on full tiles) ----
template <class Policy, bool EXCLUSIVE, bool CANONICAL, class T, class Op>
struct staged_agent {
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = Policy::min_blocks;
  static constexpr int items = Policy::items_per_thread;
  using tile_t = staged_tile<T, block_threads, items, Policy::streaming>;
  using scan_t = block_scan<T, block_threads, block_scan_algorithm::coarsened, 1>; // over thread totals
  /// Sums of 1-byte integers on full tiles: running sums and the carry-in four bytes per operation.
  static constexpr bool packed = packed_byte_sum<T, Op>();
  struct temp_storage {
    typename tile_t::temp_storage tile;
    typename scan_t::temp_storage scan;
    std::uint32_t tile_index;
  };

  __device__ static void consume(temp_storage& ts, const T* in, T* out, const tile_plan& plan, Op op, T init,
                                 const single_pass_state<T>& state, epoch_t epoch, bool vec_in,
                                 bool vec_out) {
    constexpr bool traced = is_traced<Policy>::value;
    long long started = 0;
    if constexpr (traced) started = Policy::trace_now();
    // ---- warm the L2 with the tile launch order would give this block, while the ticket is out
    // (NOTES.md step 32: the ticket's round trip no longer delays the tile's loads) ----
    if constexpr (Policy::prefetch != 0)
      if (prefetch_guessed_tile(Policy::prefetch, blockIdx.x, plan.num_tiles,
                                std::int64_t{sm_ids()} * min_blocks, vec_in))
        tile_t::prefetch_l2(in + plan.tile_base(blockIdx.x));
    // ---- take a ticket: tiles go out in the order blocks start ----
    const std::int64_t tile = block_ticket(ts.tile_index, state.counter, epoch, plan.num_tiles);
    if constexpr (traced)
      if (threadIdx.x == 0) Policy::trace(tile, 0, started), Policy::trace(tile, 1, Policy::trace_now());
    const int valid = plan.valid_items(tile);
    const bool full = valid == tile_t::tile_items;
    const bool last = tile == plan.num_tiles - 1;
    const int first = static_cast<int>(threadIdx.x) * items;
    const int live = valid - first; // the thread's items that exist (>= items on full tiles)

    // ---- load straight into shared memory ----
    // Threads past the end of a partial tile (the last tile, whose aggregate is never published) carry
    // a copy of the tile's first input item as their total, read from global memory: in shared memory
    // it would race with thread 0 rewriting its run in phase 1 (or, on full tiles, with other warps'
    // asynchronous copies). This block writes that item's output only after phase 2's barriers.
    T total{};
    if (full && vec_in) {
      tile_t::load_full(ts.tile, in + plan.tile_base(tile));
    } else {
      tile_t::load_items(ts.tile, in + plan.tile_base(tile), valid);
      if (live <= 0) total = in[plan.tile_base(tile)];
    }

    // ---- phase 1: the thread's total, a left fold of its items (as the register tile's scan); the
    // fold's running values stay in place (exclusive: shifted one item right), so that after the
    // look-back only the carry-in remains to be applied ----
    bool packed_tile = false; // a full tile of 1-byte sums: bytes summed four at a time (mod 256)
    if constexpr (packed) {
      packed_tile = full;
      if (packed_tile) {
        unsigned byte_carry = 0; // running byte sums in place; carry = the running sum's low byte
        CARRY_UNROLL
        for (int v = 0; v < tile_t::vcount; ++v) {
          uint4& slot = tile_t::own(ts.tile, v);
          unsigned w[4] = {slot.x, slot.y, slot.z, slot.w};
          CARRY_UNROLL
          for (int k = 0; k < 4; ++k) {
            const unsigned inclusive = scan_bytes(w[k], byte_carry);
            w[k] = EXCLUSIVE ? (inclusive << 8) | byte_carry : inclusive;
            byte_carry = inclusive >> 24;
          }
          slot = make_uint4(w[0], w[1], w[2], w[3]);
        }
        total = static_cast<T>(byte_carry);
      }
    }
    if (!packed_tile) {
      CARRY_UNROLL
      for (int v = 0; v < tile_t::vcount; ++v) {
        T x[tile_t::chunk_items];
        uint4 c = tile_t::own(ts.tile, v);
        memcpy(x, &c, sizeof(c));
        CARRY_UNROLL
        for (int e = 0; e < tile_t::chunk_items; ++e) {
          const int j = v * tile_t::chunk_items + e;
          if (j == 0) {
            if (live > 0) total = x[0];
          } else if (full || j < live) {
            const T before = total;
            total = op(total, x[e]);
            x[e] = EXCLUSIVE ? before : total;
          }
        }
        memcpy(&c, x, sizeof(c));
        tile_t::own(ts.tile, v) = c;
      }
    }
    // ---- phase 2: Brent-Kung over the totals; warp 0 publishes and looks back ----
    T totals[1] = {total};
    T aggregate;
    auto get_prefix = [&](const T& a) {
      if constexpr (traced)
        if (threadIdx.x == 0) Policy::trace(tile, 2, Policy::trace_now());
      const tile_prefix<T> p = resolve_tile_prefix<Policy::lookback_delay_ns, EXCLUSIVE, CANONICAL>(
          a, tile, last, op, init, state, epoch);
      if constexpr (traced)
        if (threadIdx.x == 0) Policy::trace(tile, 3, Policy::trace_now());
      return p;
    };
    const tile_prefix<T> carry =
        scan_t(ts.scan).thread_carry_with_callback(totals, op, get_prefix, aggregate);
    const T pre = carry.value;
    const bool has_pre = carry.valid;
    // ---- phase 3: out_j = pre (+) (x_0 .. x_j), applied as each warp drains its run (full tiles; the
    // owner's carry-in comes by shuffle) or in place before an element-wise store (other tiles) ----
    auto finish = [&](uint4 c, const T& p, bool hp, bool thread_first) {
      if constexpr (packed) {
        if (packed_tile) {
          const unsigned b = (hp ? static_cast<unsigned char>(p) : 0u) * 0x01010101u;
          return make_uint4(add_bytes(c.x, b), add_bytes(c.y, b), add_bytes(c.z, b), add_bytes(c.w, b));
        }
      }
      T x[tile_t::chunk_items];
      memcpy(x, &c, sizeof(c));
      CARRY_UNROLL
      for (int e = 0; e < tile_t::chunk_items; ++e) // exclusive scans always have a carry (init at least)
        x[e] = EXCLUSIVE && thread_first && e == 0 ? p : hp ? op(p, x[e]) : x[e];
      memcpy(&c, x, sizeof(c));
      return c;
    };
    if (full && vec_out) {
      // Only a tile's first thread can lack a carry-in (thread_carry), so an owner has one unless it is
      // lane 0 and lane 0 has none: one shuffle per warp instead of one per chunk.
      const bool lane0_has_pre = __shfl_sync(0xffffffffu, static_cast<int>(has_pre), 0) != 0;
      tile_t::store_full(ts.tile, out + plan.tile_base(tile), [&](const uint4& c, int owner, int v) {
        const T p = shfl_idx(0xffffffffu, pre, owner);
        return finish(c, p, owner != 0 || lane0_has_pre, v == 0);
      });
    } else {
      CARRY_UNROLL
      for (int v = 0; v < tile_t::vcount; ++v) {
        uint4& slot = tile_t::own(ts.tile, v);
        slot = finish(slot, pre, has_pre, v == 0);
      }
      tile_t::store_items(ts.tile, out + plan.tile_base(tile), valid);
    }
    if constexpr (traced)
      if (threadIdx.x == 0) Policy::trace(tile, 4, Policy::trace_now());
  }
};

// ---- small inputs: warp-striped tiles, one barrier a tile; up to gather_tiles tiles gather their
// predecessors' aggregates, more look back (small_mode) ----

template <class Policy, bool EXCLUSIVE, small_mode MODE, class T, class Op>
struct small_agent {
  static constexpr int block_threads = Policy::block_threads;
  static constexpr int min_blocks = 1;
  static constexpr int warps = Policy::block_threads / warp_threads;
  static constexpr bool ticketed = MODE == small_mode::look_back || MODE == small_mode::look_back_canonical;
  using seg_t = warp_segment<T, Policy::chunks, Policy::streaming>;
  struct temp_storage {
    T aggregates[warps];   // each warp's segment aggregate
    tile_prefix<T> prefix; // the tile's carry-in (gather, look-back)
    std::uint32_t tile;
  };

  __device__ static void consume(temp_storage& ts, const T* in, T* out, const tile_plan& plan, Op op, T init,
                                 const single_pass_state<T>& state, epoch_t epoch, bool vec_in,
                                 bool vec_out) {
    const int warp = static_cast<int>(threadIdx.x / warp_threads);
    const int lane = static_cast<int>(threadIdx.x % warp_threads);
    std::int64_t tile = blockIdx.x;
    if constexpr (ticketed) // ---- ticket: tiles go out in the order blocks start ----
      tile = block_ticket(ts.tile, state.counter, epoch, plan.num_tiles);
    const std::int64_t base = plan.tile_base(tile);
    const int valid = plan.valid_items(tile);
    const int seg_valid = valid - warp * seg_t::items;

    // ---- phase 1: load the warp's segment ----
    seg_t seg;
    seg.load(in + base + warp * seg_t::items, seg_valid, vec_in, seg_valid < seg_t::items ? in[base] : T{});
    // ---- phase 2: scan across lanes; warp aggregates meet in shared memory ----
    const T aggregate = seg.reduce(op);
    if (lane == 0) ts.aggregates[warp] = aggregate;
    __syncthreads();

    // ---- phase 3: the tile's carry-in ----
    tile_prefix<T> carry{init, EXCLUSIVE};
    if constexpr (MODE == small_mode::gather) {
      if (warp == 0) {
        if (lane == 0 && tile != plan.num_tiles - 1)
          state.status.publish(
              tile, state_aggregate,
              published_aggregate<EXCLUSIVE>(fold_in_order(ts.aggregates, warps, op), tile, op, init), epoch);
        if (tile > 0) { // init, if any, is in tile 0's published aggregate
          const T p = gather_predecessors(in, plan, state, epoch, tile, op, init, vec_in);
          if (lane == 0) ts.prefix = {p, true};
        }
      }
      __syncthreads();
      if (tile > 0) carry = ts.prefix;
    }
    if constexpr (ticketed) {
      if (warp == 0) {
        const T total = fold_in_order(ts.aggregates, warps, op);
        const tile_prefix<T> p = resolve_tile_prefix<Policy::lookback_delay_ns, EXCLUSIVE,
                                                     MODE == small_mode::look_back_canonical>(
            total, tile, tile == plan.num_tiles - 1, op, init, state, epoch);
        if (lane == 0) ts.prefix = p;
      }
      __syncthreads();
      carry = ts.prefix;
    }
    // ---- phase 4: the warp's carry-in (the tile's, then the warps before it); scan; store ----
    for (int w = 0; w < warp; ++w)
      carry = {carry.valid ? op(carry.value, ts.aggregates[w]) : ts.aggregates[w], true};
    seg.template apply<EXCLUSIVE>(op, carry);
    if (seg_valid > 0) seg.store(out + base + warp * seg_t::items, seg_valid, vec_out);
  }

  /// The aggregate of full tile `tile`, folded by one warp exactly as the tile's own block folds it (the
  /// same segment reductions, then the warps' aggregates in order), so the bits agree. Every lane.
  /// (That assumes the compiler emits the same arithmetic for `op` here as in the owner's reduction; a
  /// custom floating-point operator it may contract to FMA differently at the two sites would break
  /// bitwise agreement, in deterministic mode and only when a predecessor was late.)
  __device__ static T fold_tile(const T* in, const tile_plan& plan, std::int64_t tile, Op op, bool vec_in) {
    T acc;
    for (int w = 0; w < warps; ++w) {
      seg_t seg;
      seg.load(in + plan.tile_base(tile) + w * seg_t::items, seg_t::items, vec_in, T{});
      const T a = seg.reduce(op);
      acc = w == 0 ? a : op(acc, a);
    }
    return acc;
  }

  /// Gather mode, warp 0: lane l's value is the aggregate of tile first + l (l < width). Read from the
  /// status words; one that has not appeared within gather_wait_cycles (its block may not have
  /// started: tiles are blockIdx here, not tickets) is folded from the input instead. No wait is
  /// unbounded, so progress never depends on the scheduler.
  __device__ static T gather_aggregates(const T* in, const tile_plan& plan, const single_pass_state<T>& state,
                                        epoch_t epoch, std::int64_t first, int width, Op op, T init,
                                        bool vec_in) {
    const int lane = static_cast<int>(threadIdx.x % warp_threads);
    const unsigned full = 0xffffffffu;
    unsigned st;
    T v{};
    read_published<0>(state.status, first + lane, lane < width, epoch, st, v, Policy::gather_wait_cycles);
    for (unsigned late = __ballot_sync(full, st == state_invalid); late != 0; late &= late - 1) {
      const int j = __ffs(late) - 1;
      const T a =
          published_aggregate<EXCLUSIVE>(fold_tile(in, plan, first + j, op, vec_in), first + j, op, init);
      if (lane == j) v = a;
    }
    return v;
  }

  /// Gather mode, warp 0: the fold of tiles 0 .. tile-1 by the canonical formula of the deterministic
  /// look-back (look_back.cuh: whole groups of 32 as tree(31) (+) last, then the partial group as a
  /// tree), so deterministic results agree bit for bit with the ticketed canonical launches. For an
  /// exclusive scan tile 0's value carries init (published_aggregate), as in the look-back.
  __device__ static T gather_predecessors(const T* in, const tile_plan& plan,
                                          const single_pass_state<T>& state, epoch_t epoch, std::int64_t tile,
                                          Op op, T init, bool vec_in) {
    const int lane = static_cast<int>(threadIdx.x % warp_threads);
    const unsigned full = 0xffffffffu;
    const std::int64_t g = tile / warp_threads;
    const int w = static_cast<int>(tile - g * warp_threads);
    T base;
    for (std::int64_t q = 0; q < g; ++q) { // boundaries incl(32q + 31)
      const T v = gather_aggregates(in, plan, state, epoch, q * warp_threads, warp_threads, op, init, vec_in);
      const T head = shfl_idx(full, warp_reduce_ordered(v, op, lane, full, warp_threads - 1), 0);
      const T last = shfl_idx(full, v, warp_threads - 1);
      base = q > 0 ? op(op(base, head), last) : op(head, last);
    }
    if (w == 0) return base;
    const T v = gather_aggregates(in, plan, state, epoch, g * warp_threads, w, op, init, vec_in);
    const T partial = shfl_idx(full, warp_reduce_ordered(v, op, lane, full, w), 0);
    return g > 0 ? op(base, partial) : partial;
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
  __device__ static void consume(temp_storage& ts, const T* totals, std::int64_t num_totals, T* out, Op op,
                                 T init) {
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

} // namespace detail
} // namespace carry
