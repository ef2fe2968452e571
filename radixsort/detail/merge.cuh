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
__global__ void merge_split_kernel(const K* a, std::int64_t na, const K* b, std::int64_t nb,
                                   std::int64_t tiles, bool descending, std::int64_t* splits) {
  const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (t > tiles) return;
  const std::int64_t d = t * TILE < na + nb ? t * TILE : na + nb;
  splits[t] = merge_path(a, na, b, nb, d, merge_order<K>{descending});
}

/// The shared memory of a merge tile: its keys (one past the end: a finished run's next key is read, never
/// used) and, for pairs, where each output came from.
template <int TILE, class K, bool PAIRS>
struct merge_storage {
  K keys[TILE + 1];
  int from[PAIRS ? TILE : 1];
};

/// One tile of n outputs (la from run a at pa, the rest from run b at pb): both parts staged in shared
/// memory, a merge path and a sequential merge a thread, then the keys (and each value, fetched from its
/// run) written out at out. FULL: n is the whole tile, and no item is checked against it. Every global
/// access is an unrolled loop of ITEMS independent accesses a thread, all in flight before one is used.
template <int THREADS, int ITEMS, bool FULL, bool DESC, class K, class V, class S>
__device__ __forceinline__ void merge_one_tile(S& st, const K* pa, const K* pb, const V* qa, const V* qb,
                                               int la, int n, K* out, V* vout) {
  constexpr bool pairs = !std::is_same<V, null_value>::value;
  const merge_order<K> less{DESC};
  const int t = static_cast<int>(threadIdx.x);
  const auto in_tile = [&](int x) { return FULL || x < n; };
  // ---- both parts into shared memory (striped: coalesced) ----
  K r[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int i = t + k * THREADS;
    if (in_tile(i)) r[k] = *(i < la ? pa + i : pb + (i - la));
  }
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int i = t + k * THREADS;
    if (in_tile(i)) st.keys[i] = r[k];
  }
  __syncthreads();
  // ---- this thread's ITEMS outputs: its split of the tile, then a sequential merge (the two candidates
  // held in registers: one shared load an output) ----
  const int d = FULL || t * ITEMS < n ? t * ITEMS : n;
  int i = merge_path(st.keys, la, st.keys + la, n - la, d, less), j = la + (d - i);
  K ka = st.keys[i], kb = st.keys[j];
  int src[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const bool take_b = j < n && (i >= la || less(kb, ka));
    src[k] = take_b ? j : i;
    r[k] = take_b ? kb : ka;
    if (take_b) {
      ++j;
      if (FULL || j < n) kb = st.keys[j]; // a whole tile never reads past keys[TILE]
    } else {
      ++i;
      if (FULL || i < la) ka = st.keys[i];
    }
  }
  __syncthreads();
  // ---- out, through shared memory: coalesced keys, and each value from the run it came from ----
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (in_tile(d + k)) {
      st.keys[d + k] = r[k];
      if constexpr (pairs) st.from[d + k] = src[k];
    }
  __syncthreads();
  if constexpr (pairs) {
    V v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int x = t + k * THREADS;
      if (in_tile(x)) {
        const int s = st.from[x];
        v[k] = *(s < la ? qa + s : qb + (s - la));
      }
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int x = t + k * THREADS;
      if (in_tile(x)) vout[x] = v[k];
    }
  }
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int x = t + k * THREADS;
    if (in_tile(x)) out[x] = st.keys[x];
  }
}

/// One tile of the merged output a block, its start and end on run a from merge_split_kernel (every tile
/// but the last one whole).
template <int THREADS, int ITEMS, int MIN_BLOCKS, bool DESC, class K, class V>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    merge_kernel(const K* a, std::int64_t na, const K* b, std::int64_t nb, const V* va, const V* vb, K* out,
                 V* vout, const std::int64_t* splits) {
  constexpr bool pairs = !std::is_same<V, null_value>::value;
  constexpr int TILE = THREADS * ITEMS;
  __shared__ merge_storage<TILE, K, pairs> st;
  // ---- the tile's start and end on both runs ----
  const std::int64_t total = na + nb, d0 = static_cast<std::int64_t>(blockIdx.x) * TILE,
                     d1 = d0 + TILE < total ? d0 + TILE : total;
  const std::int64_t a0 = splits[blockIdx.x], a1 = splits[blockIdx.x + 1], b0 = d0 - a0;
  const int la = static_cast<int>(a1 - a0), n = static_cast<int>(d1 - d0);
  const V* const qa = pairs ? va + a0 : va;
  const V* const qb = pairs ? vb + b0 : vb;
  V* const vo = pairs ? vout + d0 : vout;
  if (n == TILE)
    merge_one_tile<THREADS, ITEMS, true, DESC>(st, a + a0, b + b0, qa, qb, la, n, out + d0, vo);
  else
    merge_one_tile<THREADS, ITEMS, false, DESC>(st, a + a0, b + b0, qa, qb, la, n, out + d0, vo);
}

