// dist::rebalance: a sharded result (a compaction's, any shards) moved to even shards in global order, by
// one exchange of exact counts (grouped ncclSend/ncclRecv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../../scan/util/launch.cuh"
#include "communicator.hpp"
#include "detail/exchange.cuh"
#include "detail/kernels.cuh"
#include "detail/sort_plan.hpp"

namespace carry {
namespace dist {
namespace detail {
/// One thread: the rank's count from its shard_info and its pointers' presence, for the all-gather.
template <class = void>
__global__ void count_of_kernel(const shard_info* in, std::int64_t flags, std::int64_t* out) {
  out[0] = in->count;
  out[1] = flags;
}
} // namespace detail

/// Moves every rank's d_shard_in->count items of d_in (its part of a sharded result, in global order) so
/// that rank r holds the even shard r of all of them in d_out (out_capacity items of room: at least
/// total / ranks + 1), and *d_shard_out describes it. Typically after dist::select_if:
///
///   rank 0: d_in [3 7 4 6 3 8] {6, 0, 8}, rank 1: d_in [9 5] {2, 6, 8}
///   ->  rank 0: d_out [3 7 4 6] {4, 0, 8}, rank 1: d_out [3 8 9 5] {4, 4, 8}
///
/// Synchronises `stream` once (NCCL's sends and receives take their counts on the host: every rank's
/// count is read back). Every rank passes the same out_capacity; a call whose even shard would pass it,
/// or where any rank lacks a pointer it needs, is refused on every rank (cudaErrorInvalidValue, nothing
/// written), so none waits.
template <class T>
cudaError_t rebalance(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                      const shard_info* d_shard_in, T* d_out, std::int64_t out_capacity,
                      shard_info* d_shard_out, const communicator& comm, cudaStream_t stream = 0) {
  if (!comm.valid()) return cudaErrorInvalidValue;
  const int ranks = comm.size(), rank = comm.rank();
  lookback::temp_builder carve;
  const lookback::temp_part mine_at = carve.add(2 * sizeof(std::int64_t)),
                            all_at = carve.add(2 * sizeof(std::int64_t) * ranks);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = carve.allocation();
    return cudaSuccess;
  }
  if (temp_storage_bytes < carve.allocation() || d_shard_in == nullptr || d_shard_out == nullptr ||
      out_capacity < 0)
    return cudaErrorInvalidValue;
  auto* mine = mine_at.as<std::int64_t>(d_temp_storage);
  auto* all = all_at.as<std::int64_t>(d_temp_storage);
  // ---- every rank's count and pointers, on the host ----
  const std::int64_t flags = (d_in != nullptr ? 1 : 0) | (d_out != nullptr ? 2 : 0);
  detail::count_of_kernel<><<<1, 1, 0, stream>>>(d_shard_in, flags, mine);
  if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
  std::vector<std::int64_t> gathered, counts(static_cast<std::size_t>(ranks));
  if (const cudaError_t e = detail::gather_to_host<std::int64_t>(mine, all, 2, gathered, comm, stream);
      e != cudaSuccess)
    return e;
  for (int q = 0; q < ranks; ++q)
    counts[static_cast<std::size_t>(q)] = gathered[2 * static_cast<std::size_t>(q)];
  // ---- the plan: every rank checks every rank, so all refuse together or none does ----
  const detail::exchange_plan x = detail::plan_rebalance(counts, rank);
  if (x.most_received > out_capacity) return cudaErrorInvalidValue;
  for (int q = 0; q < ranks; ++q) {
    const std::int64_t f = gathered[2 * static_cast<std::size_t>(q) + 1];
    if (counts[static_cast<std::size_t>(q)] < 0 || (counts[static_cast<std::size_t>(q)] > 0 && !(f & 1)) ||
        (detail::plan_rebalance(counts, q).received > 0 && !(f & 2)))
      return cudaErrorInvalidValue;
  }
  if (const cudaError_t e = detail::exchange(x, comm, stream, true, detail::exchanged<T>{d_in, d_out});
      e != cudaSuccess)
    return e;
  std::int64_t total = 0;
  for (std::int64_t c : counts) total += c;
  detail::write_shard_kernel<><<<1, 1, 0, stream>>>(d_shard_out, x.received, x.out_offset, total);
  return carry::detail::after_launch(stream);
}

} // namespace dist
} // namespace carry
