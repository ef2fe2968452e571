// Tile aggregates exchanged inside one thread-block cluster (distributed shared memory): one launch, no
// temp storage, no tickets; the small-input form of the look-back for up to 16 tiles.
#pragma once

#include <utility>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "../detail/config.hpp"

namespace carry {
namespace lookback {

/// Marks the calling block started (every thread, before its loads): no block writes into another's
/// shared memory before that block runs (cluster_push waits for every block's mark).
__device__ __forceinline__ void cluster_started() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
#endif
}

/// Waits at the cluster barrier (acquire) that cluster_started or cluster_push_all_arrive arrived at
/// (every thread of the block, converged: the aligned form).
__device__ __forceinline__ void cluster_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

/// Called by every thread of every block of the cluster (the grid is one cluster, rank = tile) after
/// cluster_started: lane k of warp 0 writes `value` (warp 0's) into slot `rank` of the `inbox` of block
/// first + k, for first + k < blocks. On return every value pushed into this block's inbox is visible;
/// after that no block touches another's shared memory, so none waits for the others before it leaves.
template <class T>
__device__ void cluster_push(T* inbox, const T& value, int rank, int first, int blocks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap(); // clusters need sm_90: the dispatch never launches a cluster on older devices
#else
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  cluster_wait(); // every block has started
  const int target = first + static_cast<int>(threadIdx.x);
  if (threadIdx.x < 32 && target < blocks) *cluster.map_shared_rank(&inbox[rank], static_cast<unsigned>(target)) = value;
  cluster.sync();
#endif
}

/// The vector form for a kernel that exchanges every pass (the radix sort's cluster path): thread i of
/// every block writes `value` into inbox[rank * WIDTH + i] of every block of the cluster (its own
/// included), then arrives at the cluster barrier (release), so the caller can work while the others
/// catch up; cluster_wait then makes every value pushed into this block's inbox visible. Every block
/// must have started (cluster_started, then cluster_wait, before the first push), and an owner's reads
/// of its inbox must be done before any block's next push (a cluster barrier between them).
///   4 blocks, WIDTH 2, block b pushes (b, 10 b)  ->  every inbox [0 0 1 10 2 20 3 30]
template <int WIDTH, class T>
__device__ __forceinline__ void cluster_push_all_arrive(T* inbox, const T& value, int rank, int blocks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();
#else
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  T* slot = &inbox[rank * WIDTH + static_cast<int>(threadIdx.x)];
  if (threadIdx.x < WIDTH)
    for (int r = 0; r < blocks; ++r) *cluster.map_shared_rank(slot, static_cast<unsigned>(r)) = value;
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}

/// Launches `kernel` as one cluster of `blocks` blocks (the whole grid; at most what the device
/// co-schedules, detail::cluster_limit), `smem` bytes of dynamic shared memory each.
template <class... Params, class... Args>
cudaError_t launch_cluster(void (*kernel)(Params...), unsigned blocks, unsigned threads, std::size_t smem,
                           cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = blocks, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks), cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream, cfg.attrs = attr, cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

} // namespace lookback
} // namespace carry
