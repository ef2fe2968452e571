// Warp-striped tile segments: a warp loads, scans and stores its own contiguous run of a tile in registers.
#pragma once

#include <cstdint>
#include <cstring>

#include "../block_scan.cuh"
#include "../util/plan.hpp"
#include "../util/warp.cuh"

namespace carry {
namespace detail {

/// A warp's segment of CHUNKS x 32 chunks of chunk_items<T>() items (16 bytes when T packs into 16
/// bytes, else one item; STREAMING: evict-first loads and stores). Lane l holds chunks l, l + 32, ...,
/// so every warp access covers 32 adjacent chunks (512 contiguous bytes), and no shared-memory
/// transpose is needed: the scan runs across lanes with shuffles, round by round.
///
///   E = 2 items per chunk, CHUNKS = 1, 4 lanes shown:  lane 0 [3 1] lane 1 [7 0] lane 2 [4 1] lane 3 [6 3]
///   chunk totals 4 7 5 9 -> lane prefixes (exclusive) - 4 11 16 -> inclusive [3 4 | 11 11 | 15 16 | 22 25]
template <class T, int CHUNKS, bool STREAMING = false>
struct warp_segment {
  static constexpr int per_chunk = chunk_items<T>();
  static constexpr int items = warp_threads * CHUNKS * per_chunk;
  static constexpr bool vectors = per_chunk > 1; // chunks move as one 16-byte access when aligned

  T v[CHUNKS][per_chunk];
  T pre[CHUNKS]; // lane's exclusive prefix of chunk j inside the segment (none for chunk 0 of lane 0)

  __device__ static int lane() { return static_cast<int>(threadIdx.x % warp_threads); }
  __device__ static int offset(int j, int e) { return (j * warp_threads + lane()) * per_chunk + e; }

  /// Items at and beyond `valid` are padded with `pad` (a live item of the tile): padding sits at the
  /// end, and scans only move values forward, so it never reaches a live output. `vec`: the segment
  /// start is 16-byte aligned.
  __device__ void load(const T* in, int valid, bool vec, const T& pad) {
    CARRY_UNROLL
    for (int j = 0; j < CHUNKS; ++j) {
      const int at = offset(j, 0);
      if (vectors && vec && at + per_chunk <= valid) {
        const uint4* src = reinterpret_cast<const uint4*>(in + at);
        const uint4 w = STREAMING ? __ldcs(src) : *src;
        memcpy(v[j], &w, sizeof(w));
      } else {
        CARRY_UNROLL
        for (int e = 0; e < per_chunk; ++e) v[j][e] = at + e < valid ? in[at + e] : pad;
      }
    }
  }
  __device__ void store(T* out, int valid, bool vec) const {
    CARRY_UNROLL
    for (int j = 0; j < CHUNKS; ++j) {
      const int at = offset(j, 0);
      if (vectors && vec && at + per_chunk <= valid) {
        uint4 w;
        memcpy(&w, v[j], sizeof(w));
        if constexpr (STREAMING)
          __stcs(reinterpret_cast<uint4*>(out + at), w);
        else
          *reinterpret_cast<uint4*>(out + at) = w;
      } else {
        CARRY_UNROLL
        for (int e = 0; e < per_chunk; ++e)
          if (at + e < valid) out[at + e] = v[j][e];
      }
    }
  }

  /// Phases 1-2: fold each chunk, scan the chunk totals across lanes (all rounds side by side), and
  /// keep each lane's exclusive prefix per chunk in `pre`. Returns the segment's aggregate (every lane).
  template <class Op>
  __device__ T reduce(Op op) {
    const int l = lane();
    const unsigned full = 0xffffffffu;
    T s[CHUNKS];
    CARRY_UNROLL
    for (int j = 0; j < CHUNKS; ++j) {
      s[j] = v[j][0];
      CARRY_UNROLL
      for (int e = 1; e < per_chunk; ++e) s[j] = op(s[j], v[j][e]);
    }
    CARRY_UNROLL
    for (int d = 1; d < warp_threads; d *= 2) { // Kogge-Stone across lanes, every round at once
      CARRY_UNROLL
      for (int j = 0; j < CHUNKS; ++j) {
        const T y = shfl_up(full, s[j], d);
        if (l >= d) s[j] = op(y, s[j]);
      }
    }
    T run = shfl_idx(full, s[0], warp_threads - 1);
    pre[0] = shfl_up(full, s[0], 1);
    CARRY_UNROLL
    for (int j = 1; j < CHUNKS; ++j) {
      const T x = shfl_up(full, s[j], 1);
      pre[j] = l == 0 ? run : op(run, x);
      run = op(run, shfl_idx(full, s[j], warp_threads - 1));
    }
    return run;
  }

  /// Phase 3: scan each chunk from carry (+) pre[j]. For an exclusive scan `carry` must be valid.
  template <bool EXCLUSIVE, class Op>
  __device__ void apply(Op op, const tile_prefix<T>& carry) {
    const bool first = lane() == 0;
    CARRY_UNROLL
    for (int j = 0; j < CHUNKS; ++j) {
      tile_prefix<T> p;
      if (j == 0 && first)
        p = carry;
      else
        p = extend(carry, pre[j], op);
      if constexpr (EXCLUSIVE) {
        T acc = p.value;
        CARRY_UNROLL
        for (int e = 0; e < per_chunk; ++e) {
          const T x = v[j][e];
          v[j][e] = acc;
          acc = op(acc, x);
        }
      } else {
        v[j][0] = with_carry(p, v[j][0], op);
        CARRY_UNROLL
        for (int e = 1; e < per_chunk; ++e) v[j][e] = op(v[j][e - 1], v[j][e]);
      }
    }
  }
};

/// Ordered fold of count >= 1 values (earlier (+) later), e.g. per-warp totals in shared memory.
template <class T, class Op>
__device__ T fold_in_order(const T* v, int count, Op op) {
  T acc = v[0];
  for (int i = 1; i < count; ++i) acc = op(acc, v[i]);
  return acc;
}

} // namespace detail
} // namespace carry
