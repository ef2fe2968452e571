// Host-side planning and launches of the scan engine: pass choice, temp storage, argument checks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>

#include <cuda_runtime.h>

#include "pass_choice.hpp"
#include "kernels.cuh"

namespace carry {
namespace detail {

/// A fresh 62-bit epoch per call (see plan.hpp). Starts at a random point per process, so that two
/// copies of this counter (two shared libraries) do not hand out the same epochs.
inline epoch_t next_epoch() {
  static std::atomic<std::uint64_t> counter{(std::uint64_t{std::random_device{}()} << 32) ^
                                            std::random_device{}()};
  return following_epoch(counter.fetch_add(1, std::memory_order_relaxed) & epoch_mask);
}

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

/// Everything a scan call decides before launching: family, pass, tiles, temp-storage layout.
template <class HPolicy, class SPolicy, class SmallPolicy, class T>
struct scan_plan {
  static constexpr bool has_small = is_small_tile_policy<SmallPolicy>::value;
  tile_family family;
  pass_kind kind;
  tile_plan tiles;
  temp_layout<7> layout;

  static scan_plan make(std::int64_t n, const scan_options& opt) {
    const tile_family family = choose_family(n, opt, has_small);
    const std::int64_t tile = family == tile_family::hierarchical ? HPolicy::tile_items
                              : family == tile_family::small      ? SmallPolicy::tile_items
                                                                  : SPolicy::tile_items;
    const pass_kind kind = choose_pass(n, opt, tile);
    const tile_plan tiles = plan_tiles(n, tile);
    std::size_t parts[7] = {0, 0, 0, 0, 0, 0, 0};
    if (kind == pass_kind::hierarchical) {
      parts[0] = static_cast<std::size_t>(tiles.num_tiles) * sizeof(T);
      parts[1] = sizeof(std::uint64_t); // arrival counter of the upsweep (its last block runs the spine)
    }
    if (kind == pass_kind::single_pass) {
      std::size_t status[3], prefixes[3]; // a word per tile; a word per group of 32 (deterministic mode)
      tile_status<T>::sizes(tiles.num_tiles, status);
      tile_status<T>::sizes(ceil_div(tiles.num_tiles, warp_threads), prefixes);
      parts[0] = sizeof(std::uint64_t);
      for (int i = 0; i < 3; ++i) parts[1 + i] = status[i], parts[4 + i] = prefixes[i];
    }
    return scan_plan{family, kind, tiles, temp_layout<7>(parts)};
  }
};

/// The single-pass state (ticket counter, status words, group prefixes) in the layout scan_plan made.
template <class T, class Layout>
single_pass_state<T> carve_single_pass_state(void* d_temp_storage, const Layout& layout) {
  void* status[3] = {layout.carve(d_temp_storage, 1), layout.carve(d_temp_storage, 2),
                     layout.carve(d_temp_storage, 3)};
  void* prefixes[3] = {layout.carve(d_temp_storage, 4), layout.carve(d_temp_storage, 5),
                       layout.carve(d_temp_storage, 6)};
  single_pass_state<T> state{static_cast<std::uint64_t*>(layout.carve(d_temp_storage, 0)),
                             tile_status<T>::carve(status), tile_status<T>::carve(prefixes)};
  return state;
}

template <class P, bool EXCLUSIVE, class T, class Op>
cudaError_t launch_single_tile(const T* d_in, T* d_out, const tile_plan& tiles, Op op, T init,
                               cudaStream_t stream) {
  constexpr int items = P::items_per_thread;
  downsweep_kernel<P, EXCLUSIVE>
      <<<1, P::block_threads, 0, stream>>>(d_in, d_out, static_cast<const T*>(nullptr), tiles, op, init,
                                           vector_aligned<T, items>(d_in), vector_aligned<T, items>(d_out));
  return after_launch(stream);
}

template <class P, bool EXCLUSIVE, class T, class Op, class Layout>
cudaError_t launch_hierarchical(void* d_temp_storage, const Layout& layout, const T* d_in, T* d_out,
                                const tile_plan& tiles, Op op, T init, cudaStream_t stream) {
  T* totals = static_cast<T*>(layout.carve(d_temp_storage, 0));
  auto* counter = static_cast<std::uint64_t*>(layout.carve(d_temp_storage, 1));
  constexpr int items = P::items_per_thread;
  const auto grid = static_cast<unsigned>(tiles.num_tiles);
  upsweep_kernel<P><<<grid, P::block_threads, 0, stream>>>(
      d_in, totals, tiles, op, vector_aligned<T, items>(d_in), counter, next_epoch());
  if (cudaError_t e = after_launch(stream); e != cudaSuccess) return e;
  downsweep_kernel<P, EXCLUSIVE><<<grid, P::block_threads, 0, stream>>>(
      d_in, d_out, totals, tiles, op, init, vector_aligned<T, items>(d_in), vector_aligned<T, items>(d_out));
  return after_launch(stream);
}

/// Sets `kernel`'s preferred carveout to the most shared memory on the current device, once per device
/// (devices 0-63; others on every call): a host call that does not synchronise, remembered only after
/// it succeeded. After a cudaDeviceReset the kernel runs with the default carveout (fewer blocks per
/// SM, same results) until the process restarts.
template <class Kernel>
cudaError_t prefer_max_shared(Kernel* kernel) {
  static std::atomic<std::uint64_t> done{0}; // one per kernel: bit d = set on device d
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  const std::uint64_t bit = device >= 0 && device < 64 ? std::uint64_t{1} << device : 0;
  if (bit != 0 && (done.load(std::memory_order_relaxed) & bit) != 0) return cudaSuccess;
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             cudaSharedmemCarveoutMaxShared);
  if (e == cudaSuccess && bit != 0) done.fetch_or(bit, std::memory_order_relaxed);
  return e;
}

/// One launch of single_pass_kernel<Agent>: a single_pass_agent, a staged_agent or a small_agent.
/// Staged agents first get the largest shared-memory carveout, to reach Agent::min_blocks per SM.
template <class Agent, class T, class Op>
cudaError_t launch_agent(unsigned grid, unsigned threads, const T* d_in, T* d_out, const tile_plan& tiles,
                         Op op, T init, const single_pass_state<T>& state, epoch_t epoch, bool vin, bool vout,
                         cudaStream_t stream) {
  if constexpr (Agent::min_blocks > 1) {
    if (const cudaError_t e = prefer_max_shared(single_pass_kernel<Agent, T, Op>); e != cudaSuccess) return e;
  }
  single_pass_kernel<Agent>
      <<<grid, threads, 0, stream>>>(d_in, d_out, tiles, op, init, state, epoch, vin, vout);
  return after_launch(stream);
}

/// The single pass over tiles of policy P: staged in shared memory where P is a staged policy and T
/// packs into its chunks, else the register tile; the canonical look-back or the classic one.
template <class P, bool EXCLUSIVE, class T, class Op, class Layout>
cudaError_t launch_single_pass(void* d_temp_storage, const Layout& layout, const T* d_in, T* d_out,
                               const tile_plan& tiles, Op op, T init, bool canonical, cudaStream_t stream) {
  const single_pass_state<T> state = carve_single_pass_state<T>(d_temp_storage, layout);
  constexpr int items = P::items_per_thread;
  constexpr unsigned threads = P::block_threads;
  const epoch_t epoch = next_epoch();
  const auto grid = static_cast<unsigned>(tiles.num_tiles);
  if constexpr (is_staged_policy<P>::value && stageable<T, items>()) {
    const bool vin = chunk_aligned<T>(d_in), vout = chunk_aligned<T>(d_out);
    if (canonical)
      return launch_agent<staged_agent<P, EXCLUSIVE, true, T, Op>>(grid, threads, d_in, d_out, tiles, op,
                                                                   init, state, epoch, vin, vout, stream);
    return launch_agent<staged_agent<P, EXCLUSIVE, false, T, Op>>(grid, threads, d_in, d_out, tiles, op, init,
                                                                  state, epoch, vin, vout, stream);
  } else {
    const bool vin = vector_aligned<T, items>(d_in), vout = vector_aligned<T, items>(d_out);
    if (canonical)
      return launch_agent<single_pass_agent<P, EXCLUSIVE, true, T, Op>>(
          grid, threads, d_in, d_out, tiles, op, init, state, epoch, vin, vout, stream);
    return launch_agent<single_pass_agent<P, EXCLUSIVE, false, T, Op>>(grid, threads, d_in, d_out, tiles, op,
                                                                       init, state, epoch, vin, vout, stream);
  }
}

/// Small inputs, one launch, in the mode choose_small_mode picks: a single tile (only the warps that
/// hold items), gather (each block folds its predecessors' published aggregates; not when input and
/// output overlap, as a late predecessor's input is folded directly), or the ticketed look-back.
template <class P, bool EXCLUSIVE, class T, class Op, class Layout>
cudaError_t launch_small(void* d_temp_storage, const Layout& layout, const T* d_in, T* d_out,
                         const tile_plan& tiles, Op op, T init, const scan_options& opt,
                         cudaStream_t stream) {
  const bool vin = chunk_aligned<T>(d_in), vout = chunk_aligned<T>(d_out);
  const auto grid = static_cast<unsigned>(tiles.num_tiles);
  const unsigned threads = P::block_threads;
  const bool overlap = ranges_overlap(d_in, d_out, static_cast<std::size_t>(tiles.num_items) * sizeof(T));
  const small_mode mode =
      choose_small_mode(tiles.num_tiles, P::gather_tiles, overlap, canonical_look_back(opt));
  if (mode == small_mode::one_tile) {
    const auto one_tile_threads = static_cast<unsigned>(
        small_tile_threads(tiles.num_items, P::block_threads, warp_threads * P::items_per_thread));
    return launch_agent<small_agent<P, EXCLUSIVE, small_mode::one_tile, T, Op>>(
        1, one_tile_threads, d_in, d_out, tiles, op, init, single_pass_state<T>{}, 0, vin, vout, stream);
  }
  const single_pass_state<T> state = carve_single_pass_state<T>(d_temp_storage, layout);
  const epoch_t epoch = next_epoch();
  if (mode == small_mode::gather)
    return launch_agent<small_agent<P, EXCLUSIVE, small_mode::gather, T, Op>>(
        grid, threads, d_in, d_out, tiles, op, init, state, epoch, vin, vout, stream);
  if (mode == small_mode::look_back_canonical)
    return launch_agent<small_agent<P, EXCLUSIVE, small_mode::look_back_canonical, T, Op>>(
        grid, threads, d_in, d_out, tiles, op, init, state, epoch, vin, vout, stream);
  return launch_agent<small_agent<P, EXCLUSIVE, small_mode::look_back, T, Op>>(
      grid, threads, d_in, d_out, tiles, op, init, state, epoch, vin, vout, stream);
}

template <class HPolicy, class SPolicy, class SmallPolicy, bool EXCLUSIVE, class T, class Op>
cudaError_t dispatch_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                          Op op, T init, std::int64_t num_items, const scan_options& opt,
                          cudaStream_t stream) {
  if (num_items < 0) return cudaErrorInvalidValue;
  using plan_t = scan_plan<HPolicy, SPolicy, SmallPolicy, T>;
  const plan_t plan = plan_t::make(num_items, opt);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = plan.layout.total;
    return cudaSuccess;
  }
  if (check_args(d_in, d_out, num_items, temp_storage_bytes, plan.layout.total, plan.tiles.num_tiles) !=
      arg_error::none)
    return cudaErrorInvalidValue;
  switch (plan.kind) {
  case pass_kind::empty:
    return cudaSuccess;
  case pass_kind::single_tile:
    if (plan.family == tile_family::hierarchical)
      return launch_single_tile<HPolicy, EXCLUSIVE>(d_in, d_out, plan.tiles, op, init, stream);
    break; // the single-pass family's single tile: below
  case pass_kind::hierarchical:
    return launch_hierarchical<HPolicy, EXCLUSIVE>(d_temp_storage, plan.layout, d_in, d_out, plan.tiles, op,
                                                   init, stream);
  case pass_kind::single_pass:
    break;
  }
  if constexpr (plan_t::has_small)
    if (plan.family == tile_family::small)
      return launch_small<SmallPolicy, EXCLUSIVE>(d_temp_storage, plan.layout, d_in, d_out, plan.tiles, op,
                                                  init, opt, stream);
  if constexpr (is_small_tile_policy<SPolicy>::value) { // a warp-striped single-pass tile
    return launch_small<SPolicy, EXCLUSIVE>(d_temp_storage, plan.layout, d_in, d_out, plan.tiles, op, init,
                                            opt, stream);
  } else {
    if (plan.kind == pass_kind::single_tile)
      return launch_single_tile<SPolicy, EXCLUSIVE>(d_in, d_out, plan.tiles, op, init, stream);
    return launch_single_pass<SPolicy, EXCLUSIVE>(d_temp_storage, plan.layout, d_in, d_out, plan.tiles, op,
                                                  init, canonical_look_back(opt), stream);
  }
}

