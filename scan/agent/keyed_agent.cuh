// Single-pass agent of the keyed calls (scans by key, reduce by key, run-length encoding): a tile of keys
// and values in registers, each item's run start and run end found from its neighbours, one aggregate a
// thread through the engine's block scan and look-back, then the call's outputs item by item.
#pragma once

#include <cstdint>
#include <iterator>
#include <type_traits>

#include "../detail/by_key.hpp"
#include "../tile/tile_io.cuh"
#include "../util/warp.cuh"
#include "single_pass_agent.cuh"

namespace carry {
namespace detail {

/// The type of behaviour B's run indices (B::index_type; default 64 bits).
template <class B, class = void>
struct run_index_of {
  using type = unsigned long long;
};
template <class B>
struct run_index_of<B, std::void_t<typename B::index_type>> {
  using type = typename B::index_type;
};

/// The run outputs of a tile staged in shared memory (B::staged_arrays arrays, 0 to 2, of B::staged0 and
/// B::staged1 items): a call's outputs go to index i of array a; within one tile each array's indices form
/// one contiguous range no longer than the tile, so i mod TILE is a slot, and the range (the least and
/// greatest index any thread put) is written out coalesced by the whole block (flush).
template <class B, int TILE, int WARP_SLOTS = 0>
struct staged_runs {
  /// WARP_SLOTS > 0: each warp stages its own outputs in its WARP_SLOTS slots of each array (index mod
  /// WARP_SLOTS: a warp's indices of an array are a contiguous range no longer than its items) and writes
  /// them out itself (flush_warp): no block barrier, no shared ranges.
  static constexpr bool per_warp = WARP_SLOTS > 0;
  static constexpr int arrays = B::staged_arrays;
  static constexpr bool by_position = keys_by_position<B>::value; // array 0: tile positions of keys
  static_assert(!by_position || TILE <= 65536, "carry: a key's tile position fits 16 bits");
  using E0 = std::conditional_t<by_position, std::uint16_t, typename B::staged0>;
  using E1 = typename B::staged1;
  using K = typename B::key_type;
  /// The ranges' index: 32 bits where B's run indices are (native shared atomics), else 64.
  using index_t =
      std::conditional_t<sizeof(typename run_index_of<B>::type) <= 4, unsigned, unsigned long long>;
  struct storage {
    alignas(16) unsigned char bytes[arrays > 0 ? TILE*(sizeof(E0) + (arrays > 1 ? sizeof(E1) : 0)) : 16];
  };
  struct ranges {
    index_t lo[2], hi[2];
  };
  storage& st;
  ranges& r;
  unsigned long long lo[2] = {0, 0};
  int count[2] = {0, 0};

