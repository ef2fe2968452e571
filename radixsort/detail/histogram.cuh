// The onesweep path's up-front pass: digit counts of every pass in one read of the keys, the adaptive
// checks (constant digits, keys already in order), and, in the last block, each pass's digit offsets.
#pragma once

#include <cstdint>
#include <cstring>

#include "../../scan/block_scan.cuh"
#include "../../scan/util/warp.cuh"
#include "../../scan/lookback/ticket.cuh"
#include "../../scan/operators.hpp"
#include "../tuning.hpp"
#include "key_traits.hpp"
#include "plan.hpp"

namespace carry {
namespace radix_detail {

/// What the histogram pass needs to know of the call.
struct histogram_args {
  std::int64_t n = 0;
  int passes = 0;
  int begin_bit = 0, end_bit = 0;
  bool descending = false;
  bool adaptive = true;
  int bucket_capacity = 0; // > 0: the bucket form was launched, for buckets of up to this many keys
};

/// Keys of K in one 16-byte vector, and the keys a histogram thread reads per segment.
template <class K>
constexpr int histogram_vector_keys() {
  return 16 / static_cast<int>(sizeof(K));
}
template <class K, class P = radix_tuning::default_policy>
constexpr int histogram_thread_keys() {
  return histogram_vector_keys<K>() * P::histogram_vectors;
}

/// One warp's segment: 32 x V x R keys from `s`, round r's lane l holding keys
/// s + r*32V + l*V .. +V-1 (one 16-byte load when whole and `aligned`; FULL: the segment lies inside the
/// input and `aligned` holds, so no key is checked against n). Counts every pass's digits into
/// `counters`, one shared atomic a key and pass (as CUB's histogram: on the H100 an all-equal input
/// does not serialise on one counter, h100-timeline-*.csv; runs of equal digits merged in a lane cost
/// a compare and a branch a key and pass and took 267 us at 2^26 against 122 for CUB) and, when
/// `check`, sets `unsorted` if two neighbours are out of order, compared in the key's own width: a
/// key's right neighbour is the next key of its vector, the next lane's first key of the round, lane
/// 0's first of the next round (two shuffles a round) or, at the segment's end, one extra load.
template <bool FULL, int R, class K, int MAX_PASSES>
__device__ __forceinline__ void
histogram_segment(const K* keys, std::int64_t s, bool aligned, const histogram_args& a,
                  const digit_extract (&ex)[MAX_PASSES],
                  unsigned (&counters)[MAX_PASSES][radix_tuning::radix], bool check, bool& unsorted) {
  using U = typename radix_key<K>::bits_type;
  constexpr int V = histogram_vector_keys<K>(), W = detail::warp_threads;
  const int lane = threadIdx.x % W;
  const unsigned full = 0xffffffffu;
  // ---- load ----
  U u[R * V];
  CARRY_UNROLL
  for (int r = 0; r < R; ++r) {
    const std::int64_t i0 = s + std::int64_t{r} * W * V + std::int64_t{lane} * V;
    if (FULL || (aligned && i0 + V <= a.n)) {
      const uint4 w = *reinterpret_cast<const uint4*>(keys + i0);
      K k[V];
      memcpy(k, &w, sizeof(w));
      CARRY_UNROLL
      for (int j = 0; j < V; ++j) u[r * V + j] = radix_key<K>::ordered(k[j]);
    } else {
      CARRY_UNROLL
      for (int j = 0; j < V; ++j) u[r * V + j] = i0 + j < a.n ? radix_key<K>::ordered(keys[i0 + j]) : U{0};
    }
  }
  // ---- digits of every pass, one atomic a key ----
  CARRY_UNROLL
  for (int p = 0; p < MAX_PASSES; ++p) {
    if (p >= a.passes) break;
    CARRY_UNROLL
    for (int r = 0; r < R; ++r) {
      const std::int64_t i0 = s + std::int64_t{r} * W * V + std::int64_t{lane} * V;
      CARRY_UNROLL
      for (int j = 0; j < V; ++j)
        if (FULL || i0 + j < a.n) atomicAdd(&counters[p][ex[p](u[r * V + j])], 1u);
    }
  }
  // ---- neighbours out of order ----
  if (!check) return;
  U t[R * V];
  CARRY_UNROLL
  for (int j = 0; j < R * V; ++j) t[j] = sort_bits<U>(u[j], a.begin_bit, a.end_bit, a.descending);
  CARRY_UNROLL
  for (int r = 0; r < R; ++r) {
    const U next_lane = static_cast<U>(__shfl_down_sync(full, t[r * V], 1));
    const U next_round = static_cast<U>(__shfl_sync(full, t[(r + 1 < R ? r + 1 : r) * V], 0));
    const std::int64_t i0 = s + std::int64_t{r} * W * V + std::int64_t{lane} * V;
    CARRY_UNROLL
    for (int j = 0; j < V; ++j) {
      const std::int64_t right = i0 + j + 1;
      if (right < a.n) {
        U y;
        if (j + 1 < V)
          y = t[r * V + j + 1];
        else if (lane < W - 1)
          y = next_lane;
        else if (r + 1 < R)
          y = next_round;
        else
          y = sort_bits<U>(radix_key<K>::ordered(keys[right]), a.begin_bit, a.end_bit, a.descending);
        if (t[r * V + j] > y) unsorted = true;
      }
    }
  }
}

/// Counts every pass's digits into hist[pass * 256 + digit] (zeroed by the call's memset) and sets
/// control->unsorted when two neighbouring keys are out of order (bits [begin, end), ascending or
/// descending). The last block to finish writes each pass's exclusive digit offsets to
/// bases[pass * 512 + digit] (portion 0's slot) and the skip mask: pass p is skipped when one digit
/// holds all n keys, or when the keys are already in order (adaptive only); and, when every pass is
/// constant over all the key's bits, control->equal_keys (adaptive only: the finish is then a fill).
/// With a.bucket_capacity > 0 it also chooses the bucket form (bucket_sort.cuh) when at least two passes
/// are left to run and no digit of the top one holds more than bucket_capacity keys: control->
/// bucket_top = that pass + 1, bucket_passes = the passes below it that run, and every pass is marked
/// skipped (the passes' launches find nothing to do; the last one's launch runs the MSD pass instead).
///
/// Each warp reads segments of keys grid-stride (histogram_segment: 16-byte vectors, neighbours checked
/// in registers; whole segments with no check against n); digits are counted in shared memory, one
/// atomic a key and pass.
template <int THREADS, class K, class P = radix_tuning::default_policy>
__global__ void __launch_bounds__(THREADS, P::histogram_blocks_per_sm)
    radix_histogram_kernel(const K* keys, histogram_args a, std::uint64_t* hist, sort_control* control,
                           std::uint64_t* bases) {
  constexpr int max_passes = static_cast<int>(sizeof(K)); // 8-bit digits
  constexpr int radix = radix_tuning::radix;
  static_assert(THREADS == radix, "carry: one thread per digit");
  using scan_t = block_scan<std::uint64_t, THREADS>;
  __shared__ unsigned counters[max_passes][radix];
  __shared__ typename scan_t::temp_storage scan_ts;
  __shared__ bool last;
  const unsigned full = 0xffffffffu;
  if constexpr (radix_tuning::pdl_early<P>)
    lookback::allow_dependents(); // the first pass may launch (it waits)
  for (int i = threadIdx.x; i < max_passes * radix; i += THREADS) (&counters[0][0])[i] = 0;
  __syncthreads();
  // ---- count, and look for a pair out of order ----
  bool unsorted = false;
  digit_extract ex[max_passes];
  CARRY_UNROLL
  for (int p = 0; p < max_passes; ++p)
    if (p < a.passes)
      ex[p] = digit_extract(pass_digit(a.begin_bit, a.end_bit, p, radix_tuning::digit_bits, a.descending));
  const std::int64_t warps = std::int64_t{gridDim.x} * (THREADS / detail::warp_threads);
  const std::int64_t warp =
      std::int64_t{blockIdx.x} * (THREADS / detail::warp_threads) + threadIdx.x / detail::warp_threads;
  constexpr int seg = detail::warp_threads * histogram_thread_keys<K, P>();
  const bool aligned = reinterpret_cast<std::uintptr_t>(keys) % 16 == 0;
  for (std::int64_t s = warp * seg; s < a.n; s += warps * seg) {
    const bool check = a.adaptive && !__any_sync(full, unsorted);
    if (aligned && s + seg <= a.n)
      histogram_segment<true, P::histogram_vectors>(keys, s, true, a, ex, counters, check, unsorted);
    else
      histogram_segment<false, P::histogram_vectors>(keys, s, aligned, a, ex, counters, check, unsorted);
  }
  // ---- merge into the call's counts ----
  __syncthreads();
  for (int p = 0; p < a.passes; ++p)
    if (const unsigned c = counters[p][threadIdx.x])
      atomicAdd(reinterpret_cast<unsigned long long*>(hist + p * radix + threadIdx.x),
                static_cast<unsigned long long>(c));
  if (__syncthreads_or(unsorted) && threadIdx.x == 0) atomicOr(&control->unsorted, 1u);
  // ---- the last block to arrive: digit offsets and the skip mask ----
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(&control->arrivals, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  const bool sorted = a.adaptive && __ldcg(&control->unsorted) == 0;
  unsigned skip = 0;
  bool every_constant = true; // every pass's digit constant: all images equal over [begin, end)
  for (int p = 0; p < a.passes; ++p) {
    std::uint64_t c[1] = {
        __ldcg(reinterpret_cast<const unsigned long long*>(hist + p * radix + threadIdx.x))};
    const bool constant = c[0] == static_cast<std::uint64_t>(a.n);
    scan_t(scan_ts).exclusive_scan(c, std::uint64_t{0}, sum{});
    bases[p * 2 * radix + threadIdx.x] = c[0];
    const bool any_constant = __syncthreads_or(constant); // also frees scan_ts for the next pass
    if (a.adaptive && (sorted || any_constant)) skip |= 1u << p;
    every_constant = every_constant && any_constant;
  }
  // ---- the bucket form: the top pass that runs splits the keys into buckets that fit a block ----
  unsigned bucket_top = 0, bucket_passes = 0;
  if (a.bucket_capacity > 0) {
    const int top = bucket_msd_pass(skip, a.passes);
    if (top >= 0) {
      const std::uint64_t c =
          __ldcg(reinterpret_cast<const unsigned long long*>(hist + top * radix + threadIdx.x));
      if (!__syncthreads_or(c > static_cast<std::uint64_t>(a.bucket_capacity))) {
        bucket_top = static_cast<unsigned>(top) + 1u;
        bucket_passes = bucket_lower_passes(skip, top);
      }
    }
  }
  if (threadIdx.x == 0) {
    control->skip_mask = bucket_top != 0 ? skip | ((1u << a.passes) - 1u) : skip;
    control->equal_keys = a.adaptive && every_constant && a.begin_bit == 0 && a.end_bit == radix_key<K>::bits;
    control->bucket_top = bucket_top;
    control->bucket_passes = bucket_passes;
  }
}

} // namespace radix_detail
} // namespace carry
