// Sanitizer target for the large onesweep tiles: sorts n u32/u32 pairs (384 x 24) or, after the
// argument `keys`, n u32 keys (the wide tile, 384 x 24) through the onesweep path (temp storage 0xFF
// first) and checks them against std::stable_sort.
// usage: carry_probe_race [keys] [auto [low]] n...   (sizes above 2^18 take the large tiles, from 2^25
// keys the wide one; run under compute-sanitizer).
// `auto`: the automatic path with uniform keys instead (up to 2^16 u32 keys the cluster path, its local
// form; 32769-65536 keys its wide blocks): one carry call for racecheck, no CUB. `low` (with `auto`):
// low-entropy keys (the AND of three random words), whose skewed top digit sends the cluster path to its
// LSD passes instead of the local form.
#include <carry/radixsort/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  int failures = 0;
  bool keys_only = false, automatic = false, low = false;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "keys") {
      keys_only = true;
      continue;
    }
    if (std::string(argv[a]) == "auto") {
      automatic = true;
      continue;
    }
    if (std::string(argv[a]) == "low") {
      low = true;
      continue;
    }
    const long n = std::atol(argv[a]);
    std::vector<unsigned> k(n), v(n);
    std::mt19937 rng(static_cast<unsigned>(n));
    for (long i = 0; i < n; ++i)
      k[i] = rng() & (i % 3 == 0 && !automatic ? 0xFFu : 0xFFFFFFFFu), v[i] = static_cast<unsigned>(i);
    if (low)
      for (auto& x : k) x &= rng() & rng();
    std::vector<long> order(n);
    std::iota(order.begin(), order.end(), 0L);
    std::stable_sort(order.begin(), order.end(), [&](long x, long y) { return k[x] < k[y]; });
    unsigned *ki, *ko, *vi, *vo;
    cudaMalloc(&ki, n * 4), cudaMalloc(&ko, n * 4), cudaMalloc(&vi, n * 4), cudaMalloc(&vo, n * 4);
    cudaMemcpy(ki, k.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(vi, v.data(), n * 4, cudaMemcpyHostToDevice);
    carry::radix_sort_options opt;
    opt.algorithm =
        automatic ? carry::radix_sort_algorithm::automatic : carry::radix_sort_algorithm::onesweep;
    std::size_t bytes = 0;
    auto sort = [&](void* t) {
      return keys_only ? carry::sort_keys(t, bytes, static_cast<const unsigned*>(ki), ko, n, 0, 32, opt)
                       : carry::sort_pairs(t, bytes, static_cast<const unsigned*>(ki), ko,
                                           static_cast<const unsigned*>(vi), vo, n, 0, 32, opt);
    };
    sort(nullptr);
    void* temp;
    cudaMalloc(&temp, bytes);
    cudaMemset(temp, 0xFF, bytes);
    const cudaError_t e = sort(temp);
    cudaDeviceSynchronize();
    std::vector<unsigned> gk(n), gv(n);
    cudaMemcpy(gk.data(), ko, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(gv.data(), vo, n * 4, cudaMemcpyDeviceToHost);
    long bad = 0;
    for (long i = 0; i < n; ++i) bad += gk[i] != k[order[i]] || (!keys_only && gv[i] != v[order[i]]);
    std::printf("n %ld %s: %s, %ld of %ld differ from std::stable_sort\n", n, keys_only ? "keys" : "pairs",
                cudaGetErrorString(e), bad, n);
    failures += bad != 0 || e != cudaSuccess;
    cudaFree(ki), cudaFree(ko), cudaFree(vi), cudaFree(vo), cudaFree(temp);
  }
  return failures;
}