  __device__ static E0* region0(storage& s) { return reinterpret_cast<E0*>(s.bytes); }
  __device__ static E1* region1(storage& s) { return reinterpret_cast<E1*>(s.bytes + TILE * sizeof(E0)); }
  __device__ static void clear(ranges& r) {
    r.lo[0] = r.lo[1] = ~index_t{0};
    r.hi[0] = r.hi[1] = 0;
  }
  /// The thread's puts to array A: `n` of them, at indices lo .. lo + n - 1 (once a thread, before them).
  template <int A>
  __device__ void span(std::int64_t l, int n) {
    lo[A] = static_cast<unsigned long long>(l);
    count[A] = n;
  }
  /// Output `v` at index i of array A (within the span the thread declared).
  template <int A, class T>
  __device__ void put(std::int64_t i, const T& v) {
    const unsigned slot =
        per_warp ? (threadIdx.x / 32) * WARP_SLOTS + (static_cast<unsigned>(i) & (WARP_SLOTS - 1))
                 : static_cast<unsigned>(i) & (TILE - 1);
    if constexpr (A == 0)
      region0(st)[slot] = static_cast<E0>(v);
    else
      region1(st)[slot] = static_cast<E1>(v);
  }
  /// Output the key of the thread's item j at index i of array A: its tile position where the keys stay
  /// in shared memory (by_position; the flush reads the key there), else the key.
  template <int A, class Thread>
  __device__ void put_key(std::int64_t i, const Thread& t, int j) {
    if constexpr (A == 0 && by_position)
      put<0>(i, static_cast<std::uint16_t>(static_cast<unsigned>(t.first + j) & (TILE - 1)));
    else
      put<A>(i, t.keys[j]);
  }
  /// The calling warp's range of array A's indices: its lowest putting lane's lo to its highest's last
  /// (a thread's indices follow every earlier thread's: they count runs so far); false where no lane put
  /// any. Every lane calls it.
  __device__ bool warp_range(int a, unsigned long long& l, unsigned long long& h) const {
    const unsigned putting = __ballot_sync(0xffffffffu, count[a] > 0);
    if (putting == 0) return false;
    l = __shfl_sync(0xffffffffu, lo[a], __ffs(static_cast<int>(putting)) - 1);
    h = __shfl_sync(0xffffffffu, lo[a] + static_cast<unsigned>(count[a]) - 1u,
                    31 - __clz(static_cast<int>(putting)));
    return true;
  }
  /// Writes index l + k of array a from `slot` to B's outputs (array 0 by position: the tile's key
  /// there, from `keys`).
  __device__ static void write_out(storage& s, const B& b, const K* keys, int a, unsigned long long l,
                                   unsigned k, unsigned slot) {
    if (a == 0) {
      if constexpr (by_position)
        (b.out0() + static_cast<std::int64_t>(l))[k] = keys[padded_key_slot(region0(s)[slot])];
      else
        (b.out0() + static_cast<std::int64_t>(l))[k] = region0(s)[slot];
    } else if constexpr (arrays > 1) {
      (b.out1() + static_cast<std::int64_t>(l))[k] = region1(s)[slot];
    }
  }
  /// The block's least and greatest index per array: each warp's range, one shared atomic pair a warp.
  __device__ void publish_range() {
    CARRY_UNROLL
    for (int a = 0; a < arrays; ++a) {
      unsigned long long l, h;
      if (warp_range(a, l, h) && threadIdx.x % 32 == 0) {
        atomicMin(&r.lo[a], static_cast<index_t>(l));
        atomicMax(&r.hi[a], static_cast<index_t>(h));
      }
    }
  }
  /// per_warp: writes each array's range of the calling warp's outputs, consecutive lanes to consecutive
  /// indices. Every lane calls it.
  __device__ void flush_warp(const B& b, const K* keys) const {
    const unsigned base = (threadIdx.x / 32) * WARP_SLOTS;
    __syncwarp(); // every lane's puts are visible
    CARRY_UNROLL
    for (int a = 0; a < arrays; ++a) {
      unsigned long long l, h;
      if (!warp_range(a, l, h)) continue;
      const unsigned count = static_cast<unsigned>(h - l) + 1u; // at most a warp's items
      for (unsigned k = threadIdx.x % 32; k < count; k += 32)
        write_out(st, b, keys, a, l, k, base + ((static_cast<unsigned>(l) + k) & (WARP_SLOTS - 1)));
    }
  }
  /// Writes each array's range to B's outputs, consecutive threads to consecutive indices.
  __device__ static void flush(storage& s, const ranges& r, const B& b, const K* keys) {
    CARRY_UNROLL
    for (int a = 0; a < arrays; ++a) {
      const index_t l = r.lo[a], h = r.hi[a];
      if (l > h) continue;
      const unsigned count = static_cast<unsigned>(h - l) + 1u; // at most a tile
      for (unsigned k = threadIdx.x; k < count; k += blockDim.x)
        write_out(s, b, keys, a, l, k, (static_cast<unsigned>(l) + k) & (TILE - 1));
    }
  }
};

/// Whether Policy asks the keyed agent to write each warp's run outputs itself (Policy::warp_flush;
/// default false: the block's, after a barrier).
template <class Policy, class = void>
struct warp_flush : std::false_type {};
template <class Policy>
struct warp_flush<Policy, std::void_t<decltype(Policy::warp_flush)>>
    : std::integral_constant<bool, Policy::warp_flush> {};

// ---- the keyed single pass: keys (and values) of a tile in registers (blocked), neighbours through
// shared memory; a behaviour B folds a thread's items into its aggregate (B::reduce), and writes the
// outputs once the block scan and look-back give the thread's carry-in (B::emit). B: key_type,
// value_type, aggregate, op_type, with_values, eq (the key equality); emit gets the thread's items, the
// carry-in, V results[ITEMS] that the agent stores to `out` when B::stores_values (a scan by key), and a
// sink for run outputs (put<A>(index, value): B::staged_arrays arrays, staged per tile, flushed to
// B::out0() / out1()) ----
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
  using scan_t =
      block_scan<A, block_threads, block_scan_algorithm::coarsened, 1, warp_scan_of<Policy>::value>;
  static_assert((tile_items & (tile_items - 1)) == 0,
                "carry: a keyed tile is a power of two (staged outputs)");
  using stage_t = staged_runs<B, tile_items, warp_flush<Policy>::value ? 32 * items : 0>;
  struct temp_storage {
    union {
      struct {
        typename key_io::temp_storage keys;
        typename val_io::temp_storage values; // apart from the keys': both loads in flight at once
      } io;
      struct {
        typename stage_t::storage stage; // the run outputs, once the loads are done (after the block scan)
        K keys[stage_t::by_position ? padded_key_slot(tile_items)
                                    : 1]; // the tile's keys (array 0 by position)
      } out;
    } buf;
    K firsts[block_threads], lasts[block_threads];    // each thread's edge keys
    K penults[B::uses_prev_head ? block_threads : 1]; // and its second last, where prev_head is used
    typename stage_t::ranges ranges;
    typename scan_t::temp_storage scan;
    std::uint32_t tile_index;
  };

