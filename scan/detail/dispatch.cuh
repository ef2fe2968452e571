// Host-side planning and launches of the scan engine: pass choice, temp storage, argument checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include <cuda_runtime.h>

#include "../lookback/cluster.cuh"
#include "../agent/keyed_agent.cuh"
#include "../lookback/prepare.cuh"
#include "../util/launch.cuh"
#include "kernels.cuh"
#include "pass_choice.hpp"

namespace carry {
namespace detail {

/// Everything a scan call decides before launching: family, pass, tiles, temp-storage parts.
template <class HPolicy, class SPolicy, class SmallPolicy, class T>
struct scan_plan {
  static constexpr bool has_small = is_small_tile_policy<SmallPolicy>::value;
  using format = lookback::default_format<T>;
  tile_family family;
  pass_kind kind;
  tile_plan tiles;
  lookback::temp_part totals, counter; // hierarchical pass
  lookback::state_parts state;         // single pass (every single-pass family launch of > 1 tile)
  std::size_t allocation = 1;

  static scan_plan make(std::int64_t n, const scan_options& opt) {
    scan_plan p{};
    p.family = choose_family(n, opt, has_small);
    const std::int64_t tile = p.family == tile_family::hierarchical ? HPolicy::tile_items
                              : p.family == tile_family::small      ? SmallPolicy::tile_items
                                                                    : SPolicy::tile_items;
    p.kind = choose_pass(n, opt, tile);
    p.tiles = plan_tiles(n, tile);
    lookback::temp_builder b;
    if (p.kind == pass_kind::hierarchical) {
      p.totals = b.add(static_cast<std::size_t>(p.tiles.num_tiles) * sizeof(T));
      p.counter = b.add(sizeof(std::uint32_t)); // arrivals of the upsweep (its last block runs the spine)
    }
    if (p.kind == pass_kind::single_pass)
      p.state = lookback::add_state<format>(b, p.tiles.num_tiles, 1, true); // both look-backs: one size
    p.allocation = b.allocation();
    return p;
  }
};

template <class P, bool EXCLUSIVE, class T, class Op>
cudaError_t launch_single_tile(const T* d_in, T* d_out, const tile_plan& tiles, Op op, T init,
                               cudaStream_t stream) {
  constexpr int items = P::items_per_thread;
  downsweep_kernel<P, EXCLUSIVE>
      <<<1, P::block_threads, 0, stream>>>(d_in, d_out, static_cast<const T*>(nullptr), tiles, op, init,
                                           vector_aligned<T, items>(d_in), vector_aligned<T, items>(d_out));
  return after_launch(stream);
}

template <class P, bool EXCLUSIVE, class T, class Op, class Plan>
cudaError_t launch_hierarchical(void* d_temp_storage, const Plan& plan, const T* d_in, T* d_out, Op op,
                                T init, cudaStream_t stream) {
  T* totals = plan.totals.template as<T>(d_temp_storage);
  auto* counter = plan.counter.template as<std::uint32_t>(d_temp_storage);
  constexpr int items = P::items_per_thread;
  const tile_plan& tiles = plan.tiles;
  const auto grid = static_cast<unsigned>(tiles.num_tiles);
  if (cudaError_t e = lookback::launch_prepare(d_temp_storage, plan.counter, stream); e != cudaSuccess)
    return e;
  if (cudaError_t e =
          lookback::launch_prepared(upsweep_kernel<P, T, Op>, grid, P::block_threads, stream, d_in, totals,
                                    tiles, op, vector_aligned<T, items>(d_in), counter);
      e != cudaSuccess)
    return e;
  if (cudaError_t e = after_launch(stream); e != cudaSuccess) return e;
  downsweep_kernel<P, EXCLUSIVE><<<grid, P::block_threads, 0, stream>>>(
      d_in, d_out, totals, tiles, op, init, vector_aligned<T, items>(d_in), vector_aligned<T, items>(d_out));
  return after_launch(stream);
}

/// One prepared launch of a single-pass kernel (`Kernel`: single_pass_kernel<Agent> with a ticketed
/// single_pass_agent, staged_agent or small_agent, or any_input_kernel<Agent>): the prepare step zeroes
/// the state, then the kernel starts while it runs. Staged agents first get the largest shared-memory
/// carveout, to reach Agent::min_blocks per SM.
template <class Agent, auto* Kernel, class T, class InIt, class OutIt, class Op>
cudaError_t launch_prepared_pass(void* d_temp_storage, const lookback::state_parts& parts,
                                 const tile_plan& tiles, unsigned threads, InIt d_in, OutIt d_out, Op op,
                                 T init, bool vin, bool vout, cudaStream_t stream) {
  if constexpr (Agent::min_blocks > 1)
    if (const cudaError_t e = prefer_shared_for<Kernel>(); e != cudaSuccess) return e;
  const scan_state<T> state = lookback::carve_state<lookback::default_format<T>>(d_temp_storage, parts);
  if (cudaError_t e = lookback::launch_prepare(d_temp_storage, parts.cleared, stream); e != cudaSuccess)
    return e;
  if (cudaError_t e = lookback::launch_prepared(Kernel, static_cast<unsigned>(tiles.num_tiles), threads,
                                                stream, d_in, d_out, tiles, op, init, state, vin, vout);
      e != cudaSuccess)
    return e;
  return after_launch(stream);
}
template <class Agent, class T, class Op, class Plan>
cudaError_t launch_agent(void* d_temp_storage, const Plan& plan, unsigned threads, const T* d_in, T* d_out,
                         Op op, T init, bool vin, bool vout, cudaStream_t stream) {
  return launch_prepared_pass<Agent, &single_pass_kernel<Agent, T, Op>>(
      d_temp_storage, plan.state, plan.tiles, threads, d_in, d_out, op, init, vin, vout, stream);
}

/// The single pass over tiles of policy P: staged in shared memory where P is a staged policy and T
/// packs into its chunks, else the register tile; the canonical look-back or the classic one.
template <class P, bool EXCLUSIVE, class T, class Op, class Plan>
cudaError_t launch_single_pass(void* d_temp_storage, const Plan& plan, const T* d_in, T* d_out, Op op, T init,
                               bool canonical, cudaStream_t stream) {
  constexpr int items = P::items_per_thread;
  constexpr unsigned threads = P::block_threads;
  if constexpr (is_staged_policy<P>::value && stageable<T, items>()) {
    const bool vin = chunk_aligned<T>(d_in), vout = chunk_aligned<T>(d_out);
    if (canonical)
      return launch_agent<staged_agent<P, EXCLUSIVE, true, T, Op>>(d_temp_storage, plan, threads, d_in, d_out,
                                                                   op, init, vin, vout, stream);
    return launch_agent<staged_agent<P, EXCLUSIVE, false, T, Op>>(d_temp_storage, plan, threads, d_in, d_out,
                                                                  op, init, vin, vout, stream);
  } else {
    const bool vin = vector_aligned<T, items>(d_in), vout = vector_aligned<T, items>(d_out);
    if (canonical)
      return launch_agent<single_pass_agent<P, EXCLUSIVE, true, T, Op>>(d_temp_storage, plan, threads, d_in,
                                                                        d_out, op, init, vin, vout, stream);
    return launch_agent<single_pass_agent<P, EXCLUSIVE, false, T, Op>>(d_temp_storage, plan, threads, d_in,
                                                                       d_out, op, init, vin, vout, stream);
  }
}

/// Small inputs, in the mode choose_small_mode picks: a single tile (only the warps that hold items,
/// one launch), one cluster (one launch, no temp storage touched), or the prepared, ticketed look-back.
template <class P, bool EXCLUSIVE, class T, class Op, class Plan>
cudaError_t launch_small(void* d_temp_storage, const Plan& plan, const T* d_in, T* d_out, Op op, T init,
                         const scan_options& opt, cudaStream_t stream) {
  const tile_plan& tiles = plan.tiles;
  const bool vin = chunk_aligned<T>(d_in), vout = chunk_aligned<T>(d_out);
  const unsigned threads = P::block_threads;
  using cluster_agent = small_agent<P, EXCLUSIVE, small_mode::cluster, T, Op>;
  auto* cluster_kernel = single_pass_kernel<cluster_agent, T, Op>;
  const int cluster_tiles =
      tiles.num_tiles > 1 && P::cluster_tiles >= 2
          ? cluster_limit<cluster_agent>(cluster_kernel, threads, P::cluster_tiles, P::cluster_smem_bytes)
          : 0;
  const small_mode mode = choose_small_mode(tiles.num_tiles, cluster_tiles, canonical_look_back(opt));
  if (mode == small_mode::one_tile) {
    const auto one_tile_threads = static_cast<unsigned>(
        small_tile_threads(tiles.num_items, P::block_threads, warp_threads * P::items_per_thread));
    single_pass_kernel<small_agent<P, EXCLUSIVE, small_mode::one_tile, T, Op>>
        <<<1, one_tile_threads, 0, stream>>>(d_in, d_out, tiles, op, init, scan_state<T>{}, vin, vout);
    return after_launch(stream);
  }
  if (mode == small_mode::cluster) {
    if (cudaError_t e = lookback::launch_cluster(cluster_kernel, static_cast<unsigned>(tiles.num_tiles),
                                                 threads, P::cluster_smem_bytes, stream, d_in, d_out, tiles,
                                                 op, init, scan_state<T>{}, vin, vout);
        e != cudaSuccess)
      return e;
    return after_launch(stream);
  }
  if (mode == small_mode::look_back_canonical)
    return launch_agent<small_agent<P, EXCLUSIVE, small_mode::look_back_canonical, T, Op>>(
        d_temp_storage, plan, threads, d_in, d_out, op, init, vin, vout, stream);
  return launch_agent<small_agent<P, EXCLUSIVE, small_mode::look_back, T, Op>>(
      d_temp_storage, plan, threads, d_in, d_out, op, init, vin, vout, stream);
}

template <class HPolicy, class SPolicy, class SmallPolicy, bool EXCLUSIVE, class T, class Op>
cudaError_t dispatch_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
                          Op op, T init, std::int64_t num_items, const scan_options& opt,
                          cudaStream_t stream) {
  if (num_items < 0) return cudaErrorInvalidValue;
  using plan_t = scan_plan<HPolicy, SPolicy, SmallPolicy, T>;
  const plan_t plan = plan_t::make(num_items, opt);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = plan.allocation;
    return cudaSuccess;
  }
  if (check_args(d_in, d_out, num_items, temp_storage_bytes, plan.allocation, plan.tiles.num_tiles) !=
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
    return launch_hierarchical<HPolicy, EXCLUSIVE>(d_temp_storage, plan, d_in, d_out, op, init, stream);
  case pass_kind::single_pass:
    break;
  }
  if constexpr (plan_t::has_small)
    if (plan.family == tile_family::small)
      return launch_small<SmallPolicy, EXCLUSIVE>(d_temp_storage, plan, d_in, d_out, op, init, opt, stream);
  if constexpr (is_small_tile_policy<SPolicy>::value) { // a warp-striped single-pass tile
    return launch_small<SPolicy, EXCLUSIVE>(d_temp_storage, plan, d_in, d_out, op, init, opt, stream);
  } else {
    if (plan.kind == pass_kind::single_tile)
      return launch_single_tile<SPolicy, EXCLUSIVE>(d_in, d_out, plan.tiles, op, init, stream);
    return launch_single_pass<SPolicy, EXCLUSIVE>(d_temp_storage, plan, d_in, d_out, op, init,
                                                  canonical_look_back(opt), stream);
  }
}

