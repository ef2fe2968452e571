// Tuning sweep of the radix sort: the shipped policy (radixsort/tuning.hpp) and variants of it, each a policy
// type passed to the sort's dispatch, all in one run: carry's sort_keys u32 (onesweep, three kernels), u64,
// sort_pairs and the small-input cluster path checked against CUB and timed (cold L2, medians), CUB alongside.
// usage: carry_tune_radix   (CARRY_TUNE_VARIANTS="shipped items20": those only; CARRY_TUNE_SIZES="18 24 26")
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <carry/radixsort/device_radix_sort.cuh>

#include "bench/baselines/baselines_radix.hpp"
#include "tests/common/apps_reference.hpp"
#include "tests/common/gpu.cuh"
#include "tests/common/radix_reference.hpp"
#include "bench/timing.cuh"

using namespace carry_validate;
using A = carry::radix_sort_algorithm;

namespace {
namespace rt = carry::radix_tuning;
namespace rd = carry::radix_detail;

// ---- the variants: each departs from the shipped row in one thing ----
struct items20 : rt::policy_sm90 { // 4-byte keys: 20 items a thread instead of 24
  static constexpr int items4 = 20;
};
struct window1 : rt::policy_sm90 { // keys' look-back reads one word a round trip
  static constexpr int lookback_window = 1;
};
struct hist_v2 : rt::policy_sm90 { // the up-front histogram keeps 2 vectors in flight
  static constexpr int histogram_vectors = 2;
};

/// sort_keys and sort_pairs with policy P (the public calls take the shipped one).
template <class P, class K>
cudaError_t sort_keys_p(void* t, std::size_t& b, const K* in, K* out, std::int64_t n,
                        carry::radix_sort_options o = {}) {
  return rd::sort_pointer<false, P>(t, b, in, out, static_cast<const rd::null_value*>(nullptr),
                                    static_cast<rd::null_value*>(nullptr), n, 0,
                                    8 * static_cast<int>(sizeof(K)), false, o, cudaStream_t{});
}
template <class P, class K, class V>
cudaError_t sort_pairs_p(void* t, std::size_t& b, const K* ki, K* ko, const V* vi, V* vo, std::int64_t n) {
  return rd::sort_pointer<true, P>(t, b, ki, ko, vi, vo, n, 0, 8 * static_cast<int>(sizeof(K)), false,
                                   carry::radix_sort_options{}, cudaStream_t{});
}

/// sort_keys of kin (n keys) checked against CUB bit for bit, then both timed (cold L2, medians of 15).
struct keys_run {
  bool ok;
  double carry_us, cub_us;
};
template <class P, class Cold, class K>
keys_run keys_against_cub(Cold& cold, device_buffer<K>& kin, device_buffer<K>& kout, device_buffer<K>& kref,
                          device_buffer<unsigned char>& temp, std::size_t n) {
  const auto nn = static_cast<std::int64_t>(n);
  constexpr int bits = 8 * static_cast<int>(sizeof(K));
  auto mine = [&] {
    std::size_t x = temp.n;
    return sort_keys_p<P>(temp.ptr, x, kin.ptr, kout.ptr, nn);
  };
  auto cub = [&] {
    std::size_t x = temp.n;
    return cub_radix_keys(temp.ptr, x, kin.ptr, kref.ptr, nn, 0, bits, false, true, 0);
  };
  CARRY_CUDA_OR_DIE(cub());
  CARRY_CUDA_OR_DIE(mine());
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  keys_run r;
  r.ok = kout.download(n) == kref.download(n);
  r.carry_us = median_event_us_after(cold, mine, 15, true);
  r.cub_us = median_event_us_after(cold, cub, 15, true);
  return r;
}
/// sort_pairs K/V of n uniform keys (values = their index) checked against CUB bit for bit, both timed.
template <class P, class K, class V, class Cold>
void pairs_against_cub(const char* variant, Cold& cold, std::size_t n, int l) {
  const auto nn = static_cast<std::int64_t>(n);
  constexpr int bits = 8 * static_cast<int>(sizeof(K));
  device_buffer<K> kin(n), kout(n), kref(n);
  device_buffer<V> vin(n), vout(n), vref(n);
  kin.upload(make_keys<K>(n, key_dist::uniform, l));
  std::vector<V> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<V>(i);
  vin.upload(v);
  std::size_t need = 0, b = 0;
  sort_pairs_p<P>(nullptr, need, kin.ptr, kout.ptr, vin.ptr, vout.ptr, nn);
  cub_radix_pairs(nullptr, b, kin.ptr, kref.ptr, vin.ptr, vref.ptr, nn, 0, bits, false, true, 0);
  device_buffer<unsigned char> temp(std::max(need, b));
  auto mine = [&] {
    std::size_t x = temp.n;
    return sort_pairs_p<P>(temp.ptr, x, kin.ptr, kout.ptr, vin.ptr, vout.ptr, nn);
  };
  auto cub = [&] {
    std::size_t x = temp.n;
    return cub_radix_pairs(temp.ptr, x, kin.ptr, kref.ptr, vin.ptr, vref.ptr, nn, 0, bits, false, true, 0);
  };
  CARRY_CUDA_OR_DIE(cub());
  CARRY_CUDA_OR_DIE(mine());
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  const bool ok = kout.download(n) == kref.download(n) && vout.download(n) == vref.download(n);
  const double mine_us = median_event_us_after(cold, mine, 15, true),
               cub_us = median_event_us_after(cold, cub, 15, true);
  std::printf("%s 2^%d %s pairs %d/%d bytes %.1f us (%.3fx cub %.1f)\n", variant, l, ok ? "ok" : "MISMATCH",
              static_cast<int>(sizeof(K)), static_cast<int>(sizeof(V)), mine_us, cub_us / mine_us, cub_us);
}
/// The whole sweep with policy P, its rows labelled `variant`.
template <class P, class Cold>
void sweep(const char* variant, Cold& cold) {
  using tp = P;
  std::printf(
      "%s: peers %d, counts %d, early %d, window %d, items %d at %d blocks, histogram %d blocks x %d vectors, "
      "whole keys %d pairs %d, padded keys %d pairs %d, 8-byte items %d, 8-byte pairs items %d, mid items %d/%d up "
      "to 2^%d, pdl %d, onesweep threads %d (4-byte keys %d), buckets up to 2^%d, cluster local %d\n",
      variant, tp::peers, tp::counts, tp::early_counts, tp::lookback_window, tp::items4, tp::min_blocks,
      tp::histogram_blocks_per_sm, tp::histogram_vectors, tp::whole_keys, tp::whole_pairs, tp::padded_keys,
      tp::padded_pairs, tp::items8, tp::items8_pairs, tp::mid_items4, tp::mid_items8, tp::mid_max_log2,
      tp::pdl, tp::threads_onesweep, tp::threads_keys4, tp::bucket_max_log2, tp::cluster_local);
  // temp storage for the largest call of each size (carry's pairs and three-kernel keys, CUB's keys)
  auto temp_for = [](std::size_t n, device_buffer<std::uint32_t>& kin, device_buffer<std::uint32_t>& kout,
                     device_buffer<std::uint32_t>& kref) {
    const auto nn = static_cast<std::int64_t>(n);
    std::size_t need = 0, b = 0;
    sort_pairs_p<P>(nullptr, need, kin.ptr, kout.ptr, kin.ptr, kout.ptr, nn);
    sort_keys_p<P>(nullptr, b, kin.ptr, kout.ptr, nn, carry::radix_sort_options{A::three_kernel, true});
    need = std::max(need, b);
    cub_radix_keys(nullptr, b, kin.ptr, kref.ptr, nn, 0, 32, false, true, 0);
    return device_buffer<unsigned char>(std::max(need, b));
  };
  std::vector<int> sizes{14, 16, 18, 19, 20, 22, 24, 26};
  if (const char* e = std::getenv("CARRY_TUNE_SIZES")) { // e.g. "18 24 26": log2 of the sizes to run
    sizes.clear();
    for (const char* c = e; *c;) {
      char* end = nullptr;
      const long v = std::strtol(c, &end, 10);
      if (end == c) break;
      sizes.push_back(static_cast<int>(v));
      c = end;
    }
  }
  // CARRY_TUNE_ONLY=u64: the u64 keys rows alone (a round of 8-byte key variants in a fraction of the time)
  const bool only_u64 =
      std::getenv("CARRY_TUNE_ONLY") != nullptr && std::string(std::getenv("CARRY_TUNE_ONLY")) == "u64";
  for (int l : sizes) {
    const std::size_t n = std::size_t{1} << l;
    const auto nn = static_cast<std::int64_t>(n);
    // u64 keys (8-byte tiles: items8, whole_key_bytes, mid_items8)
    const auto u64_keys = [&] {
      device_buffer<std::uint64_t> k8in(n), k8out(n), k8ref(n);
      k8in.upload(make_keys<std::uint64_t>(n, key_dist::uniform, l));
      std::size_t need = 0, b = 0;
      sort_keys_p<P>(nullptr, need, k8in.ptr, k8out.ptr, nn);
      cub_radix_keys(nullptr, b, k8in.ptr, k8ref.ptr, nn, 0, 64, false, true, 0);
      device_buffer<unsigned char> temp8(std::max(need, b));
      const keys_run k8 = keys_against_cub<P>(cold, k8in, k8out, k8ref, temp8, n);
      std::printf("%s 2^%d %s u64 keys %.1f us (%.3fx cub %.1f)\n", variant, l, k8.ok ? "ok" : "MISMATCH",
                  k8.carry_us, k8.cub_us / k8.carry_us, k8.cub_us);
    };
    if (only_u64) {
      u64_keys();
      continue;
    }
    const auto keys = make_keys<std::uint32_t>(n, key_dist::uniform, l);
    device_buffer<std::uint32_t> kin(n), kout(n), vin(n), vout(n), kref(n);
    kin.upload(keys);
    vin.upload(keys);
    auto temp = temp_for(n, kin, kout, kref);
    const keys_run k = keys_against_cub<P>(cold, kin, kout, kref, temp, n);
    const auto want = kref.download(n);
    bool ok = k.ok;
    auto t = [&](auto&& f) { return median_event_us_after(cold, f, 15, true); };
    const carry::radix_sort_options three{A::three_kernel, true};
    const double keys_three = t([&] {
      std::size_t x = temp.n;
      sort_keys_p<P>(temp.ptr, x, kin.ptr, kout.ptr, nn, three);
    });
    ok = ok && kout.download(n) == want;
    const double pairs = t([&] {
      std::size_t x = temp.n;
      sort_pairs_p<P>(temp.ptr, x, kin.ptr, kout.ptr, vin.ptr, vout.ptr, nn);
    });
    ok = ok && kout.download(n) == want && vout.download(n) == want; // values = keys: they sort alike
    std::printf("%s 2^%d %s keys %.1f us (%.3fx cub %.1f), three %.1f, pairs %.1f\n", variant, l,
                ok ? "ok" : "MISMATCH", k.carry_us, k.cub_us / k.carry_us, k.cub_us, keys_three, pairs);
    if (l >= 16) u64_keys();
    if (l >= 24) { // u32/u32 pairs (items4_pairs), then pairs whose wider type is 8 bytes
      // (items8_pairs): u64/u64, u32/u64, u64/u32
      pairs_against_cub<P, std::uint32_t, std::uint32_t>(variant, cold, n, l);
      pairs_against_cub<P, std::uint64_t, std::uint64_t>(variant, cold, n, l);
      pairs_against_cub<P, std::uint32_t, std::uint64_t>(variant, cold, n, l);
      pairs_against_cub<P, std::uint64_t, std::uint32_t>(variant, cold, n, l); // 8-byte keys, 4-byte values
    }
  }
  // ---- the adaptive inputs at 2^26 (sorted, all equal, two values): check, then carry against CUB
  // (CARRY_TUNE_NO_ADAPTIVE=1: not run) ----
  if (!only_u64 && std::getenv("CARRY_TUNE_NO_ADAPTIVE") == nullptr) {
    const std::size_t n = std::size_t{1} << 26;
    device_buffer<std::uint32_t> kin(n), kout(n), kref(n);
    auto temp = temp_for(n, kin, kout, kref);
    for (key_dist d : {key_dist::sorted, key_dist::all_equal, key_dist::two_values}) {
      kin.upload(make_keys<std::uint32_t>(n, d, 26));
      const keys_run k = keys_against_cub<P>(cold, kin, kout, kref, temp, n);
      std::printf("%s 2^26 %s %s keys %.1f us (%.3fx cub %.1f)\n", variant, dist_name(d),
                  k.ok ? "ok" : "MISMATCH", k.carry_us, k.cub_us / k.carry_us, k.cub_us);
    }
  }
}
} // namespace

int main() {
  if (!gpu_present()) return skip_return_code;
  device_buffer<unsigned char> flush(std::size_t{192} << 20);
  auto cold = [&](int r) { CARRY_CUDA_OR_DIE(cudaMemsetAsync(flush.ptr, r & 0xff, flush.n)); };
  const char* only = std::getenv("CARRY_TUNE_VARIANTS"); // e.g. "shipped items20"
  const auto wanted = [&](const char* v) {
    return only == nullptr ||
           std::string(" ").append(only).append(" ").find(std::string(" ") + v + " ") != std::string::npos;
  };
  if (wanted("shipped")) sweep<rt::default_policy>("shipped", cold);
  if (wanted("items20")) sweep<items20>("items20", cold);
  if (wanted("window1")) sweep<window1>("window1", cold);
  if (wanted("hist_v2")) sweep<hist_v2>("hist_v2", cold);
  return 0;
}
