// Tile aggregates exchanged inside one thread-block cluster (distributed shared memory): one launch, no
// temp storage, no tickets; the small-input form of the look-back for up to 16 tiles.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "../util/config.hpp"

namespace carry {
namespace lookback {

/// Marks the calling block started (every thread, before its loads): no block writes into another's
/// shared memory before that block runs (cluster_push waits for every block's mark).
__device__ __forceinline__ void cluster_started() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
#endif
}

/// Waits at the cluster barrier (acquire) that cluster_started arrived at (every thread of the block,
/// converged: the aligned form).
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
  if (threadIdx.x < 32 && target < blocks)
    *cluster.map_shared_rank(&inbox[rank], static_cast<unsigned>(target)) = value;
  cluster.sync();
#endif
}

/// A mailbox for an exchange every block of a cluster makes with every block, over and over (the radix
/// sort's cluster path, once a pass): each block's `inbox` holds one row of WIDTH values from every block,
/// written by the other blocks' asynchronous remote stores (st.async, 16 bytes each), which count their
/// bytes on the receiver's transaction barrier (an mbarrier in its shared memory), and by the block
/// itself into its own row. The receiver waits on that barrier alone: no fence, no cluster barrier and
/// no wait for the slowest sender's stores to be acknowledged before the sender goes on (a release
/// arrive at the cluster barrier would wait for them). Protocol, exchange e = 0, 1, ... (parity e & 1):
///   mailbox_start (every thread, before cluster_started: the barrier exists, and exchange 0 is armed,
///   before any block can send),
///   mailbox_expect (one thread, exchange e + 1: after its block's wait on e),
///   mailbox_send (WIDTH threads of every block, after every block started; e + 1 only after every
///   block has read its inbox of e: a cluster barrier between),
///   mailbox_wait (every thread of the block).
/// Each exchange brings mailbox_bytes<WIDTH, T>(blocks) bytes from the other blocks.
///   4 blocks, WIDTH 256, block b sends (b, b + 1, ...)  ->  inbox row r of every block: (r, r + 1, ...)

/// The shared-memory (::cta) address of a generic pointer into this block's shared memory.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// The bytes an exchange brings a block from the other blocks (its own row it stores itself).
template <int WIDTH, class T>
__host__ __device__ constexpr unsigned mailbox_bytes(int blocks) {
  return static_cast<unsigned>(blocks - 1) * static_cast<unsigned>(WIDTH * sizeof(T));
}

/// The next exchange completes once `bytes` have arrived (one thread of the receiver, once an exchange).
__device__ __forceinline__ void mailbox_expect(std::uint64_t* full, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned bar = shared_address(full);
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
#endif
}

/// Every thread: thread 0 initialises the mailbox barrier (one arrival a phase; fenced for the cluster:
/// visible to every block after the cluster barrier that cluster_started arrives at), then, after a
/// block barrier, arms exchange 0 with `bytes` (mailbox_expect).
__device__ __forceinline__ void mailbox_start(std::uint64_t* full, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(full)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) mailbox_expect(full, bytes);
#endif
}

/// Thread i < WIDTH of every block sends `value` to inbox[rank * WIDTH + i] of every block of the cluster:
/// the lanes of a warp gather their 32 values into 16-byte vectors with shuffles and each lane stores
/// whole vectors, st.async into the other blocks, a plain store into its own (T: a 2- or 4-byte unsigned
/// integer). `inbox` must be 16-byte aligned.
template <int WIDTH, class T>
__device__ __forceinline__ void mailbox_send(T* inbox, std::uint64_t* full, T value, int rank, int blocks) {
  static_assert(std::is_unsigned<T>::value && (sizeof(T) == 2 || sizeof(T) == 4),
                "carry: mailbox values are u16 or u32");
  static_assert(WIDTH % 32 == 0, "carry: a mailbox row is whole warps");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();
#else
  constexpr int per_vector = 16 / static_cast<int>(sizeof(T)); // values in a 16-byte vector
  constexpr int vectors = 32 / per_vector;                     // vectors of a warp's 32 values (4 or 8)
  constexpr int targets_a_round = 32 / vectors;                // blocks a warp sends to at once
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  if (warp >= WIDTH / 32) return; // warp-uniform
  const unsigned bits = static_cast<unsigned>(value);
  const int m = lane % vectors; // this lane's vector of the warp's values
  unsigned w[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (sizeof(T) == 2) {
      const unsigned lo = __shfl_sync(0xffffffffu, bits, m * 8 + 2 * k);
      const unsigned hi = __shfl_sync(0xffffffffu, bits, m * 8 + 2 * k + 1);
      w[k] = (lo & 0xffffu) | (hi << 16);
    } else {
      w[k] = __shfl_sync(0xffffffffu, bits, m * 4 + k);
    }
  }
  T* const slot = &inbox[rank * WIDTH + warp * 32 + m * per_vector];
  const unsigned dst = shared_address(slot);
  const unsigned bar = shared_address(full);
  for (int t = lane / vectors; t < blocks; t += targets_a_round) {
    if (t == rank) { // its own row: a plain store (mailbox_wait's block barrier publishes it)
      *reinterpret_cast<uint4*>(slot) = make_uint4(w[0], w[1], w[2], w[3]);
      continue;
    }
    unsigned rdst, rbar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rdst) : "r"(dst), "r"(t));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(bar), "r"(t));
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
            rdst),
        "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]), "r"(rbar)
        : "memory");
  }
#endif
}

/// Every thread of the block: waits until exchange `parity` (its number & 1) has completed, every byte
/// expected arrived and visible (acquire at cluster scope, pairing with the stores' release), then a
/// block barrier (the block's own row, stored plainly, visible to every thread).
__device__ __forceinline__ void mailbox_wait(std::uint64_t* full, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned bar = shared_address(full);
  unsigned done = 0;
  do {
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
  __syncthreads();
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
