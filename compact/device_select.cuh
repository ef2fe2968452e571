// Public device-wide selections of carry (CUB's DeviceSelect shape): flagged, if, unique; in place too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../scan/operators.hpp"
#include "compact_options.hpp"
#include "../scan/tuning.hpp"
#include "detail/dispatch.cuh"
#include "detail/run_pass.cuh"
#include "detail/runs.hpp"
#include "tuning.hpp"

namespace carry {

// Every call is two-phase, as in CUB: with d_temp_storage == nullptr it only writes the temp storage it
// needs to temp_storage_bytes; then it runs on `stream` with that storage (any alignment). No allocation,
// no synchronisation: the number selected is written to device memory (*d_num_selected, any integer
// type). num_items is 64-bit. Selected items keep their input order.
// Errors (cudaErrorInvalidValue, nothing written): num_items < 0; d_num_selected null; with
// num_items > 0 a null d_in, d_flags or d_out, too little temp storage, or an output that overlaps the
// input without being exactly on it. num_items == 0: *d_num_selected = 0, nothing else written.
// d_in and d_flags may be any random-access iterators (pointers load as vectors); d_out any output
// iterator. In place (d_out == d_in, or the overloads without d_out) is safe at every size.

/// Copies the items whose flag is non-zero, in order.
///
///   d_in    = [3 1 7 0 4 1 6 3]
///   d_flags = [1 0 2 0 0 1 1 0]   ->  d_out = [3 7 1 6], *d_num_selected = 4
template <class InputIt, class FlagIt, class OutputIt, class NumT>
cudaError_t select_flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                           FlagIt d_flags, OutputIt d_out, NumT* d_num_selected, std::int64_t num_items,
                           compact_options options, cudaStream_t stream = 0) {
  using T = compact_detail::value_of<InputIt>;
  using P = compact_tuning::policy<T>;
  return compact_detail::dispatch_compact<P, false, T>(
      d_temp_storage, temp_storage_bytes, d_in, compact_detail::flag_selector<P, T, InputIt>(d_flags),
      compact_detail::is_null(d_flags), d_out, d_num_selected, num_items, options, stream);
}
template <class InputIt, class FlagIt, class OutputIt, class NumT>
cudaError_t select_flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                           FlagIt d_flags, OutputIt d_out, NumT* d_num_selected, std::int64_t num_items,
                           cudaStream_t stream = 0) {
  return select_flagged(d_temp_storage, temp_storage_bytes, d_in, d_flags, d_out, d_num_selected, num_items,
                        compact_options{}, stream);
}
/// In place: the selected items move to the front of d_data, in order (the rest of d_data is left as
/// it was or overwritten: unspecified).   [3 1 7 0 4 1 6 3], flags [1 0 2 0 0 1 1 0] -> [3 7 1 6 ...], 4
template <class T, class FlagIt, class NumT>
cudaError_t select_flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, T* d_data, FlagIt d_flags,
                           NumT* d_num_selected, std::int64_t num_items, cudaStream_t stream = 0) {
  return select_flagged(d_temp_storage, temp_storage_bytes, d_data, d_flags, d_data, d_num_selected,
                        num_items, compact_options{}, stream);
}

/// Copies the items for which pred(item) is true, in order.
///
///   d_in = [3 1 7 0 4 1 6 3], pred = x > 2   ->  d_out = [3 7 4 6 3], *d_num_selected = 5
template <class InputIt, class OutputIt, class NumT, class Pred>
cudaError_t select_if(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                      NumT* d_num_selected, std::int64_t num_items, Pred pred, compact_options options,
                      cudaStream_t stream = 0) {
  using T = compact_detail::value_of<InputIt>;
  return compact_detail::dispatch_compact<compact_tuning::policy<T>, false, T>(
      d_temp_storage, temp_storage_bytes, d_in, compact_detail::by_predicate<Pred>{pred}, false, d_out,
      d_num_selected, num_items, options, stream);
}
template <class InputIt, class OutputIt, class NumT, class Pred>
cudaError_t select_if(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                      NumT* d_num_selected, std::int64_t num_items, Pred pred, cudaStream_t stream = 0) {
  return select_if(d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected, num_items, pred,
                   compact_options{}, stream);
}
/// In place.   [3 1 7 0 4 1 6 3], x > 2  ->  d_data = [3 7 4 6 3 ...], *d_num_selected = 5
template <class T, class NumT, class Pred>
cudaError_t select_if(void* d_temp_storage, std::size_t& temp_storage_bytes, T* d_data, NumT* d_num_selected,
                      std::int64_t num_items, Pred pred, cudaStream_t stream = 0) {
  return select_if(d_temp_storage, temp_storage_bytes, d_data, d_data, d_num_selected, num_items, pred,
                   compact_options{}, stream);
}

