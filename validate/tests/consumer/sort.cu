// The README's radix-sort snippet, compiled by the consumer check: sort_pairs, then sort_keys descending
// in the double-buffer form.
#include <carry/radixsort/device_radix_sort.cuh>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<unsigned> h_keys{3, 1, 7, 0, 4, 1, 6, 3}, h_values{0, 1, 2, 3, 4, 5, 6, 7};
  const std::int64_t n = 8;
  unsigned *d_keys_in, *d_keys_out, *d_values_in, *d_values_out;
  if (cudaMalloc(&d_keys_in, n * 4) != cudaSuccess || cudaMalloc(&d_keys_out, n * 4) != cudaSuccess ||
      cudaMalloc(&d_values_in, n * 4) != cudaSuccess || cudaMalloc(&d_values_out, n * 4) != cudaSuccess) {
    std::printf("no GPU to run on\n");
    return 0;
  }
  cudaMemcpy(d_keys_in, h_keys.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(d_values_in, h_values.data(), n * 4, cudaMemcpyHostToDevice);
  // 1. pairs, ascending, stable: keys [0 1 1 3 3 4 6 7], values [3 1 5 0 7 4 6 2]
  std::size_t bytes = 0;
  carry::sort_pairs(nullptr, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n); // size query
  void* d_temp = nullptr;
  cudaMalloc(&d_temp, bytes);
  carry::sort_pairs(d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n);
  // 2. keys, descending, double buffer (no n-sized scratch): current() [7 6 4 3 3 1 1 0]
  carry::double_buffer<unsigned> keys(d_keys_in, d_keys_out);
  std::size_t db_bytes = 0;
  carry::sort_keys_descending(nullptr, db_bytes, keys, n);
  void* d_db_temp = nullptr;
  cudaMalloc(&d_db_temp, db_bytes);
  carry::sort_keys_descending(d_db_temp, db_bytes, keys, n);
  std::vector<unsigned> h_sorted(8);
  cudaMemcpy(h_sorted.data(), keys.current(), n * 4, cudaMemcpyDeviceToHost);
  for (unsigned k : h_sorted) std::printf("%u ", k);
  std::printf("\n");
  for (void* p : {static_cast<void*>(d_keys_in), static_cast<void*>(d_keys_out),
                  static_cast<void*>(d_values_in), static_cast<void*>(d_values_out), d_temp, d_db_temp})
    cudaFree(p);
  return 0;
}
