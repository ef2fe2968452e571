// Public run calls of carry: reduce_by_key (CUB's DeviceReduce::ReduceByKey) and run_length_encode /
// non_trivial_runs (DeviceRunLengthEncode::Encode / NonTrivialRuns), each one single pass of the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../scan/detail/accumulator.hpp"
#include "../scan/detail/dispatch.cuh"
#include "../scan/operators.hpp"
#include "../scan/scan_options.hpp"
#include "../scan/tuning.hpp"
#include "detail/run_pass.cuh"
#include "detail/staged_spans.cuh"
#include "tuning.hpp"

namespace carry {

// A run is a maximal stretch of adjacent items equal under eq (default operator==). Every call is
// two-phase, as in CUB; inputs are any random-access iterators, outputs any output iterators; the run
// count goes to *d_num_runs_out (any integer type or output iterator), on the device. Each call is one
// single pass of the engine's keyed agent (no private scan): keys (and values) of a tile in registers,
// each item's run start and end from its neighbours, a thread's fold through the engine's block scan and
// look-back: reduce_by_key's (runs started, value) pairs restarted at every run start, the run-length
// calls' (runs so far, latest run start); each run's outputs written by the thread that holds its first
// or last item. The run-length calls over pointer keys of 4 bytes or more take the staged pass instead
// (detail/staged_spans.cuh: the keys in shared memory, twice the tile in flight).
// Deliberate differences from CUB: an optional equality functor after num_items (as in the by-key
// scans; a literal 0 or a stream there still picks CUB's form), and reduce_by_key's scan_options
// (deterministic: the same bits every run for floats) before the stream.
// Errors (cudaErrorInvalidValue, nothing written): num_items < 0, a null d_num_runs_out; with
// num_items > 0 a null input or output pointer, an output pointer overlapping an input, too little temp
// storage. num_items == 0: only the run count (0) is written.

namespace compact_detail {

/// run_length_encode (firsts: the runs' first items) and non_trivial_runs (NON_TRIVIAL; firsts: the
/// offsets of the runs of two or more): the keyed pass with the run-length behaviour.
template <bool NON_TRIVIAL, class InputIt, class FirstIt, class LengthIt, class NumIt, class Eq>
cudaError_t encode_runs(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, FirstIt d_firsts,
                        LengthIt d_lengths, NumIt d_num_runs, std::int64_t num_items, Eq eq,
                        cudaStream_t stream) {
  if (d_temp_storage != nullptr && !runs_args_ok(num_items, d_num_runs, d_in, d_in, d_firsts, d_lengths))
    return cudaErrorInvalidValue;
  return with_run_index(num_items, [&](auto index) {
    using K = detail::iter_value<InputIt>;
    using I = decltype(index);
    using B = span_behaviour<NON_TRIVIAL, K, I, Eq, FirstIt, LengthIt, NumIt>;
    const B b{eq, d_firsts, d_lengths, d_num_runs};
    const auto* no_values = static_cast<const no_value*>(nullptr);
    using staged = compact_tuning::run_length_policy<K>;
    if constexpr (staged_spans<staged, InputIt, I>())
      return run_pass<staged, staged_span_agent>(d_temp_storage, temp_storage_bytes, d_in, no_values, b,
                                                 num_items, d_num_runs, scan_options{}, stream);
    else
      return run_pass<tuning::keyed_encode_policy<K, I>>(d_temp_storage, temp_storage_bytes, d_in, no_values,
                                                         b, num_items, d_num_runs, scan_options{}, stream);
  });
}

} // namespace compact_detail

/// For each run of equal keys: its first key to d_unique_out and the fold of its values (in order,
/// op need not commute) to d_aggregates_out; the number of runs to *d_num_runs_out. The fold's type:
/// the values' (or the one named first: reduce_by_key<double>(...)).
///
///   keys = [1 1 2 2 2 1], values = [3 1 7 0 4 1], op = carry::sum{}
///     ->  d_unique_out = [1 2 1], d_aggregates_out = [4 11 1], *d_num_runs_out = 3
template <class V = default_accumulator, class KeyIt, class UniqueIt, class ValIt, class AggIt, class NumIt,
          class Op, class Eq>
cudaError_t reduce_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                          UniqueIt d_unique_out, ValIt d_values_in, AggIt d_aggregates_out,
                          NumIt d_num_runs_out, Op reduction_op, std::int64_t num_items, Eq equality_op,
                          scan_options options, cudaStream_t stream = 0) {
  using A = std::conditional_t<std::is_same<V, default_accumulator>::value, detail::iter_value<ValIt>, V>;
  if (d_temp_storage != nullptr && !compact_detail::runs_args_ok(num_items, d_num_runs_out, d_keys_in,
                                                                 d_values_in, d_unique_out, d_aggregates_out))
    return cudaErrorInvalidValue;
  return compact_detail::with_run_index(num_items, [&](auto index) {
    using K = detail::iter_value<KeyIt>;
    using H = decltype(index);
    using B = compact_detail::reduce_by_key_behaviour<K, A, H, Op, Eq, UniqueIt, AggIt, NumIt>;
    return compact_detail::run_pass<tuning::keyed_runs_policy<K, A>>(
        d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in,
        B{equality_op, reduction_op, d_unique_out, d_aggregates_out, d_num_runs_out}, num_items,
        d_num_runs_out, options, stream);
  });
}
template <class V = default_accumulator, class KeyIt, class UniqueIt, class ValIt, class AggIt, class NumIt,
          class Op, class Eq, std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t reduce_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                          UniqueIt d_unique_out, ValIt d_values_in, AggIt d_aggregates_out,
                          NumIt d_num_runs_out, Op reduction_op, std::int64_t num_items, Eq equality_op,
                          cudaStream_t stream = 0) {
  return reduce_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_unique_out, d_values_in,
                          d_aggregates_out, d_num_runs_out, reduction_op, num_items, equality_op,
                          scan_options{}, stream);
}
/// CUB's form (operator==; a literal 0 as the stream picks this one).
template <class V = default_accumulator, class KeyIt, class UniqueIt, class ValIt, class AggIt, class NumIt,
          class Op>
