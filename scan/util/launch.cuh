// The engine's launch helpers for every module: the launch-error check, per-device attribute and query
// caches, the device's limits, the largest co-schedulable cluster. Host code, no synchronisation.
#pragma once

#include <atomic>
#include <cstdint>

#include <cuda_runtime.h>

namespace carry {
namespace detail {

/// Launch-error check after each kernel; with CARRY_DEBUG_SYNC defined, also waits for the kernel.
inline cudaError_t after_launch(cudaStream_t stream) {
  cudaError_t e = cudaGetLastError();
#ifdef CARRY_DEBUG_SYNC
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
#else
  (void)stream;
#endif
  return e;
}

/// Sets a kernel attribute once per device (devices 0-63; others on every call): a host call that does
/// not synchronise, remembered only after it succeeded. `Tag` keeps one record per kernel and attribute
/// (it names the agent: kernels of one signature share a function type, so the type cannot).
template <class Tag, class Kernel>
cudaError_t set_once(Kernel* kernel, cudaFuncAttribute attr, int value) {
  static std::atomic<std::uint64_t> done{0}; // bit d = set on device d
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  const std::uint64_t bit = device >= 0 && device < 64 ? std::uint64_t{1} << device : 0;
  if (bit != 0 && (done.load(std::memory_order_relaxed) & bit) != 0) return cudaSuccess;
  const cudaError_t e = cudaFuncSetAttribute(kernel, attr, value);
  if (e == cudaSuccess && bit != 0) done.fetch_or(bit, std::memory_order_relaxed);
  return e;
}
template <class Agent>
struct carveout_tag {};
template <class Agent>
struct cluster_tag {};
template <class Agent>
struct smem_tag {};

template <auto Kernel>
struct kernel_tag {};
/// The largest shared-memory carveout for a staged kernel, so its MIN_BLOCKS blocks fit an SM (the
/// scan's, the compaction's and the slot allocator's staged passes), set once per device and kernel:
/// each kernel keeps its own record, also where kernels of one agent share a signature.
template <auto Kernel>
cudaError_t prefer_shared_for() {
  return set_once<carveout_tag<kernel_tag<Kernel>>>(Kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                    cudaSharedmemCarveoutMaxShared);
}

/// `query()` (an int >= 0; a host call that does not synchronise) asked once per device (devices 0-63;
/// others on every call) and remembered per Tag. A negative answer (a failed query) is returned and not
/// remembered.
template <class Tag, class Query>
int once_per_device(Query query) {
  static std::atomic<int> value[64];
  static std::atomic<std::uint64_t> known{0};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return -1;
  if (device < 0 || device >= 64) return query();
  const std::uint64_t bit = std::uint64_t{1} << device;
  if (known.load(std::memory_order_acquire) & bit) return value[device].load(std::memory_order_relaxed);
  const int v = query();
  if (v >= 0) {
    value[device].store(v, std::memory_order_relaxed);
    known.fetch_or(bit, std::memory_order_release);
  }
  return v;
}

/// The largest cluster (<= want, at least 2) of `threads`-thread blocks of `kernel` (the kernel of
/// Agent) with `smem` bytes of dynamic shared memory each that the current device can co-schedule, asked once
/// per device (0 when none: clusters not supported). A host query, no synchronisation.
template <class Agent, class Kernel>
int cluster_limit(Kernel* kernel, unsigned threads, int want, int smem) {
  const int limit = once_per_device<cluster_tag<Agent>>([&] {
    int found = 0;
    if (want > 8 && set_once<cluster_tag<Agent>>(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
                        cudaSuccess)
      want = 8;
    if (smem > 0 &&
        set_once<smem_tag<Agent>>(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess)
      return -1; // asked again next time
    for (int size = want; size >= 2 && found == 0; --size) {
      cudaLaunchConfig_t cfg = {};
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = size, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
      cfg.gridDim = dim3(size), cfg.blockDim = dim3(threads), cfg.attrs = attr, cfg.numAttrs = 1;
      cfg.dynamicSmemBytes = static_cast<std::size_t>(smem);
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess && clusters >= 1)
        found = size;
    }
    (void)cudaGetLastError(); // a refused query leaves no error behind
    return found;
  });
  return limit > 0 ? limit : 0;
}

/// What the current device offers a launch (multiprocessors, shared memory), asked once per device.
struct device_limits {
  int sms = 0;
  int smem_per_sm = 0;        ///< bytes of shared memory an SM has for blocks
  int smem_per_block_max = 0; ///< the most dynamic shared memory one block may opt in to
};
template <cudaDeviceAttr A>
struct attribute_tag {};
/// Attribute A of the current device, asked once per device (once_per_device).
template <cudaDeviceAttr A>
int device_attribute() {
  return once_per_device<attribute_tag<A>>([] {
    int device = 0, v = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&v, A, device) != cudaSuccess)
      return -1;
    return v;
  });
}
inline cudaError_t current_limits(device_limits& out) {
  out.sms = device_attribute<cudaDevAttrMultiProcessorCount>();
  out.smem_per_sm = device_attribute<cudaDevAttrMaxSharedMemoryPerMultiprocessor>();
  out.smem_per_block_max = device_attribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>();
  if (out.sms >= 0 && out.smem_per_sm >= 0 && out.smem_per_block_max >= 0) return cudaSuccess;
  const cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : cudaErrorInvalidDevice;
}

} // namespace detail
} // namespace carry
