// Host-side planning and launches of the radix sort: path choice, temp layout, argument checks, and the
// launches of the cluster, onesweep and three-kernel paths.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../../scan/util/launch.cuh"
#include "../../scan/device_scan.cuh"
#include "../../scan/lookback/prepare.cuh"
#include "../radix_sort_options.hpp"
#include "../tuning.hpp"
#include "bucket_sort.cuh"
#include "cluster_sort.cuh"
#include "histogram.cuh"
#include "onesweep.cuh"
#include "plan.hpp"
#include "three_kernel.cuh"

namespace carry {
namespace radix_detail {

template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS>
struct cluster_tag {};

/// Tiles the cluster path may take on this device for this kernel: the largest cluster it co-schedules
/// (at most radix_tuning::cluster_tiles; 0 when clusters are not available). Cached per device; sets
/// the kernel's dynamic shared memory limit where it has dynamic storage (before any launch of it).
template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS = radix_tuning::threads>
int cluster_tiles_available() {
  auto* kernel = cluster_sort_kernel<ITEMS, HAS_VALUES, K, V, THREADS>;
  return detail::cluster_limit<cluster_tag<ITEMS, HAS_VALUES, K, V, THREADS>>(
      kernel, THREADS, radix_tuning::cluster_tiles,
      static_cast<int>(cluster_layout<ITEMS, HAS_VALUES, K, V, THREADS>::dynamic_bytes));
}

/// The cluster path's kernel for its largest tiles (cluster_shape): wide blocks (radix_tuning::cluster_wide)
/// of half the items a thread where the items split evenly, else 256 threads.
template <class K, class V>
struct cluster_full {
  using cshape = cluster_shape<K, V>;
  static constexpr int threads = cluster_full_threads(cshape::tile_items, cshape::items, radix_tuning::cluster_wide,
                                                      radix_tuning::cluster_wide_threads, radix_tuning::threads);
  static constexpr int items = cshape::tile_items / threads;
};

/// The three-kernel form's tile shape (the pass bin_by_key also runs past 256 bins).
template <class K, class V>
using three_shape = three_kernel_shape<K, V>;

/// Every sort. kb / vb: the caller's buffers (alt filled in here, pointer forms); double-buffer forms
/// have kb.double_buffer set. Returns cudaErrorInvalidValue for bad arguments, writing nothing.
template <bool HAS_VALUES, class K, class V>
cudaError_t dispatch_sort(void* d_temp_storage, std::size_t& temp_storage_bytes, pass_buffers<K> kb, pass_buffers<V> vb,
                          std::int64_t n, int begin_bit, int end_bit, bool descending, radix_sort_options opt,
                          cudaStream_t stream) {
  using shape = tile_shape<K, V>;     // onesweep tiles
  using cshape = cluster_shape<K, V>; // the cluster path's largest tiles
  constexpr int key_bits = radix_key<K>::bits;
  const bool bits_ok = begin_bit >= 0 && end_bit <= key_bits && begin_bit <= end_bit;
  const int passes = bits_ok ? radix_passes(begin_bit, end_bit, radix_tuning::digit_bits) : 0;
  const std::int64_t nn = n > 0 ? n : 0;
  // ---- path and temp layout (the size query and the call run the same code) ----
  int cluster_tiles = 0;
  if (opt.algorithm == radix_sort_algorithm::automatic && nn > 0 &&
      nn <= std::int64_t{radix_tuning::cluster_tiles} * cshape::tile_items)
    cluster_tiles = cluster_tiles_available<cluster_full<K, V>::items, HAS_VALUES, K, V, cluster_full<K, V>::threads>();
  const sort_path path = choose_sort_path(nn, passes, opt.algorithm, cshape::tile_items, cluster_tiles);
  const three_kernel_plan three = plan_three_kernel(nn, three_shape<K, V>::tile_items, radix_tuning::radix);
  std::size_t scan_bytes = 0;
  if (path == sort_path::three_kernel)
    if (const cudaError_t e = carry::exclusive_sum<std::uint64_t>(nullptr, scan_bytes, nullptr, nullptr,
                                                                  three.grid * radix_tuning::radix, stream);
        e != cudaSuccess)
      return e;
  constexpr int mid_items = radix_tuning::mid_items<shape::widest>();
  const int onesweep_items_ = onesweep_items(nn, shape::items, mid_items, radix_tuning::mid_items_max_n);
  constexpr int wide_threads = radix_tuning::wide_threads<HAS_VALUES, sizeof(K)>;
  const int onesweep_threads_ =
      onesweep_threads_for(nn, onesweep_items_, shape::items, shape::threads, wide_threads, radix_tuning::wide_min_n);
  const std::int64_t tile_items = path == sort_path::three_kernel ? three_shape<K, V>::tile_items
                                  : path == sort_path::cluster    ? cshape::tile_items
                                                                  : std::int64_t{onesweep_threads_} * onesweep_items_;
  const sort_layout layout = make_sort_layout(path, nn, passes, tile_items, sizeof(K), HAS_VALUES ? sizeof(V) : 0,
                                              kb.double_buffer, three.grid, scan_bytes);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = layout.allocation;
    return cudaSuccess;
  }
  // ---- arguments ----
  const std::size_t kbytes = static_cast<std::size_t>(nn) * sizeof(K), vbytes = static_cast<std::size_t>(nn) * sizeof(V);
  const bool overlap = nn > 0 && (detail::ranges_overlap(kb.in, kb.out, kbytes) ||
                                  (HAS_VALUES && detail::ranges_overlap(vb.in, vb.out, vbytes)));
  if (check_sort_args(kb.in, kb.out, vb.in, vb.out, HAS_VALUES, n, begin_bit, end_bit, key_bits, temp_storage_bytes,
                      layout.allocation, overlap, layout.tiles.num_tiles) != sort_error::none)
    return cudaErrorInvalidValue;
  if (path == sort_path::empty) return cudaSuccess;
  if (!kb.double_buffer && passes >= 2) {
    kb.alt = layout.alt_keys.as<K>(d_temp_storage);
    if constexpr (HAS_VALUES) vb.alt = layout.alt_values.as<V>(d_temp_storage);
  }
  // ---- an empty bit range: the input order ----
  if (path == sort_path::copy) {
    if (kb.double_buffer) return cudaSuccess; // already where the selector says
    finish_copy_kernel<HAS_VALUES><<<copy_blocks(nn), 256, 0, stream>>>(kb, vb, nullptr, 0, nn);
    return detail::after_launch(stream);
  }
  // ---- small inputs: one cluster ----
  if (path == sort_path::cluster) {
    cluster_args a;
    a.tiles = layout.tiles;
    a.passes = passes, a.begin_bit = begin_bit, a.end_bit = end_bit, a.descending = descending;
    using full = cluster_full<K, V>;
    // the kernel of ITEMS x THREADS, with its dynamic shared memory (cluster_layout)
    const auto launch = [&](auto items, auto threads) {
      constexpr int I = decltype(items)::value, T = decltype(threads)::value;
      return lookback::launch_cluster(cluster_sort_kernel<I, HAS_VALUES, K, V, T>, static_cast<unsigned>(a.tiles.num_tiles),
                                      T, cluster_layout<I, HAS_VALUES, K, V, T>::dynamic_bytes, stream, kb, vb, a);
    };
    using narrow = std::integral_constant<int, radix_tuning::threads>;
    const auto launch_full = [&] {
      return launch(std::integral_constant<int, full::items>{}, std::integral_constant<int, full::threads>{});
    };
    cudaError_t e = cudaSuccess;
    if constexpr (cshape::items >= 4) {
      // ---- fewer items a thread when more tiles still fit the cluster the device co-schedules ----
      constexpr int quarter = cshape::items / 4, half = cshape::items / 2;
      const int items = cluster_items(nn, radix_tuning::threads, cshape::items, cluster_tiles);
      const int fits = items == quarter ? cluster_tiles_available<quarter, HAS_VALUES, K, V>()
                       : items == half  ? cluster_tiles_available<half, HAS_VALUES, K, V>()
                                        : cluster_tiles;
      const int use = detail::ceil_div(nn, std::int64_t{radix_tuning::threads} * items) <= fits ? items : cshape::items;
      a.tiles = detail::plan_tiles(nn, std::int64_t{radix_tuning::threads} * use);
      e = use == quarter ? launch(std::integral_constant<int, quarter>{}, narrow{})
          : use == half  ? launch(std::integral_constant<int, half>{}, narrow{})
                         : launch_full();
    } else {
      e = launch_full();
    }
    if (e != cudaSuccess) return e;
    return detail::after_launch(stream);
  }
  // ---- three kernels a pass: upsweep, the engine's exclusive sum, downsweep ----
  if (path == sort_path::three_kernel) {
    auto* counts = layout.counts.as<std::uint64_t>(d_temp_storage);
    for (int p = 0; p < passes; ++p) {
      const radix_digit<K> digit{pass_digit(begin_bit, end_bit, p, radix_tuning::digit_bits, descending)};
      if (const cudaError_t e = three_kernel_pass<HAS_VALUES>(kb.src(p, passes), kb.dst(p, passes),
                                                              HAS_VALUES ? vb.src(p, passes) : nullptr,
                                                              HAS_VALUES ? vb.dst(p, passes) : nullptr, three, digit,
                                                              counts, layout.scan.in(d_temp_storage), layout.scan.bytes,
                                                              stream);
          e != cudaSuccess)
        return e;
    }
    return cudaSuccess;
  }
  // ---- onesweep: counts of every digit up front, then one look-back pass per digit (or, for mid sizes
  // whose top digit makes small buckets, the bucket form: bucket_sort.cuh) ----
  constexpr std::size_t item_bytes = sizeof(K) + (HAS_VALUES ? sizeof(V) : 0);
  constexpr bool bucket_types = radix_tuning::bucket_max_n > 0 && item_bytes <= radix_tuning::bucket_bytes_max;
  constexpr int bucket_tile = bucket_storage<radix_tuning::bucket_items, HAS_VALUES, K, V>::tile_items;
  const bool bucket = bucket_types && onesweep_items_ == mid_items &&
                      bucket_applies(nn, passes, opt.algorithm, item_bytes, layout.clear_once, layout.portions,
                                     radix_tuning::bucket_max_n, radix_tuning::bucket_bytes_max);
  const lookback::temp_part cleared = layout.cleared();
  if (const cudaError_t e = cudaMemsetAsync(cleared.in(d_temp_storage), 0, cleared.bytes, stream); e != cudaSuccess)
    return e;
  auto* hist = layout.hist.as<std::uint64_t>(d_temp_storage);
  auto* control = layout.control.as<sort_control>(d_temp_storage);
  auto* bases = layout.bases.as<std::uint64_t>(d_temp_storage);
  detail::device_limits lim;
  if (const cudaError_t e = detail::current_limits(lim); e != cudaSuccess) return e;
  {
    constexpr int hthreads = radix_tuning::threads;
    const std::int64_t segments = detail::ceil_div(nn, std::int64_t{hthreads} * histogram_thread_keys<K>());
    const std::int64_t want = std::int64_t{lim.sms} * radix_tuning::histogram_blocks_per_sm;
    const unsigned grid = static_cast<unsigned>(segments < want ? segments : want);
    histogram_args h;
    h.n = nn, h.passes = passes, h.begin_bit = begin_bit, h.end_bit = end_bit, h.descending = descending;
    h.adaptive = opt.adaptive;
    h.bucket_capacity = bucket ? bucket_tile : 0;
    radix_histogram_kernel<hthreads, K><<<grid, hthreads, 0, stream>>>(kb.in, h, hist, control, bases);
    if (const cudaError_t e = detail::after_launch(stream); e != cudaSuccess) return e;
  }
  // ---- one pass per digit, in tiles of onesweep_threads_ x onesweep_items_ (the mid-size tile, the
  // large one, or for large inputs of 4-byte keys the wide one) ----
  // (where the bucket form may run, the last pass's launch is its MSD pass when the histogram chose it:
  // onesweep_kernel's MSD; the passes before it find nothing to do then)
  const auto run_passes = [&](auto items, auto threads) {
    constexpr bool msd_tiles = bucket_types && decltype(items)::value == mid_items && decltype(threads)::value == 0;
    for (int p = 0; p < passes; ++p) {
      const radix_digit<K> digit{pass_digit(begin_bit, end_bit, p, radix_tuning::digit_bits, descending)};
      cudaError_t e;
      if constexpr (msd_tiles) {
        if (bucket && p + 1 == passes) {
          onesweep_args bits;
          bits.begin_bit = begin_bit, bits.end_bit = end_bit, bits.descending = descending;
          e = launch_onesweep_pass<HAS_VALUES, mid_items, 0, true>(d_temp_storage, layout, p, passes, digit, kb, vb,
                                                                   control, bases, lim.sms, stream, radix_tuning::pdl,
                                                                   bits);
          if (e != cudaSuccess) return e;
          continue;
        }
      }
      e = launch_onesweep_pass<HAS_VALUES, decltype(items)::value, decltype(threads)::value>(
          d_temp_storage, layout, p, passes, digit, kb, vb, control, bases, lim.sms, stream, radix_tuning::pdl);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  };
  using large = std::integral_constant<int, shape::items>;
  using tile_threads = std::integral_constant<int, 0>; // tile_shape's
  const auto run_tile_passes = [&] {
    return onesweep_items_ == shape::items ? run_passes(large{}, tile_threads{})
                                           : run_passes(std::integral_constant<int, mid_items>{}, tile_threads{});
  };
  cudaError_t passes_done;
  if constexpr (wide_threads > 0 && wide_threads != shape::threads) // the wide kernel only where it can run
    passes_done = onesweep_threads_ == wide_threads ? run_passes(large{}, std::integral_constant<int, wide_threads>{})
                                                    : run_tile_passes();
  else
    passes_done = run_tile_passes();
  if (passes_done != cudaSuccess) return passes_done;
  // ---- the result where the caller expects it (after the last pass, its programmatic dependent): the
  // bucket form's buckets, sorted in shared memory, or the finishing copy ----
  if constexpr (bucket_types) {
    if (bucket) {
      bucket_args ba;
      ba.host_passes = passes, ba.begin_bit = begin_bit, ba.end_bit = end_bit, ba.descending = descending;
      if (const cudaError_t e = lookback::launch_after(
              bucket_finish_kernel<radix_tuning::bucket_items, HAS_VALUES, K, V>,
              dim3(std::max(copy_blocks(nn), unsigned{radix_tuning::radix})),
              dim3(radix_tuning::threads), stream, radix_tuning::pdl, kb, vb, ba,
              static_cast<const sort_control*>(control), static_cast<const std::uint64_t*>(hist),
              static_cast<const std::uint64_t*>(bases), nn);
          e != cudaSuccess)
        return e;
      return detail::after_launch(stream);
    }
  }
  if (const cudaError_t e = lookback::launch_after(finish_copy_kernel<HAS_VALUES, K, V>, dim3(copy_blocks(nn)), dim3(256),
                                                   stream, radix_tuning::pdl, kb, vb,
                                                   static_cast<const sort_control*>(control), passes, nn);
      e != cudaSuccess)
    return e;
  return detail::after_launch(stream);
}

} // namespace radix_detail
} // namespace carry
