// A tile staged in shared memory: cp.async loads (no registers held while in flight), swizzled 16-byte
// chunks.
#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "../util/plan.hpp"
#include "../util/warp.cuh"

namespace carry {
namespace detail {

/// Whether T and ITEMS allow a staged tile: T packs into 16-byte chunks and a thread's run is whole chunks.
template <class T, int ITEMS>
constexpr bool stageable() {
  return sizeof(T) <= 16 && 16 % sizeof(T) == 0 && (ITEMS * sizeof(T)) % 16 == 0;
}

/// Loads a staged tile's thread issues before their shared stores (staged_tile::load_items): the largest
/// divisor of ITEMS up to 8 (ITEMS 32 or 16: 8; 28: 7; 12: 6).
constexpr int load_batch(int items) {
  int b = items < 8 ? items : 8;
  while (items % b != 0) --b;
  return b;
}
static_assert(load_batch(32) == 8 && load_batch(16) == 8 && load_batch(28) == 7 && load_batch(12) == 6 &&
                  load_batch(5) == 5 && load_batch(1) == 1,
              "carry: load_batch");

/// Tile of BLOCK_THREADS x ITEMS items held in shared memory, blocked (thread t owns items t*ITEMS ..).
/// Each warp owns the contiguous run of 32 * vcount chunks its threads own, so filling and draining a
/// full tile (warp-striped, 512 contiguous bytes per warp instruction) needs only __syncwarp. Chunks sit
/// at staged_swizzle slots (plan.hpp): no padding, and no bank conflicts when vcount % 8 == 0. STREAMING:
/// evict-first hint on the global loads (L2 policy) and stores.
template <class T, int BLOCK_THREADS, int ITEMS, bool STREAMING>
struct staged_tile {
  static_assert(stageable<T, ITEMS>() && BLOCK_THREADS % 32 == 0, "carry: not a stageable tile");
  static constexpr int chunk_items = detail::chunk_items<T>();
  static constexpr int vcount = ITEMS / chunk_items; // chunks per thread
  static constexpr int warp_chunks = 32 * vcount;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS;
  struct temp_storage {
    uint4 chunks[BLOCK_THREADS * vcount];
  };

  CARRY_HD static constexpr int swizzle(int l) { return staged_swizzle(l, vcount); }
  /// Slot of chunk c of the tile (tile order).
  CARRY_HD static constexpr int slot(int c) {
    return (c / warp_chunks) * warp_chunks + swizzle(c % warp_chunks);
  }
  /// The calling thread's v-th chunk.
  __device__ static uint4& own(temp_storage& ts, int v) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    return ts.chunks[warp * warp_chunks + swizzle(lane * vcount + v)];
  }
  /// Item i of the tile (tile order).
  __device__ static T* item(temp_storage& ts, int i) {
    return reinterpret_cast<T*>(ts.chunks + slot(i / chunk_items)) + i % chunk_items;
  }

