// bin_by_key probe: carry's bin_by_key (u32 keys, u32 values, 256 bins by the low byte) against CUB's
// SortPairs over bits [0, 8) (int and 64-bit num_items), the same input into the same output sets,
// median event times; one call of each checked against the other first (both stable: equal bit for bit);
// then histogram_even with 256 bins of the same keys (the shipped apps_tuning).
// usage: carry_probe_bin log2n... [reps=15]
#include <carry/apps/histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/timing.cuh"

namespace {
struct low8 {
  __host__ __device__ unsigned operator()(std::uint32_t k) const { return k & 255u; }
};
} // namespace

int main(int argc, char** argv) {
  int reps = 15;
  std::vector<int> sizes;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]).rfind("reps=", 0) == 0)
      reps = std::atoi(argv[a] + 5);
    else
      sizes.push_back(std::atoi(argv[a]));
  }
  for (const int lg : sizes) {
    const std::int64_t n = std::int64_t{1} << lg;
    std::vector<unsigned> h(n);
    std::mt19937 rng(lg);
    for (auto& x : h) x = rng();
    unsigned *ki, *vi;
    cudaMalloc(&ki, n * 4), cudaMalloc(&vi, n * 4);
    cudaMemcpy(ki, h.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(vi, h.data(), n * 4, cudaMemcpyHostToDevice);
    constexpr int sets = 2;
    unsigned *ko[sets], *vo[sets];
    for (int s = 0; s < sets; ++s) cudaMalloc(&ko[s], n * 4), cudaMalloc(&vo[s], n * 4);
    std::size_t cb = 0, c32 = 0, c64 = 0;
    carry::bin_by_key(nullptr, cb, ki, ko[0], vi, vo[0], static_cast<std::uint64_t*>(nullptr), 256, low8{},
                      n);
    cub::DeviceRadixSort::SortPairs(nullptr, c32, ki, ko[0], vi, vo[0], static_cast<int>(n), 0, 8);
    cub::DeviceRadixSort::SortPairs(nullptr, c64, ki, ko[0], vi, vo[0], n, 0, 8);
    const std::size_t bytes = std::max({cb, c32, c64});
    void* temp;
    cudaMalloc(&temp, bytes);
    // ---- check: carry into set 0, CUB into set 1, equal ----
    std::size_t b = bytes;
    carry::bin_by_key(temp, b, static_cast<const unsigned*>(ki), ko[0], static_cast<const unsigned*>(vi),
                      vo[0], static_cast<std::uint64_t*>(nullptr), 256, low8{}, n);
    b = bytes;
    cub::DeviceRadixSort::SortPairs(temp, b, static_cast<const unsigned*>(ki), ko[1],
                                    static_cast<const unsigned*>(vi), vo[1], n, 0, 8);
    std::vector<unsigned> a0(n), a1(n), b0(n), b1(n);
    cudaMemcpy(a0.data(), ko[0], n * 4, cudaMemcpyDeviceToHost),
        cudaMemcpy(a1.data(), ko[1], n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(b0.data(), vo[0], n * 4, cudaMemcpyDeviceToHost),
        cudaMemcpy(b1.data(), vo[1], n * 4, cudaMemcpyDeviceToHost);
    const bool same = a0 == a1 && b0 == b1;
    // ---- timing: every implementation into the same rotating output sets ----
    int set = 0;
    const auto before = [&](int) { set = (set + 1) % sets; };
    const double tc = carry_validate::median_event_us_after(
        before,
        [&] {
          std::size_t t = bytes;
          carry::bin_by_key(temp, t, static_cast<const unsigned*>(ki), ko[set],
                            static_cast<const unsigned*>(vi), vo[set], static_cast<std::uint64_t*>(nullptr),
                            256, low8{}, n);
        },
        reps);
    const double t32 = carry_validate::median_event_us_after(
        before,
        [&] {
          std::size_t t = bytes;
          cub::DeviceRadixSort::SortPairs(temp, t, static_cast<const unsigned*>(ki), ko[set],
                                          static_cast<const unsigned*>(vi), vo[set], static_cast<int>(n), 0,
                                          8);
        },
        reps);
    const double t64 = carry_validate::median_event_us_after(
        before,
        [&] {
          std::size_t t = bytes;
          cub::DeviceRadixSort::SortPairs(temp, t, static_cast<const unsigned*>(ki), ko[set],
                                          static_cast<const unsigned*>(vi), vo[set], n, 0, 8);
        },
        reps);
    // ---- histogram_even, 256 bins over [0, 2^32 - 1), of the same keys (the pass's histogram is its kernel) ----
    unsigned* hist;
    cudaMalloc(&hist, 256 * 4);
    std::size_t hb = 0;
    carry::histogram_even(nullptr, hb, static_cast<const unsigned*>(ki), hist, 256, 0u, 0xFFFFFFFFu, n);
    void* htemp;
    cudaMalloc(&htemp, hb);
    const double th = carry_validate::median_event_us(
        [&] {
          carry::histogram_even(htemp, hb, static_cast<const unsigned*>(ki), hist, 256, 0u, 0xFFFFFFFFu, n);
        },
        reps);
    std::vector<unsigned> hh(256);
    cudaMemcpy(hh.data(), hist, 256 * 4, cudaMemcpyDeviceToHost);
    std::int64_t total = 0;
    for (unsigned c : hh) total += c;
    cudaFree(hist), cudaFree(htemp);
    std::printf(
        "2^%d bin_by_key %.1f us, cub-i32 %.1f, cub-i64 %.1f, ratio to best %.3f, %s; histogram_even 256 %.1f us "
        "(%s); %s\n",
        lg, tc, t32, t64, std::min(t32, t64) / tc, same ? "equal to CUB" : "DIFFERS FROM CUB", th,
        total == n ? "counts all" : "COUNT WRONG", cudaGetErrorString(cudaGetLastError()));
    cudaFree(temp), cudaFree(ki), cudaFree(vi);
    for (int s = 0; s < sets; ++s) cudaFree(ko[s]), cudaFree(vo[s]);
  }
  return 0;
}
