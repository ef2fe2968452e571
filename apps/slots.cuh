// Public facade of memory-slot allocation: allocate_slots and allocate_slots_bounded (an exclusive sum
// of requests into wider offsets, on the engine's single pass; two-phase temp storage, stream last).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "detail/dispatch.cuh"

namespace carry {

/// Item i asks for d_requests[i] slots (>= 0) of one shared buffer and gets the offset of its first slot,
/// the exclusive sum of the requests before it, in the offset type (wider than the requests if wanted:
/// u32 requests into u64 offsets never wrap at 2^32); *d_total gets the sum of all requests (0 when
/// n == 0). As with CUB's scans, a total past the offset type's range wraps.
///
///   requests [3 1 7 0 4 1 6 3]  ->  offsets [0 3 4 11 11 15 16 22], total 25
///
/// The requests may be any random-access iterator of integers (a pointer takes the staged, vectorised
/// pass; a counting or transform iterator is read item by item, in register tiles):
///
///   auto req = thrust::make_transform_iterator(d_sizes, round_up_to_16{}); // any random-access iterator
///   carry::allocate_slots(d_temp, bytes, req, d_offsets, d_total, n, stream);
///
/// The same as cub::DeviceScan::ExclusiveSum into a wider output type plus reading the total, in one pass.
template <class RequestIt, class OffsetT>
cudaError_t allocate_slots(void* d_temp_storage, std::size_t& temp_storage_bytes, RequestIt d_requests,
                           OffsetT* d_offsets, OffsetT* d_total, std::int64_t num_items,
                           cudaStream_t stream = 0) {
  return apps_detail::dispatch_slots<false>(d_temp_storage, temp_storage_bytes, d_requests, d_offsets,
                                            d_total, OffsetT{0}, static_cast<std::int64_t*>(nullptr),
                                            num_items, stream);
}

/// allocate_slots into a buffer of `capacity` slots: the items whose slots end within the capacity (a
/// prefix of the items: offsets only grow) get their offsets; every later item gets the sentinel
/// carry::slot_sentinel<OffsetT>() (the offset type's largest value), so nothing written through a
/// returned offset passes the capacity. *d_num_fitted gets how many items fit, *d_total the sum of all
/// requests (what a buffer would need to hold them all). OffsetT is unsigned.
///
///   requests [3 1 7 0 4 1 6 3], capacity 15  ->  offsets [0 3 4 11 11 S S S], 5 fitted, total 25
template <class RequestIt, class OffsetT, class NumT>
cudaError_t allocate_slots_bounded(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                   RequestIt d_requests, OffsetT* d_offsets, OffsetT* d_total,
                                   OffsetT capacity, NumT* d_num_fitted, std::int64_t num_items,
                                   cudaStream_t stream = 0) {
  return apps_detail::dispatch_slots<true>(d_temp_storage, temp_storage_bytes, d_requests, d_offsets, d_total,
                                           capacity, d_num_fitted, num_items, stream);
}

/// The offset allocate_slots_bounded gives an item that does not fit.
template <class OffsetT>
constexpr OffsetT slot_sentinel() {
  return apps_detail::slot_sentinel<OffsetT>();
}

} // namespace carry
