// Public by-key scans of carry (CUB's DeviceScan::*ByKey shape): a scan restarted at every run of equal keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "detail/accumulator.hpp"
#include "detail/by_key.hpp"
#include "detail/dispatch.cuh"
#include "operators.hpp"
#include "scan_options.hpp"
#include "tuning.hpp"

namespace carry {

// Every call is two-phase, as the other scans; keys, values in and values out are any random-access
// iterators (values out: any output iterator); eq(a, b) says whether two adjacent keys belong to one
// run (default operator==). The scan runs on the engine's keyed single pass: keys and values of a tile
// in registers, each thread's (segment-start flag, value) fold through the engine's block scan and
// look-back with the segmented operator, so a fold never crosses a run. The value type: the values' (or
// the one named first), of any size. Arguments in CUB's order (..., num_items, equality_op,
// stream); the scans also take scan_options before the stream (deterministic: the same bits every run
// for floats). Errors: as the scans (a null pointer among keys, values in or values out with n > 0;
// overlapping pointers; too little temp storage): cudaErrorInvalidValue, nothing written.

namespace detail {
template <bool EXCLUSIVE, class V, class KeyIt, class ValIt, class OutIt, class Op, class Eq>
cudaError_t scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys,
                        ValIt d_values_in, OutIt d_values_out, Op op, V init, std::int64_t num_items, Eq eq,
                        const scan_options& options, cudaStream_t stream) {
  using K = iter_value<KeyIt>;
  using P = tuning::keyed_scan_policy<K, V>;
  if (d_temp_storage != nullptr && num_items > 0) { // the behaviour hides the pointers: checked here
    const bool null = checked_address(d_keys) == nullptr || checked_address(d_values_in) == nullptr ||
                      checked_address(d_values_out) == nullptr;
    const bool in_place = checked_address(d_values_in) == checked_address(d_values_out) &&
                          std::is_same<iter_value<ValIt>, out_value<OutIt>>::value;
    if (null || iterators_overlap(d_keys, d_values_out, num_items) ||
        (!in_place && iterators_overlap(d_values_in, d_values_out, num_items)))
      return cudaErrorInvalidValue;
  }
  const scan_by_key_behaviour<EXCLUSIVE, K, V, Op, Eq, OutIt> b{eq, op, init, d_values_out};
  return dispatch_keyed<P>(d_temp_storage, temp_storage_bytes, d_keys, d_values_in, b, num_items, options,
                           vector_ok<V, P::items_per_thread>(d_values_out), stream);
}
} // namespace detail

/// Inclusive scan of each run of equal keys: d_values_out[i] = values[s] op ... op values[i], s the
/// first item of i's run.
///
///   keys = [1 1 2 2 2 1], values = [3 1 7 0 4 1], op = carry::sum{}  ->  [3 4 7 7 11 1]
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Op, class Eq>
cudaError_t inclusive_scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                  ValIt d_values_in, OutIt d_values_out, Op scan_op, std::int64_t num_items,
                                  Eq equality_op, scan_options options, cudaStream_t stream = 0) {
  using A = std::conditional_t<std::is_same<V, default_accumulator>::value, detail::iter_value<ValIt>, V>;
  return detail::scan_by_key<false, A>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in,
                                       d_values_out, scan_op, A{}, num_items, equality_op, options, stream);
}
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Op, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t inclusive_scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                  ValIt d_values_in, OutIt d_values_out, Op scan_op, std::int64_t num_items,
                                  Eq equality_op, cudaStream_t stream = 0) {
  return inclusive_scan_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                  scan_op, num_items, equality_op, scan_options{}, stream);
}
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Op>
cudaError_t inclusive_scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                  ValIt d_values_in, OutIt d_values_out, Op scan_op, std::int64_t num_items,
                                  cudaStream_t stream = 0) {
  return inclusive_scan_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                  scan_op, num_items, equal_to{}, scan_options{}, stream);
}

