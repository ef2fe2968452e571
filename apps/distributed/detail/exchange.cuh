// The distributed layer's host-planned traffic, for the sort and the rebalance: every rank's words
// gathered and read back on the host (the plan's input), and the exchange (every rank's planned parts sent
// and received in one NCCL group, its own part copied on its stream).
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../communicator.hpp"
#include "sort_plan.hpp"

namespace carry {
namespace dist {
namespace detail {

/// Every rank's `count` items of `mine` gathered in rank order into `all` (ranks x count items of device
/// memory) and copied into `host`: one all-gather, then `stream` synchronised (the one host round trip a
/// plan costs).
template <class T>
cudaError_t gather_to_host(const T* mine, T* all, std::size_t count, std::vector<T>& host,
                           const communicator& comm, cudaStream_t stream) {
  host.resize(count * static_cast<std::size_t>(comm.size()));
  if (const cudaError_t e =
          from_nccl(ncclAllGather(mine, all, sizeof(T) * count, ncclUint8, comm.get(), stream));
      e != cudaSuccess)
    return e;
  if (const cudaError_t e =
          cudaMemcpyAsync(host.data(), all, sizeof(T) * host.size(), cudaMemcpyDeviceToHost, stream);
      e != cudaSuccess)
    return e;
  return cudaStreamSynchronize(stream);
}

/// One array of an exchange: each rank's part read from `send`, received into `recv` (at the plan's
/// places, counted in items of T).
template <class T>
struct exchanged {
  const T* send;
  T* recv;
};

/// An array of an exchange with its own plan (counts and places in items of T).
template <class T>
struct planned {
  const exchange_plan* x;
  exchanged<T> a;
};

/// Sends send[x.send_at[j] ..) (x.send_count[j] items) of every array to each rank j and receives
/// x.recv_count[q] items from each rank q at recv + x.recv_at[q], each array by its own plan: one
/// ncclGroupStart/End for all of them (always closed, the first failure returned). Own parts stay.
template <class... T>
cudaError_t exchange_planned(const communicator& comm, cudaStream_t stream, planned<T>... arrays) {
  const int ranks = comm.size(), rank = comm.rank();
  cudaError_t first = from_nccl(ncclGroupStart());
  if (first != cudaSuccess) return first;
  auto post = [&](auto p, int j) {
    using U = std::remove_const_t<std::remove_pointer_t<decltype(p.a.recv)>>;
    const exchange_plan& x = *p.x;
    if (first == cudaSuccess && x.send_count[j] > 0)
      first = from_nccl(
          ncclSend(p.a.send + x.send_at[j], sizeof(U) * x.send_count[j], ncclUint8, j, comm.get(), stream));
    if (first == cudaSuccess && x.recv_count[j] > 0)
      first = from_nccl(
          ncclRecv(p.a.recv + x.recv_at[j], sizeof(U) * x.recv_count[j], ncclUint8, j, comm.get(), stream));
  };
  for (int j = 0; j < ranks && first == cudaSuccess; ++j)
    if (j != rank) (post(arrays, j), ...);
  const cudaError_t ended = from_nccl(ncclGroupEnd());
  if (first != cudaSuccess) return first;
  return ended;
}

/// Sends send[x.send_at[j] ..) (x.send_count[j] items) of every array to each rank j and receives
/// x.recv_count[q] items from each rank q at recv + x.recv_at[q]: one ncclGroupStart/End for all the
/// arrays (a sort's keys and values together; always closed, the first failure returned), then this
/// rank's own parts by device copies (unless copy_own is false: a caller that reads them in place).
template <class... T>
cudaError_t exchange(const exchange_plan& x, const communicator& comm, cudaStream_t stream, bool copy_own,
                     exchanged<T>... arrays) {
  const int rank = comm.rank();
  cudaError_t first = exchange_planned(comm, stream, planned<T>{&x, arrays}...);
  if (first != cudaSuccess) return first;
  auto own = [&](auto a) {
    using U = std::remove_const_t<std::remove_pointer_t<decltype(a.recv)>>;
    if (first == cudaSuccess && copy_own && x.send_count[rank] > 0)
      first = cudaMemcpyAsync(a.recv + x.recv_at[rank], a.send + x.send_at[rank],
                              sizeof(U) * x.send_count[rank], cudaMemcpyDeviceToDevice, stream);
  };
  (own(arrays), ...);
  return first;
}

} // namespace detail
} // namespace dist
} // namespace carry
