// The small-input sort's kernel: one cluster of up to 16 blocks, one block a tile (cluster_agent).
#pragma once

#include <cooperative_groups.h>

#include "cluster_agent.cuh"

namespace carry {
namespace radix_detail {

/// Every pass over the whole input in one launch of one cluster, block b (cluster rank b) owning tile b
/// (cluster_agent). THREADS: 256, or 512 for the wide blocks.
template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS = radix_tuning::threads,
          class P = radix_tuning::default_policy>
__global__ void __launch_bounds__(THREADS, 1) // one block an SM: a cluster of one block a tile
    cluster_sort_kernel(pass_buffers<K> kb, pass_buffers<V> vb, cluster_args a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap(); // clusters need sm_90: the dispatch never launches this kernel on older devices
#else
  using agent = cluster_agent<ITEMS, HAS_VALUES, K, V, THREADS, P>;
  using layout = typename agent::layout;
  // ---- shared memory: the tile (static, or dynamic for the wide blocks) and what sits beside it ----
  __shared__ std::conditional_t<layout::dynamic, char, typename layout::shared> static_sm;
  extern __shared__ uint4 cluster_dynamic_smem[];
  typename layout::shared& sm = *[&] {
    if constexpr (layout::dynamic)
      return reinterpret_cast<typename layout::shared*>(cluster_dynamic_smem);
    else
      return &static_sm;
  }();
  __shared__ typename layout::beside bs;
  // ---- the passes ----
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  agent(sm, bs, kb, vb, a, cluster.block_rank(), cluster.num_blocks()).run();
#endif
}

} // namespace radix_detail
} // namespace carry
