// The README's apps snippet, compiled by the consumer check: histogram offsets, bin_by_key, slots.
#include <carry/apps/histogram.cuh>
#include <carry/apps/slots.cuh>

#include <cstdio>
#include <vector>

struct half_bin {
  __host__ __device__ unsigned operator()(unsigned k) const { return k / 2; }
};

int main() {
  const std::vector<unsigned> h_in{3, 1, 7, 0, 4, 1, 6, 3};
  const std::int64_t n = 8;
  unsigned *d_in = nullptr, *d_keys = nullptr, *d_offsets = nullptr;
  unsigned long long *d_slots = nullptr, *d_total = nullptr;
  if (cudaMalloc(&d_in, n * 4) != cudaSuccess || cudaMalloc(&d_keys, n * 4) != cudaSuccess ||
      cudaMalloc(&d_offsets, 5 * 4) != cudaSuccess || cudaMalloc(&d_slots, n * 8) != cudaSuccess ||
      cudaMalloc(&d_total, 8) != cudaSuccess) {
    std::printf("no GPU to run on\n");
    return 0;
  }
  cudaMemcpy(d_in, h_in.data(), n * 4, cudaMemcpyHostToDevice);
  // 1. histogram offsets: 4 bins over [0, 8) -> [0 3 5 6 8]
  std::size_t a = 0, b = 0, c = 0;
  carry::histogram_offsets(nullptr, a, d_in, d_offsets, 4, 0u, 8u, n);
  // 2. counting sort by bin k / 2 -> keys [1 0 1 3 3 4 7 6], offsets [0 3 5 6 8]
  carry::bin_by_key(nullptr, b, d_in, d_keys, d_offsets, 4, half_bin{}, n);
  // 3. slots: item i asks for d_in[i] slots -> offsets [0 3 4 11 11 15 16 22] (u64), total 25
  carry::allocate_slots(nullptr, c, d_in, d_slots, d_total, n);
  const std::size_t bytes = a > b ? (a > c ? a : c) : (b > c ? b : c);
  void* d_temp = nullptr;
  cudaMalloc(&d_temp, bytes);
  std::size_t t = bytes;
  cudaError_t e = carry::histogram_offsets(d_temp, t, d_in, d_offsets, 4, 0u, 8u, n);
  if (e == cudaSuccess) e = carry::bin_by_key(d_temp, t, d_in, d_keys, d_offsets, 4, half_bin{}, n);
  if (e == cudaSuccess) e = carry::allocate_slots(d_temp, t, d_in, d_slots, d_total, n);
  std::vector<unsigned> keys(8), offsets(5);
  unsigned long long total = 0;
  cudaMemcpy(keys.data(), d_keys, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(offsets.data(), d_offsets, 5 * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&total, d_total, 8, cudaMemcpyDeviceToHost);
  std::printf("%s: keys", cudaGetErrorString(e));
  for (unsigned k : keys) std::printf(" %u", k);
  std::printf(", offsets");
  for (unsigned o : offsets) std::printf(" %u", o);
  std::printf(", %llu slots\n", total);
  for (void* p : {static_cast<void*>(d_in), static_cast<void*>(d_keys), static_cast<void*>(d_offsets),
                  static_cast<void*>(d_slots), static_cast<void*>(d_total), d_temp})
    cudaFree(p);
  return e == cudaSuccess ? 0 : 1;
}