/// What an argument check sees of an iterator: the pointer itself, or any non-null address.
template <class It>
const void* checked_address(const It& it) {
  if constexpr (std::is_pointer<It>::value)
    return static_cast<const void*>(it);
  else
    return &it;
}

/// Whether `it` is a pointer that allows 16-byte chunk copies of T (staged tiles).
template <class T, class It>
bool chunk_ok(const It& it) {
  if constexpr (std::is_pointer<It>::value)
    return chunk_aligned<T>(static_cast<const void*>(it));
  else
    return false;
}

/// Whether `it` is a pointer that allows the vector loads of a tile of ITEMS items of T (tile_io).
template <class T, int ITEMS, class It>
bool vector_ok(const It& it) {
  if constexpr (std::is_pointer<It>::value)
    return vector_aligned<T, ITEMS>(static_cast<const void*>(it));
  else
    return false;
}

/// Whether two iterators are pointers into overlapping bytes of n items each.
template <class InIt, class OutIt>
bool iterators_overlap(const InIt& in, const OutIt& out, std::int64_t n) {
  if constexpr (std::is_pointer<InIt>::value && std::is_pointer<OutIt>::value) {
    using A = typename std::iterator_traits<InIt>::value_type;
    using B = typename std::iterator_traits<OutIt>::value_type;
    return ranges_overlap(static_cast<const void*>(in), static_cast<std::size_t>(n) * sizeof(A),
                          static_cast<const void*>(out), static_cast<std::size_t>(n) * sizeof(B));
  } else {
    return false;
  }
}