  /// A full tile of keys (and values) from pointers the host found aligned: every vector load of both
  /// issued before the first transpose waits on one. False (nothing loaded) for any other tile or input.
  template <class Source>
  static constexpr bool full_loads() {
    return key_io::transpose && std::is_convertible<decltype(Source::keys), const K*>::value &&
           (!B::with_values ||
            (val_io::transpose && std::is_convertible<decltype(Source::values), const V*>::value));
  }
  template <class Source, class Between>
  __device__ static bool load_full(temp_storage& ts, const Source& in, std::int64_t base, int valid,
                                   keyed_thread<K, V, items>& t, Between between) {
    if constexpr (full_loads<Source>()) {
      if (valid == tile_items && in.vec_keys && (!B::with_values || in.vec_values)) {
        uint4 kw[key_io::vcount], vw[B::with_values ? val_io::vcount : 1];
        key_io::fetch_chunks(in.keys + base, kw);
        if constexpr (B::with_values) val_io::fetch_chunks(in.values + base, vw);
        between(); // behind the loads in flight
        key_io::transpose_chunks(ts.buf.io.keys, kw);
        memcpy(t.keys, kw, sizeof(t.keys));
        if constexpr (B::with_values) {
          val_io::transpose_chunks(ts.buf.io.values, vw);
          memcpy(t.values, vw, sizeof(t.values));
        }
        return true;
      }
    }
    between();
    return false;
  }

  /// The first tile an earlier tile asks the L2 for (PREFETCH 4 and up): every tile asks, from its first.
  __device__ static std::int64_t asked_from() { return first_tile_asked(Policy::prefetch - 3, sm_ids(), 0); }

  /// Asks the L2 for `tile` (a full tile of aligned pointers; else nothing), each warp its run.
  template <class Source>
  __device__ static void prefetch_tile(const Source& in, const tile_plan& plan, std::int64_t tile) {
    if constexpr (full_loads<Source>())
      if (tile < plan.num_tiles - 1 && in.vec_keys && (!B::with_values || in.vec_values)) {
        const std::int64_t at = plan.tile_base(tile);
        prefetch_warp_run_l2(in.keys + at, 32 * items * static_cast<int>(sizeof(K)));
        if constexpr (B::with_values)
          prefetch_warp_run_l2(in.values + at, 32 * items * static_cast<int>(sizeof(V)));
      }
  }

