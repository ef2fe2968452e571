// The step that ends a sort: when the passes that ran left the keys (and values) elsewhere than the caller
// expects, copy them there, or fill with the one key when every key is equal.
#pragma once

#include <cstdint>
#include <cstring>

#include "../../scan/lookback/ticket.cuh"
#include "key_traits.hpp"
#include "plan.hpp"

namespace carry {
namespace radix_detail {

/// Writes n items to `to`, grid-stride: item(i) for each, or, when `vec` (16-byte aligned target, and
/// T divides 16 bytes), chunk(c) for each whole 16-byte chunk c and item(i) for the tail.
template <class T, class Chunk, class Item>
__device__ __forceinline__ void write_items(T* to, std::int64_t n, bool vec, Chunk chunk, Item item) {
  const std::int64_t rank = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::int64_t threads = std::int64_t{gridDim.x} * blockDim.x;
  std::int64_t done = 0;
  if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0) {
    if (vec && reinterpret_cast<std::uintptr_t>(to) % 16 == 0) {
      constexpr std::int64_t per = 16 / sizeof(T);
      const std::int64_t chunks = n / per;
      uint4* o = reinterpret_cast<uint4*>(to);
      for (std::int64_t c = rank; c < chunks; c += threads) o[c] = chunk(c);
      done = chunks * per;
    }
  }
  for (std::int64_t i = done + rank; i < n; i += threads) to[i] = item(i);
}

/// Copies n items from `from` to `to`, 16 bytes a thread-step when both are 16-byte aligned.
template <class T>
__device__ void copy_items(const T* from, T* to, std::int64_t n) {
  write_items(
      to, n, reinterpret_cast<std::uintptr_t>(from) % 16 == 0,
      [&](std::int64_t c) { return reinterpret_cast<const uint4*>(from)[c]; },
      [&](std::int64_t i) { return from[i]; });
}

/// Writes n copies of v to `to`, 16 bytes a thread-step when `to` is 16-byte aligned.
template <class T>
__device__ void fill_items(T* to, T v, std::int64_t n) {
  uint4 w{};
  if constexpr (sizeof(T) <= 16 && 16 % sizeof(T) == 0) {
    T pack[16 / sizeof(T)];
    for (auto& x : pack) x = v;
    memcpy(&w, pack, sizeof(w));
  }
  write_items(
      to, n, true, [&](std::int64_t) { return w; }, [&](std::int64_t) { return v; });
}

/// Whether n keys whose images all equal `first`'s are n copies of `first`: always, but for floating
/// keys whose image is that of +-0.0 (both map to it; the input's mix of them must be kept).
template <class K>
__device__ __forceinline__ bool equal_keys_are_copies(const K& first) {
  if constexpr (kind_of<K>() == key_kind::floating)
    return radix_key<K>::ordered(first) != radix_key<K>::ordered_bits(0);
  else
    return true;
}

/// The call's last step: when the passes that ran (all but those in the skip mask; `control` null: all
/// of them) left keys and values somewhere else than the caller expects, copy them there; keys only,
/// with every key equal over all its bits (control->equal_keys), fill the target with the first key.
/// Grid-stride over any grid (finish_copy_kernel's; the bucket form's fused last launch, bucket_sort.cuh,
/// which calls it only when the histogram did not choose the form: finish_copy_kernel runs only where
/// the histogram cannot choose it).
template <bool HAS_VALUES, class K, class V>
__device__ __forceinline__ void finish_copy(const pass_buffers<K>& kb, const pass_buffers<V>& vb,
                                            const sort_control* control, int host_passes, std::int64_t n) {
  const unsigned skip = control != nullptr ? control->skip_mask : 0u;
  const int k = executed_passes(skip, host_passes);
  if (!kb.needs_copy(k, host_passes)) return;
  if constexpr (!HAS_VALUES) {
    // ---- every key the same (histogram: all bits constant): the result is a fill, no second read ----
    if (control != nullptr && control->equal_keys != 0) {
      const K first = kb.result(k)[0];
      if (equal_keys_are_copies(first)) {
        fill_items(const_cast<K*>(kb.target(host_passes)), first, n);
        return;
      }
    }
  }
  copy_items(kb.result(k), const_cast<K*>(kb.target(host_passes)), n);
  if constexpr (HAS_VALUES) copy_items(vb.result(k), const_cast<V*>(vb.target(host_passes)), n);
}

/// finish_copy as a kernel of its own (launched as the last pass's programmatic dependent,
/// radix_tuning::pdl).
template <bool HAS_VALUES, class K, class V>
__global__ void __launch_bounds__(256)
    finish_copy_kernel(pass_buffers<K> kb, pass_buffers<V> vb, const sort_control* control, int host_passes,
                       std::int64_t n) {
  lookback::wait_for_previous_grid();
  finish_copy<HAS_VALUES>(kb, vb, control, host_passes, n);
}

} // namespace radix_detail
} // namespace carry
