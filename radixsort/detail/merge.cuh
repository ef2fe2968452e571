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

/// A tile's items into shared memory, striped (coalesced), every load in flight before one is stored: item
/// x (where in_tile(x)) is key_of(x).
template <int THREADS, int ITEMS, class K, class InTile, class KeyOf>
__device__ __forceinline__ void stage_tile(K* keys, InTile in_tile, KeyOf key_of) {
  const int t = static_cast<int>(threadIdx.x);
  K r[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int x = t + k * THREADS;
    if (in_tile(x)) r[k] = key_of(x);
  }
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int x = t + k * THREADS;
    if (in_tile(x)) keys[x] = r[k];
  }
}

/// A tile's merged outputs out: this thread's ITEMS outputs from d (keys r and, for pairs, their sources
/// src) through shared memory, then the keys written coalesced at out and each value fetched by its source
/// (value_of) at vout. Called once the tile's shared memory is free.
template <int THREADS, int ITEMS, bool PAIRS, class K, class V, class InTile, class ValueOf>
__device__ __forceinline__ void write_tile(K* keys, int* from, const K (&r)[ITEMS], const int (&src)[ITEMS],
                                           int d, InTile in_tile, ValueOf value_of, K* out, V* vout) {
  const int t = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (in_tile(d + k)) {
      keys[d + k] = r[k];
      if constexpr (PAIRS) from[d + k] = src[k];
    }
  __syncthreads();
  if constexpr (PAIRS) {
    V v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int x = t + k * THREADS;
      if (in_tile(x)) v[k] = value_of(from[x]);
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
    if (in_tile(x)) out[x] = keys[x];
  }
}

/// A thread's run of the stable merge of s[0, la) and s[la, n) from output d: its merge path, then the
/// outputs k < ITEMS where live(k), emit(k, key, the key's place in s), the two candidates held in
/// registers (one shared load an output). CHECKED: no key read past a run's end; unchecked, the stage holds
/// a whole tile and a slot past it.
template <int ITEMS, bool CHECKED, class K, class Less, class Live, class Emit>
__device__ __forceinline__ void merge_steps(const K* s, int la, int n, int d, Less less, Live live,
                                            Emit emit) {
  int i = merge_path(s, la, s + la, n - la, d, less), j = la + (d - i);
  K ka = s[i], kb = s[j];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (live(k)) {
      const bool take_b = j < n && (i >= la || less(kb, ka));
      emit(k, take_b ? kb : ka, take_b ? j : i);
      if (take_b) {
        ++j;
        if (!CHECKED || j < n) kb = s[j];
      } else {
        ++i;
        if (!CHECKED || i < la) ka = s[i];
      }
    }
}

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
  stage_tile<THREADS, ITEMS>(st.keys, in_tile, [&](int x) { return *(x < la ? pa + x : pb + (x - la)); });
  __syncthreads();
  // ---- this thread's ITEMS outputs: its split of the tile, then a sequential merge (the two candidates
  // held in registers: one shared load an output) ----
  const int d = FULL || t * ITEMS < n ? t * ITEMS : n;
  K r[ITEMS];
  int src[ITEMS];
  merge_steps<ITEMS, !FULL>(
      st.keys, la, n, d, less, [](int) { return true; },
      [&](int k, K key, int x) {
        src[k] = x;
        r[k] = key;
      });
  __syncthreads();
  // ---- out, through shared memory: coalesced keys, and each value from the run it came from ----
  write_tile<THREADS, ITEMS, pairs>(
      st.keys, st.from, r, src, d, in_tile, [&](int q) { return *(q < la ? qa + q : qb + (q - la)); }, out,
      vout);
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

/// A four-run merge's samples (plan_merge4): sample u is item (u - first[q]) * every of the run q it
/// falls in, tagged u.
template <class K>
__global__ void merge_four_sample_kernel(const K* a, const K* b, const K* c, const K* e, merge4_plan p,
                                         K* keys, std::int64_t* tags) {
  const std::int64_t u = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (u >= p.samples) return;
  const int q = u < p.first[1] ? 0 : u < p.first[2] ? 1 : u < p.first[3] ? 2 : 3;
  const K* const run[4] = {a, b, c, e};
  keys[u] = run[q][(u - p.first[q]) * p.every];
  tags[u] = u;
}

