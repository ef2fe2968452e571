// Phase probe of the radix sort's cluster path: thread 0's clock64 at 8 points of every pass, per block,
// and the local form's phase (globaltimer, from the barrier after its top pass to the block's end).
#define CARRY_CLUSTER_TRACE 1
#include <carry/radixsort/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 16384;
  const int end_bit = argc > 2 ? std::atoi(argv[2]) : 32;
  std::vector<unsigned> h(n);
  std::mt19937 rng(7);
  for (auto& x : h) x = rng();
  unsigned *in, *out;
  cudaMalloc(&in, n * 4), cudaMalloc(&out, n * 4);
  cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
  std::size_t bytes = 0;
  carry::sort_keys(nullptr, bytes, in, out, n, 0, end_bit);
  void* temp;
  cudaMalloc(&temp, bytes);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t a, b;
  cudaEventCreate(&a), cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 300; ++r) {
    cudaEventRecord(a, s);
    carry::sort_keys(temp, bytes, in, out, n, 0, end_bit, s);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (r >= 20) t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  std::vector<unsigned> o(n);
  cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost);
  std::vector<unsigned> ref = h;
  const unsigned mask = end_bit >= 32 ? ~0u : (1u << end_bit) - 1;
  std::stable_sort(ref.begin(), ref.end(), [&](unsigned x, unsigned y) { return (x & mask) < (y & mask); });
  printf("n %ld end_bit %d: events median %.2f us (min %.2f), %s\n", n, end_bit, t[t.size() / 2], t[0],
         o == ref ? "sorted ok" : "WRONG");
  // the trace of the last run (several runs to see the spread)
  for (int run = 0; run < 3; ++run) {
    static long long tr[16][8][8] = {};
    cudaMemcpyToSymbol(carry_cluster_trace, tr, sizeof tr); // passes that do not run (the local form) read 0
    unsigned long long gt[16][3] = {};
    cudaMemcpyToSymbol(carry_cluster_gt, gt, sizeof gt); // slot 2 stays 0 where the local form does not run
    cudaMemset(temp, 0, bytes);
    carry::sort_keys(temp, bytes, in, out, n, 0, end_bit, s);
    cudaStreamSynchronize(s);
    cudaMemcpyFromSymbol(tr, carry_cluster_trace, sizeof tr);
    cudaMemcpyFromSymbol(gt, carry_cluster_gt, sizeof gt);
    const int passes = (end_bit + 7) / 8;
    unsigned long long g0 = ~0ull, g1 = 0;
    for (int bl = 0; bl < 16; ++bl) g0 = std::min(g0, gt[bl][0]), g1 = std::max(g1, gt[bl][1]);
    printf("run %d: kernel span (globaltimer, first start to last end) %.2f us\n", run, (g1 - g0) / 1000.0);
    printf("  block start offsets (ns):");
    for (int bl = 0; bl < 16; ++bl) printf(" %llu", gt[bl][0] - g0);
    printf("\n");
    if (gt[0][2] != 0) { // the local form ran: its top pass is the last pass's row below
      double local = 0, before = 0;
      unsigned long long lo = ~0ull, hi = 0;
      for (int bl = 0; bl < 16; ++bl) {
        const unsigned long long d = gt[bl][1] - gt[bl][2];
        local += static_cast<double>(d), before += static_cast<double>(gt[bl][2] - gt[bl][0]);
        lo = std::min(lo, d), hi = std::max(hi, d);
      }
      printf("  local form: start to its barrier %.2f us; local phase %.2f us [%.2f %.2f] (mean over 16 blocks)\n",
             before / 16000.0, local / 16000.0, lo / 1000.0, hi / 1000.0);
    }
    printf("  phases (cycles; mean over 16 blocks [min max]); 0 start,1 counted,2 pushed,3 ranked,4 "
           "waited,5 adjusted,6 scattered,7 synced\n");
    for (int p = 0; p < passes; ++p) {
      printf("  pass %d:", p);
      for (int k = 1; k < 8; ++k) {
        double m = 0;
        long long lo = 1ll << 60, hi = 0;
        for (int bl = 0; bl < 16; ++bl) {
          long long d = tr[bl][p][k] - tr[bl][p][k - 1];
          m += d;
          lo = std::min(lo, d);
          hi = std::max(hi, d);
        }
        printf(" %d-%d %.0f[%lld %lld]", k - 1, k, m / 16, lo, hi);
      }
      double tot = 0;
      for (int bl = 0; bl < 16; ++bl) tot += tr[bl][p][7] - tr[bl][p][0];
      printf(" | total %.0f\n", tot / 16);
    }
  }
  return 0;
}
