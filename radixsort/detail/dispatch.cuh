// Host side of the radix sort: path choice, temp layout and argument checks (dispatch_sort), then one
// launcher per path (copy, cluster, three kernels, onesweep with the bucket form).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "../../scan/device_scan.cuh"
#include "../../scan/lookback/prepare.cuh"
#include "../../scan/util/launch.cuh"
#include "../radix_sort_options.hpp"
#include "../tuning.hpp"
#include "bucket_sort.cuh"
#include "cluster_kernel.cuh"
#include "histogram.cuh"
#include "onesweep_launch.cuh"
#include "plan.hpp"
#include "three_kernel.cuh"

namespace carry {
namespace radix_detail {

template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS, class P>
struct cluster_tag {};

/// Tiles the cluster path may take on this device for this kernel: the largest cluster it co-schedules
/// (at most radix_tuning::cluster_tiles; 0 when clusters are not available). Cached per device; sets
/// the kernel's dynamic shared memory limit where it has dynamic storage (before any launch of it).
template <int ITEMS, bool HAS_VALUES, class K, class V, int THREADS = radix_tuning::threads,
          class P = radix_tuning::default_policy>
int cluster_tiles_available() {
  auto* kernel = cluster_sort_kernel<ITEMS, HAS_VALUES, K, V, THREADS, P>;
  return detail::cluster_limit<cluster_tag<ITEMS, HAS_VALUES, K, V, THREADS, P>>(
      kernel, THREADS, radix_tuning::cluster_tiles,
      static_cast<int>(cluster_layout<ITEMS, HAS_VALUES, K, V, THREADS, P>::dynamic_bytes));
}

/// The cluster path's kernel for its largest tiles (cluster_shape): wide blocks (radix_tuning::cluster_wide)
/// of half the items a thread where the items split evenly, else 256 threads.
template <class K, class V, class P = radix_tuning::default_policy>
struct cluster_full {
  using cshape = cluster_shape<K, V, P>;
  static constexpr int threads =
      cluster_full_threads(cshape::tile_items, cshape::items, P::cluster_wide,
                           radix_tuning::cluster_wide_threads, radix_tuning::threads);
  static constexpr int items = cshape::tile_items / threads;
};

/// What a sort's launchers need once dispatch_sort has planned and checked the call.
template <class K, class V>
struct sort_call {
  void* d_temp_storage;
  pass_buffers<K> kb;
  pass_buffers<V> vb;
  std::int64_t n;
  int passes, begin_bit, end_bit;
  bool descending;
  radix_sort_options opt;
  sort_layout layout;
  three_kernel_plan three;
  int cluster_tiles;    // the cluster the device co-schedules for the largest cluster tiles
  int onesweep_items;   // the onesweep tiles' items a thread for n (mid or large)
  int onesweep_threads; // ... and threads (the tile shape's or the wide tile's)
  cudaStream_t stream;
};

// ---- an empty bit range: the input order ----
template <bool HAS_VALUES, class P, class K, class V>
cudaError_t launch_copy_path(const sort_call<K, V>& c) {
  if (c.kb.double_buffer) return cudaSuccess; // already where the selector says
  finish_copy_kernel<HAS_VALUES><<<copy_blocks(c.n), 256, 0, c.stream>>>(c.kb, c.vb, nullptr, 0, c.n);
  return detail::after_launch(c.stream);
}

// ---- small inputs: one cluster, every pass in one launch ----
template <bool HAS_VALUES, class P, class K, class V>
cudaError_t launch_cluster_path(const sort_call<K, V>& c) {
  using cshape = cluster_shape<K, V, P>;
  using full = cluster_full<K, V, P>;
  cluster_args a;
  a.tiles = c.layout.tiles;
  a.passes = c.passes, a.begin_bit = c.begin_bit, a.end_bit = c.end_bit, a.descending = c.descending;
  // the kernel of ITEMS x THREADS, with its dynamic shared memory (cluster_layout)
  const auto launch = [&](auto items, auto threads) {
    constexpr int I = decltype(items)::value, T = decltype(threads)::value;
    return lookback::launch_cluster(
        cluster_sort_kernel<I, HAS_VALUES, K, V, T, P>, static_cast<unsigned>(a.tiles.num_tiles), T,
        cluster_layout<I, HAS_VALUES, K, V, T, P>::dynamic_bytes, c.stream, c.kb, c.vb, a);
  };
  using narrow = std::integral_constant<int, radix_tuning::threads>;
  const auto launch_full = [&] {
    return launch(std::integral_constant<int, full::items>{}, std::integral_constant<int, full::threads>{});
  };
  cudaError_t e = cudaSuccess;
  if constexpr (cshape::items >= 4) {
    // ---- fewer items a thread when more tiles still fit the cluster the device co-schedules ----
    constexpr int quarter = cshape::items / 4, half = cshape::items / 2;
    const int items = cluster_items(c.n, radix_tuning::threads, cshape::items, c.cluster_tiles);
    const int fits =
        items == quarter ? cluster_tiles_available<quarter, HAS_VALUES, K, V, radix_tuning::threads, P>()
        : items == half  ? cluster_tiles_available<half, HAS_VALUES, K, V, radix_tuning::threads, P>()
                         : c.cluster_tiles;
    const int use =
        detail::ceil_div(c.n, std::int64_t{radix_tuning::threads} * items) <= fits ? items : cshape::items;
    a.tiles = detail::plan_tiles(c.n, std::int64_t{radix_tuning::threads} * use);
    e = use == quarter ? launch(std::integral_constant<int, quarter>{}, narrow{})
        : use == half  ? launch(std::integral_constant<int, half>{}, narrow{})
                       : launch_full();
  } else {
    e = launch_full();
  }
  if (e != cudaSuccess) return e;
  return detail::after_launch(c.stream);
}

// ---- three kernels a pass: upsweep, the engine's exclusive sum, downsweep ----
template <bool HAS_VALUES, class P, class K, class V>
cudaError_t launch_three_kernel_path(const sort_call<K, V>& c) {
  auto* counts = c.layout.counts.template as<std::uint64_t>(c.d_temp_storage);
  for (int p = 0; p < c.passes; ++p) {
    const radix_digit<K> digit{pass_digit(c.begin_bit, c.end_bit, p, radix_tuning::digit_bits, c.descending)};
    if (const cudaError_t e = three_kernel_pass<HAS_VALUES, P>(
            c.kb.src(p, c.passes), c.kb.dst(p, c.passes), HAS_VALUES ? c.vb.src(p, c.passes) : nullptr,
            HAS_VALUES ? c.vb.dst(p, c.passes) : nullptr, c.three, digit, counts,
            c.layout.scan.in(c.d_temp_storage), c.layout.scan.bytes, c.stream);
        e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

// ---- onesweep: counts of every digit up front, then one look-back pass per digit (or, for mid sizes
// whose top digit makes small buckets, the bucket form: bucket_sort.cuh) ----
template <bool HAS_VALUES, class P, class K, class V>
cudaError_t launch_onesweep_path(const sort_call<K, V>& c) {
  using shape = tile_shape<K, V, P>;
  constexpr int mid_items = radix_tuning::mid_items<P, shape::widest>();
  constexpr int wide_threads = radix_tuning::wide_threads<P, HAS_VALUES, sizeof(K)>;
  constexpr std::size_t item_bytes = sizeof(K) + (HAS_VALUES ? sizeof(V) : 0);
  constexpr bool bucket_types =
      radix_tuning::bucket_max_n < P >> 0 && item_bytes <= radix_tuning::bucket_bytes_max;
  constexpr int bucket_tile = bucket_storage<P::bucket_items, HAS_VALUES, K, V, P>::tile_items;
  const sort_layout& layout = c.layout;
  const bool bucket =
      bucket_types && c.onesweep_items == mid_items &&
      bucket_applies(c.n, c.passes, c.opt.algorithm, item_bytes, layout.clear_once, layout.portions,
                     radix_tuning::bucket_max_n<P>, radix_tuning::bucket_bytes_max);
  const lookback::temp_part cleared = layout.cleared();
  if (const cudaError_t e = cudaMemsetAsync(cleared.in(c.d_temp_storage), 0, cleared.bytes, c.stream);
      e != cudaSuccess)
    return e;
  auto* hist = layout.hist.as<std::uint64_t>(c.d_temp_storage);
  auto* control = layout.control.as<sort_control>(c.d_temp_storage);
  auto* bases = layout.bases.as<std::uint64_t>(c.d_temp_storage);
  detail::device_limits lim;
  if (const cudaError_t e = detail::current_limits(lim); e != cudaSuccess) return e;
  // ---- the up-front histogram of every pass's digits (and the adaptive checks, the bucket form's choice)
  // ----
  {
    constexpr int hthreads = radix_tuning::threads;
    const std::int64_t segments =
        detail::ceil_div(c.n, std::int64_t{hthreads} * histogram_thread_keys<K, P>());
    const std::int64_t want = std::int64_t{lim.sms} * P::histogram_blocks_per_sm;
    const unsigned grid = static_cast<unsigned>(segments < want ? segments : want);
    histogram_args h;
    h.n = c.n, h.passes = c.passes, h.begin_bit = c.begin_bit, h.end_bit = c.end_bit,
    h.descending = c.descending;
    h.adaptive = c.opt.adaptive;
    h.bucket_capacity = bucket ? bucket_tile : 0;
    radix_histogram_kernel<hthreads, K, P><<<grid, hthreads, 0, c.stream>>>(c.kb.in, h, hist, control, bases);
    if (const cudaError_t e = detail::after_launch(c.stream); e != cudaSuccess) return e;
  }
  // ---- one pass per digit, in tiles of onesweep_threads x onesweep_items (the mid-size tile, the
  // large one, or for large inputs of 4-byte keys the wide one) ----
  // (where the bucket form may run, the last pass's launch is its MSD pass when the histogram chose it:
  // onesweep_kernel's MSD; the passes before it find nothing to do then)
  const auto run_passes = [&](auto items, auto threads) {
    constexpr bool msd_tiles =
        bucket_types && decltype(items)::value == mid_items && decltype(threads)::value == 0;
    for (int p = 0; p < c.passes; ++p) {
      const radix_digit<K> digit{
          pass_digit(c.begin_bit, c.end_bit, p, radix_tuning::digit_bits, c.descending)};
      cudaError_t e;
      if constexpr (msd_tiles) {
        if (bucket && p + 1 == c.passes) {
          onesweep_args bits;
          bits.begin_bit = c.begin_bit, bits.end_bit = c.end_bit, bits.descending = c.descending;
          e = launch_onesweep_pass<HAS_VALUES, mid_items, 0, true, P>(
              c.d_temp_storage, layout, p, c.passes, digit, c.kb, c.vb, control, bases, lim.sms, c.stream,
              radix_tuning::pdl<P>, bits);
          if (e != cudaSuccess) return e;
          continue;
        }
      }
      e = launch_onesweep_pass<HAS_VALUES, decltype(items)::value, decltype(threads)::value, false, P>(
          c.d_temp_storage, layout, p, c.passes, digit, c.kb, c.vb, control, bases, lim.sms, c.stream,
          radix_tuning::pdl<P>);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  };
  using large = std::integral_constant<int, shape::items>;
  using tile_threads = std::integral_constant<int, 0>; // tile_shape's
  const auto run_tile_passes = [&] {
    return c.onesweep_items == shape::items
               ? run_passes(large{}, tile_threads{})
               : run_passes(std::integral_constant<int, mid_items>{}, tile_threads{});
  };
  cudaError_t passes_done;
  if constexpr (wide_threads > 0 && wide_threads != shape::threads) // the wide kernel only where it can run
    passes_done = c.onesweep_threads == wide_threads
                      ? run_passes(large{}, std::integral_constant<int, wide_threads>{})
                      : run_tile_passes();
  else
    passes_done = run_tile_passes();
  if (passes_done != cudaSuccess) return passes_done;
  // ---- the result where the caller expects it (after the last pass, its programmatic dependent): the
  // bucket form's buckets, sorted in shared memory, or the finishing copy ----
  if constexpr (bucket_types) {
    if (bucket) {
      bucket_args ba;
      ba.host_passes = c.passes, ba.begin_bit = c.begin_bit, ba.end_bit = c.end_bit,
      ba.descending = c.descending;
      if (const cudaError_t e = lookback::launch_after(
              bucket_finish_kernel<P::bucket_items, HAS_VALUES, K, V, P>,
              dim3(std::max(copy_blocks(c.n), unsigned{radix_tuning::radix})), dim3(radix_tuning::threads),
              c.stream, radix_tuning::pdl<P>, c.kb, c.vb, ba, static_cast<const sort_control*>(control),
              static_cast<const std::uint64_t*>(hist), static_cast<const std::uint64_t*>(bases), c.n);
          e != cudaSuccess)
        return e;
      return detail::after_launch(c.stream);
    }
  }
  if (const cudaError_t e = lookback::launch_after(
          finish_copy_kernel<HAS_VALUES, K, V>, dim3(copy_blocks(c.n)), dim3(256), c.stream,
          radix_tuning::pdl<P>, c.kb, c.vb, static_cast<const sort_control*>(control), c.passes, c.n);
      e != cudaSuccess)
    return e;
  return detail::after_launch(c.stream);
}

/// Every sort, with the tuning policy P (radix_tuning::default_policy unless a tuner passes its own). kb /
/// vb: the caller's buffers (alt filled in here, pointer forms); double-buffer forms have kb.double_buffer
/// set. Plans the call (path, tiles, temp layout: the size query and the call run the same code), checks its
/// arguments (cudaErrorInvalidValue, nothing written), then runs its path.
template <bool HAS_VALUES, class P = radix_tuning::default_policy, class K, class V>
cudaError_t dispatch_sort(void* d_temp_storage, std::size_t& temp_storage_bytes, pass_buffers<K> kb,
                          pass_buffers<V> vb, std::int64_t n, int begin_bit, int end_bit, bool descending,
                          radix_sort_options opt, cudaStream_t stream) {
  static_assert(radix_tuning::valid_policy<P>,
                "carry: onesweep blocks are whole warps, at least one thread a digit");
  static_assert(!HAS_VALUES || (sizeof(V) >= 1 && sizeof(V) <= 16 && std::is_trivially_copyable_v<V>),
                "carry: radix sort values are trivially copyable types of 1 to 16 bytes");
  using shape = tile_shape<K, V, P>;     // onesweep tiles
  using cshape = cluster_shape<K, V, P>; // the cluster path's largest tiles
  using full = cluster_full<K, V, P>;
  constexpr int key_bits = radix_key<K>::bits;
  const bool bits_ok = begin_bit >= 0 && end_bit <= key_bits && begin_bit <= end_bit;
  const int passes = bits_ok ? radix_passes(begin_bit, end_bit, radix_tuning::digit_bits) : 0;
  const std::int64_t nn = n > 0 ? n : 0;
  // ---- path and temp layout (the size query and the call run the same code) ----
  int cluster_tiles = 0;
  if (opt.algorithm == radix_sort_algorithm::automatic && nn > 0 &&
      nn <= std::int64_t{radix_tuning::cluster_tiles} * cshape::tile_items)
    cluster_tiles = cluster_tiles_available<full::items, HAS_VALUES, K, V, full::threads, P>();
  const sort_path path = choose_sort_path(nn, passes, opt.algorithm, cshape::tile_items, cluster_tiles);
  const three_kernel_plan three =
      plan_three_kernel(nn, three_kernel_shape<K, V, P>::tile_items, radix_tuning::radix, P::three_grid_max);
  std::size_t scan_bytes = 0;
  if (path == sort_path::three_kernel)
    if (const cudaError_t e = carry::exclusive_sum<std::uint64_t>(nullptr, scan_bytes, nullptr, nullptr,
                                                                  three.grid * radix_tuning::radix, stream);
        e != cudaSuccess)
      return e;
  constexpr int mid_items = radix_tuning::mid_items<P, shape::widest>();
  const int onesweep_items_ = onesweep_items(nn, shape::items, mid_items, radix_tuning::mid_items_max_n<P>);
  constexpr int wide_threads = radix_tuning::wide_threads<P, HAS_VALUES, sizeof(K)>;
  const int onesweep_threads_ = onesweep_threads_for(nn, onesweep_items_, shape::items, shape::threads,
                                                     wide_threads, radix_tuning::wide_min_n<P>);
  const std::int64_t tile_items = path == sort_path::three_kernel ? three_kernel_shape<K, V, P>::tile_items
                                  : path == sort_path::cluster
                                      ? cshape::tile_items
                                      : std::int64_t{onesweep_threads_} * onesweep_items_;
  const sort_layout layout =
      make_sort_layout(path, nn, passes, tile_items, sizeof(K), HAS_VALUES ? sizeof(V) : 0, kb.double_buffer,
                       three.grid, scan_bytes);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = layout.allocation;
    return cudaSuccess;
  }
  // ---- arguments ----
  const std::size_t kbytes = static_cast<std::size_t>(nn) * sizeof(K),
                    vbytes = static_cast<std::size_t>(nn) * sizeof(V);
  const bool overlap = nn > 0 && (detail::ranges_overlap(kb.in, kb.out, kbytes) ||
                                  (HAS_VALUES && detail::ranges_overlap(vb.in, vb.out, vbytes)));
  if (check_sort_args(kb.in, kb.out, vb.in, vb.out, HAS_VALUES, n, begin_bit, end_bit, key_bits,
                      temp_storage_bytes, layout.allocation, overlap,
                      layout.tiles.num_tiles) != sort_error::none)
    return cudaErrorInvalidValue;
  if (path == sort_path::empty) return cudaSuccess;
  if (!kb.double_buffer && passes >= 2) {
    kb.alt = layout.alt_keys.as<K>(d_temp_storage);
    if constexpr (HAS_VALUES) vb.alt = layout.alt_values.as<V>(d_temp_storage);
  }
  // ---- the path ----
  const sort_call<K, V> c{
      d_temp_storage, kb,  vb,     nn,    passes,        begin_bit,       end_bit,
      descending,     opt, layout, three, cluster_tiles, onesweep_items_, onesweep_threads_,
      stream};
  switch (path) {
  case sort_path::copy:
    return launch_copy_path<HAS_VALUES, P>(c);
  case sort_path::cluster:
    return launch_cluster_path<HAS_VALUES, P>(c);
  case sort_path::three_kernel:
    return launch_three_kernel_path<HAS_VALUES, P>(c);
  default:
    return launch_onesweep_path<HAS_VALUES, P>(c);
  }
}

} // namespace radix_detail
} // namespace carry
