// CUB compaction and keyed baselines (DeviceSelect, DevicePartition, DeviceReduce::ReduceByKey,
// DeviceRunLengthEncode, DeviceScan::InclusiveSumByKey) behind a plain host API.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace carry_validate {

// Two-phase like CUB; the count goes to a 64-bit integer. offset64: CUB's 64-bit num_items path (else
// its `int` path, which needs num_items < 2^31). Predicates: x < bound (common/compact_ops.hpp).
template <class T>
cudaError_t cub_select_if_less(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                               std::int64_t* d_num, std::int64_t num_items, T bound, bool offset64,
                               cudaStream_t stream);
template <class T>
cudaError_t cub_select_unique(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                              std::int64_t* d_num, std::int64_t num_items, bool offset64,
                              cudaStream_t stream);
/// CUB's partition: selected in order, then the rejected in reverse order.
template <class T>
cudaError_t cub_partition_less(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out,
                               std::int64_t* d_num, std::int64_t num_items, T bound, bool offset64,
                               cudaStream_t stream);

/// Over a counting iterator of u32 (the items 0, 1, 2, ...): select and partition by hashed_less{bound}.
cudaError_t cub_select_if_iota(void* d_temp, std::size_t& temp_bytes, std::uint32_t* d_out,
                               std::int64_t* d_num, std::int64_t num_items, std::uint32_t bound,
                               bool offset64, cudaStream_t stream);
cudaError_t cub_partition_iota(void* d_temp, std::size_t& temp_bytes, std::uint32_t* d_out,
                               std::int64_t* d_num, std::int64_t num_items, std::uint32_t bound,
                               bool offset64, cudaStream_t stream);

/// Select (or partition: the rejected reversed) by flags of F, over d_in or, with d_in null, over the
/// indices 0, 1, 2, ... (a counting iterator of T). T u32 with flags u8, bool, u32, i32; T u64 or u8
/// with flags u8.
template <class T, class F>
cudaError_t cub_flagged(void* d_temp, std::size_t& temp_bytes, const T* d_in, const F* d_flags, T* d_out,
                        std::int64_t* d_num, std::int64_t num_items, bool partition, bool offset64,
                        cudaStream_t stream);

/// The keyed calls over u32 keys (u32 values; the scan also f32), CUB's `int` size path (n < 2^31);
/// counts to a 64-bit integer. keyed_op: which call.
///   scan_by_key:    out_a = InclusiveSumByKey(keys, values)
///   reduce_by_key:  out_a = unique keys, out_b = sums, *d_num = runs
///   encode:         out_a = unique keys, out_b = lengths, *d_num = runs
///   non_trivial:    out_a = offsets, out_b = lengths, *d_num = runs longer than 1
///   unique_by_key:  out_a = unique keys, out_b = their values, *d_num = runs
enum class keyed_op { scan_by_key, reduce_by_key, encode, non_trivial, unique_by_key };
template <class V>
cudaError_t cub_keyed(keyed_op op, void* d_temp, std::size_t& temp_bytes, const std::uint32_t* d_keys,
                      const V* d_values, std::uint32_t* d_out_a, V* d_out_b, std::int64_t* d_num,
                      std::int64_t num_items, cudaStream_t stream = 0);

} // namespace carry_validate