  /// A full tile from a 16-byte aligned pointer, asynchronously; the calling warp's run is readable when
  /// this returns (other warps' runs are not: no block barrier).
  __device__ static void load_full(temp_storage& ts, const T* tile_in) {
    issue_full(ts, tile_in);
    wait_issued();
  }
  /// Waits for every tile this thread issued (issue_full); the calling warp's runs are readable after.
  __device__ static void wait_issued() {
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncwarp();
  }
  /// Starts the copies of a full tile from a 16-byte aligned pointer and returns at once, so that a
  /// caller can have several tiles in flight (a compaction's items and flags); wait_issued() waits.
  __device__ static void issue_full(temp_storage& ts, const T* tile_in) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint4* src = reinterpret_cast<const uint4*>(tile_in) + warp * warp_chunks;
    uint4* run = ts.chunks + warp * warp_chunks;
    std::uint64_t policy = 0;
    if constexpr (STREAMING)
      asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    CARRY_UNROLL
    for (int v = 0; v < vcount; ++v) {
      const int l = v * 32 + lane; // warp-striped: coalesced
      const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(run + swizzle(l)));
      if constexpr (STREAMING)
        asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(dst), "l"(src + l),
                     "l"(policy)
                     : "memory");
      else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src + l) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  /// Asks the L2 to fetch a full tile at a 16-byte aligned pointer, each warp's lane 0 its warp's run
  /// (In: the input's item type, T or one the tile widens; tile_items of them). A hint: nothing waits.
  template <class In>
  __device__ static void prefetch_l2(const In* tile_in) {
    prefetch_warp_run_l2(tile_in, 32 * ITEMS * static_cast<int>(sizeof(In)));
  }
  /// Whether a full tile of In items can be loaded by load_full_widening: T's chunks are whole multiples
  /// of In's items (T as wide as In, or wider) and a thread's run is whole In chunks.
  template <class In>
  static constexpr bool widenable() {
    return sizeof(In) <= sizeof(T) && sizeof(T) % sizeof(In) == 0 && 16 % sizeof(In) == 0 &&
           vcount % (sizeof(T) / sizeof(In)) == 0;
  }
  /// A full tile of In items from a 16-byte aligned pointer, each converted to T (u32 requests into u64
  /// offsets): each warp loads its run's In chunks warp-striped (coalesced, through registers, STREAMING:
  /// evict-first) and writes each as sizeof(T) / sizeof(In) chunks of T. The calling warp's run is
  /// readable when this returns (no block barrier).
  template <class In>
  __device__ static void load_full_widening(temp_storage& ts, const In* tile_in) {
    static_assert(widenable<In>(), "carry: the tile cannot widen these items");
    constexpr int ratio = static_cast<int>(sizeof(T) / sizeof(In)); // T chunks per In chunk
    constexpr int in_chunks = vcount / ratio;                       // In chunks per thread
    constexpr int in_items = 16 / static_cast<int>(sizeof(In));
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint4* src = reinterpret_cast<const uint4*>(tile_in) + warp * 32 * in_chunks;
    uint4* run = ts.chunks + warp * warp_chunks;
    uint4 c[in_chunks];
    CARRY_UNROLL
    for (int v = 0; v < in_chunks; ++v) c[v] = STREAMING ? __ldcs(src + v * 32 + lane) : src[v * 32 + lane];
    CARRY_UNROLL
    for (int v = 0; v < in_chunks; ++v) {
      In x[in_items];
      memcpy(x, &c[v], sizeof(x));
      const int l = v * 32 + lane; // In chunk l of the warp's run is T chunks l * ratio ..
      CARRY_UNROLL
      for (int k = 0; k < ratio; ++k) {
        T y[chunk_items];
        CARRY_UNROLL
        for (int e = 0; e < chunk_items; ++e) y[e] = static_cast<T>(x[k * chunk_items + e]);
        memcpy(&run[swizzle(l * ratio + k)], y, sizeof(y));
      }
    }
    __syncwarp();
  }
  /// The first `valid` items from any random-access iterator (its items: T or a type converted to T as
  /// it is stored), element by element (coalesced); the whole tile is readable on return.
  /// Loads go out in batches of up to 8 before their stores: the compiler cannot tell the shared-memory
  /// stores from the global loads apart, so loads interleaved with stores would wait for one another
  /// (measured: a tile of 8191 u32 took 18.4 us against 6.9 for a full one).
  template <class It>
  __device__ static void load_items(temp_storage& ts, It tile_in, int valid) {
    using In = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;
    constexpr int batch = load_batch(ITEMS);
    static_assert(ITEMS % batch == 0, "carry: whole batches");
    CARRY_UNROLL
    for (int b = 0; b < ITEMS; b += batch) {
      In v[batch];
      CARRY_UNROLL
      for (int k = 0; k < batch; ++k) {
        const int i = (b + k) * BLOCK_THREADS + static_cast<int>(threadIdx.x);
        if (i < valid) v[k] = tile_in[i];
      }
      CARRY_UNROLL
      for (int k = 0; k < batch; ++k) {
        const int i = (b + k) * BLOCK_THREADS + static_cast<int>(threadIdx.x);
        if (i < valid) *item(ts, i) = static_cast<T>(v[k]);
      }
    }
    __syncthreads();
  }
  /// A full tile from any random-access iterator (its items converted to T): each thread reads
  /// chunk_items consecutive items a step and stores them as one 16-byte chunk, block-striped (chunk
  /// j * BLOCK_THREADS + t: consecutive lanes, consecutive chunks, so a warp's reads are contiguous and
  /// its stores conflict-free); the whole tile is readable on return. For iterators that are not
  /// pointers (a transform or counting iterator): a shared-memory store a chunk, not an item.
  template <class It>
  __device__ static void load_full_chunks(temp_storage& ts, It tile_in) {
    constexpr int batch = load_batch(vcount);
    CARRY_UNROLL
    for (int b = 0; b < vcount; b += batch) {
      T v[batch][chunk_items];
      CARRY_UNROLL
      for (int k = 0; k < batch; ++k) {
        const int c = (b + k) * BLOCK_THREADS + static_cast<int>(threadIdx.x);
        CARRY_UNROLL
        for (int e = 0; e < chunk_items; ++e) v[k][e] = static_cast<T>(tile_in[c * chunk_items + e]);
      }
      CARRY_UNROLL
      for (int k = 0; k < batch; ++k) {
        const int c = (b + k) * BLOCK_THREADS + static_cast<int>(threadIdx.x);
        memcpy(&ts.chunks[slot(c)], v[k], sizeof(v[k]));
      }
    }
    __syncthreads();
  }
  /// A full tile to a 16-byte aligned pointer: each warp drains its own run once its threads are done.
  /// Each chunk goes out as finish(chunk, owner, v): owner = the lane of the warp that owns it, v = its
  /// index in the owner's run. Every lane calls finish once per v, in step (it may shuffle).
  template <class Finish>
  __device__ static void store_full(temp_storage& ts, T* tile_out, Finish finish) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint4* dst = reinterpret_cast<uint4*>(tile_out) + warp * warp_chunks;
    const uint4* run = ts.chunks + warp * warp_chunks;
    __syncwarp();
    CARRY_UNROLL
    for (int v = 0; v < vcount; ++v) {
      const int l = v * 32 + lane;
      const uint4 c = finish(run[swizzle(l)], l / vcount, l % vcount);
      if constexpr (STREAMING)
        __stcs(dst + l, c);
      else
        dst[l] = c;
    }
  }
  /// The first `valid` items to any output iterator (each converted as it is assigned), element by
  /// element (coalesced).
  template <class OutIt>
  __device__ static void store_items(temp_storage& ts, OutIt tile_out, int valid) {
    __syncthreads();
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j) {
      const int i = j * BLOCK_THREADS + static_cast<int>(threadIdx.x);
      if (i < valid) tile_out[i] = *item(ts, i);
    }
  }
};

} // namespace detail
} // namespace carry
