// Buffer-placement probe of the onesweep passes: one u32 keys sort with chosen buffer offsets and forms.
// usage: carry_probe_passes n end_bit out_off temp_off db reps   (offsets in bytes; db 1: double-buffer form)
// Run under ncu (gpu__time_duration) for per-pass times; prints the median of `reps` event-timed calls.
#include <carry/radixsort/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "bench/timing.cuh"

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : (1L << 28);
  const int end_bit = argc > 2 ? std::atoi(argv[2]) : 32;
  const long out_off = argc > 3 ? std::atol(argv[3]) : 0;
  const long temp_off = argc > 4 ? std::atol(argv[4]) : 0;
  const bool db = argc > 5 && std::atoi(argv[5]) != 0;
  const int reps = argc > 6 ? std::atoi(argv[6]) : 10;
  std::vector<unsigned> h(n);
  std::mt19937 rng(7);
  for (auto& x : h) x = rng();
  unsigned *in, *out_base;
  cudaMalloc(&in, n * 4), cudaMalloc(&out_base, n * 4 + out_off);
  unsigned* out = reinterpret_cast<unsigned*>(reinterpret_cast<char*>(out_base) + out_off);
  std::size_t bytes = 0;
  carry::sort_keys(nullptr, bytes, in, out, n, 0, end_bit);
  char* temp_base;
  cudaMalloc(&temp_base, bytes + temp_off);
  void* temp = temp_base + temp_off;
  // the shared timer; the input is uploaded again before each timed call (the double-buffer form sorts it in place)
  const double median = carry_validate::median_event_us_after(
      [&](int) { cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice); },
      [&] {
        if (db) {
          carry::double_buffer<unsigned> d(in, out);
          carry::sort_keys(temp, bytes, d, n, 0, end_bit);
        } else {
          carry::sort_keys(temp, bytes, static_cast<const unsigned*>(in), out, n, 0, end_bit);
        }
      },
      reps);
  std::printf("probe n %ld bits %d out_off %ld temp_off %ld db %d: median %.1f us (%s)\n", n, end_bit,
              out_off, temp_off, db, median, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