  template <class Source>
  __device__ static void consume(temp_storage& ts, const Source& in, const B& b, const tile_plan& plan, Op op,
                                 A init, const scan_state<A>& state, bool, bool vec_out) {
    // ---- warm the L2 with the tile launch order would give this block, while the ticket is out
    // (prefetch_tile checks the pointers' alignment and the last tile itself) ----
    if constexpr (Policy::prefetch != 0 && full_loads<Source>())
      if (prefetch_guessed_tile(Policy::prefetch, blockIdx.x, plan.num_tiles,
                                std::int64_t{sm_ids()} * min_blocks, true, asked_from()))
        prefetch_tile(in, plan, blockIdx.x);
    // ---- take a ticket: tiles go out in the order blocks start ----
    const std::int64_t tile = lookback::block_ticket(ts.tile_index, state.counter);
    const int valid = plan.valid_items(tile);
    const bool last = tile == plan.num_tiles - 1;
    const std::int64_t base = plan.tile_base(tile);
    const int first = static_cast<int>(threadIdx.x) * items;
    keyed_thread<K, V, items> t;
    t.first = base + first;
    t.last = in.n - 1;

    // ---- keys and values: on full tiles of aligned pointers both tiles' vectors in flight before
    // either is transposed; each thread's edge keys to its neighbours ----
    auto ask_ahead = [&] { // behind the tile's own loads: the tile a block starting later will take
      if constexpr (Policy::prefetch >= 4)
        prefetch_tile(in, plan, tile_ahead(Policy::prefetch, tile, sm_ids(), asked_from()));
    };
    if (!load_full(ts, in, base, valid, t, ask_ahead)) {
      // past the end: a live key (keys there are compared, their bits then unused)
      const K pad = valid < tile_items ? static_cast<K>(in.keys[base]) : K{};
      key_io::load(ts.buf.io.keys, in.keys + base, valid, in.vec_keys, t.keys, tile_items, pad);
      if constexpr (B::with_values)
        val_io::load(ts.buf.io.values, in.values + base, valid, in.vec_values, t.values, tile_items, V{});
    }
    ts.firsts[threadIdx.x] = t.keys[0];
    ts.lasts[threadIdx.x] = t.keys[items - 1];
    if constexpr (B::uses_prev_head) ts.penults[threadIdx.x] = t.keys[items - 2];
    K before = t.keys[0], before2 = t.keys[0], after = t.keys[items - 1]; // around the tile: its edge threads
    if (threadIdx.x == 0) {
      if (base > 0) before = in.keys[base - 1];
      if constexpr (B::uses_prev_head)
        if (base > 1) before2 = in.keys[base - 2];
    }
    if (threadIdx.x == block_threads - 1 && base + tile_items < in.n) after = in.keys[base + tile_items];
    if constexpr (stage_t::arrays > 0)
      if (threadIdx.x == 0) stage_t::clear(ts.ranges);
    __syncthreads();
    const K prev = threadIdx.x > 0 ? ts.lasts[threadIdx.x - 1] : before;
    const K next = threadIdx.x + 1 < block_threads ? ts.firsts[threadIdx.x + 1] : after;

    // ---- run starts and ends; where the outputs take keys by position, the keys to shared memory (the
    // loads' buffers are free: every warp passed the barrier above) ----
    mark_runs(t, valid - first, prev, next, b.eq);
    t.prev_head = false;
    if constexpr (B::uses_prev_head) {
      const K prev2 = threadIdx.x > 0 ? ts.penults[threadIdx.x - 1] : before2;
      t.prev_head = t.first >= 1 && (t.first == 1 || !static_cast<bool>(b.eq(prev2, prev)));
    }
    if constexpr (stage_t::by_position) {
      // a thread's items lie in one 32-item group (items divide 32): consecutive slots from its first
      static_assert(32 % items == 0, "carry: a keyed thread's items divide 32 (keys by position)");
      K* slots = ts.buf.out.keys + padded_key_slot(first);
      CARRY_UNROLL
      for (int j = 0; j < items; ++j) slots[j] = t.keys[j];
    }

    // ---- the thread's aggregate; block scan, warp 0 publishes and looks back ----
    A totals[1] = {b.reduce(t)};
    A aggregate;
    auto get_prefix =
        scan_tile_prefix<Policy::lookback_delay_ns, false, CANONICAL>(state, tile, last, op, init);
    const tile_prefix<A> carry =
        scan_t(ts.scan).thread_carry_with_callback(totals, op, get_prefix, aggregate);

    // ---- the outputs: a scan's values stored as a tile; runs staged in shared memory, each array's
    // tile of outputs (contiguous indices) then written coalesced ----
    V results[items];
    if constexpr (stage_t::arrays > 0) {
      stage_t sink{ts.buf.out.stage, ts.ranges};
      b.emit(t, carry, results, sink);
      if constexpr (stage_t::per_warp) {
        sink.flush_warp(b, ts.buf.out.keys);
      } else {
        sink.publish_range();
        __syncthreads();
        stage_t::flush(ts.buf.out.stage, ts.ranges, b, ts.buf.out.keys);
      }
    } else {
      direct_sink<B> sink{b};
      b.emit(t, carry, results, sink);
    }
    if constexpr (B::stores_values) {
      using Out = typename B::output_type;
      if constexpr (std::is_same<Out, V*>::value) {
        val_io::store(ts.buf.io.values, b.out + base, valid, vec_out, results, tile_items);
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