template <class Policy, class T, class Op>
cudaError_t dispatch_reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                            Op op, T init, std::int64_t num_items, cudaStream_t stream) {
  if (num_items < 0) return cudaErrorInvalidValue;
  const tile_plan tiles = plan_tiles(num_items, Policy::tile_items);
  std::size_t parts[1] = {tiles.num_tiles > 1 ? static_cast<std::size_t>(tiles.num_tiles) * sizeof(T) : 0};
  const temp_layout<1> layout(parts);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = layout.total;
    return cudaSuccess;
  }
  if (check_args(d_in, d_out, num_items, temp_storage_bytes, layout.total, tiles.num_tiles) !=
      arg_error::none)
    return cudaErrorInvalidValue;
  if (num_items == 0) return cudaSuccess;
  if (tiles.num_tiles == 1) { // one launch: the spine folds the input itself
    reduce_spine_kernel<Policy><<<1, Policy::block_threads, 0, stream>>>(d_in, num_items, d_out, op, init);
    return after_launch(stream);
  }
  T* totals = static_cast<T*>(layout.carve(d_temp_storage, 0));
  upsweep_kernel<Policy><<<static_cast<unsigned>(tiles.num_tiles), Policy::block_threads, 0, stream>>>(
      d_in, totals, tiles, op, vector_aligned<T, Policy::items_per_thread>(d_in), nullptr, 0);
  if (cudaError_t e = after_launch(stream); e != cudaSuccess) return e;
  reduce_spine_kernel<Policy>
      <<<1, Policy::block_threads, 0, stream>>>(totals, tiles.num_tiles, d_out, op, init);
  return after_launch(stream);
}

} // namespace detail
} // namespace carry
