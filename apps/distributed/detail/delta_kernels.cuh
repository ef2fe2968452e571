// The distributed sort's coded key exchange on the device: a sorted shard's blocks coded (widths, then
// the payload at offsets from the engine's scan), and received blocks decoded into keys. A warp takes BATCH blocks.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "../../../scan/util/warp.cuh"
#include "delta_code.hpp"

namespace carry {
namespace dist {
namespace detail {

constexpr int delta_lane_items = delta_block / carry::detail::warp_threads; // 4
constexpr int delta_threads = 256;                                          // 8 blocks of keys a thread block
static_assert(delta_lane_items * carry::detail::warp_threads == delta_block, "carry: a warp codes one block");

/// A lane's keys of a block, moved as one vector (16 bytes for u32 keys; the arrays' starts are aligned).
template <class K>
struct alignas(sizeof(K) * delta_lane_items) delta_lane_keys {
  K k[delta_lane_items];
};

/// This lane's delta_lane_items images of block b of sorted[0, n) (past n: the last key's).
template <class K, class U>
__device__ __forceinline__ void delta_lane_load(const K* sorted, std::int64_t n, std::int64_t b,
                                                bool descending, U (&image)[delta_lane_items]) {
  const int lane = static_cast<int>(threadIdx.x) % carry::detail::warp_threads;
  const std::int64_t first = b * delta_block + std::int64_t{lane} * delta_lane_items;
  if (first + delta_lane_items <= n) { // the lane's keys whole: one vector load
    const delta_lane_keys<K> v = *reinterpret_cast<const delta_lane_keys<K>*>(sorted + first);
    CARRY_UNROLL
    for (int i = 0; i < delta_lane_items; ++i) image[i] = delta_image(v.k[i], descending);
  } else {
    CARRY_UNROLL
    for (int i = 0; i < delta_lane_items; ++i) {
      const std::int64_t at = first + i < n ? first + i : n - 1;
      image[i] = delta_image(sorted[at], descending);
    }
  }
}

/// The step into each of this lane's images from the item before it (item 0 of the block: 0); every lane
/// of the warp calls it.
template <class U>
__device__ __forceinline__ void delta_lane_steps(const U (&image)[delta_lane_items],
                                                 U (&step)[delta_lane_items]) {
  const int lane = static_cast<int>(threadIdx.x) % carry::detail::warp_threads;
  const U before = carry::detail::shfl_up(0xffffffffu, image[delta_lane_items - 1], 1);
  CARRY_UNROLL
  for (int i = 0; i < delta_lane_items; ++i)
    step[i] = i > 0      ? static_cast<U>(image[i] - image[i - 1])
              : lane > 0 ? static_cast<U>(image[0] - before)
                         : U{0};
}

/// Whether block b of `blocks` travels: it exists and is not wholly inside [kept[0], kept[1]) (the run this
/// rank keeps, which is never coded and whose keys are not read). Warp-uniform.
__device__ __forceinline__ bool delta_travels(std::int64_t b, std::int64_t blocks, std::uint64_t kept0,
                                              std::uint64_t kept1) {
  return b < blocks && !(static_cast<std::uint64_t>(b * delta_block) >= kept0 &&
                         static_cast<std::uint64_t>((b + 1) * delta_block) <= kept1);
}

/// The first of the BATCH consecutive blocks of keys the calling warp codes or decodes (delta_grid's
/// launch: delta_threads a thread block).
template <int BATCH>
__device__ __forceinline__ std::int64_t delta_warp_first_block() {
  constexpr int warps = delta_threads / carry::detail::warp_threads;
  return (blockIdx.x * std::int64_t{warps} + threadIdx.x / carry::detail::warp_threads) * BATCH;
}

/// Thread blocks of a coding or decoding launch over `blocks` blocks of keys, BATCH a warp (at least one:
/// the width pass's first thread writes the scan's end).
template <int BATCH>
constexpr unsigned delta_grid(std::int64_t blocks) {
  constexpr int per = delta_threads / carry::detail::warp_threads;
  return static_cast<unsigned>(((blocks + BATCH - 1) / BATCH + per) / per);
}

/// ---- coding, first pass: each block's header (headers[blocks]: width 0, the scan's end) ----
/// A warp codes BATCH consecutive blocks, all their keys loaded before any is used (the loads of a
/// one-block warp alone leave the memory idle between short-lived thread blocks). Blocks of the kept run
/// get width 0: no payload.
template <int BATCH, class K>
__global__ void __launch_bounds__(delta_threads)
    delta_width_kernel(const K* sorted, std::int64_t n, std::int64_t blocks, bool descending,
                       const std::uint64_t* kept,
                       delta_header<typename radix_detail::radix_key<K>::bits_type>* headers) {
  using U = typename radix_detail::radix_key<K>::bits_type;
  const int lane = static_cast<int>(threadIdx.x) % carry::detail::warp_threads;
  const std::int64_t b0 = delta_warp_first_block<BATCH>();
  if (blockIdx.x == 0 && threadIdx.x == 0) headers[blocks] = delta_header<U>{U{0}, 0u};
  if (b0 >= blocks) return;
  const std::uint64_t kept0 = kept[0], kept1 = kept[1];
  // ---- every block's keys in flight ----
  U image[BATCH][delta_lane_items];
  CARRY_UNROLL
  for (int j = 0; j < BATCH; ++j)
    if (delta_travels(b0 + j, blocks, kept0, kept1)) delta_lane_load(sorted, n, b0 + j, descending, image[j]);
  // ---- each block's widest step, its header ----
  CARRY_UNROLL
  for (int j = 0; j < BATCH; ++j) {
    const std::int64_t b = b0 + j;
    if (b >= blocks) break;
    if (!delta_travels(b, blocks, kept0, kept1)) {
      if (lane == 0) headers[b] = delta_header<U>{U{0}, 0u};
      continue;
    }
    U step[delta_lane_items];
    delta_lane_steps(image[j], step);
    U largest = 0;
    CARRY_UNROLL
    for (int i = 0; i < delta_lane_items; ++i) largest = step[i] > largest ? step[i] : largest;
    largest = carry::detail::warp_reduce_ordered( // the block's largest step, in lane 0
        largest, [](U a, U c) { return a > c ? a : c; }, lane, 0xffffffffu, carry::detail::warp_threads);
    if (lane == 0)
      headers[b] = delta_header<U>{image[j][0], static_cast<std::uint32_t>(delta_bit_width(largest))};
  }
}

/// A header's payload words (the scans of block offsets read headers through it).
template <class U>
struct delta_header_words {
  CARRY_HD std::uint64_t operator()(const delta_header<U>& h) const {
    return static_cast<std::uint64_t>(delta_words(static_cast<int>(h.width)));
  }
};

/// ---- coding, second pass: each block's steps packed into its words at payload + offsets[b] ----
/// BATCH consecutive blocks a warp: their keys, widths and offsets loaded first, then one block at a time
/// through the warp's row of shared words.
template <int BATCH, class K>
__global__ void __launch_bounds__(delta_threads)
    delta_pack_kernel(const K* sorted, std::int64_t n, std::int64_t blocks, bool descending,
                      const std::uint64_t* kept,
                      const delta_header<typename radix_detail::radix_key<K>::bits_type>* headers,
                      const std::uint64_t* offsets, std::uint32_t* payload) {
  using U = typename radix_detail::radix_key<K>::bits_type;
  constexpr int warps = delta_threads / carry::detail::warp_threads;
  constexpr int most_words = delta_words(8 * static_cast<int>(sizeof(U)));
  __shared__ std::uint32_t staged[warps][most_words];
  const int lane = static_cast<int>(threadIdx.x) % carry::detail::warp_threads,
            warp = static_cast<int>(threadIdx.x) / carry::detail::warp_threads;
  const std::int64_t b0 = delta_warp_first_block<BATCH>();
  if (b0 >= blocks) return;
  const std::uint64_t kept0 = kept[0], kept1 = kept[1];
  // ---- every block's keys, width and offset in flight ----
  U image[BATCH][delta_lane_items];
  int width[BATCH];
  std::uint64_t at[BATCH];
  CARRY_UNROLL
  for (int j = 0; j < BATCH; ++j) {
    width[j] = 0, at[j] = 0;
    if (delta_travels(b0 + j, blocks, kept0, kept1)) {
      delta_lane_load(sorted, n, b0 + j, descending, image[j]);
      width[j] = static_cast<int>(headers[b0 + j].width);
      at[j] = offsets[b0 + j];
    }
  }
  // ---- each block's steps placed in shared words, then written out whole ----
  CARRY_UNROLL
  for (int j = 0; j < BATCH; ++j) {
    const int count = delta_words(width[j]);
    if (count == 0) continue; // warp-uniform: kept, past the end, or every key equal
    for (int k = lane; k < count; k += carry::detail::warp_threads) staged[warp][k] = 0;
    __syncwarp();
    U step[delta_lane_items];
    delta_lane_steps(image[j], step);
    CARRY_UNROLL
    for (int i = 0; i < delta_lane_items; ++i)
      if (step[i] != 0)
        delta_put(step[i], lane * delta_lane_items + i, width[j],
                  [&](int k, std::uint32_t bits) { atomicOr(&staged[warp][k], bits); });
    __syncwarp();
    std::uint32_t* out = payload + at[j];
    for (int k = lane; k < count; k += carry::detail::warp_threads) out[k] = staged[warp][k];
    __syncwarp(); // the row is read out before the next block clears it
  }
}

/// ---- decoding: received block b (its words at payload + offsets[b]) into keys[b * delta_block ..) ----
/// BATCH consecutive blocks a warp: headers and offsets, then every step's words, loaded before the warp
/// scans.
template <int BATCH, class K>
__global__ void __launch_bounds__(delta_threads)
    delta_decode_kernel(const delta_header<typename radix_detail::radix_key<K>::bits_type>* headers,
                        const std::uint64_t* offsets, const std::uint32_t* payload, std::int64_t blocks,
                        bool descending, K* keys) {
  using U = typename radix_detail::radix_key<K>::bits_type;
  const int lane = static_cast<int>(threadIdx.x) % carry::detail::warp_threads;
  const std::int64_t b0 = delta_warp_first_block<BATCH>();
  if (b0 >= blocks) return;
  // ---- every block's header and offset ----
  delta_header<U> h[BATCH];
  std::uint64_t at[BATCH];
  CARRY_UNROLL
  for (int j = 0; j < BATCH; ++j)
    if (b0 + j < blocks) h[j] = headers[b0 + j], at[j] = offsets[b0 + j];
  // ---- every block's steps for this lane ----
  U step[BATCH][delta_lane_items];
  CARRY_UNROLL
  for (int j = 0; j < BATCH; ++j)
    if (b0 + j < blocks) CARRY_UNROLL
  for (int i = 0; i < delta_lane_items; ++i)
    step[j][i] = delta_step<U>(payload + at[j], static_cast<int>(h[j].width), lane * delta_lane_items + i);
  // ---- each block's keys: the steps of the lanes before this one by the engine's warp scan ----
  CARRY_UNROLL
  for (int j = 0; j < BATCH; ++j) {
    const std::int64_t b = b0 + j;
    if (b >= blocks) break;
    U local[delta_lane_items];
    U sum = 0;
    CARRY_UNROLL
    for (int i = 0; i < delta_lane_items; ++i) local[i] = sum = static_cast<U>(sum + step[j][i]);
    const U through = carry::detail::warp_kogge_stone_inclusive(
        sum, [](U x, U y) { return static_cast<U>(x + y); }, lane, 0xffffffffu);
    const U before = static_cast<U>(h[j].base + (through - sum));
    delta_lane_keys<K> v; // keys has room for whole blocks: one vector store a lane
    CARRY_UNROLL
    for (int i = 0; i < delta_lane_items; ++i)
      v.k[i] = delta_key<K>(static_cast<U>(before + local[i]), descending);
    *reinterpret_cast<delta_lane_keys<K>*>(keys + b * delta_block + lane * delta_lane_items) = v;
  }
}

/// Where each shard bound's widened ends fall in the coded payload: out[j] = offsets[down(off[j]) / G],
/// out[ranks + 1 + j] = offsets[up(off[j]) / G] (G = delta_block; off: the ranks + 1 bucket bounds).
template <int = 0> // a template: defined in every translation unit that includes it
__global__ void delta_bounds_kernel(const std::uint64_t* off, int ranks, const std::uint64_t* offsets,
                                    std::uint64_t* out) {
  for (int j = static_cast<int>(threadIdx.x); j <= ranks; j += static_cast<int>(blockDim.x)) {
    const std::uint64_t o = off[j];
    out[j] = offsets[o / delta_block];
    out[ranks + 1 + j] = offsets[(o + delta_block - 1) / delta_block];
  }
}

} // namespace detail
} // namespace dist
} // namespace carry
