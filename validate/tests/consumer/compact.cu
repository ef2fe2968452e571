// The README's compaction snippet, compiled by the consumer check: select_if and a stable partition; and
// CUB-shaped calls with the stream as a literal 0, nullptr or a cudaStream_t (compiled, not run).
#include <carry/compact/device_partition.cuh>
#include <carry/compact/device_runs.cuh>
#include <carry/compact/device_select.cuh>
#include <carry/scan/device_scan_by_key.cuh>

#include <cstdio>
#include <vector>

struct greater_than_2 {
  __host__ __device__ bool operator()(int x) const { return x > 2; }
};

int main() {
  const std::vector<int> h_in{3, 1, 7, 0, 4, 1, 6, 3};
  const std::int64_t n = static_cast<std::int64_t>(h_in.size());
  int *d_in = nullptr, *d_out = nullptr, *d_num = nullptr;
  if (cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&d_out, n * sizeof(int)) != cudaSuccess || cudaMalloc(&d_num, sizeof(int)) != cudaSuccess) {
    std::printf("no GPU to run on\n");
    return 0;
  }
  cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  std::size_t temp_bytes = 0;
  carry::partition(nullptr, temp_bytes, d_in, d_out, d_num, n, greater_than_2{}); // size query
  void* d_temp = nullptr;
  cudaMalloc(&d_temp, temp_bytes);
  // stable partition: [3 7 4 6 3 | 1 0 1], *d_num = 5 (the count stays on the device: no sync)
  cudaError_t e = carry::partition(d_temp, temp_bytes, d_in, d_out, d_num, n, greater_than_2{});
  int h_num = 0;
  std::vector<int> h_out(n);
  cudaMemcpy(&h_num, d_num, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(h_out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("%s: %d selected:", cudaGetErrorString(e), h_num);
  for (int v : h_out) std::printf(" %d", v);
  std::printf("\n");
  // select_if in place, with the same temp storage if large enough (sizes may differ between calls)
  std::size_t select_bytes = 0;
  carry::select_if(nullptr, select_bytes, d_in, d_num, n, greater_than_2{});
  if (select_bytes <= temp_bytes) e = carry::select_if(d_temp, temp_bytes, d_in, d_num, n, greater_than_2{});
  cudaFree(d_temp);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_num);
  return e == cudaSuccess ? 0 : 1;
}

// CUB-style calls that pass the stream as a literal 0 or nullptr compile and pick the overloads without an
// equality functor (compiled here, not run).
cudaError_t unique_with_literal_stream(void* t, std::size_t& b, const unsigned* in, unsigned* out,
                                       unsigned* data, int* num, std::int64_t n) {
  cudaError_t e = carry::select_unique(t, b, in, out, num, n, 0);
  if (e == cudaSuccess) e = carry::select_unique(t, b, data, num, n, 0);
  if (e == cudaSuccess) e = carry::select_unique(t, b, in, out, num, n, nullptr);
  return e;
}

// The keyed calls as CUB code writes them: no equality functor, the stream last as 0, nullptr or a stream.
cudaError_t keyed_with_literal_stream(void* t, std::size_t& b, const unsigned* k, const unsigned* v,
                                      unsigned* o0, unsigned* o1, int* num, std::int64_t n, cudaStream_t s) {
  cudaError_t e = carry::reduce_by_key(t, b, k, o0, v, o1, num, carry::sum{}, n, 0);
  if (e == cudaSuccess) e = carry::reduce_by_key(t, b, k, o0, v, o1, num, carry::sum{}, n, s);
  if (e == cudaSuccess) e = carry::run_length_encode(t, b, k, o0, o1, num, n, 0);
  if (e == cudaSuccess) e = carry::run_length_encode(t, b, k, o0, o1, num, n, s);
  if (e == cudaSuccess) e = carry::non_trivial_runs(t, b, k, o0, o1, num, n, nullptr);
  if (e == cudaSuccess) e = carry::select_unique_by_key(t, b, k, v, o0, o1, num, n, 0);
  if (e == cudaSuccess) e = carry::inclusive_sum_by_key(t, b, k, v, o0, n, 0);
  if (e == cudaSuccess) e = carry::exclusive_sum_by_key(t, b, k, v, o0, n, s);
  if (e == cudaSuccess) e = carry::inclusive_scan_by_key(t, b, k, v, o0, carry::maximum{}, n, 0);
  if (e == cudaSuccess) e = carry::exclusive_scan_by_key(t, b, k, v, o0, carry::sum{}, 0u, n, s);
  return e;
}
