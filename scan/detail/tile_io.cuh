// Tile loads and stores: blocked arrangement, 16-byte vector accesses where size and alignment allow.
#pragma once

#include <cstdint>
#include <cstring>

#include "plan.hpp"

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

template <class T, int ITEMS>
struct tile_io {
  static constexpr int vbytes = vector_bytes<T, ITEMS>();
  static constexpr int vcount = vbytes == 0 ? 0 : ITEMS * static_cast<int>(sizeof(T)) / vbytes;

  /// Thread t reads items [t*ITEMS, t*ITEMS+ITEMS) of the tile at `tile_in`; `valid` items exist.
  /// Missing items are padded with the tile's first item: padding sits at the end of the tile, and
  /// scans only move values forward, so it never reaches a live output.
  __device__ static void load(const T* tile_in, int valid, bool vec, T (&items)[ITEMS], int tile_items) {
    const int first = threadIdx.x * ITEMS;
    if constexpr (vcount > 0) {
      if (vec && valid == tile_items) {
        using V = typename vector_word<vbytes>::type;
        const V* src = reinterpret_cast<const V*>(tile_in + first);
        V w[vcount];
        CARRY_UNROLL
        for (int i = 0; i < vcount; ++i) w[i] = src[i];
        memcpy(items, w, sizeof(items));
        return;
      }
    }
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j) items[j] = first + j < valid ? tile_in[first + j] : tile_in[0];
  }

  __device__ static void store(T* tile_out, int valid, bool vec, const T (&items)[ITEMS], int tile_items) {
    const int first = threadIdx.x * ITEMS;
    if constexpr (vcount > 0) {
      if (vec && valid == tile_items) {
        using V = typename vector_word<vbytes>::type;
        V* dst = reinterpret_cast<V*>(tile_out + first);
        V w[vcount];
        memcpy(w, items, sizeof(items));
        CARRY_UNROLL
        for (int i = 0; i < vcount; ++i) dst[i] = w[i];
        return;
      }
    }
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j)
      if (first + j < valid) tile_out[first + j] = items[j];
  }
};

}  // namespace detail
}  // namespace carry
