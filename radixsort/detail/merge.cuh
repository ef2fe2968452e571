// Stable merge of sorted runs by merge path (keys, or keys with values), in the order the radix sort
// keeps (each key's ordered image, flipped for descending): the distributed sort's last step.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "../../scan/util/launch.cuh"
#include "digit.cuh"
#include "key_traits.hpp"
#include "merge_plan.hpp"

namespace carry {
namespace radix_detail {

/// Where each tile of the merged output starts on run a (tile t: the merge path at t * TILE; the last
/// entry, at the end): all tiles' searches at once, so no merge block waits on its own.
template <int TILE, class K>
__global__ void merge_split_kernel(const K* a, std::int64_t na, const K* b, std::int64_t nb, std::int64_t tiles,
                                   bool descending, std::int64_t* splits) {
  const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (t > tiles) return;
  const std::int64_t d = t * TILE < na + nb ? t * TILE : na + nb;
  splits[t] = merge_path(a, na, b, nb, d, merge_order<K>{descending});
}

/// One tile of the merged output a block (its start and end on run a from merge_split_kernel): its parts
/// of both runs staged in shared memory, a merge path and a sequential merge a thread, then the keys (and
/// each value, fetched from its run) written out.
template <int THREADS, int ITEMS, class K, class V>
__global__ void __launch_bounds__(THREADS)
    merge_kernel(const K* a, std::int64_t na, const K* b, std::int64_t nb, const V* va, const V* vb, K* out, V* vout,
                 const std::int64_t* splits, bool descending) {
  constexpr bool pairs = !std::is_same<V, null_value>::value;
  constexpr int TILE = THREADS * ITEMS;
  __shared__ K keys[TILE];
  __shared__ int from[pairs ? TILE : 1];
  const merge_order<K> less{descending};
  const std::int64_t total = na + nb, d0 = static_cast<std::int64_t>(blockIdx.x) * TILE,
                     d1 = d0 + TILE < total ? d0 + TILE : total;
  // ---- the tile's start and end on both runs ----
  const std::int64_t a0 = splits[blockIdx.x], a1 = splits[blockIdx.x + 1], b0 = d0 - a0;
  const int la = static_cast<int>(a1 - a0), lb = static_cast<int>((d1 - a1) - b0), n = la + lb;
  // ---- both parts into shared memory ----
  for (int i = static_cast<int>(threadIdx.x); i < n; i += THREADS) keys[i] = i < la ? a[a0 + i] : b[b0 + (i - la)];
  __syncthreads();
  // ---- this thread's ITEMS outputs: its split of the tile, then a sequential merge ----
  const int d = static_cast<int>(threadIdx.x) * ITEMS < n ? static_cast<int>(threadIdx.x) * ITEMS : n;
  int i = static_cast<int>(merge_path(keys, la, keys + la, lb, d, less)), j = d - i;
  K r[ITEMS];
  int src[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    if (d + k < n) {
      const bool take_a = j >= lb || (i < la && !less(keys[la + j], keys[i]));
      src[k] = take_a ? i : la + j;
      r[k] = keys[src[k]];
      if (take_a)
        ++i;
      else
        ++j;
    }
  }
  __syncthreads();
  // ---- out, through shared memory: coalesced keys, and each value from the run it came from ----
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (d + k < n) {
      keys[d + k] = r[k];
      if constexpr (pairs) from[d + k] = src[k];
    }
  __syncthreads();
  for (int x = static_cast<int>(threadIdx.x); x < n; x += THREADS) {
    out[d0 + x] = keys[x];
    if constexpr (pairs) {
      const int s = from[x];
      vout[d0 + x] = s < la ? va[a0 + s] : vb[b0 + (s - la)];
    }
  }
}

/// The stable merge of sorted runs a and b into out (and their values, V = null_value for keys alone);
/// splits: merge_splits<K>(na + nb) items of scratch.
template <class K, class V>
cudaError_t merge_two(const K* a, std::int64_t na, const V* va, const K* b, std::int64_t nb, const V* vb, K* out,
                      V* vout, std::int64_t* splits, bool descending, cudaStream_t stream) {
  constexpr int ITEMS = merge_items<K>(), TILE = merge_threads * ITEMS;
  const std::int64_t total = na + nb;
  if (total == 0) return cudaSuccess;
  const std::int64_t tiles = (total + TILE - 1) / TILE;
  if (tiles > 0x7FFFFFFF) return cudaErrorInvalidValue;
  merge_split_kernel<TILE><<<static_cast<unsigned>((tiles + 256) / 256), 256, 0, stream>>>(a, na, b, nb, tiles,
                                                                                           descending, splits);
  if (const cudaError_t e = detail::after_launch(stream); e != cudaSuccess) return e;
  merge_kernel<merge_threads, ITEMS><<<static_cast<unsigned>(tiles), merge_threads, 0, stream>>>(
      a, na, b, nb, va, vb, out, vout, splits, descending);
  return detail::after_launch(stream);
}

/// A sorted run: count keys (and values) in order.
template <class K, class V>
struct sorted_run {
  const K* keys;
  const V* values;
  std::int64_t count;
};

/// The stable merge of runs (earlier runs first on ties) into out, by a tree of two-run merges: each level
/// writes into the buffer its runs are not in (ping, then pong, ...; an odd last run copied along), the
/// last into out. ping and pong hold the runs' total; pong may hold runs of the first level (it is written
/// from the second level on), ping none of them; neither is needed for two runs or fewer. splits:
/// merge_splits<K>(the runs' total) items of scratch.
template <class K, class V>
cudaError_t merge_runs(std::vector<sorted_run<K, V>> runs, K* out, V* vout, K* ping, V* vping, K* pong, V* vpong,
                       std::int64_t* splits, bool descending, cudaStream_t stream) {
  constexpr bool pairs = !std::is_same<V, null_value>::value;
  auto copy = [&](const sorted_run<K, V>& r, K* k, V* v) -> cudaError_t {
    if (r.count == 0 || r.keys == k) return cudaSuccess;
    if (const cudaError_t e = cudaMemcpyAsync(k, r.keys, sizeof(K) * r.count, cudaMemcpyDeviceToDevice, stream);
        e != cudaSuccess)
      return e;
    if constexpr (pairs) return cudaMemcpyAsync(v, r.values, sizeof(V) * r.count, cudaMemcpyDeviceToDevice, stream);
    return cudaSuccess;
  };
  for (int level = 0; runs.size() > 2; ++level) {
    K* k = level % 2 == 0 ? ping : pong;
    V* v = level % 2 == 0 ? vping : vpong;
    std::vector<sorted_run<K, V>> next;
    std::int64_t at = 0;
    for (std::size_t r = 0; r < runs.size(); r += 2) {
      const sorted_run<K, V>& x = runs[r];
      const std::int64_t m = x.count + (r + 1 < runs.size() ? runs[r + 1].count : 0);
      cudaError_t e = cudaSuccess;
      if (r + 1 < runs.size()) {
        const sorted_run<K, V>& y = runs[r + 1];
        e = merge_two(x.keys, x.count, x.values, y.keys, y.count, y.values, k + at, pairs ? v + at : v, splits,
                      descending, stream);
      } else {
        e = copy(x, k + at, pairs ? v + at : v);
      }
      if (e != cudaSuccess) return e;
      next.push_back(sorted_run<K, V>{k + at, pairs ? v + at : nullptr, m});
      at += m;
    }
    runs.swap(next);
  }
  if (runs.size() == 2)
    return merge_two(runs[0].keys, runs[0].count, runs[0].values, runs[1].keys, runs[1].count, runs[1].values, out,
                     vout, splits, descending, stream);
  if (runs.size() == 1) return copy(runs[0], out, vout);
  return cudaSuccess;
}

} // namespace radix_detail
} // namespace carry