/// Copies the first item of each run of equal items (eq(a, b): a and b are equal), in order.
///
///   d_in = [3 3 1 7 7 7 3 3]   ->  d_out = [3 1 7 3], *d_num_selected = 4
template <class InputIt, class OutputIt, class NumT, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t select_unique(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                          NumT* d_num_selected, std::int64_t num_items, Eq eq, compact_options options,
                          cudaStream_t stream = 0) {
  using T = compact_detail::value_of<InputIt>;
  return compact_detail::dispatch_compact<compact_tuning::policy<T>, false, T>(
      d_temp_storage, temp_storage_bytes, d_in, compact_detail::by_unique<Eq>{eq}, false, d_out,
      d_num_selected, num_items, options, stream);
}
template <class InputIt, class OutputIt, class NumT, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t select_unique(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                          NumT* d_num_selected, std::int64_t num_items, Eq eq, cudaStream_t stream = 0) {
  return select_unique(d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected, num_items, eq,
                       compact_options{}, stream);
}
template <class InputIt, class OutputIt, class NumT>
cudaError_t select_unique(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                          NumT* d_num_selected, std::int64_t num_items, cudaStream_t stream = 0) {
  return select_unique(d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected, num_items, equal_to{},
                       compact_options{}, stream);
}
/// In place.   [3 3 1 7 7 7 3 3]  ->  d_data = [3 1 7 3 ...], *d_num_selected = 4
template <class T, class NumT, class Eq, std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t select_unique(void* d_temp_storage, std::size_t& temp_storage_bytes, T* d_data,
                          NumT* d_num_selected, std::int64_t num_items, Eq eq, cudaStream_t stream = 0) {
  return select_unique(d_temp_storage, temp_storage_bytes, d_data, d_data, d_num_selected, num_items, eq,
                       compact_options{}, stream);
}
template <class T, class NumT>
cudaError_t select_unique(void* d_temp_storage, std::size_t& temp_storage_bytes, T* d_data,
                          NumT* d_num_selected, std::int64_t num_items, cudaStream_t stream = 0) {
  return select_unique(d_temp_storage, temp_storage_bytes, d_data, d_data, d_num_selected, num_items,
                       equal_to{}, compact_options{}, stream);
}

/// Copies the first key of each run of equal keys and the value beside it, in order (CUB's
/// DeviceSelect::UniqueByKey): one pass of the engine's keyed agent (as reduce_by_key, the run's first
/// value in place of its fold); options.algorithm three_kernel or single_pass instead run the
/// compaction of (key, value) pairs. Not in place: outputs that overlap an input are refused.
///
///   keys = [3 3 1 7 7 7 3 3], values = [0 1 2 3 4 5 6 7]
///     ->  d_keys_out = [3 1 7 3], d_values_out = [0 2 3 6], *d_num_selected = 4
template <class KeyIt, class ValIt, class KeyOut, class ValOut, class NumT, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t select_unique_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, KeyOut d_keys_out, ValOut d_values_out,
                                 NumT* d_num_selected, std::int64_t num_items, Eq eq, compact_options options,
                                 cudaStream_t stream = 0) {
  using in_t = compact_detail::zip_input<KeyIt, ValIt>;
  using T = typename in_t::value_type;
  // the pairs (and the keyed pass's behaviour) hide the pointers: the run calls' check, here
  if (d_temp_storage != nullptr && !compact_detail::runs_args_ok(num_items, d_num_selected, d_keys_in,
                                                                 d_values_in, d_keys_out, d_values_out))
    return cudaErrorInvalidValue;
  if (options.algorithm == compact_algorithm::automatic) { // the engine's keyed pass
    return compact_detail::with_run_index(num_items, [&](auto index) {
      using K = detail::iter_value<KeyIt>;
      using V = detail::iter_value<ValIt>;
      using B = compact_detail::unique_behaviour<K, V, decltype(index), Eq, KeyOut, ValOut, NumT*>;
      return compact_detail::run_pass<tuning::keyed_unique_policy<K, V>>(
          d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in,
          B{eq, d_keys_out, d_values_out, d_num_selected}, num_items, d_num_selected, scan_options{}, stream);
    });
  }
  return compact_detail::dispatch_compact<compact_tuning::policy<T>, false, T>(
      d_temp_storage, temp_storage_bytes, in_t{d_keys_in, d_values_in},
      compact_detail::by_unique<compact_detail::key_equal<Eq>>{{eq}}, false,
      compact_detail::zip_output<KeyOut, ValOut>{{}, d_keys_out, d_values_out}, d_num_selected, num_items,
      options, stream);
}
template <class KeyIt, class ValIt, class KeyOut, class ValOut, class NumT, class Eq,
          std::enable_if_t<equality_functor<Eq>, int> = 0>
cudaError_t select_unique_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, KeyOut d_keys_out, ValOut d_values_out,
                                 NumT* d_num_selected, std::int64_t num_items, Eq eq,
                                 cudaStream_t stream = 0) {
  return select_unique_by_key(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_keys_out,
                              d_values_out, d_num_selected, num_items, eq, compact_options{}, stream);
}
template <class KeyIt, class ValIt, class KeyOut, class ValOut, class NumT>
cudaError_t select_unique_by_key(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt d_keys_in,
                                 ValIt d_values_in, KeyOut d_keys_out, ValOut d_values_out,
                                 NumT* d_num_selected, std::int64_t num_items, cudaStream_t stream = 0) {
  return select_unique_by_key(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_keys_out,
                              d_values_out, d_num_selected, num_items, equal_to{}, compact_options{}, stream);
}

} // namespace carry
