// Distributed scans over the shards of an NCCL communicator: dist::inclusive_scan, exclusive_scan,
// inclusive_sum, exclusive_sum (each rank: its shard's total, one all-gather, its scan with the carry-in).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../../scan/device_reduce.cuh"
#include "../../scan/device_scan.cuh"
#include "../../scan/util/launch.cuh"
#include "communicator.hpp"
#include "detail/kernels.cuh"

namespace carry {
namespace dist {
namespace detail {

/// The total of a shard into mine (value and has): a sum of an arithmetic type reduces the items as they
/// are (the engine's vectorised reduce from 0); any other operator reduces them lifted to maybe<T>, so it
/// needs no identity.
template <class T, class InputIt, class Op>
cudaError_t shard_total(void* t, std::size_t& bytes, InputIt in, maybe<T>* mine, Op op, std::int64_t n,
                        cudaStream_t stream) {
  if constexpr (std::is_same<Op, carry::sum>::value && std::is_arithmetic<T>::value) {
    T* value = mine != nullptr ? &mine->value : nullptr;
    if (const cudaError_t e = carry::reduce<T>(t, bytes, in, value, op, T{0}, n, stream);
        e != cudaSuccess || t == nullptr)
      return e;
    mark_kernel<<<1, 1, 0, stream>>>(mine, 1);
    return carry::detail::after_launch(stream);
  } else {
    return carry::transform_reduce<maybe<T>>(t, bytes, in, mine, maybe_op<Op>{op}, present<T>{},
                                             maybe<T>{T{}, 0}, n, stream);
  }
}

/// Every distributed scan. Rank r (of p): the total of its shard (ranks before the last, with items),
/// one all-gather of the p totals, the carry-in (init (+) the totals of ranks 0 .. r-1, left to right),
/// and the scan of its shard with the carry-in folded into every output (rank 0: the plain local scan).
/// The collective is always reached once the arguments pass the local check.
template <bool EXCLUSIVE, class InputIt, class T, class Op>
cudaError_t dispatch_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                          Op op, T init, std::int64_t n, const scan_options& options,
                          const communicator& comm, cudaStream_t stream) {
  if (!comm.valid()) return cudaErrorInvalidValue;
  const int rank = comm.rank(), ranks = comm.size();
  const std::int64_t nn = n > 0 ? n : 0;
  const bool reduces = rank < ranks - 1 && nn > 0; // the last rank's total is read by nobody
  const std::int64_t scanned = rank > 0 && EXCLUSIVE ? (nn > 0 ? nn - 1 : 0) : nn; // out[0]: the carry-in
  using out_it = seeded_output<T, Op>;
  auto local_scan = [&](void* t, std::size_t& b, maybe<T>* carry) -> cudaError_t {
    if (rank == 0) {
      if constexpr (EXCLUSIVE)
        return carry::exclusive_scan<T>(t, b, d_in, d_out, op, init, nn, options, stream);
      else
        return carry::inclusive_scan<T>(t, b, d_in, d_out, op, nn, options, stream);
    }
    return carry::inclusive_scan<T>(t, b, d_in, out_it{{}, d_out + (EXCLUSIVE ? 1 : 0), carry, op}, op,
                                    scanned, options, stream);
  };
  // ---- temp storage: the reduce's, the scan's, this rank's total, every rank's, the carry-in ----
  std::size_t reduce_bytes = 0, scan_bytes = 0;
  if (reduces)
    if (const cudaError_t e =
            shard_total<T>(nullptr, reduce_bytes, d_in, static_cast<maybe<T>*>(nullptr), op, nn, stream);
        e != cudaSuccess)
      return e;
  if (const cudaError_t e = local_scan(nullptr, scan_bytes, nullptr); e != cudaSuccess) return e;
  lookback::temp_builder carve;
  const lookback::temp_part reduce_at = carve.add(reduce_bytes), scan_at = carve.add(scan_bytes),
                            mine_at = carve.add(sizeof(maybe<T>)),
                            all_at = carve.add(sizeof(maybe<T>) * ranks),
                            carry_at = carve.add(sizeof(maybe<T>));
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = carve.allocation();
    return cudaSuccess;
  }
  if (n < 0 || temp_storage_bytes < carve.allocation() ||
      (nn > 0 && (carry::detail::checked_address(d_in) == nullptr || d_out == nullptr)))
    return cudaErrorInvalidValue;
  auto* mine = mine_at.as<maybe<T>>(d_temp_storage);
  auto* all = all_at.as<maybe<T>>(d_temp_storage);
  auto* carry = carry_at.as<maybe<T>>(d_temp_storage);
  // ---- this shard's total ----
  if (reduces) {
    if (const cudaError_t e =
            shard_total<T>(reduce_at.as<void>(d_temp_storage), reduce_bytes, d_in, mine, op, nn, stream);
        e != cudaSuccess)
      return e;
  } else {
    mark_kernel<<<1, 1, 0, stream>>>(mine, 0);
    if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
  }
  // ---- every rank's total ----
  if (const cudaError_t e =
          from_nccl(ncclAllGather(mine, all, sizeof(maybe<T>), ncclUint8, comm.get(), stream));
      e != cudaSuccess)
    return e;
  // ---- the carry-in and the scan ----
  if (rank > 0) {
    const maybe<T> seed{init, EXCLUSIVE ? 1 : 0};
    carry_in_kernel<<<1, 1, 0, stream>>>(all, rank, seed, op, carry, EXCLUSIVE && nn > 0 ? d_out : nullptr);
    if (const cudaError_t e = carry::detail::after_launch(stream); e != cudaSuccess) return e;
  }
  if (scanned == 0) return cudaSuccess;
  return local_scan(scan_at.as<void>(d_temp_storage), scan_bytes, carry);
}

} // namespace detail