/// A ticketed single pass over n items in tiles of tile_items: its tiles and its look-back state over
/// aggregates of T (default_format<T>) in temp storage.
template <class T>
struct ticketed_pass {
  tile_plan tiles;
  lookback::state_parts parts{};
  std::size_t allocation = 0;
  ticketed_pass(std::int64_t n, std::int64_t tile_items) : tiles(plan_tiles(n, tile_items)) {
    lookback::temp_builder b;
    if (tiles.num_tiles > 0)
      parts = lookback::add_state<lookback::default_format<T>>(b, tiles.num_tiles, 1, true);
    allocation = b.allocation();
  }
};

/// launch(std::true_type{}) for the canonical look-back (scan_options::deterministic), else
/// launch(std::false_type{}): the agent takes the look-back as a template argument.
template <class Launch>
cudaError_t with_look_back(const scan_options& opt, Launch&& launch) {
  return canonical_look_back(opt) ? launch(std::true_type{}) : launch(std::false_type{});
}

/// Scans over any input iterator into any output iterator, accumulating in T: the staged single pass
/// (prepare step + one launch), each item converted to T as it is staged and to the output's type as
/// it is stored. Full tiles of pointers keep the 16-byte chunk loads (a narrower input type widened as
/// it lands: u8 flags into u32 offsets) and stores (a T output). Pointers that overlap are refused.
template <class P, bool EXCLUSIVE, class T, class InIt, class OutIt, class Op>
cudaError_t dispatch_scan_any(void* d_temp_storage, std::size_t& temp_storage_bytes, InIt d_in, OutIt d_out,
                              Op op, T init, std::int64_t num_items, const scan_options& opt,
                              cudaStream_t stream) {
  static_assert(
      is_staged_policy<P>::value && stageable<T, P::items_per_thread>(),
      "carry: a scan over iterators or of mixed types accumulates in a type of 1, 2, 4, 8 or 16 bytes");
  if (num_items < 0) return cudaErrorInvalidValue;
  const ticketed_pass<T> pass(num_items, P::tile_items);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = pass.allocation;
    return cudaSuccess;
  }
  if (check_args(checked_address(d_in), checked_address(d_out), num_items, temp_storage_bytes,
                 pass.allocation, pass.tiles.num_tiles) != arg_error::none ||
      (num_items > 0 && iterators_overlap(d_in, d_out, num_items)))
    return cudaErrorInvalidValue;
  if (num_items == 0) return cudaSuccess;
  const bool vin = staged_agent<P, EXCLUSIVE, false, T, Op>::template chunk_loads<InIt> && chunk_ok<T>(d_in);
  const bool vout = std::is_same<OutIt, T*>::value && chunk_ok<T>(d_out);
  return with_look_back(opt, [&](auto canonical) {
    using agent = staged_agent<P, EXCLUSIVE, decltype(canonical)::value, T, Op>;
    return launch_prepared_pass<agent, &any_input_kernel<agent, InIt, OutIt, T, Op>>(
        d_temp_storage, pass.parts, pass.tiles, P::block_threads, d_in, d_out, op, init, vin, vout, stream);
  });
}

