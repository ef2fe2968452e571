// Public device-wide scans of carry (CUB's DeviceScan shape): inclusive/exclusive scan and sum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "detail/accumulator.hpp"
#include "detail/dispatch.cuh"
#include "operators.hpp"
#include "scan_options.hpp"
#include "transform_input.hpp"
#include "tuning.hpp"

namespace carry {

// Every call is two-phase, as in CUB: with d_temp_storage == nullptr it only writes the temp storage it
// needs to temp_storage_bytes; then it runs on `stream` with that storage (any alignment). No allocation,
// no synchronisation. Errors: num_items < 0, a null d_in/d_out with num_items > 0, or too little temp
// storage -> cudaErrorInvalidValue and nothing written; num_items == 0 -> cudaSuccess, nothing written;
// launch errors are returned. In place (d_in == d_out) works. num_items is 64-bit.
// Operators: any associative `T op(T earlier, T later)`, commutative or not; T trivially copyable.

/// Inclusive scan: d_out[i] = d_in[0] op d_in[1] op ... op d_in[i].
///
///   d_in = [3 1 7 0 4 1 6 3], op = carry::sum{}  ->  d_out = [3 4 11 11 15 16 22 25]
template <class T, class Op>
cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                           Op scan_op, std::int64_t num_items, scan_options options,
                           cudaStream_t stream = 0) {
  return detail::dispatch_scan<tuning::hierarchical_policy<T>, tuning::single_pass_policy<T>,
                               tuning::small_policy<T>, false>(
      d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, T{}, num_items, options, stream);
}
template <class T, class Op>
cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                           Op scan_op, std::int64_t num_items, cudaStream_t stream = 0) {
  return inclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, num_items, scan_options{},
                        stream);
}

/// Exclusive scan seeded with init: d_out[0] = init, d_out[i] = init op d_in[0] op ... op d_in[i-1].
///
///   d_in = [3 1 7 0 4 1 6 3], op = carry::sum{}, init = 0  ->  d_out = [0 3 4 11 11 15 16 22]
template <class T, class Op>
cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                           Op scan_op, T init, std::int64_t num_items, scan_options options,
                           cudaStream_t stream = 0) {
  return detail::dispatch_scan<tuning::hierarchical_policy<T>, tuning::single_pass_policy<T>,
                               tuning::small_policy<T>, true>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                                              scan_op, init, num_items, options, stream);
}
template <class T, class Op>
cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                           Op scan_op, T init, std::int64_t num_items, cudaStream_t stream = 0) {
  return exclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, init, num_items,
                        scan_options{}, stream);
}

/// Inclusive prefix sum.   d_in = [3 1 7 0 4 1 6 3]  ->  d_out = [3 4 11 11 15 16 22 25]
template <class T>
cudaError_t inclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                          std::int64_t num_items, scan_options options, cudaStream_t stream = 0) {
  return inclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, sum{}, num_items, options, stream);
}
template <class T>
cudaError_t inclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                          std::int64_t num_items, cudaStream_t stream = 0) {
  return inclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, sum{}, num_items, stream);
}

/// Exclusive prefix sum (init T{} = 0).   d_in = [3 1 7 0 4 1 6 3]  ->  d_out = [0 3 4 11 11 15 16 22]
template <class T>
cudaError_t exclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                          std::int64_t num_items, scan_options options, cudaStream_t stream = 0) {
  return exclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, sum{}, T{}, num_items, options,
                        stream);
}
template <class T>
cudaError_t exclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                          std::int64_t num_items, cudaStream_t stream = 0) {
  return exclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, sum{}, T{}, num_items, stream);
}

// ---- Iterators and mixed types ----
// The same four calls over any random-access input iterator (counting, transform, a pointer of another
// type) into any output iterator, accumulating in the type scan_accumulator picks: a sum in the
// output's value type (u8 flags into u32 offsets never wrap at 256), any other operator in
// op(init, input)'s type as CUB (else the output's). Name the accumulator to choose it:
// carry::exclusive_sum<std::int64_t>(...). Pointers of one type take the overloads above. These run the
// engine's staged single pass; inputs and outputs that are pointers and overlap are refused.
//
//   d_in = u8 [1 0 1 1 ...] (flags), d_out = u32  ->  exclusive_sum: [0 1 1 2 3 ...] (offsets)

namespace detail {
/// The scan of any iterators in accumulator A: pointers of A both ways take the pointer overloads' path.
template <bool EXCLUSIVE, class A, class InIt, class OutIt, class Op>
cudaError_t scan_iterators(void* d_temp_storage, std::size_t& temp_storage_bytes, InIt d_in, OutIt d_out,
                           Op op, A init, std::int64_t num_items, const scan_options& options,
                           cudaStream_t stream) {
  if constexpr (std::is_convertible<InIt, const A*>::value && std::is_same<OutIt, A*>::value) {
    return dispatch_scan<tuning::hierarchical_policy<A>, tuning::single_pass_policy<A>,
                         tuning::small_policy<A>, EXCLUSIVE>(d_temp_storage, temp_storage_bytes,
                                                             static_cast<const A*>(d_in), d_out, op, init,
                                                             num_items, options, stream);
  } else {
    return dispatch_scan_any<tuning::any_input_policy<A>, EXCLUSIVE>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, op, init, num_items, options, stream);
  }
}
} // namespace detail

