// GPU test harness of the radix sort: one carry sort (two-phase, poisoned outputs, dirty temp storage)
// checked against the CPU reference and bitwise against CUB, inputs unchanged, guards intact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <carry/radixsort/device_radix_sort.cuh>

#include "bench/baselines/baselines_radix.hpp"
#include "tests/common/apps_reference.hpp"
#include "tests/common/gpu.cuh"
#include "tests/common/radix_reference.hpp"
#include "tests/common/scan_harness.cuh"

namespace carry_validate {

inline const char* algorithm_name(carry::radix_sort_algorithm a) {
  return a == carry::radix_sort_algorithm::automatic  ? "automatic"
         : a == carry::radix_sort_algorithm::onesweep ? "onesweep"
                                                      : "three_kernel";
}
/// The sort forms a case runs: automatic, onesweep and the three kernels. In the sanitizer mode a case
/// that repeats a form's coverage for one more key or value type (every = false) runs the automatic
/// form alone, so that racecheck gets through each binary in a few minutes.
inline std::vector<carry::radix_sort_algorithm> sort_forms(bool every = true) {
  using A = carry::radix_sort_algorithm;
  if (!every && sanitize_mode()) return {A::automatic};
  return {A::automatic, A::onesweep, A::three_kernel};
}

inline carry::radix_sort_options with_algorithm(carry::radix_sort_algorithm a, bool adaptive = true) {
  carry::radix_sort_options o;
  o.algorithm = a;
  o.adaptive = adaptive;
  return o;
}

/// The onesweep tiles' edge sizes for K keys and V values (V = null_value: keys only): one below, at and
/// above the mid-size tile (inputs up to radix_tuning::mid_items_max_n) and a whole number of the large
/// tile just past that limit (the large tile's whole and partial last tiles).
template <class K, class V>
std::vector<std::int64_t> onesweep_edge_sizes() {
  namespace rd = carry::radix_detail;
  namespace rt = carry::radix_tuning;
  using shape = rd::tile_shape<K, V>;
  const int mid = rt::mid_items<carry::radix_tuning::default_policy, shape::widest>();
  const std::int64_t mtile = std::int64_t{shape::threads} * (mid > 0 ? mid : shape::items);
  const std::int64_t big =
      (mid > 0 ? rt::mid_items_max_n<carry::radix_tuning::default_policy> / shape::tile_items + 1 : 3) *
      shape::tile_items;
  std::vector<std::int64_t> sizes{mtile - 1, mtile, mtile + 1, 3 * mtile + 5, big - 1, big, big + 1};
  // the wide tile's whole and partial last tiles just past its threshold, where that is small enough for
  // every size list (at the shipped 2^25 keys, test_radix_keys and test_radix_graph meet it in cases of
  // their own)
  constexpr int wide = rt::wide_threads<carry::radix_tuning::default_policy,
                                        !std::is_same_v<V, rd::null_value>, static_cast<int>(sizeof(K))>;
  if constexpr (wide > 0 && wide != shape::threads &&
                rt::wide_min_n<carry::radix_tuning::default_policy> <= (std::int64_t{1} << 20)) {
    const std::int64_t wtile = std::int64_t{wide} * shape::items;
    const std::int64_t wbig =
        (rt::wide_min_n<carry::radix_tuning::default_policy> + wtile - 1) / wtile * wtile;
    for (std::int64_t n : {wbig - 1, wbig, wbig + 1, rt::wide_min_n<carry::radix_tuning::default_policy> - 1})
      sizes.push_back(n);
  }
  return sizes;
}

/// The sizes a sort test of K keys and V values runs: `sizes` up to max_n (a per-type cap), then the
/// onesweep tiles' edges (onesweep_edge_sizes) whatever max_n, so every key type meets both tiles; all
/// capped by CARRY_TEST_MAX_N (capped_sizes).
template <class K, class V>
std::vector<std::int64_t> sort_sizes(std::vector<std::int64_t> sizes, std::int64_t max_n) {
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::int64_t n) { return n > max_n; }),
              sizes.end());
  const auto tiles = onesweep_edge_sizes<K, V>();
  sizes.insert(sizes.end(), tiles.begin(), tiles.end());
  return capped_sizes(sizes);
}

/// Temp storage of `bytes` holding `fill` (0xFF, 0 or, with fill < 0, random bytes).
inline device_buffer<unsigned char> dirty_temp(std::size_t bytes, int fill, std::uint64_t seed) {
  device_buffer<unsigned char> t(bytes);
  if (fill >= 0)
    CARRY_CUDA_OR_DIE(cudaMemset(t.ptr, fill, bytes));
  else
    t.upload(random_bits<unsigned char>(bytes, seed));
  return t;
}

