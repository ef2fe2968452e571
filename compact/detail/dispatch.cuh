// Host-side planning and launches of a compaction: pass choice, temp storage, argument checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../../scan/util/launch.cuh"
#include "../../scan/device_scan.cuh"
#include "../../scan/lookback/prepare.cuh"
#include "../tuning.hpp"
#include "kernels.cuh"

namespace carry {
namespace compact_detail {

template <class It>
bool is_null(const It& it) {
  if constexpr (std::is_pointer<It>::value)
    return it == nullptr;
  else
    return false;
}

using detail::vector_ok;

using detail::chunk_ok;

/// How the output sits against the input: apart, exactly on it (in place), or some other overlap.
enum class aliasing { apart, in_place, partial };
template <class T, class InIt, class OutIt>
aliasing output_aliasing(const InIt& in, const OutIt& out, std::int64_t n) {
  if constexpr (std::is_pointer<InIt>::value && std::is_pointer<OutIt>::value) {
    const void* a = static_cast<const void*>(in);
    const void* b = static_cast<const void*>(out);
    if (a == b) return aliasing::in_place;
    if (detail::ranges_overlap(a, b, static_cast<std::size_t>(n) * sizeof(T))) return aliasing::partial;
  }
  return aliasing::apart;
}

/// Whether `it` allows the tile's fast loads: 16-byte chunks (staged tiles) or vectors (register tiles).
template <class Policy, class T, class It>
bool fast_loads(const It& it) {
  return chunked_loads<Policy, T, It>() ? chunk_ok<T>(it) : vector_ok<T, Policy::items_per_thread>(it);
}

/// Phase 1 of the three kernels (and of count + scatter): every tile's count into `counts`. Loads
/// without the streaming hint, so the scatter finds the last tiles still in L2.
template <class Policy, class T, class InIt, class Sel>
cudaError_t launch_counts(InIt in, const Sel& sel, const tile_plan& tiles, bool vec_in, std::uint64_t* counts,
                          cudaStream_t stream) {
  if constexpr (choose_tile<Policy, T, InIt>() == tile_kind::index &&
                index_selection<Policy, Sel>::counts_alone) {
    // the scatter's shared-memory split: an SM need not change it between the two (that would drain it)
    constexpr auto* kernel = &count_alone_kernel<Policy, InIt, Sel>;
    if (const cudaError_t e = detail::prefer_shared_for<kernel>(); e != cudaSuccess) return e;
    const int warps = count_alone_warps(tiles.num_tiles, compact_tuning::count_alone_warps_in_flight);
    const std::int64_t blocks = (tiles.num_tiles + 8 / warps - 1) / (8 / warps);
    kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(in, sel, tiles, warps, counts);
  } else {
    using agent = compact_agent<compact_tuning::without_streaming<Policy>, false, T, Sel, InIt>;
    constexpr auto* kernel = &count_kernel<agent, InIt, Sel>;
    if (const cudaError_t e = detail::prefer_shared_for<kernel>(); e != cudaSuccess) return e;
    kernel<<<static_cast<unsigned>(tiles.num_tiles), Policy::block_threads, 0, stream>>>(in, sel, tiles,
                                                                                         vec_in, counts);
  }
  return detail::after_launch(stream);
}

/// Phase 1 of a flagged stable partition that keeps its selection bits: each tile's flags read once into
/// `words` (selection_words a tile) and its count into `counts`, with the scatter's shared-memory split (an
/// SM need not change it between the two: that would drain it).
template <class Policy, class FlagIt>
cudaError_t launch_count_bits(const by_flags<FlagIt>& sel, const tile_plan& tiles, std::uint64_t* counts,
                              std::uint32_t* words, cudaStream_t stream) {
  constexpr auto* kernel = &count_bits_kernel<Policy, FlagIt>;
  if (const cudaError_t e = detail::prefer_shared_for<kernel>(); e != cudaSuccess) return e;
  kernel<<<static_cast<unsigned>(tiles.num_tiles), Policy::block_threads, 0, stream>>>(sel, tiles, counts,
                                                                                       words);
  return detail::after_launch(stream);
}

/// The pass after the counts (count_scatter: the scatter folding the counts, as the count kernel's
/// programmatic dependent; three_kernel: the engine's scan of the counts, then the scatter) with
/// selection `sel` (the call's, or the bits its count pass stored).
template <class Policy, bool PARTITION, class T, bool REVERSED, class InIt, class Sel, class OutIt,
          class NumT>
cudaError_t launch_scatter(compact_pass pass, void* d_temp_storage, const compact_layout& layout, InIt in,
                           Sel sel, OutIt out, const tile_plan& tiles, bool vec_in, NumT* d_num,
                           cudaStream_t stream) {
  using reread = // read twice
      compact_agent<compact_tuning::without_streaming<Policy>, PARTITION, T, Sel, InIt, REVERSED>;
  std::uint64_t* counts = layout.counts.as<std::uint64_t>(d_temp_storage);
  const unsigned grid = static_cast<unsigned>(tiles.num_tiles);
  if (pass == compact_pass::count_scatter) {
    constexpr auto* scatter = &scatter_after_counts_kernel<reread, InIt, Sel, OutIt, NumT>;
    if (const cudaError_t e = detail::prefer_shared_for<scatter>(); e != cudaSuccess) return e;
    if (const cudaError_t e =
            lookback::launch_prepared(scatter, grid, Policy::block_threads, stream, in, sel, out, tiles,
                                      vec_in, static_cast<const std::uint64_t*>(counts), d_num);
        e != cudaSuccess)
      return e;
    return detail::after_launch(stream);
  }
  std::size_t bytes = layout.scan.bytes;
  if (const cudaError_t e = carry::inclusive_sum(layout.scan.in(d_temp_storage), bytes, counts, counts,
                                                 tiles.num_tiles, stream);
      e != cudaSuccess)
    return e;
  constexpr auto* kernel = &scatter_kernel<reread, InIt, Sel, OutIt, NumT>;
  if (const cudaError_t e = detail::prefer_shared_for<kernel>(); e != cudaSuccess) return e;
  kernel<<<grid, Policy::block_threads, 0, stream>>>(in, sel, out, tiles, vec_in, counts, d_num);
  return detail::after_launch(stream);
}

/// Every compaction: select (flags, predicate, unique) and partition (REVERSED: the rejected items from
/// the output's end back, CUB's layout, which needs no total: over stored items it plans as a selection).
/// `sel` decides what is selected; `null_sel`: its flag pointer is null.
template <class Policy, bool PARTITION, class T, bool REVERSED = false, class InIt, class Sel, class OutIt,
          class NumT>
cudaError_t dispatch_compact(void* d_temp_storage, std::size_t& temp_storage_bytes, InIt in, Sel sel,
                             bool null_sel, OutIt out, NumT* d_num, std::int64_t num_items,
                             const compact_options& opt, cudaStream_t stream) {
  static_assert(std::is_integral<NumT>::value, "carry: the count goes to an integer");
  if (num_items < 0) return cudaErrorInvalidValue;
  const tile_plan tiles = detail::plan_tiles(num_items, Policy::tile_items);
  std::size_t scan_bytes = 0;
  if (tiles.num_tiles > 1)
    if (const cudaError_t e = carry::inclusive_sum<std::uint64_t>(nullptr, scan_bytes, nullptr, nullptr,
                                                                  tiles.num_tiles, stream);
        e != cudaSuccess)
      return e;
  // a stable partition by flags over stored or computed items counts first from the flags alone and keeps
  // the tile's selection bits for the scatter (n / 8 bytes of temp storage): the flags are read once
  // (over computed items only where the flags pass the L2: compact_tuning::keeps_selection_bits)
  constexpr bool stored_bits = PARTITION && !REVERSED && is_flag_selection<Sel>::value &&
                               choose_tile<Policy, T, InIt>() != tile_kind::registers;
  bool use_bits = false;
  if constexpr (stored_bits)
    use_bits = compact_tuning::keeps_selection_bits(
        choose_tile<Policy, T, InIt>() == tile_kind::staged, tiles.num_tiles,
        num_items * static_cast<std::int64_t>(sizeof(value_of<typename is_flag_selection<Sel>::flags>)));
  const std::size_t bits_bytes =
      use_bits ? static_cast<std::size_t>(tiles.num_tiles) * selection_words<Policy>() * 4 : 0;
  const compact_layout layout =
      make_compact_layout(tiles.num_tiles, scan_bytes, count_format::word_bytes, bits_bytes);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = layout.allocation;
    return cudaSuccess;
  }
  if (check_compact_args(is_null(in) || null_sel, is_null(out), d_num, num_items, temp_storage_bytes,
                         layout.allocation, tiles.num_tiles) != arg_error::none)
    return cudaErrorInvalidValue;
  const aliasing alias = num_items > 0 ? output_aliasing<T>(in, out, num_items) : aliasing::apart;
  if (alias == aliasing::partial || (PARTITION && alias == aliasing::in_place)) return cudaErrorInvalidValue;
  using agent = compact_agent<Policy, PARTITION, T, Sel, InIt, REVERSED>;
  int cluster_tiles = 0; // the largest cluster of tiles the device co-schedules (asked once)
  if (tiles.num_tiles > 1 && tiles.num_tiles <= compact_tuning::cluster_tiles)
    cluster_tiles = detail::cluster_limit<agent>(cluster_kernel<agent, InIt, Sel, OutIt, NumT>,
                                                 Policy::block_threads, compact_tuning::cluster_tiles, 0);
  // a stable partition counts first (its rejected items wait for the total); a reversed one needs no
  // total, and over stored items plans as a selection (H100, 2^28, 50 %: 885-891 us against 1140 stable,
  // CUB 998-1002); a reversed partition whose count reads nothing (an index tile selected by a predicate)
  // counts first, under the automatic choice, in a window of tile counts where that measured faster
  // (tuning.hpp); an explicit algorithm runs as asked
  constexpr bool must_count_first = PARTITION && !REVERSED;
  constexpr bool count_reads_nothing = PARTITION && REVERSED && index_selection<Policy, Sel>::counts_alone &&
                                       choose_tile<Policy, T, InIt>() == tile_kind::index;
  constexpr compact_tuning::tile_range window = compact_tuning::reversed_count_first_tiles;
  const bool count_first =
      must_count_first || (count_reads_nothing && opt.algorithm == compact_algorithm::automatic &&
                           tiles.num_tiles >= window.first && tiles.num_tiles < window.second);
  const compact_pass pass = choose_compact_pass(
      num_items, Policy::tile_items, opt.algorithm, alias == aliasing::in_place, count_first,
      compact_tuning::single_pass_from, cluster_tiles, compact_tuning::fused_scan_max_tiles);
  const bool vec_in = fast_loads<Policy, T>(in);
  const unsigned grid = static_cast<unsigned>(tiles.num_tiles);
  switch (pass) {
  case compact_pass::empty:
    write_count_kernel<<<1, 1, 0, stream>>>(d_num, NumT{0});
    return detail::after_launch(stream);
  case compact_pass::one_tile:
    single_pass_kernel<agent><<<1, Policy::block_threads, 0, stream>>>(in, sel, out, tiles, vec_in,
                                                                       count_state{}, pass_flags{}, d_num);
    return detail::after_launch(stream);
  case compact_pass::count_scatter:
  case compact_pass::three_kernel: {
    std::uint64_t* counts = layout.counts.as<std::uint64_t>(d_temp_storage);
    if constexpr (stored_bits) {
      if (use_bits) {
        auto* words = layout.bits.as<std::uint32_t>(d_temp_storage);
        if (const cudaError_t e = launch_count_bits<Policy>(sel, tiles, counts, words, stream);
            e != cudaSuccess)
          return e;
        return launch_scatter<Policy, PARTITION, T, REVERSED>(
            pass, d_temp_storage, layout, in, by_bits{words}, out, tiles, vec_in, d_num, stream);
      }
    }
    if (const cudaError_t e = launch_counts<Policy, T>(in, sel, tiles, vec_in, counts, stream);
        e != cudaSuccess)
      return e;
    return launch_scatter<Policy, PARTITION, T, REVERSED>(pass, d_temp_storage, layout, in, sel, out, tiles,
                                                          vec_in, d_num, stream);
  }
  case compact_pass::cluster: {
    constexpr auto* kernel = &cluster_kernel<agent, InIt, Sel, OutIt, NumT>;
    if (const cudaError_t e = detail::prefer_shared_for<kernel>(); e != cudaSuccess) return e;
    if (const cudaError_t e = lookback::launch_cluster(kernel, grid, Policy::block_threads, 0, stream, in,
                                                       sel, out, tiles, vec_in, d_num);
        e != cudaSuccess)
      return e;
    return detail::after_launch(stream);
  }
  case compact_pass::single_pass: {
    const pass_flags how{true, alias == aliasing::in_place};
    const count_state state = lookback::carve_state<count_format>(d_temp_storage, layout.state);
    if (const cudaError_t e = lookback::launch_prepare(d_temp_storage, layout.state.cleared, stream);
        e != cudaSuccess)
      return e;
    constexpr auto* kernel = &single_pass_kernel<agent, InIt, Sel, OutIt, NumT>;
    if (const cudaError_t e = detail::prefer_shared_for<kernel>(); e != cudaSuccess) return e;
    if (const cudaError_t e = lookback::launch_prepared(kernel, grid, Policy::block_threads, stream, in, sel,
                                                        out, tiles, vec_in, state, how, d_num);
        e != cudaSuccess)
      return e;
    return detail::after_launch(stream);
  }
  }
  return cudaErrorInvalidValue;
}

/// The flags' fast-load check: 16-byte chunks beside staged and index tiles (staged flags or flag_bits'
/// vector path), vectors beside register tiles.
template <class Policy, class T, class InIt, class FlagIt>
by_flags<FlagIt> flag_selector(FlagIt flags) {
  using F = value_of<FlagIt>;
  return {flags, chunked_loads<Policy, T, InIt>() ? chunk_ok<F>(flags)
                                                  : vector_ok<F, Policy::items_per_thread>(flags)};
}

} // namespace compact_detail
} // namespace carry
