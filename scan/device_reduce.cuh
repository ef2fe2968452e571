// Public device-wide reduction of carry: order-preserving, so non-commutative operators are right.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "detail/dispatch.cuh"
#include "operators.hpp"
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

} // namespace carry