/// The tile boundaries of a four-run merge: boundary t (of tiles + 1) at merged sample t * per_tile, its
/// place on every run by bound_at; the first at the start, the last at the end.
template <class K>
__global__ void merge_four_bound_kernel(const K* a, std::int64_t na, const K* b, std::int64_t nb, const K* c,
                                        std::int64_t nc, const K* e, std::int64_t ne, merge4_plan p,
                                        const std::int64_t* merged_tags, bool descending,
                                        merge4_bound* bounds) {
  const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (t > p.tiles) return;
  if (t == 0 || t == p.tiles) {
    bounds[t] = t == 0 ? merge4_bound{{0, 0, 0, 0}} : merge4_bound{{na, nb, nc, ne}};
    return;
  }
  const std::int64_t u = merged_tags[t * p.per_tile];
  const int q = u < p.first[1] ? 0 : u < p.first[2] ? 1 : u < p.first[3] ? 2 : 3;
  const K* const run[4] = {a, b, c, e};
  const std::int64_t len[4] = {na, nb, nc, ne};
  bounds[t] = bound_at(run, len, q, (u - p.first[q]) * p.every, merge_order<K>{descending});
}

/// The shared memory of a four-run tile: the staged runs (one past the end: a finished run's next key is
/// read, never used), the two inner merges, and for pairs where each inner item came from (then each
/// output's source).
template <int TILE, class K, bool PAIRS>
struct merge4_storage {
  K staged[TILE + 1];
  K inner[TILE + 1];
  int from[PAIRS ? TILE : 1];
};

/// Outputs [d, d + count) of the stable merge of s[0, la) and s[la, la + lb) (count <= ITEMS), written at
/// dst[d + k]; for pairs each one's place in s plus base at from[d + k].
template <int ITEMS, bool PAIRS, class K, class Less>
__device__ __forceinline__ void merge_span(const K* s, int la, int lb, int d, int count, int base, K* dst,
                                           int* from, Less less) {
  if (count <= 0) return;
  merge_steps<ITEMS, true>(
      s, la, la + lb, d, less, [&](int k) { return k < count; },
      [&](int k, K key, int x) {
        dst[d + k] = key;
        if constexpr (PAIRS) from[d + k] = base + x;
      });
}

/// One tile of the merge of four runs a block (each run's items between two of merge_four_bound_kernel's
/// boundaries): the parts staged end to end, merge(a, b) and merge(c, e) written to the second stage, their
/// merge out through the first; values fetched from their runs by source.
template <int THREADS, int ITEMS, int MIN_BLOCKS, bool DESC, class K, class V>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    merge_four_kernel(const K* a, const K* b, const K* c, const K* e, const V* va, const V* vb, const V* vc,
                      const V* ve, K* out, V* vout, const merge4_bound* bounds) {
  constexpr bool pairs = !std::is_same<V, null_value>::value;
  constexpr int TILE = THREADS * ITEMS;
  __shared__ merge4_storage<TILE, K, pairs> st;
  const merge_order<K> less{DESC};
  const int t = static_cast<int>(threadIdx.x);
  // ---- the tile's part of each run (fewer than TILE items: plan_merge4) ----
  const merge4_bound w0 = bounds[blockIdx.x], w1 = bounds[blockIdx.x + 1];
  const std::int64_t d0 = w0.place(), a0 = w0.at[0], b0 = w0.at[1], c0 = w0.at[2], e0 = w0.at[3];
  const int la = static_cast<int>(w1.at[0] - a0), lb = static_cast<int>(w1.at[1] - b0),
            lc = static_cast<int>(w1.at[2] - c0), n = static_cast<int>(w1.place() - d0);
  const int m = la + lb, mc = m + lc; // staged: a's part, b's, c's, e's
  // ---- every part into shared memory (striped: coalesced), all loads in flight first ----
  const auto in_tile = [&](int x) { return x < n; };
  stage_tile<THREADS, ITEMS>(st.staged, in_tile, [&](int x) {
    return x < la ? a[a0 + x] : x < m ? b[b0 + (x - la)] : x < mc ? c[c0 + (x - m)] : e[e0 + (x - mc)];
  });
  __syncthreads();
  // ---- the inner merges: this thread's outputs [x0, x1) of merge(a, b) then merge(c, e), end to end ----
  const int x0 = t * ITEMS < n ? t * ITEMS : n, x1 = x0 + ITEMS < n ? x0 + ITEMS : n;
  const int y0 = x0 > m ? x0 : m;
  merge_span<ITEMS, pairs>(st.staged, la, lb, x0, (x1 < m ? x1 : m) - x0, 0, st.inner, st.from, less);
  merge_span<ITEMS, pairs>(st.staged + m, lc, n - mc, y0 - m, x1 - y0, m, st.inner + m, st.from + m, less);
  __syncthreads();
  // ---- the outer merge: this thread's outputs in registers, then through the first stage ----
  K o[ITEMS];
  int src[ITEMS];
  merge_steps<ITEMS, true>(
      st.inner, m, n, x0, less, [&](int k) { return x0 + k < x1; },
      [&](int k, K key, int x) {
        o[k] = key;
        if constexpr (pairs) src[k] = st.from[x];
      });
  __syncthreads();
  // ---- out: coalesced keys, and each value from the run it came from ----
  write_tile<THREADS, ITEMS, pairs>(
      st.staged, st.from, o, src, x0, in_tile,
      [&](int q) {
        return q < la   ? va[a0 + q]
               : q < m  ? vb[b0 + (q - la)]
               : q < mc ? vc[c0 + (q - m)]
                        : ve[e0 + (q - mc)];
      },
      out + d0, pairs ? vout + d0 : vout);
}