/// Inclusive scan of a sharded input: rank r's d_out[i] is the fold, in global order, of every item of
/// ranks 0 .. r-1 and of its own items 0 .. i. Shards may differ in size and be empty. Any associative
/// operator; with options.deterministic the same bits on every run (ranks' totals folded left to right).
/// Call it on every rank of `comm` with the same operator and types; it runs on `stream` and the rank's
/// device, without synchronising.
///
///   rank 0: d_in [3 1 7], rank 1: d_in [0 4], rank 2: d_in [1 6 3], op = carry::sum{}
///   ->  rank 0: [3 4 11], rank 1: [11 15], rank 2: [16 22 25]
///
/// Costs a rank (all but the last) a reduce of its shard before its scan: 1.5 reads per item.
template <class InputIt, class T, class Op>
cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                           Op scan_op, std::int64_t num_items, scan_options options, const communicator& comm,
                           cudaStream_t stream = 0) {
  return detail::dispatch_scan<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, T{},
                                      num_items, options, comm, stream);
}
template <class InputIt, class T, class Op>
cudaError_t inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                           Op scan_op, std::int64_t num_items, const communicator& comm,
                           cudaStream_t stream = 0) {
  return inclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, num_items, scan_options{},
                        comm, stream);
}

/// Exclusive scan of a sharded input seeded with init (every rank passes the same init): rank r's
/// d_out[i] = init (+) every item of ranks 0 .. r-1 (+) its own items 0 .. i-1.
///
///   rank 0: [3 1 7], rank 1: [0 4], rank 2: [1 6 3], init 0  ->  [0 3 4], [11 11], [15 16 22]
template <class InputIt, class T, class Op>
cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                           Op scan_op, T init, std::int64_t num_items, scan_options options,
                           const communicator& comm, cudaStream_t stream = 0) {
  return detail::dispatch_scan<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, init,
                                     num_items, options, comm, stream);
}
template <class InputIt, class T, class Op>
cudaError_t exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                           Op scan_op, T init, std::int64_t num_items, const communicator& comm,
                           cudaStream_t stream = 0) {
  return exclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, scan_op, init, num_items,
                        scan_options{}, comm, stream);
}

/// Inclusive prefix sum of a sharded input (the output's type accumulates).
template <class InputIt, class T>
cudaError_t inclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                          std::int64_t num_items, const communicator& comm, cudaStream_t stream = 0) {
  return inclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, carry::sum{}, num_items, comm,
                        stream);
}

/// Exclusive prefix sum of a sharded input from 0: each rank's output starts at the sum of every earlier
/// rank's items (the global offsets of a sharded allocation).
template <class InputIt, class T>
cudaError_t exclusive_sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
                          std::int64_t num_items, const communicator& comm, cudaStream_t stream = 0) {
  return exclusive_scan(d_temp_storage, temp_storage_bytes, d_in, d_out, carry::sum{}, T{0}, num_items, comm,
                        stream);
}

} // namespace dist
} // namespace carry