/// Sorts `keys` (and `values` when HAS_VALUES) with carry's pointer form and checks everything.
/// `inspect` (when given) sees the call's temp storage on the device once the call is done.
template <bool HAS_VALUES, class K, class V>
void check_sort(const std::vector<K>& keys, const std::vector<V>& values, int begin, int end, bool desc,
                carry::radix_sort_options opt, bool with_cub = true,
                const std::function<void(const unsigned char*)>& inspect = nullptr) {
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  INFO("n " << n << " bits " << begin << ".." << end << (desc ? " descending" : "") << " "
            << algorithm_name(opt.algorithm) << (opt.adaptive ? "" : " non-adaptive") << " key bytes "
            << sizeof(K) << (HAS_VALUES ? " value bytes " : "") << (HAS_VALUES ? sizeof(V) : 0));
  device_buffer<K> kin(keys.size()), kout(keys.size(), 16);
  device_buffer<V> vin(values.size()), vout(values.size(), 16);
  kin.upload(keys);
  kout.poison();
  if (HAS_VALUES) {
    vin.upload(values);
    vout.poison();
  }
  auto call = [&](void* t, std::size_t& b) {
    if constexpr (HAS_VALUES)
      return desc ? carry::sort_pairs_descending(t, b, kin.ptr, kout.ptr, vin.ptr, vout.ptr, n, begin, end,
                                                 opt)
                  : carry::sort_pairs(t, b, kin.ptr, kout.ptr, vin.ptr, vout.ptr, n, begin, end, opt);
    else
      return desc ? carry::sort_keys_descending(t, b, kin.ptr, kout.ptr, n, begin, end, opt)
                  : carry::sort_keys(t, b, kin.ptr, kout.ptr, n, begin, end, opt);
  };
  std::size_t bytes = 0;
  REQUIRE(call(nullptr, bytes) == cudaSuccess);
  auto temp = dirty_temp(bytes, n % 3 == 0 ? 0xFF : n % 3 == 1 ? 0 : -1, static_cast<std::uint64_t>(n));
  REQUIRE(call(temp.ptr, bytes) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  if (inspect) inspect(temp.ptr);
  const auto order = reference_sort_order(keys, begin, end, desc);
  const auto got = kout.download(keys.size());
  REQUIRE(same_bits(got, permuted(keys, order)));
  REQUIRE(kout.guard_intact());
  REQUIRE(same_bits(kin.download(keys.size()), keys)); // input left unchanged
  std::vector<V> vgot;
  if constexpr (HAS_VALUES) {
    vgot = vout.download(values.size());
    REQUIRE(same_bits(vgot, permuted(values, order)));
    REQUIRE(vout.guard_intact());
    REQUIRE(same_bits(vin.download(values.size()), values));
  }
  if (!with_cub || n == 0) return;
  // ---- bitwise against CUB ----
  device_buffer<K> ck(keys.size());
  device_buffer<V> cv(values.size());
  std::size_t cb = 0;
  auto cub_call = [&](void* t, std::size_t& b) {
    if constexpr (HAS_VALUES)
      return cub_radix_pairs(t, b, kin.ptr, ck.ptr, vin.ptr, cv.ptr, n, begin, end, desc, false,
                             cudaStream_t{0});
    else
      return cub_radix_keys(t, b, kin.ptr, ck.ptr, n, begin, end, desc, false, cudaStream_t{0});
  };
  REQUIRE(cub_call(nullptr, cb) == cudaSuccess);
  device_buffer<unsigned char> ct(cb);
  REQUIRE(cub_call(ct.ptr, cb) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(same_bits(ck.download(keys.size()), got));
  if constexpr (HAS_VALUES) REQUIRE(same_bits(cv.download(values.size()), vgot));
}

/// Whether the bucket form can take n keys in this build: it runs on the mid tiles (a sanitizer build that
/// lowers their limit, CARRY_TEST_MID_MAX_LOG2, sends such sizes to the passes).
inline bool bucket_tiles(std::int64_t n) {
  return n <= carry::radix_tuning::bucket_max_n<carry::radix_tuning::default_policy> &&
         n <= carry::radix_tuning::mid_items_max_n<carry::radix_tuning::default_policy>;
}

/// The control words a onesweep call of n keys (K, V: null_value for keys only; the pointer form) left
/// in its temp storage `temp` (on the device): which way the histogram sent the call (sort_control::
/// bucket_top). For the onesweep path of n keys (its tiles as the dispatch plans them: mid tiles up to
/// radix_tuning::mid_items_max_n, the large ones above).
template <class K, class V = carry::radix_detail::null_value>
carry::radix_detail::sort_control mid_control_after(const unsigned char* temp, std::int64_t n, int passes) {
  namespace rd = carry::radix_detail;
  namespace rt = carry::radix_tuning;
  using shape = rd::tile_shape<K, V>;
  constexpr bool has_values = !std::is_same_v<V, rd::null_value>;
  const int items =
      rd::onesweep_items(n, shape::items, rt::mid_items<carry::radix_tuning::default_policy, shape::widest>(),
                         rt::mid_items_max_n<carry::radix_tuning::default_policy>);
  const int threads =
      rd::onesweep_threads_for(n, items, shape::items, shape::threads,
                               rt::wide_threads<carry::radix_tuning::default_policy, has_values, sizeof(K)>,
                               rt::wide_min_n<carry::radix_tuning::default_policy>);
  const std::int64_t tile = std::int64_t{threads} * items;
  const rd::sort_layout l = rd::make_sort_layout(rd::sort_path::onesweep, n, passes, tile, sizeof(K),
                                                 has_values ? sizeof(V) : 0, false, 0, 0);
  rd::sort_control c{};
  CARRY_CUDA_OR_DIE(cudaMemcpy(&c, temp + l.control.offset, sizeof(c), cudaMemcpyDeviceToHost));
  return c;
}

template <class K>
void check_keys(const std::vector<K>& keys, int begin, int end, bool desc, carry::radix_sort_options opt,
                bool with_cub = true) {
  check_sort<false>(keys, std::vector<carry::radix_detail::null_value>{}, begin, end, desc, opt, with_cub);
}

} // namespace carry_validate
