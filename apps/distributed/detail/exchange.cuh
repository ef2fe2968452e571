// The distributed layer's exchange: every rank's planned parts sent and received in one NCCL group (its
// own part copied on its stream), for the sort and the rebalance.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include "../communicator.hpp"
#include "sort_plan.hpp"

namespace carry {
namespace dist {
namespace detail {

/// Sends send[x.send_at[j] ..) (x.send_count[j] items) to each rank j and receives x.recv_count[q] items
/// from each rank q at recv + x.recv_at[q]: one ncclGroupStart/End (always closed, the first failure
/// returned), then this rank's own part by a device copy (unless copy_own is false: a caller that reads
/// it in place).
template <class I>
cudaError_t exchange(const exchange_plan& x, const I* send, I* recv, const communicator& comm, cudaStream_t stream,
                     bool copy_own = true) {
  const int ranks = comm.size(), rank = comm.rank();
  cudaError_t first = from_nccl(ncclGroupStart());
  if (first != cudaSuccess) return first;
  for (int j = 0; j < ranks && first == cudaSuccess; ++j) {
    if (j == rank) continue;
    if (x.send_count[j] > 0)
      first = from_nccl(ncclSend(send + x.send_at[j], sizeof(I) * x.send_count[j], ncclUint8, j, comm.get(), stream));
    if (first == cudaSuccess && x.recv_count[j] > 0)
      first = from_nccl(ncclRecv(recv + x.recv_at[j], sizeof(I) * x.recv_count[j], ncclUint8, j, comm.get(), stream));
  }
  const cudaError_t ended = from_nccl(ncclGroupEnd());
  if (first != cudaSuccess) return first;
  if (ended != cudaSuccess) return ended;
  if (copy_own && x.send_count[rank] > 0)
    return cudaMemcpyAsync(recv + x.recv_at[rank], send + x.send_at[rank], sizeof(I) * x.send_count[rank],
                           cudaMemcpyDeviceToDevice, stream);
  return cudaSuccess;
}

} // namespace detail
} // namespace dist
} // namespace carry
