// carry's keyed calls behind the same switch as CUB's (baselines_compact.hpp, cub_keyed): the benchmark
// and the carry tool time and check them through it.
#pragma once

#include <cstdint>

#include <carry/compact/device_runs.cuh>
#include <carry/compact/device_select.cuh>
#include <carry/scan/device_scan_by_key.cuh>

#include "bench/baselines/baselines_compact.hpp"

namespace carry_validate {

/// The carry call cub_keyed(op, ...) names, with the same outputs; `options` reaches the scans
/// (deterministic floats).
template <class V>
cudaError_t carry_keyed(keyed_op op, void* d_temp, std::size_t& temp_bytes, const std::uint32_t* k,
                        const V* v, std::uint32_t* a, V* b, std::int64_t* num, std::int64_t n,
                        carry::scan_options options = {}, cudaStream_t stream = 0) {
  switch (op) {
  case keyed_op::scan_by_key:
    return carry::inclusive_scan_by_key(d_temp, temp_bytes, k, v, b, carry::sum{}, n, carry::equal_to{},
                                        options, stream);
  case keyed_op::reduce_by_key:
    return carry::reduce_by_key(d_temp, temp_bytes, k, a, v, b, num, carry::sum{}, n, carry::equal_to{},
                                options, stream);
  case keyed_op::unique_by_key:
    return carry::select_unique_by_key(d_temp, temp_bytes, k, v, a, b, num, n, stream);
  case keyed_op::encode:
    return carry::run_length_encode(d_temp, temp_bytes, k, a, b, num, n, carry::equal_to{}, stream);
  case keyed_op::non_trivial:
    return carry::non_trivial_runs(d_temp, temp_bytes, k, a, b, num, n, carry::equal_to{}, stream);
  }
  return cudaErrorInvalidValue;
}

} // namespace carry_validate
