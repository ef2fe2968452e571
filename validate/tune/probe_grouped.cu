// Grouped-input probe: u32/u32 pairs whose keys arrive grouped by their low byte (as bin_by_key leaves
// them; the demo's sort step), sorted over all 32 bits by carry and by CUB (int and 64-bit num_items)
// into the same output sets, beside the same keys in random order; one call of each checked against the
// other first. Median event times.   usage: carry_probe_grouped log2n... [reps=15] [once]
// (`once`: one call of each implementation and input, no timing loop: for per-kernel durations under ncu)
#include <carry/radixsort/device_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/timing.cuh"

int main(int argc, char** argv) {
  int reps = 15;
  bool once = false;
  std::vector<int> sizes;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s.rfind("reps=", 0) == 0)
      reps = std::atoi(argv[a] + 5);
    else if (s == "once")
      once = true;
    else
      sizes.push_back(std::atoi(argv[a]));
  }
  for (const int lg : sizes) {
    const std::int64_t n = std::int64_t{1} << lg;
    std::vector<unsigned> random(n), grouped(n), vals(n);
    std::mt19937 rng(lg);
    for (auto& x : random) x = rng();
    std::vector<std::int64_t> start(257, 0); // stable counting sort by the low byte
    for (unsigned x : random) ++start[(x & 255u) + 1];
    for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
    for (unsigned x : random) grouped[start[x & 255u]++] = x;
    for (std::int64_t i = 0; i < n; ++i) vals[i] = static_cast<unsigned>(i);
    unsigned *ki, *vi, *ko[2], *vo[2];
    cudaMalloc(&ki, n * 4), cudaMalloc(&vi, n * 4);
    for (int s = 0; s < 2; ++s) cudaMalloc(&ko[s], n * 4), cudaMalloc(&vo[s], n * 4);
    cudaMemcpy(vi, vals.data(), n * 4, cudaMemcpyHostToDevice);
    std::size_t cb = 0, c32 = 0, c64 = 0;
    carry::sort_pairs(nullptr, cb, static_cast<const unsigned*>(ki), ko[0], static_cast<const unsigned*>(vi),
                      vo[0], n, 0, 32);
    cub::DeviceRadixSort::SortPairs(nullptr, c32, ki, ko[0], vi, vo[0], static_cast<int>(n), 0, 32);
    cub::DeviceRadixSort::SortPairs(nullptr, c64, ki, ko[0], vi, vo[0], n, 0, 32);
    const std::size_t bytes = std::max({cb, c32, c64});
    void* temp;
    cudaMalloc(&temp, bytes);
    for (const bool g : {true, false}) {
      cudaMemcpy(ki, (g ? grouped : random).data(), n * 4, cudaMemcpyHostToDevice);
      const auto run_carry = [&](int s) {
        std::size_t t = bytes;
        carry::sort_pairs(temp, t, static_cast<const unsigned*>(ki), ko[s], static_cast<const unsigned*>(vi),
                          vo[s], n, 0, 32);
      };
      const auto run_cub = [&](int s, bool wide) {
        std::size_t t = bytes;
        if (wide)
          cub::DeviceRadixSort::SortPairs(temp, t, static_cast<const unsigned*>(ki), ko[s],
                                          static_cast<const unsigned*>(vi), vo[s], n, 0, 32);
        else
          cub::DeviceRadixSort::SortPairs(temp, t, static_cast<const unsigned*>(ki), ko[s],
                                          static_cast<const unsigned*>(vi), vo[s], static_cast<int>(n), 0,
                                          32);
      };
      run_carry(0), run_cub(1, true);
      std::vector<unsigned> a0(n), a1(n), b0(n), b1(n);
      cudaMemcpy(a0.data(), ko[0], n * 4, cudaMemcpyDeviceToHost),
          cudaMemcpy(a1.data(), ko[1], n * 4, cudaMemcpyDeviceToHost);
      cudaMemcpy(b0.data(), vo[0], n * 4, cudaMemcpyDeviceToHost),
          cudaMemcpy(b1.data(), vo[1], n * 4, cudaMemcpyDeviceToHost);
      const bool same = a0 == a1 && b0 == b1;
      if (once) {
        run_carry(0), run_cub(1, false), run_cub(1, true);
        cudaDeviceSynchronize();
        std::printf("2^%d %s: once, %s, %s\n", lg, g ? "grouped" : "random",
                    same ? "equal to CUB" : "DIFFERS FROM CUB", cudaGetErrorString(cudaGetLastError()));
        continue;
      }
      int set = 0;
      const auto before = [&](int) { set ^= 1; };
      const double tc = carry_validate::median_event_us_after(
          before, [&] { run_carry(set); }, reps);
      const double t32 = carry_validate::median_event_us_after(
          before, [&] { run_cub(set, false); }, reps);
      const double t64 = carry_validate::median_event_us_after(
          before, [&] { run_cub(set, true); }, reps);
      std::printf("2^%d %s: carry %.1f us, cub-i32 %.1f, cub-i64 %.1f, ratio to best %.3f, %s, %s\n", lg,
                  g ? "grouped" : "random", tc, t32, t64, std::min(t32, t64) / tc,
                  same ? "equal to CUB" : "DIFFERS FROM CUB", cudaGetErrorString(cudaGetLastError()));
    }
    cudaFree(temp), cudaFree(ki), cudaFree(vi);
    for (int s = 0; s < 2; ++s) cudaFree(ko[s]), cudaFree(vo[s]);
  }
  return 0;
}