/// The keyed calls' single pass (keyed_agent, or another agent of the same shape, with behaviour B) over
/// keys and values: prepare step + one launch, the look-back over B's aggregates; the canonical look-back
/// where options ask for determinism. The caller has checked its pointers. vec_out: B's value output (a
/// scan by key) is a pointer aligned for the tile's vector stores.
template <class P, template <class, bool, class> class Agent = keyed_agent, class B, class KeyIt, class ValIt>
cudaError_t dispatch_keyed(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyIt keys, ValIt values,
                           const B& b, std::int64_t num_items, const scan_options& opt, bool vec_out,
                           cudaStream_t stream) {
  using A = typename B::aggregate;
  using Op = typename B::op_type;
  using source = keyed_source<KeyIt, ValIt>;
  if (num_items < 0) return cudaErrorInvalidValue;
  const ticketed_pass<A> pass(num_items, P::tile_items);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = pass.allocation;
    return cudaSuccess;
  }
  if (check_args(&keys, &values, num_items, temp_storage_bytes, pass.allocation, pass.tiles.num_tiles) !=
      arg_error::none)
    return cudaErrorInvalidValue;
  if (num_items == 0) return cudaSuccess;
  const source in{keys, values, num_items, vector_ok<typename B::key_type, P::items_per_thread>(keys),
                  vector_ok<typename B::value_type, P::items_per_thread>(values)};
  return with_look_back(opt, [&](auto canonical) {
    using agent = Agent<P, decltype(canonical)::value, B>;
    return launch_prepared_pass<agent, &any_input_kernel<agent, source, B, A, Op>>(
        d_temp_storage, pass.parts, pass.tiles, P::block_threads, in, b, b.scan_op(), A{}, false, vec_out,
        stream);
  });
}

