// Output-buffer probe: carry's and CUB's u32 keys sort into each of several separately allocated output
// buffers (same input, same temp allocation), median event time of each, to see how much of a sort's time
// depends on where its output lies.   usage: carry_probe_outputs n buffers reps gap_ms (an idle gap before each call)
#include <carry/radixsort/device_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "bench/timing.cuh"

int gap_ms = 0;
/// Median of `reps` event-timed calls (the shared timer: 3 warm-ups; an idle gap of gap_ms before each).
template <class F>
double median_us(F&& f, int reps) {
  return carry_validate::median_event_us_after(
      [](int) {
        if (gap_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
      },
      f, reps);
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : (1L << 28);
  const int nbuf = argc > 2 ? std::atoi(argv[2]) : 6;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  gap_ms = argc > 4 ? std::atoi(argv[4]) : 0;
  std::vector<unsigned> h(n);
  std::mt19937 rng(7);
  for (auto& x : h) x = rng();
  unsigned* in;
  cudaMalloc(&in, n * 4);
  cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
  std::vector<unsigned*> outs(nbuf);
  for (auto& o : outs) cudaMalloc(&o, n * 4);
  std::size_t cb = 0, kb = 0;
  carry::sort_keys(nullptr, cb, in, outs[0], n, 0, 32);
  cub::DeviceRadixSort::SortKeys(nullptr, kb, in, outs[0], static_cast<std::int64_t>(n), 0, 32);
  const std::size_t bytes = std::max(cb, kb);
  void* temp;
  cudaMalloc(&temp, bytes);
  for (int i = 0; i < nbuf; ++i) {
    std::size_t b = bytes;
    const double c = median_us(
        [&] { carry::sort_keys(temp, b, static_cast<const unsigned*>(in), outs[i], n, 0, 32); }, reps);
    const double k = median_us(
        [&] {
          cub::DeviceRadixSort::SortKeys(temp, b, static_cast<const unsigned*>(in), outs[i],
                                         static_cast<std::int64_t>(n), 0, 32);
        },
        reps);
    std::printf("gap %d ms out %d (%p): carry %.1f us, cub %.1f us, ratio %.3f\n", gap_ms, i,
                static_cast<void*>(outs[i]), c, k, k / c);
  }
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