/// Inclusive scan of any input iterator into any output iterator.
///
///   d_in = thrust::counting_iterator<int>(1), n = 5, op = carry::sum{}  ->  d_out = [1 3 6 10 15]
template <class Acc = default_accumulator, class InputIt, class OutputIt, class Op,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt>(), int> = 0>
cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                           OutputIt d_out, Op scan_op, std::int64_t num_items, scan_options options,
                           cudaStream_t stream = 0) {
  using A = detail::scan_accumulator_t<Acc, false, Op, detail::iter_value<InputIt>, InputIt, OutputIt>;
  return detail::scan_iterators<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, A{},
                                       num_items, options, stream);
}
template <class Acc = default_accumulator, class InputIt, class OutputIt, class Op,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt>(), int> = 0>
cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                           OutputIt d_out, Op scan_op, std::int64_t num_items, cudaStream_t stream = 0) {
  return inclusive_scan<Acc>(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, num_items,
                             scan_options{}, stream);
}

/// Exclusive scan of any input iterator into any output iterator, seeded with init.
///
///   d_in = i32 [3 1 7 0], init = std::int64_t{10}, op = carry::sum{}  ->  d_out (i64) = [10 13 14 21]
template <class Acc = default_accumulator, class InputIt, class OutputIt, class Op, class Init,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt, Init>(), int> = 0>
cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                           OutputIt d_out, Op scan_op, Init init, std::int64_t num_items,
                           scan_options options, cudaStream_t stream = 0) {
  using A = detail::scan_accumulator_t<Acc, false, Op, Init, InputIt, OutputIt>;
  return detail::scan_iterators<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op,
                                      static_cast<A>(init), num_items, options, stream);
}
template <class Acc = default_accumulator, class InputIt, class OutputIt, class Op, class Init,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt, Init>(), int> = 0>
cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                           OutputIt d_out, Op scan_op, Init init, std::int64_t num_items,
                           cudaStream_t stream = 0) {
  return exclusive_scan<Acc>(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, init, num_items,
                             scan_options{}, stream);
}

/// Inclusive prefix sum of any input iterator, in the output's type (or the named accumulator).
///
///   d_in = u8 [200 100 50], d_out = u32  ->  d_out = [200 300 350]
template <class Acc = default_accumulator, class InputIt, class OutputIt,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt>(), int> = 0>
cudaError_t inclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                          std::int64_t num_items, scan_options options, cudaStream_t stream = 0) {
  using A = detail::scan_accumulator_t<Acc, true, sum, detail::iter_value<InputIt>, InputIt, OutputIt>;
  return detail::scan_iterators<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, sum{}, A{}, num_items,
                                       options, stream);
}
template <class Acc = default_accumulator, class InputIt, class OutputIt,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt>(), int> = 0>
cudaError_t inclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                          std::int64_t num_items, cudaStream_t stream = 0) {
  return inclusive_sum<Acc>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, scan_options{},
                            stream);
}

/// Exclusive prefix sum of any input iterator (init 0), in the output's type (or the named accumulator).
///
///   d_in = bool [1 0 1 1], d_out = i64  ->  d_out = [0 1 1 2]
template <class Acc = default_accumulator, class InputIt, class OutputIt,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt>(), int> = 0>
cudaError_t exclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                          std::int64_t num_items, scan_options options, cudaStream_t stream = 0) {
  using A = detail::scan_accumulator_t<Acc, true, sum, detail::iter_value<InputIt>, InputIt, OutputIt>;
  return detail::scan_iterators<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, sum{}, A{}, num_items,
                                      options, stream);
}
template <class Acc = default_accumulator, class InputIt, class OutputIt,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt>(), int> = 0>
cudaError_t exclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                          std::int64_t num_items, cudaStream_t stream = 0) {
  return exclusive_sum<Acc>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, scan_options{},
                            stream);
}

/// The same scans with explicit tile policies (carry::tile_policy): how the benchmark and the tests run
/// each block algorithm inside the hierarchical pass, or try other tile shapes.
///
///   using ks = carry::tile_policy<carry::block_scan_algorithm::kogge_stone, 512, 1>;
///   carry::device_scan_with<ks>::inclusive_scan(tmp, bytes, d_in, d_out, carry::sum{}, n,
///       carry::scan_options{carry::scan_algorithm::hierarchical}, stream);
///
/// A third policy, a carry::tuning::small_tile_policy, adds the small-input path (as the public entry
/// points do); without it every size runs on the first two.
template <class HierarchicalPolicy, class SinglePassPolicy = HierarchicalPolicy,
          class SmallPolicy = SinglePassPolicy>
struct device_scan_with {
  template <class T, class Op>
  static cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                                    T* d_out, Op scan_op, std::int64_t num_items, scan_options options,
                                    cudaStream_t stream = 0) {
    return detail::dispatch_scan<HierarchicalPolicy, SinglePassPolicy, SmallPolicy, false>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, T{}, num_items, options, stream);
  }
  template <class T, class Op>
  static cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                                    T* d_out, Op scan_op, T init, std::int64_t num_items,
                                    scan_options options, cudaStream_t stream = 0) {
    return detail::dispatch_scan<HierarchicalPolicy, SinglePassPolicy, SmallPolicy, true>(
        d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, init, num_items, options, stream);
  }
};

} // namespace carry
