// Histogram tuning: where the shared-memory path's time goes (bins only, plain atomics, the warp
// aggregation per sample, an all-same vote per 16-byte chunk), u32 samples, 256 bins over [0, 2^32 - 1),
// uniform, one-bin and 90 %-skewed data, against the library call and a read-only pass, same run.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <carry/apps/histogram.cuh>

#include "tests/common/gpu.cuh"

using namespace carry;
using namespace carry::apps_detail;
using carry_validate::device_buffer;

namespace {

constexpr int threads = 256, unroll = 4;

/// The library's former aggregation a sample (mode 2), kept here to measure it: the lanes whose bin
/// equals lane 0's add as one, the others add one each. All 32 lanes call it.
__device__ __forceinline__ void warp_add_to_bin(unsigned* counters, int bin) {
  const int lane = threadIdx.x % 32;
  const int first = __shfl_sync(0xffffffffu, bin, 0);
  const unsigned same = __ballot_sync(0xffffffffu, bin == first);
  const bool add = lane == 0 ? first >= 0 : bin != first && bin >= 0;
  if (add) atomicAdd(counters + bin, lane == 0 ? static_cast<unsigned>(__popc(same)) : 1u);
}

// MODE 0: bins only (folded into a register); 1: one plain shared atomic a sample; 2: the library's
// former warp_add_to_bin a sample; 3: the library's warp_add_chunk (a chunk whose 4 samples of every lane
// share lane 0's first bin adds as one atomic, else plain atomics); 4: mode 3, but a lane's equal
// neighbours in a chunk merge first.
template <int MODE>
__global__ void __launch_bounds__(threads)
    variant(const uint4* v, std::int64_t chunks, even_bins<unsigned, unsigned> bins, int num_bins,
            unsigned* hist) {
  __shared__ unsigned counters[4096];
  for (int i = threadIdx.x; i < num_bins; i += threads) counters[i] = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const std::int64_t rank = std::int64_t{blockIdx.x} * threads + threadIdx.x,
                     all = std::int64_t{gridDim.x} * threads;
  unsigned fold = 0;
  for (std::int64_t base = rank - lane; base < chunks; base += all * unroll) {
    uint4 c[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::int64_t i = base + u * all + lane;
      if (i < chunks) c[u] = __ldg(v + i);
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      if (base + u * all >= chunks) break;
      const bool live = base + u * all + lane < chunks;
      const unsigned x[4] = {c[u].x, c[u].y, c[u].z, c[u].w};
      int b[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) b[e] = live ? bins.bin_of(x[e]) : -1;
      if constexpr (MODE == 0) {
#pragma unroll
        for (int e = 0; e < 4; ++e) fold += static_cast<unsigned>(b[e]);
      } else if constexpr (MODE == 1) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (b[e] >= 0) atomicAdd(counters + b[e], 1u);
      } else if constexpr (MODE == 2) {
#pragma unroll
        for (int e = 0; e < 4; ++e) warp_add_to_bin(counters, b[e]);
      } else if constexpr (MODE == 3) {
        block::warp_add_chunk(counters, b); // the library's form
      } else {
        const int first = __shfl_sync(0xffffffffu, b[0], 0);
        const bool same = b[0] == first && b[1] == first && b[2] == first && b[3] == first;
        if (__all_sync(0xffffffffu, same)) {
          if (lane == 0 && first >= 0) atomicAdd(counters + first, 128u);
        } else {
          // merge a lane's runs of equal bins: b0 b1 b2 b3 -> at most 4 adds, fewer on runs
          unsigned n = 1;
#pragma unroll
          for (int e = 1; e < 4; ++e) {
            if (b[e] == b[e - 1]) {
              ++n;
            } else {
              if (b[e - 1] >= 0) atomicAdd(counters + b[e - 1], n);
              n = 1;
            }
          }
          if (b[3] >= 0) atomicAdd(counters + b[3], n);
        }
      }
    }
  }
  if constexpr (MODE == 0)
    if (fold == 0x9e3779b9u) hist[0] = fold; // keeps the bin math alive
  __syncthreads();
  for (int i = threadIdx.x; i < num_bins; i += threads)
    if (const unsigned c = counters[i]) atomicAdd(hist + i, c);
}

__global__ void read_only(const uint4* v, std::int64_t chunks, unsigned* out) {
  unsigned f = 0;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < chunks;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const uint4 c = __ldg(v + i);
    f ^= c.x ^ c.y ^ c.z ^ c.w;
  }
  if (f == 0x9e3779b9u) out[0] = f;
}

template <class F>
double median_us(F&& f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < 15; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000.0);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[t.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  const int lg = argc > 1 ? std::atoi(argv[1]) : 28;
  const std::int64_t n = std::int64_t{1} << lg;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const unsigned grid = static_cast<unsigned>(sms * 8);
  std::vector<unsigned> h(static_cast<std::size_t>(n));
  device_buffer<unsigned> d(static_cast<std::size_t>(n)), hist(4096), want(4096);
  std::mt19937 g(1);
  const char* names[] = {"uniform", "onebin", "skew90"};
  for (int data = 0; data < 3; ++data) {
    for (auto& x : h) {
      const unsigned r = g();
      x = data == 0 ? r : data == 1 ? 0x12345678u : (g() % 10 != 0 ? 0x01000000u + (r & 0xFFFFu) : r);
    }
    d.upload(h);
    for (int nb : {256, 4096}) {
      const even_bins<unsigned, unsigned> bins(0u, 0xFFFFFFFFu, nb);
      std::size_t tb = 1;
      unsigned char tmp;
      CARRY_CUDA_OR_DIE(histogram_even(&tmp, tb, d.ptr, want.ptr, nb, 0u, 0xFFFFFFFFu, n));
      const auto ref = want.download(static_cast<std::size_t>(nb));
      const auto* v = reinterpret_cast<const uint4*>(d.ptr);
      const std::int64_t chunks = n / 4;
      const double lib =
          median_us([&] { histogram_even(&tmp, tb, d.ptr, hist.ptr, nb, 0u, 0xFFFFFFFFu, n); });
      const double rd = median_us([&] { read_only<<<grid, 256>>>(v, chunks, hist.ptr); });
      double m[5];
      bool ok[5];
      auto run = [&](int mode, auto kernel) {
        m[mode] = median_us([&] {
          cudaMemsetAsync(hist.ptr, 0, nb * 4);
          kernel<<<grid, threads>>>(v, chunks, bins, nb, hist.ptr);
        });
        ok[mode] = mode == 0 || hist.download(static_cast<std::size_t>(nb)) == ref;
      };
      run(0, variant<0>);
      run(1, variant<1>);
      run(2, variant<2>);
      run(3, variant<3>);
      run(4, variant<4>);
      std::printf(
          "2^%d %-8s bins %4d  library %7.1f  read %7.1f | bins-only %7.1f  plain %7.1f%s  warp-agg %7.1f%s  "
          "chunk-vote %7.1f%s  chunk-vote+merge %7.1f%s us\n",
          lg, names[data], nb, lib, rd, m[0], m[1], ok[1] ? "" : "!", m[2], ok[2] ? "" : "!", m[3],
          ok[3] ? "" : "!", m[4], ok[4] ? "" : "!");
    }
  }
  return 0;
}
