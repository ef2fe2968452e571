// Public device-wide scans of carry (CUB's DeviceScan shape): inclusive/exclusive scan and sum.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "detail/dispatch.cuh"
#include "operators.hpp"
#include "scan_options.hpp"
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