/// The reduction over any input iterator into any output iterator, accumulating in T: upsweep (tile
/// totals) then the spine, or the spine alone over a one-tile input; items converted to T as they load.
/// num_items == 0 writes init to *d_out (the output describes the whole input), as CUB does.
template <class Policy, class T, class InIt, class OutIt, class Op>
cudaError_t dispatch_reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InIt d_in, OutIt d_out,
                            Op op, T init, std::int64_t num_items, cudaStream_t stream) {
  if (num_items < 0) return cudaErrorInvalidValue;
  const tile_plan tiles = plan_tiles(num_items, Policy::tile_items);
  lookback::temp_builder b;
  const lookback::temp_part totals =
      b.add(tiles.num_tiles > 1 ? static_cast<std::size_t>(tiles.num_tiles) * sizeof(T) : 0);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = b.allocation();
    return cudaSuccess;
  }
  if (checked_address(d_out) == nullptr) return cudaErrorInvalidValue; // written even for an empty input
  if (check_args(checked_address(d_in), checked_address(d_out), num_items, temp_storage_bytes, b.allocation(),
                 tiles.num_tiles) != arg_error::none)
    return cudaErrorInvalidValue;
  if (tiles.num_tiles <= 1) { // one launch: the spine folds the input itself (none: writes init)
    reduce_spine_kernel<Policy, T, Op, InIt, OutIt>
        <<<1, Policy::block_threads, 0, stream>>>(d_in, num_items, d_out, op, init);
    return after_launch(stream);
  }
  T* d_totals = totals.as<T>(d_temp_storage);
  bool vec = false;
  if constexpr (std::is_convertible<InIt, const T*>::value)
    vec = vector_aligned<T, Policy::items_per_thread>(static_cast<const T*>(d_in));
  upsweep_kernel<Policy, T, Op, InIt>
      <<<static_cast<unsigned>(tiles.num_tiles), Policy::block_threads, 0, stream>>>(d_in, d_totals, tiles,
                                                                                     op, vec, nullptr);
  if (cudaError_t e = after_launch(stream); e != cudaSuccess) return e;
  reduce_spine_kernel<Policy, T, Op, const T*, OutIt>
      <<<1, Policy::block_threads, 0, stream>>>(d_totals, tiles.num_tiles, d_out, op, init);
  return after_launch(stream);
}

} // namespace detail
} // namespace carry
