// Tile loads and stores: blocked arrangement, 16-byte vector accesses where size and alignment allow.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../util/plan.hpp"

namespace carry {
namespace detail {

template <int BYTES>
struct vector_word;
template <>
struct vector_word<16> {
  using type = uint4;
};
template <>
struct vector_word<8> {
  using type = uint2;
};
template <>
struct vector_word<4> {
  using type = unsigned;
};

/// Loads and stores of a blocked tile (thread t holds items t*ITEMS .. t*ITEMS+ITEMS-1).
/// Full tiles whose pointer allows it move as 16-byte vectors, warp-striped so that each instruction of
/// a warp covers 512 contiguous bytes, and are transposed to the blocked arrangement through shared
/// memory (one 16-byte slot of padding per 8: no bank conflicts with 8 chunks a thread; 16 chunks a
/// thread read back 2-way conflicted, the CPU model in test_cpu.cpp's staged-tile case). Partial tiles
/// of such policies move element by element but still coalesced (striped), through the same buffer;
/// other policies load and store each thread's own items.
template <class T, int BLOCK_THREADS, int ITEMS, bool STREAMING = false, bool WARP_TRANSPOSE = true>
struct tile_io {
  static constexpr int vbytes = vector_bytes<T, ITEMS>();
  static constexpr int vcount = vbytes == 0 ? 0 : ITEMS * static_cast<int>(sizeof(T)) / vbytes;
  static constexpr bool transpose = WARP_TRANSPOSE && vbytes == 16 && vcount > 1 && BLOCK_THREADS % 32 == 0;
  static constexpr int warps = BLOCK_THREADS / 32;
  static constexpr int warp_chunks = 32 * vcount;                     // 16-byte chunks per warp
  static constexpr int padded_chunks = warp_chunks + warp_chunks / 8; // with one pad slot per 8
  struct temp_storage {
    uint4 chunks[transpose ? warps * padded_chunks : 1]; // also holds a whole tile of T
  };
  static_assert(!transpose || sizeof(uint4) * warps * padded_chunks >= sizeof(T) * BLOCK_THREADS * ITEMS,
                "the transpose buffer stages whole tiles");
  __device__ static int slot(int c) { return c + c / 8; }

