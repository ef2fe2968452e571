// The bucket form's second step: after the MSD pass, one block a bucket of the top digit sorts the bucket by
// the lower digits that run, LSD, in shared memory with the engine's multisplit, and writes the result
// (the call's last launch, which is the finishing copy when the histogram did not choose the form).
#pragma once

#include <cstdint>

#include "../../scan/lookback/prepare.cuh"
#include "../tuning.hpp"
#include "block_sort.cuh"
#include "finish.cuh"
#include "plan.hpp"

namespace carry {
namespace radix_detail {

/// What the bucket kernel needs to know of the call.
struct bucket_args {
  int host_passes = 0; // the passes the host planned (where the caller expects the result)
  int begin_bit = 0, end_bit = 0;
  bool descending = false;
};

/// Shared memory of a block sorting a bucket of up to 256 x ITEMS keys (block_sort.cuh).
template <int ITEMS, bool HAS_VALUES, class K, class V, class P = radix_tuning::default_policy>
using bucket_storage = block_sort_storage<ITEMS, HAS_VALUES, K, V, radix_tuning::threads, P>;

/// Block b sorts bucket b of the MSD pass's digit (pass control->bucket_top - 1): its keys (and values)
/// lie at [bases of b, + its count) of kb.out, where the MSD pass put them in input order; the block
/// sorts them by the passes in control->bucket_passes (sort_block_range) into the same range of the
/// caller's target (kb.out itself in the pointer form). Stable, since the MSD pass and the block sort
/// are. The histogram chose the form only when no bucket holds more than tile_items keys.
///   bucket of digit 0x12 holding [0x1203 0x1201 0x1202] (u16 keys, one lower pass) -> [0x1201 0x1202 0x1203]
template <int ITEMS, bool HAS_VALUES, class K, class V, class P>
__device__ __forceinline__ void bucket_sort_block(bucket_storage<ITEMS, HAS_VALUES, K, V, P>& ts, int b,
                                                  const pass_buffers<K>& kb, const pass_buffers<V>& vb,
                                                  const bucket_args& a, const sort_control* control,
                                                  const std::uint64_t* hist, const std::uint64_t* bases) {
  constexpr int radix = radix_tuning::radix;
  const int p_top = static_cast<int>(control->bucket_top) - 1;
  const int count = static_cast<int>(hist[p_top * radix + b]); // <= tile_items: the histogram's choice
  const std::int64_t start = static_cast<std::int64_t>(bases[p_top * 2 * radix + b]);
  sort_block_range<ITEMS, HAS_VALUES>(ts, kb.out + start, HAS_VALUES ? vb.out + start : nullptr,
                                      const_cast<K*>(kb.target(a.host_passes)) + start,
                                      HAS_VALUES ? const_cast<V*>(vb.target(a.host_passes)) + start : nullptr,
                                      count, control->bucket_passes, a.begin_bit, a.end_bit, a.descending);
}

/// The last launch of a call the bucket form may take (radix_tuning::bucket_max_n), in place of
/// finish_copy_kernel, with at least radix blocks: when the histogram chose the form, block b < radix
/// sorts bucket b (bucket_sort_block); otherwise the finishing copy, grid-stride (finish_copy). One
/// launch for both, so that neither way pays a launch that finds nothing to do.
template <int ITEMS, bool HAS_VALUES, class K, class V, class P = radix_tuning::default_policy>
__global__ void __launch_bounds__(radix_tuning::threads)
    bucket_finish_kernel(pass_buffers<K> kb, pass_buffers<V> vb, bucket_args a, const sort_control* control,
                         const std::uint64_t* hist, const std::uint64_t* bases, std::int64_t n) {
  __shared__ bucket_storage<ITEMS, HAS_VALUES, K, V, P> ts;
  lookback::
      wait_for_previous_grid();   // launched as the last pass's programmatic dependent (radix_tuning::pdl)
  if (control->bucket_top != 0) { // the same for every block
    if (blockIdx.x < static_cast<unsigned>(radix_tuning::radix))
      bucket_sort_block<ITEMS, HAS_VALUES>(ts, static_cast<int>(blockIdx.x), kb, vb, a, control, hist, bases);
    return;
  }
  finish_copy<HAS_VALUES>(kb, vb, control, a.host_passes, n);
}

} // namespace radix_detail
} // namespace carry
