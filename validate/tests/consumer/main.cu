// The README's usage snippet, compiled by the consumer check: an inclusive sum with carry.
#include <carry/scan/device_scan.cuh>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<int> h_in{3, 1, 7, 0, 4, 1, 6, 3};
  const std::int64_t n = static_cast<std::int64_t>(h_in.size());
  int *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&d_out, n * sizeof(int)) != cudaSuccess) {
    std::printf("no GPU to run on\n");
    return 0;
  }
  cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  std::size_t temp_bytes = 0;
  carry::inclusive_sum(nullptr, temp_bytes, d_in, d_out, n); // size query
  void* d_temp = nullptr;
  cudaMalloc(&d_temp, temp_bytes);
  cudaError_t e = carry::inclusive_sum(d_temp, temp_bytes, d_in, d_out, n); // [3 4 11 11 15 16 22 25]
  std::vector<int> h_out(n);
  cudaMemcpy(h_out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("%s:", cudaGetErrorString(e));
  for (int v : h_out) std::printf(" %d", v);
  std::printf("\n");
  cudaFree(d_temp);
  cudaFree(d_in);
  cudaFree(d_out);
  return e == cudaSuccess ? 0 : 1;
}
