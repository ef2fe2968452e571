// Distributed compaction over the shards of an NCCL communicator: dist::select_if, select_flagged and
// partition (each rank compacts its shard; one all-gather of the counts gives every rank its shard_info).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../../compact/device_partition.cuh"
#include "../../compact/device_select.cuh"
#include "../../scan/util/launch.cuh"
#include "communicator.hpp"
#include "detail/kernels.cuh"

namespace carry {
namespace dist {
namespace detail {

/// Every distributed compaction: local(t, bytes, std::int64_t* d_count) compacts the rank's shard and
/// writes its count into temp storage; one all-gather of the counts; *d_shard = the rank's shard_info
/// (written for n == 0 too: count 0). The output stays where the local compaction put it.
template <class Local>
cudaError_t dispatch_count(void* d_temp_storage, std::size_t& temp_storage_bytes, shard_info* d_shard,
                           std::int64_t n, const communicator& comm, cudaStream_t stream, Local local) {
  if (!comm.valid()) return cudaErrorInvalidValue;
  const int ranks = comm.size();
  std::size_t local_bytes = 0;
  if (const cudaError_t e = local(nullptr, local_bytes, static_cast<std::int64_t*>(nullptr));
      e != cudaSuccess)
    return e;
  lookback::temp_builder carve;
  const lookback::temp_part local_at = carve.add(local_bytes), mine_at = carve.add(sizeof(std::int64_t)),
                            all_at = carve.add(sizeof(std::int64_t) * ranks);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = carve.allocation();
    return cudaSuccess;
  }
  if (n < 0 || d_shard == nullptr || temp_storage_bytes < carve.allocation()) return cudaErrorInvalidValue;
  auto* mine = mine_at.as<std::int64_t>(d_temp_storage);
  auto* all = all_at.as<std::int64_t>(d_temp_storage);
  // ---- the local compaction (its own argument check first: nothing written when it refuses) ----
  if (const cudaError_t e = local(local_at.as<void>(d_temp_storage), local_bytes, mine); e != cudaSuccess)
    return e;
  // ---- every rank's count, then this rank's place ----
  if (const cudaError_t e = from_nccl(ncclAllGather(mine, all, 1, ncclInt64, comm.get(), stream));
      e != cudaSuccess)
    return e;
  shard_info_kernel<><<<1, 1, 0, stream>>>(all, ranks, comm.rank(), d_shard);
  return carry::detail::after_launch(stream);
}

} // namespace detail

/// Copies the items of the rank's shard for which pred(item) is true, in order, into its d_out (the output
/// stays sharded: rank r's selected items follow rank r-1's in global order); *d_shard gets the rank's
/// count, the global offset of its first selected item and the global count, on the device.
///
///   rank 0: [3 1 7 0], rank 1: [4 1 6 3], pred x > 2
///   ->  rank 0: d_out [3 7], {count 2, offset 0, total 5};  rank 1: d_out [4 6 3], {3, 2, 5}
template <class InputIt, class OutputIt, class Pred>
cudaError_t select_if(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                      shard_info* d_shard, std::int64_t num_items, Pred pred, const communicator& comm,
                      cudaStream_t stream = 0) {
  return detail::dispatch_count(d_temp_storage, temp_storage_bytes, d_shard, num_items, comm, stream,
                                [&](void* t, std::size_t& b, std::int64_t* count) {
                                  return carry::select_if(t, b, d_in, d_out, count, num_items, pred, stream);
                                });
}

/// select_if by flags: the items whose flag (any type, nonzero = kept) is set.
///
///   rank 0: [a b c], flags [1 0 1];  rank 1: [d e], flags [1 1]  ->  [a c] {2, 0, 4};  [d e] {2, 2, 4}
template <class InputIt, class FlagIt, class OutputIt>
cudaError_t select_flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                           FlagIt d_flags, OutputIt d_out, shard_info* d_shard, std::int64_t num_items,
                           const communicator& comm, cudaStream_t stream = 0) {
  return detail::dispatch_count(d_temp_storage, temp_storage_bytes, d_shard, num_items, comm, stream,
                                [&](void* t, std::size_t& b, std::int64_t* count) {
                                  return carry::select_flagged(t, b, d_in, d_flags, d_out, count, num_items,
                                                               stream);
                                });
}

/// Stable partition of each shard (carry::partition): its selected items first, then its rejected ones,
/// both in input order, in the rank's d_out; *d_shard describes the selected items as select_if's does.
///
///   rank 0: [3 1 7 0], pred x > 2  ->  d_out [3 7 1 0], {2, 0, total selected over every rank}
template <class InputIt, class OutputIt, class Pred>
cudaError_t partition(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                      shard_info* d_shard, std::int64_t num_items, Pred pred, const communicator& comm,
                      cudaStream_t stream = 0) {
  return detail::dispatch_count(d_temp_storage, temp_storage_bytes, d_shard, num_items, comm, stream,
                                [&](void* t, std::size_t& b, std::int64_t* count) {
                                  return carry::partition(t, b, d_in, d_out, count, num_items, pred, stream);
                                });
}

} // namespace dist
} // namespace carry
