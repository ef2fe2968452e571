// The run calls' single pass (reduce_by_key, the run-length calls, select_unique_by_key): the engine's
// keyed pass with a behaviour, and the argument checks they share.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "../../scan/detail/accumulator.hpp"
#include "../../scan/detail/dispatch.cuh"
#include "../../scan/scan_options.hpp"
#include "kernels.cuh"
#include "runs.hpp"

namespace carry {
namespace compact_detail {

/// Runs the engine's keyed single pass (Agent: the keyed agent, or the run-length calls' staged one) with
/// behaviour b and, for an empty input, writes the run count 0.
template <class P, template <class, bool, class> class Agent = detail::keyed_agent, class KeyIt, class ValIt,
          class B, class NumIt>
cudaError_t run_pass(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt keys, ValIt values,
                     const B& b, std::int64_t num_items, NumIt d_num_runs, const scan_options& options,
                     cudaStream_t stream) {
  const cudaError_t e = detail::dispatch_keyed<P, Agent>(d_temp_storage, temp_storage_bytes, keys, values, b,
                                                         num_items, options, false, stream);
  if (e != cudaSuccess || d_temp_storage == nullptr || num_items != 0) return e;
  write_count_kernel<<<1, 1, 0, stream>>>(d_num_runs, 0);
  return detail::after_launch(stream);
}

/// The argument checks of a run call before it runs: the count output always; with items, the inputs
/// and outputs (pointers: none null, no output over an input).
template <class NumIt, class In0, class In1, class Out0, class Out1>
bool runs_args_ok(std::int64_t n, const NumIt& d_num_runs, const In0& in0, const In1& in1, const Out0& out0,
                  const Out1& out1) {
  using detail::checked_address;
  using detail::iterators_overlap;
  if (n < 0 || checked_address(d_num_runs) == nullptr) return false;
  if (n == 0) return true;
  return checked_address(in0) != nullptr && checked_address(in1) != nullptr &&
         checked_address(out0) != nullptr && checked_address(out1) != nullptr &&
         !iterators_overlap(in0, out0, n) && !iterators_overlap(in0, out1, n) &&
         !iterators_overlap(in1, out0, n) && !iterators_overlap(in1, out1, n);
}

} // namespace compact_detail
} // namespace carry