  /// A full tile's 16-byte chunks, warp-striped: each instruction of a warp covers 512 contiguous bytes
  /// (transposing tiles only; transpose_chunks makes them blocked).
  __device__ static void fetch_chunks(const T* tile_in, uint4 (&w)[vcount > 0 ? vcount : 1]) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint4* src = reinterpret_cast<const uint4*>(tile_in) + warp * warp_chunks;
    CARRY_UNROLL
    for (int v = 0; v < vcount; ++v) w[v] = STREAMING ? __ldcs(src + v * 32 + lane) : src[v * 32 + lane];
  }
  /// Warp-striped chunks to the blocked arrangement, through the warp's part of shared memory.
  __device__ static void transpose_chunks(temp_storage& ts, uint4 (&w)[vcount > 0 ? vcount : 1]) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint4* buf = ts.chunks + warp * padded_chunks;
    CARRY_UNROLL
    for (int v = 0; v < vcount; ++v) buf[slot(v * 32 + lane)] = w[v];
    __syncwarp();
    CARRY_UNROLL
    for (int v = 0; v < vcount; ++v) w[v] = buf[slot(lane * vcount + v)]; // blocked
    __syncwarp();
  }
  /// A full tile as 16-byte chunks in the blocked arrangement (transposing tiles only).
  __device__ static void load_chunks(temp_storage& ts, const T* tile_in,
                                     uint4 (&w)[vcount > 0 ? vcount : 1]) {
    fetch_chunks(tile_in, w);
    transpose_chunks(ts, w);
  }
  __device__ static void store_chunks(temp_storage& ts, T* tile_out,
                                      const uint4 (&w)[vcount > 0 ? vcount : 1]) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint4* dst = reinterpret_cast<uint4*>(tile_out) + warp * warp_chunks;
    uint4* buf = ts.chunks + warp * padded_chunks;
    CARRY_UNROLL
    for (int v = 0; v < vcount; ++v) buf[slot(lane * vcount + v)] = w[v];
    __syncwarp();
    CARRY_UNROLL
    for (int v = 0; v < vcount; ++v) { // coalesced
      if constexpr (STREAMING)
        __stcs(dst + v * 32 + lane, buf[slot(v * 32 + lane)]);
      else
        dst[v * 32 + lane] = buf[slot(v * 32 + lane)];
    }
    __syncwarp();
  }

  /// Missing items of a partial tile are padded with the tile's first item: padding sits at the end of
  /// the tile, and scans only move values forward, so it never reaches a live output.
  __device__ static void load(temp_storage& ts, const T* tile_in, int valid, bool vec, T (&items)[ITEMS],
                              int tile_items) {
    if (!load_vectors(ts, tile_in, valid, vec, items, tile_items))
      load_elements(ts, tile_in, valid, items, tile_in[0]);
  }

  /// A tile from any random-access iterator `tile_in` (its first item), missing items of a partial tile
  /// set to `pad` (counts and flags: 0). A pointer keeps the vector fast path (full tiles, `vec`); any
  /// other iterator, and partial tiles, load element by element, coalesced where the policy transposes.
  template <class It>
  __device__ static void load(temp_storage& ts, It tile_in, int valid, bool vec, T (&items)[ITEMS],
                              int tile_items, const T& pad) {
    if constexpr (std::is_convertible<It, const T*>::value) // a pointer of T (other types: element loads)
      if (load_vectors(ts, tile_in, valid, vec, items, tile_items)) return;
    load_elements(ts, tile_in, valid, items, pad);
  }

  /// The vector fast path: a full tile from a pointer that allows it (returns false otherwise).
  __device__ static bool load_vectors(temp_storage& ts, const T* tile_in, int valid, bool vec,
                                      T (&items)[ITEMS], int tile_items) {
    if constexpr (vcount > 0) {
      if (vec && valid == tile_items) {
        using V = typename vector_word<vbytes>::type;
        V w[vcount];
        if constexpr (transpose) {
          load_chunks(ts, tile_in, w);
        } else {
          const V* src = reinterpret_cast<const V*>(tile_in + threadIdx.x * ITEMS);
          CARRY_UNROLL
          for (int i = 0; i < vcount; ++i) w[i] = src[i];
        }
        memcpy(items, w, sizeof(items));
        return true;
      }
    }
    return false;
  }

  /// Element by element from any iterator, `pad` past `valid`.
  template <class It>
  __device__ static void load_elements(temp_storage& ts, It tile_in, int valid, T (&items)[ITEMS],
                                       const T& pad) {
    const int first = threadIdx.x * ITEMS;
    if constexpr (transpose) { // coalesced element loads, blocked through shared memory
      // (each load here may wait for the store before it, as staged_tile::load_items did before it
      // batched its loads; batching them here raised the hierarchical upsweep's registers from 40 to 64
      // for u32, so the register tiles keep this form: they meet it on one partial tile per call)
      T* staged = reinterpret_cast<T*>(ts.chunks);
      CARRY_UNROLL
      for (int j = 0; j < ITEMS; ++j) {
        const int idx = j * BLOCK_THREADS + static_cast<int>(threadIdx.x);
        if (idx < valid) staged[idx] = static_cast<T>(tile_in[idx]);
      }
      __syncthreads();
      CARRY_UNROLL
      for (int j = 0; j < ITEMS; ++j) items[j] = first + j < valid ? staged[first + j] : pad;
      __syncthreads(); // the buffer is free again
    } else {
      CARRY_UNROLL
      for (int j = 0; j < ITEMS; ++j) items[j] = first + j < valid ? static_cast<T>(tile_in[first + j]) : pad;
    }
  }

  __device__ static void store(temp_storage& ts, T* tile_out, int valid, bool vec, const T (&items)[ITEMS],
                               int tile_items) {
    const int first = threadIdx.x * ITEMS;
    if constexpr (vcount > 0) {
      if (vec && valid == tile_items) {
        using V = typename vector_word<vbytes>::type;
        V w[vcount];
        memcpy(w, items, sizeof(items));
        if constexpr (transpose) {
          store_chunks(ts, tile_out, w);
        } else {
          V* dst = reinterpret_cast<V*>(tile_out + first);
          CARRY_UNROLL
          for (int i = 0; i < vcount; ++i) dst[i] = w[i];
        }
        return;
      }
    }
    if constexpr (transpose) { // a partial tile: blocked into shared memory, coalesced element stores
      T* staged = reinterpret_cast<T*>(ts.chunks);
      CARRY_UNROLL
      for (int j = 0; j < ITEMS; ++j)
        if (first + j < valid) staged[first + j] = items[j];
      __syncthreads();
      CARRY_UNROLL
      for (int j = 0; j < ITEMS; ++j) {
        const int idx = j * BLOCK_THREADS + static_cast<int>(threadIdx.x);
        if (idx < valid) tile_out[idx] = staged[idx];
      }
      __syncthreads();
    } else {
      CARRY_UNROLL
      for (int j = 0; j < ITEMS; ++j)
        if (first + j < valid) tile_out[first + j] = items[j];
    }
  }
};

} // namespace detail
} // namespace carry