/// Exclusive scan of each run of equal keys, each run seeded with init: d_values_out[i] = init op
/// values[s] op ... op values[i - 1] (init at a run's first item).
///
///   keys = [1 1 2 2 2 1], values = [3 1 7 0 4 1], init = 0  ->  [0 3 0 7 7 0]
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Op, class Init,
          class Eq>
cudaError_t exclusive_scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                  ValIt d_values_in, OutIt d_values_out, Op scan_op, Init init_value,
                                  std::int64_t num_items, Eq equality_op, scan_options options,
                                  cudaStream_t stream = 0) {
  using A = std::conditional_t<std::is_same<V, default_accumulator>::value, detail::iter_value<ValIt>, V>;
  return detail::scan_by_key<true, A>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in,
                                      d_values_out, scan_op, static_cast<A>(init_value), num_items,
                                      equality_op, options, stream);
}
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Op, class Init,
          class Eq, std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t exclusive_scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                  ValIt d_values_in, OutIt d_values_out, Op scan_op, Init init_value,
                                  std::int64_t num_items, Eq equality_op, cudaStream_t stream = 0) {
  return exclusive_scan_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                  scan_op, init_value, num_items, equality_op, scan_options{}, stream);
}
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Op, class Init>
cudaError_t exclusive_scan_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                  ValIt d_values_in, OutIt d_values_out, Op scan_op, Init init_value,
                                  std::int64_t num_items, cudaStream_t stream = 0) {
  return exclusive_scan_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                  scan_op, init_value, num_items, equal_to{}, scan_options{}, stream);
}

/// inclusive_scan_by_key with carry::sum{}.   keys = [1 1 2 2 2 1], values = [3 1 7 0 4 1]  ->  [3 4 7 7 11 1]
/// With options (deterministic: the same bits every run for floats):
///   inclusive_sum_by_key(d_temp, bytes, d_keys, d_values, d_out, n, carry::equal_to{}, options, stream)
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Eq>
cudaError_t inclusive_sum_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, OutIt d_values_out, std::int64_t num_items,
                                 Eq equality_op, scan_options options, cudaStream_t stream = 0) {
  return inclusive_scan_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                  sum{}, num_items, equality_op, options, stream);
}
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t inclusive_sum_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, OutIt d_values_out, std::int64_t num_items,
                                 Eq equality_op, cudaStream_t stream = 0) {
  return inclusive_scan_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                  sum{}, num_items, equality_op, scan_options{}, stream);
}
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt>
cudaError_t inclusive_sum_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, OutIt d_values_out, std::int64_t num_items,
                                 cudaStream_t stream = 0) {
  return inclusive_scan_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                  sum{}, num_items, equal_to{}, scan_options{}, stream);
}

/// exclusive_scan_by_key with carry::sum{} and init 0.   [1 1 2 2 2 1], [3 1 7 0 4 1]  ->  [0 3 0 7 7 0]
/// Options as inclusive_sum_by_key's, after the equality functor.
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Eq>
cudaError_t exclusive_sum_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, OutIt d_values_out, std::int64_t num_items,
                                 Eq equality_op, scan_options options, cudaStream_t stream = 0) {
  using A = std::conditional_t<std::is_same<V, default_accumulator>::value, detail::iter_value<ValIt>, V>;
  return exclusive_scan_by_key<A>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                  sum{}, A{}, num_items, equality_op, options, stream);
}
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t exclusive_sum_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, OutIt d_values_out, std::int64_t num_items,
                                 Eq equality_op, cudaStream_t stream = 0) {
  return exclusive_sum_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                 num_items, equality_op, scan_options{}, stream);
}
template <class V = default_accumulator, class KeyIt, class ValIt, class OutIt>
cudaError_t exclusive_sum_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, OutIt d_values_out, std::int64_t num_items,
                                 cudaStream_t stream = 0) {
  return exclusive_sum_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                                 num_items, equal_to{}, stream);
}

} // namespace carry