/// A sorted run: count keys (and values) in order.
template <class K, class V>
struct sorted_run {
  const K* keys;
  const V* values;
  std::int64_t count;
};

template <class K, class V>
cudaError_t merge_runs(std::vector<sorted_run<K, V>> runs, K* out, V* vout, K* ping, V* vping, K* pong,
                       V* vpong, std::int64_t* splits, bool descending, cudaStream_t stream);

/// The stable merge of four sorted runs (ties: a's first, then b's, c's, e's; any may be empty) into out
/// (and their values; V = null_value for keys alone) in one pass, tiles of up to THREADS x ITEMS items cut
/// at merged samples (plan_merge4); splits: plan_merge4_for<K>(lengths, THREADS * ITEMS).words words of
/// scratch (at most merge_splits<K>(the total)).
template <int THREADS, int ITEMS, int MIN_BLOCKS, class K, class V>
cudaError_t merge_four_shaped(const K* a, std::int64_t na, const V* va, const K* b, std::int64_t nb,
                              const V* vb, const K* c, std::int64_t nc, const V* vc, const K* e,
                              std::int64_t ne, const V* ve, K* out, V* vout, std::int64_t* splits,
                              bool descending, cudaStream_t stream) {
  constexpr int TILE = THREADS * ITEMS;
  static_assert(TILE >= 5 * radix_tuning::default_policy::merge4_sample_every,
                "a four-run tile holds at least one sample interval beyond the four runs' slack");
  static_assert(!merge4_pays<K, static_cast<int>(sizeof(std::int64_t))>(),
                "the samples (tagged in 8 bytes) merge by the two-run tree, whose splits plan_merge4 holds");
  const std::int64_t len[4] = {na, nb, nc, ne};
  if (na + nb + nc + ne == 0) return cudaSuccess;
  const merge4_plan p = plan_merge4_for<K>(len, TILE);
  if (p.tiles > 0x7FFFFFFF) return cudaErrorInvalidValue;
  auto* bounds = reinterpret_cast<merge4_bound*>(splits + p.bounds);
  K* keys[3];
  std::int64_t* tags[3];
  for (int i = 0; i < 3; ++i) {
    keys[i] = reinterpret_cast<K*>(splits + p.keys[i]);
    tags[i] = splits + p.tags[i];
  }
  // ---- the samples, merged stably by the two-run tree (each run pair, then the two pairs): the tiles'
  // boundaries ----
  merge_four_sample_kernel<<<static_cast<unsigned>((p.samples + 255) / 256), 256, 0, stream>>>(
      a, b, c, e, p, keys[0], tags[0]);
  if (const cudaError_t err = detail::after_launch(stream); err != cudaSuccess) return err;
  std::vector<sorted_run<K, std::int64_t>> sampled;
  for (int q = 0; q < 4; ++q)
    sampled.push_back({keys[0] + p.first[q], tags[0] + p.first[q], p.first[q + 1] - p.first[q]});
  if (const cudaError_t err =
          merge_runs(std::move(sampled), keys[2], tags[2], keys[1], tags[1], static_cast<K*>(nullptr),
                     static_cast<std::int64_t*>(nullptr), splits + p.splits, descending, stream);
      err != cudaSuccess)
    return err;
  merge_four_bound_kernel<<<static_cast<unsigned>((p.tiles + 128) / 128), 128, 0, stream>>>(
      a, na, b, nb, c, nc, e, ne, p, tags[2], descending, bounds);
  if (const cudaError_t err = detail::after_launch(stream); err != cudaSuccess) return err;
  // ---- the tiles ----
  const dim3 grid(static_cast<unsigned>(p.tiles));
  if (descending)
    merge_four_kernel<THREADS, ITEMS, MIN_BLOCKS, true>
        <<<grid, THREADS, 0, stream>>>(a, b, c, e, va, vb, vc, ve, out, vout, bounds);
  else
    merge_four_kernel<THREADS, ITEMS, MIN_BLOCKS, false>
        <<<grid, THREADS, 0, stream>>>(a, b, c, e, va, vb, vc, ve, out, vout, bounds);
  return detail::after_launch(stream);
}

