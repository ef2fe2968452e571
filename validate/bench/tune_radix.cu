// Tuning sweep of the radix sort: one build per multisplit peer method (CARRY_RADIX_PEERS = 0 match_any,
// 1 ballot, 2 atomic_or), each timing carry's sort_keys u32 (onesweep, three kernels), sort_pairs
// u32/u32 and the small-input cluster path, cold L2, medians, CUB in the same run.
#include <cstdio>
#include <vector>

#include <carry/radixsort/device_radix_sort.cuh>

#include "baselines/baselines_radix.hpp"
#include "common/apps_reference.hpp"
#include "common/gpu.cuh"
#include "common/radix_reference.hpp"
#include "common/timing.cuh"

using namespace carry_validate;
using A = carry::radix_sort_algorithm;

int main() {
  if (!gpu_present()) return skip_return_code;
  device_buffer<unsigned char> flush(std::size_t{192} << 20);
  auto cold = [&](int r) { CARRY_CUDA_OR_DIE(cudaMemsetAsync(flush.ptr, r & 0xff, flush.n)); };
  std::printf("peers %d\n", CARRY_RADIX_PEERS);
  for (int l : {14, 16, 20, 24, 26}) {
    const std::size_t n = std::size_t{1} << l;
    const auto keys = make_keys<std::uint32_t>(n, key_dist::uniform, l);
    device_buffer<std::uint32_t> kin(n), kout(n), vin(n), vout(n), kref(n);
    kin.upload(keys);
    vin.upload(keys);
    std::size_t need = 0, b = 0;
    carry::sort_pairs(nullptr, need, kin.ptr, kout.ptr, vin.ptr, vout.ptr, static_cast<std::int64_t>(n));
    carry::radix_sort_options three{A::three_kernel, true};
    carry::sort_keys(nullptr, b, kin.ptr, kout.ptr, static_cast<std::int64_t>(n), 0, 32, three);
    need = std::max(need, b);
    cub_radix_keys(nullptr, b, kin.ptr, kref.ptr, static_cast<std::int64_t>(n), 0, 32, false, true, 0);
    need = std::max(need, b);
    device_buffer<unsigned char> temp(need);
    // ---- check once ----
    b = need;
    CARRY_CUDA_OR_DIE(cub_radix_keys(temp.ptr, b, kin.ptr, kref.ptr, static_cast<std::int64_t>(n), 0, 32, false, true, 0));
    b = need;
    CARRY_CUDA_OR_DIE(carry::sort_keys(temp.ptr, b, kin.ptr, kout.ptr, static_cast<std::int64_t>(n)));
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
    const bool ok = kout.download(n) == kref.download(n);
    auto t = [&](auto&& f) { return median_event_us_after(cold, f, 15, true); };
    const double keys_auto = t([&] { std::size_t x = need; carry::sort_keys(temp.ptr, x, kin.ptr, kout.ptr, static_cast<std::int64_t>(n)); });
    const double keys_three = t([&] { std::size_t x = need; carry::sort_keys(temp.ptr, x, kin.ptr, kout.ptr, static_cast<std::int64_t>(n), 0, 32, three); });
    const double pairs = t([&] { std::size_t x = need; carry::sort_pairs(temp.ptr, x, kin.ptr, kout.ptr, vin.ptr, vout.ptr, static_cast<std::int64_t>(n)); });
    const double cub = t([&] { std::size_t x = need; cub_radix_keys(temp.ptr, x, kin.ptr, kref.ptr, static_cast<std::int64_t>(n), 0, 32, false, true, 0); });
    std::printf("peers %d 2^%d %s keys %.1f us (%.3fx cub %.1f), three %.1f, pairs %.1f\n", CARRY_RADIX_PEERS, l,
                ok ? "ok" : "MISMATCH", keys_auto, cub / keys_auto, cub, keys_three, pairs);
  }
  return 0;
}
