// Public device-wide reduction of carry: order-preserving, so non-commutative operators are right.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "detail/accumulator.hpp"
#include "detail/dispatch.cuh"
#include "operators.hpp"
#include "transform_input.hpp"
#include "tuning.hpp"

namespace carry {

/// *d_out = init op d_in[0] op d_in[1] op ... op d_in[n-1], folded in order (CUB's DeviceReduce assumes
/// a commutative operator; this one does not). Deterministic: the same tree for the same n every time.
/// Arguments in the order the scans use (op, init, num_items), not DeviceReduce::Reduce's
/// (num_items, op, init): a CUB-ordered call does not compile, so it cannot silently mix them up.
/// num_items == 0 writes init to *d_out, as CUB does.
///
///   d_in = [3 1 7 0 4 1 6 3], op = carry::sum{}, init = 0  ->  *d_out = 25
template <class T, class Op>
cudaError_t reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                   Op reduce_op, T init, std::int64_t num_items, cudaStream_t stream = 0) {
  return detail::dispatch_reduce<tuning::hierarchical_policy<T>>(d_temp_storage, temp_storage_bytes, d_in,
                                                                 d_out, reduce_op, init, num_items, stream);
}

/// The reduction over any input iterator into any output iterator, accumulating in op(init, item)'s
/// type (CUB's rule; where that call does not compile, carry's operators taking two values of one
/// type: the output's type, else init's), or in the type named first: reduce<std::int64_t>(...).
/// Pointers of one type with an init of that type take the overload above.
///
///   d_in = u8 [200 100 50], init = std::uint64_t{0}, op = carry::sum{}  ->  *d_out (u64) = 350
template <class Acc = default_accumulator, class InputIt, class OutputIt, class Op, class Init,
          std::enable_if_t<detail::iterator_scan_args<InputIt, OutputIt, Init>(), int> = 0>
cudaError_t reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                   Op reduce_op, Init init, std::int64_t num_items, cudaStream_t stream = 0) {
  using A = detail::scan_accumulator_t<
      Acc, false, Op, Init, InputIt,
      std::conditional_t<std::is_void<detail::out_value<OutputIt>>::value, const Init*, OutputIt>>;
  static_assert(!std::is_void<A>::value, "carry: name the reduction's accumulator: reduce<T>(...)");
  return detail::dispatch_reduce<tuning::hierarchical_policy<A>>(
      d_temp_storage, temp_storage_bytes, d_in, d_out, reduce_op, static_cast<A>(init), num_items, stream);
}

/// *d_out = init op f(d_in[0]) op f(d_in[1]) op ... op f(d_in[n-1]), folded in order: reduce over
/// make_transform_input(d_in, f) (CUB's DeviceReduce::TransformReduce, in carry's argument order).
///
///   d_in = [1 2 3 4], f = x * x, op = carry::sum{}, init = 0  ->  *d_out = 30
template <class Acc = default_accumulator, class InputIt, class OutputIt, class Op, class F, class Init>
cudaError_t transform_reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                             OutputIt d_out, Op reduce_op, F transform_op, Init init, std::int64_t num_items,
                             cudaStream_t stream = 0) {
  return reduce<Acc>(d_temp_storage, temp_storage_bytes, make_transform_input(d_in, transform_op), d_out,
                     reduce_op, init, num_items, stream);
}

} // namespace carry