/// The stable merge of sorted runs a and b into out (and their values, V = null_value for keys alone) in
/// tiles of THREADS x ITEMS; splits: (na + nb) / (THREADS * ITEMS) + 2 items of scratch.
template <int THREADS, int ITEMS, int MIN_BLOCKS, class K, class V>
cudaError_t merge_two_shaped(const K* a, std::int64_t na, const V* va, const K* b, std::int64_t nb,
                             const V* vb, K* out, V* vout, std::int64_t* splits, bool descending,
                             cudaStream_t stream) {
  constexpr int TILE = THREADS * ITEMS;
  const std::int64_t total = na + nb;
  if (total == 0) return cudaSuccess;
  const std::int64_t tiles = (total + TILE - 1) / TILE;
  if (tiles > 0x7FFFFFFF) return cudaErrorInvalidValue;
  merge_split_kernel<TILE><<<static_cast<unsigned>((tiles + 256) / 256), 256, 0, stream>>>(
      a, na, b, nb, tiles, descending, splits);
  if (const cudaError_t e = detail::after_launch(stream); e != cudaSuccess) return e;
  const dim3 grid(static_cast<unsigned>(tiles));
  if (descending)
    merge_kernel<THREADS, ITEMS, MIN_BLOCKS, true>
        <<<grid, THREADS, 0, stream>>>(a, na, b, nb, va, vb, out, vout, splits);
  else
    merge_kernel<THREADS, ITEMS, MIN_BLOCKS, false>
        <<<grid, THREADS, 0, stream>>>(a, na, b, nb, va, vb, out, vout, splits);
  return detail::after_launch(stream);
}

/// merge_two_shaped in the tile the policy gives keys K and values V; splits: merge_splits<K>(na + nb).
template <class K, class V>
cudaError_t merge_two(const K* a, std::int64_t na, const V* va, const K* b, std::int64_t nb, const V* vb,
                      K* out, V* vout, std::int64_t* splits, bool descending, cudaStream_t stream) {
  using S = merge_shape<K, std::is_same<V, null_value>::value ? 0 : static_cast<int>(sizeof(V))>;
  return merge_two_shaped<S::threads, S::items, S::min_blocks>(a, na, va, b, nb, vb, out, vout, splits,
                                                               descending, stream);
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
cudaError_t merge_runs(std::vector<sorted_run<K, V>> runs, K* out, V* vout, K* ping, V* vping, K* pong,
                       V* vpong, std::int64_t* splits, bool descending, cudaStream_t stream) {
  constexpr bool pairs = !std::is_same<V, null_value>::value;
  auto copy = [&](const sorted_run<K, V>& r, K* k, V* v) -> cudaError_t {
    if (r.count == 0 || r.keys == k) return cudaSuccess;
    if (const cudaError_t e =
            cudaMemcpyAsync(k, r.keys, sizeof(K) * r.count, cudaMemcpyDeviceToDevice, stream);
        e != cudaSuccess)
      return e;
    if constexpr (pairs)
      return cudaMemcpyAsync(v, r.values, sizeof(V) * r.count, cudaMemcpyDeviceToDevice, stream);
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
        e = merge_two(x.keys, x.count, x.values, y.keys, y.count, y.values, k + at, pairs ? v + at : v,
                      splits, descending, stream);
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
    return merge_two(runs[0].keys, runs[0].count, runs[0].values, runs[1].keys, runs[1].count, runs[1].values,
                     out, vout, splits, descending, stream);
  if (runs.size() == 1) return copy(runs[0], out, vout);
  return cudaSuccess;
}

} // namespace radix_detail
} // namespace carry