cudaError_t reduce_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                          UniqueIt d_unique_out, ValIt d_values_in, AggIt d_aggregates_out,
                          NumIt d_num_runs_out, Op reduction_op, std::int64_t num_items,
                          cudaStream_t stream = 0) {
  return reduce_by_key<V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_unique_out, d_values_in,
                          d_aggregates_out, d_num_runs_out, reduction_op, num_items, equal_to{},
                          scan_options{}, stream);
}

/// For each run of equal items: its first item to d_unique_out and its length to d_counts_out; the
/// number of runs to *d_num_runs_out.
///
///   d_in = [3 3 1 7 7 7 3 3]  ->  d_unique_out = [3 1 7 3], d_counts_out = [2 1 3 2], *d_num_runs_out = 4
template <class InputIt, class UniqueIt, class LengthIt, class NumIt, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t run_length_encode(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                              UniqueIt d_unique_out, LengthIt d_counts_out, NumIt d_num_runs_out,
                              std::int64_t num_items, Eq equality_op, cudaStream_t stream = 0) {
  return compact_detail::encode_runs<false>(d_temp_storage, temp_storage_bytes, d_in, d_unique_out,
                                            d_counts_out, d_num_runs_out, num_items, equality_op, stream);
}
template <class InputIt, class UniqueIt, class LengthIt, class NumIt>
cudaError_t run_length_encode(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                              UniqueIt d_unique_out, LengthIt d_counts_out, NumIt d_num_runs_out,
                              std::int64_t num_items, cudaStream_t stream = 0) {
  return compact_detail::encode_runs<false>(d_temp_storage, temp_storage_bytes, d_in, d_unique_out,
                                            d_counts_out, d_num_runs_out, num_items, equal_to{}, stream);
}

/// For each run of two or more equal items: the offset of its first item to d_offsets_out and its
/// length to d_lengths_out; the number of such runs to *d_num_runs_out.
///
///   d_in = [3 3 1 7 7 7 3 0]  ->  d_offsets_out = [0 3], d_lengths_out = [2 3], *d_num_runs_out = 2
template <class InputIt, class OffsetIt, class LengthIt, class NumIt, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t non_trivial_runs(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                             OffsetIt d_offsets_out, LengthIt d_lengths_out, NumIt d_num_runs_out,
                             std::int64_t num_items, Eq equality_op, cudaStream_t stream = 0) {
  return compact_detail::encode_runs<true>(d_temp_storage, temp_storage_bytes, d_in, d_offsets_out,
                                           d_lengths_out, d_num_runs_out, num_items, equality_op, stream);
}
template <class InputIt, class OffsetIt, class LengthIt, class NumIt>
cudaError_t non_trivial_runs(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                             OffsetIt d_offsets_out, LengthIt d_lengths_out, NumIt d_num_runs_out,
                             std::int64_t num_items, cudaStream_t stream = 0) {
  return compact_detail::encode_runs<true>(d_temp_storage, temp_storage_bytes, d_in, d_offsets_out,
                                           d_lengths_out, d_num_runs_out, num_items, equal_to{}, stream);
}

} // namespace carry
