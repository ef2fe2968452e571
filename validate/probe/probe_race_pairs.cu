// Sanitizer target for the large u32/u32 pairs onesweep tile (384 x 24): sorts n pairs through the
// onesweep path (temp storage 0xFF first) and checks keys and values against std::stable_sort.
// usage: carry_probe_race_pairs n...   (build with -DCARRY_RADIX_MID_MAX_LOG2=14 so that n > 2^14 takes
// the large tile; run under compute-sanitizer --tool racecheck / memcheck)
#include <carry/radixsort/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  int failures = 0;
  for (int a = 1; a < argc; ++a) {
    const long n = std::atol(argv[a]);
    std::vector<unsigned> k(n), v(n);
    std::mt19937 rng(static_cast<unsigned>(n));
    for (long i = 0; i < n; ++i) k[i] = rng() & (i % 3 == 0 ? 0xFFu : 0xFFFFFFFFu), v[i] = static_cast<unsigned>(i);
    std::vector<long> order(n);
    std::iota(order.begin(), order.end(), 0L);
    std::stable_sort(order.begin(), order.end(), [&](long x, long y) { return k[x] < k[y]; });
    unsigned *ki, *ko, *vi, *vo;
    cudaMalloc(&ki, n * 4), cudaMalloc(&ko, n * 4), cudaMalloc(&vi, n * 4), cudaMalloc(&vo, n * 4);
    cudaMemcpy(ki, k.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(vi, v.data(), n * 4, cudaMemcpyHostToDevice);
    carry::radix_sort_options opt;
    opt.algorithm = carry::radix_sort_algorithm::onesweep;
    std::size_t bytes = 0;
    carry::sort_pairs(nullptr, bytes, static_cast<const unsigned*>(ki), ko, static_cast<const unsigned*>(vi), vo, n, 0, 32, opt);
    void* temp;
    cudaMalloc(&temp, bytes);
    cudaMemset(temp, 0xFF, bytes);
    const cudaError_t e =
        carry::sort_pairs(temp, bytes, static_cast<const unsigned*>(ki), ko, static_cast<const unsigned*>(vi), vo, n, 0, 32, opt);
    cudaDeviceSynchronize();
    std::vector<unsigned> gk(n), gv(n);
    cudaMemcpy(gk.data(), ko, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(gv.data(), vo, n * 4, cudaMemcpyDeviceToHost);
    long bad = 0;
    for (long i = 0; i < n; ++i) bad += gk[i] != k[order[i]] || gv[i] != v[order[i]];
    std::printf("n %ld: %s, %ld of %ld pairs differ from std::stable_sort\n", n, cudaGetErrorString(e), bad, n);
    failures += bad != 0 || e != cudaSuccess;
    cudaFree(ki), cudaFree(ko), cudaFree(vi), cudaFree(vo), cudaFree(temp);
  }
  return failures;
}