/// merge_four_shaped in the tile the policy gives keys K and values V; splits: merge_splits<K>(total).
template <class K, class V>
cudaError_t merge_four(const K* a, std::int64_t na, const V* va, const K* b, std::int64_t nb, const V* vb,
                       const K* c, std::int64_t nc, const V* vc, const K* e, std::int64_t ne, const V* ve,
                       K* out, V* vout, std::int64_t* splits, bool descending, cudaStream_t stream) {
  using S = merge4_shape<K, std::is_same<V, null_value>::value ? 0 : static_cast<int>(sizeof(V))>;
  return merge_four_shaped<S::threads, S::items, S::min_blocks>(a, na, va, b, nb, vb, c, nc, vc, e, ne, ve,
                                                                out, vout, splits, descending, stream);
}

/// The most runs one merge of merge_runs takes, for keys K and values V (null_value: keys alone): four
/// where the policy merges four runs in one pass (merge4_pays), else two.
template <class K, class V>
constexpr std::size_t merge_fan() {
  constexpr int value_bytes = std::is_same<V, null_value>::value ? 0 : static_cast<int>(sizeof(V));
  return merge4_pays<K, value_bytes>() ? 4 : 2;
}

/// The stable merge of runs (earlier runs first on ties) into out by a tree of merges of up to
/// merge_fan<K, V>() runs each (four: merge_four; two: merge_two). Each level writes into the buffer its
/// runs are not in (ping, then pong, ...; a lone last run copied along), the last into out. ping and pong
/// hold the runs' total; pong may hold runs of the first level (it is written from the second level on),
/// ping none of them; neither is needed for merge_fan runs or fewer. splits: merge_splits<K>(the runs'
/// total) items of scratch.
template <class K, class V>
cudaError_t merge_runs(std::vector<sorted_run<K, V>> runs, K* out, V* vout, K* ping, V* vping, K* pong,
                       V* vpong, std::int64_t* splits, bool descending, cudaStream_t stream) {
  constexpr bool pairs = !std::is_same<V, null_value>::value;
  constexpr std::size_t fan = merge_fan<K, V>();
  // runs[r, r + g) (g of 1 to fan) merged into k, v
  auto group = [&](const sorted_run<K, V>* r, std::size_t g, K* k, V* v) -> cudaError_t {
    if (g == 1) {
      if (r->count == 0 || r->keys == k) return cudaSuccess;
      if (const cudaError_t e =
              cudaMemcpyAsync(k, r->keys, sizeof(K) * r->count, cudaMemcpyDeviceToDevice, stream);
          e != cudaSuccess)
        return e;
      if constexpr (pairs)
        return cudaMemcpyAsync(v, r->values, sizeof(V) * r->count, cudaMemcpyDeviceToDevice, stream);
      return cudaSuccess;
    }
    if constexpr (fan == 4)
      if (g > 2) {
        const sorted_run<K, V> none{r[0].keys, r[0].values, 0};
        const sorted_run<K, V>& last = g == 4 ? r[3] : none;
        return merge_four(r[0].keys, r[0].count, r[0].values, r[1].keys, r[1].count, r[1].values, r[2].keys,
                          r[2].count, r[2].values, last.keys, last.count, last.values, k, v, splits,
                          descending, stream);
      }
    return merge_two(r[0].keys, r[0].count, r[0].values, r[1].keys, r[1].count, r[1].values, k, v, splits,
                     descending, stream);
  };
  for (int level = 0; runs.size() > fan; ++level) {
    K* k = level % 2 == 0 ? ping : pong;
    V* v = level % 2 == 0 ? vping : vpong;
    std::vector<sorted_run<K, V>> next;
    std::int64_t at = 0;
    for (std::size_t r = 0; r < runs.size(); r += fan) {
      const std::size_t g = runs.size() - r < fan ? runs.size() - r : fan;
      std::int64_t m = 0;
      for (std::size_t q = r; q < r + g; ++q) m += runs[q].count;
      if (const cudaError_t e = group(&runs[r], g, k + at, pairs ? v + at : v); e != cudaSuccess) return e;
      next.push_back(sorted_run<K, V>{k + at, pairs ? v + at : nullptr, m});
      at += m;
    }
    runs.swap(next);
  }
  if (runs.empty()) return cudaSuccess;
  return group(runs.data(), runs.size(), out, vout);
}

} // namespace radix_detail
} // namespace carry
