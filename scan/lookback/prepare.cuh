// The prepare step of every look-back launch: a small kernel zeroes the call's state, and the pass it
// prepares starts early (programmatic dependent launch), waiting for it only before its ticket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include <cuda_runtime.h>

#include "ticket.cuh"
#include "words.hpp"

namespace carry {
namespace lookback {

/// Zeroes n16 16-byte words. Lets the dependent launch start at once: the dependent waits for this
/// grid's completion (and its writes) in wait_for_previous_grid, before it touches the state.
template <int = 0>
__global__ void __launch_bounds__(256) prepare_kernel(uint4* p, std::size_t n16) {
  allow_dependents();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n16; i += stride)
    p[i] = make_uint4(0, 0, 0, 0);
}

/// Zeroes `region` of the temp allocation at `base` (rounded up to 16 bytes: parts are 256-aligned).
inline cudaError_t launch_prepare(void* base, const temp_part& region, cudaStream_t stream) {
  const std::size_t n16 = (region.bytes + 15) / 16;
  prepare_kernel<<<prepare_blocks(region.bytes), 256, 0, stream>>>(region.as<uint4>(base), n16);
  return cudaGetLastError();
}

/// Launches `kernel` on `stream`; with `programmatic`, as the programmatic dependent of the grid before it
/// (a prepare step, or another kernel of the same call that calls allow_dependents): it may start before
/// that grid finishes, and must call wait_for_previous_grid in every block before it touches anything
/// that grid writes or reads, and before it exits (so that its own completion implies the previous
/// grid's). Without, a plain launch. Works under stream capture. launch_after_smem: with `smem` bytes of
/// dynamic shared memory a block (launch_after: none).
template <class... Params, class... Args>
cudaError_t launch_after_smem(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                              cudaStream_t stream, bool programmatic, Args&&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = programmatic ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}
template <class... Params, class... Args>
cudaError_t launch_after(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                         bool programmatic, Args&&... args) {
  return launch_after_smem(kernel, grid, block, 0, stream, programmatic, std::forward<Args>(args)...);
}

/// launch_after, programmatic: the launch that follows a prepare step.
template <class... Params, class... Args>
cudaError_t launch_prepared(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                            Args&&... args) {
  return launch_after(kernel, grid, block, stream, true, std::forward<Args>(args)...);
}

} // namespace lookback
} // namespace carry
