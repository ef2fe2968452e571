// Timing shared by the benchmark, the carry tool and the tuning sweep: medians of timed calls after warm-up.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "../tests/common/gpu.cuh"

namespace carry_validate {

__global__ inline void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

/// Median microseconds of `call()` between CUDA events on `stream`, after 3 warm-up calls, `before()`
/// queued ahead of each timed call (outside the events: e.g. a memset that leaves the L2 cold).
/// blocked: each call (and its start event) is queued behind a ~0.1 ms spin kernel, so the events time
/// the GPU work alone, not the host's launch latency (nvbench's cold measurement holds the stream with
/// a blocking kernel for the same reason); else the stream is drained first, so the GPU is idle when the
/// start event is recorded. `call` must queue its work on `stream`.
template <class Before, class F>
double median_event_us_after(Before&& before, F&& call, int reps, bool blocked = false,
                             cudaStream_t stream = cudaStream_t{}) {
  cudaEvent_t a, b;
  CARRY_CUDA_OR_DIE(cudaEventCreate(&a));
  CARRY_CUDA_OR_DIE(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) call();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    before(r);
    if (blocked)
      spin_kernel<<<1, 1, 0, stream>>>(200000);
    else
      CARRY_CUDA_OR_DIE(cudaStreamSynchronize(stream));
    CARRY_CUDA_OR_DIE(cudaEventRecord(a, stream));
    call();
    CARRY_CUDA_OR_DIE(cudaEventRecord(b, stream));
    CARRY_CUDA_OR_DIE(cudaEventSynchronize(b));
    float ms;
    CARRY_CUDA_OR_DIE(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.0);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// median_event_us_after with nothing queued before each call.
template <class F>
double median_event_us(F&& call, int reps, bool blocked = false, cudaStream_t stream = cudaStream_t{}) {
  return median_event_us_after([](int) {}, call, reps, blocked, stream);
}

/// A read-only pass over `n16` 16-byte words (the least a histogram must do): the reference the tool
/// and the apps benchmark time beside a copy.
__global__ inline void read_pass_kernel(const uint4* p, std::int64_t n16, unsigned* sink) {
  unsigned acc = 0;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n16;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const uint4 v = __ldg(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc; // keeps the loads; practically never written
}

/// A cold L2 before each timed call: a memset of `bytes` (several times the L2) on the default stream.
struct l2_flush {
  void* buffer = nullptr;
  std::size_t bytes = std::size_t{192} << 20;
  void operator()(int r) const { CARRY_CUDA_OR_DIE(cudaMemsetAsync(buffer, r & 0xff, bytes)); }
};

/// median_event_us_after of `call(r)`, r = the rotation index (0, 1, .., rotations-1, 0, ..; the
/// warm-up calls take the first indices), `before()` queued ahead of each timed call.
template <class Before, class F>
double median_rotating_event_us_after(Before&& before, F&& call, int rotations, int reps,
                                      bool blocked = false) {
  int r = 0;
  return median_event_us_after(
      before, [&] { call(r++ % rotations); }, reps, blocked);
}

/// median_rotating_event_us_after with nothing queued before each call.
template <class F>
double median_rotating_event_us(F&& call, int rotations, int reps, bool blocked = false) {
  return median_rotating_event_us_after([](int) {}, call, rotations, reps, blocked);
}

/// Median microseconds per call of `call(r)` (r = the rotation index) as GPU time behind queued work:
/// each rep queues `batch` calls behind a ~1 ms spin kernel and divides the events' interval by batch.
template <class F>
double median_queued_us(F&& call, int rotations, int reps, int batch = 20) {
  cudaEvent_t a, b;
  CARRY_CUDA_OR_DIE(cudaEventCreate(&a));
  CARRY_CUDA_OR_DIE(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) call(i % rotations);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    spin_kernel<<<1, 1>>>(2000000);
    CARRY_CUDA_OR_DIE(cudaEventRecord(a));
    for (int k = 0; k < batch; ++k) call((r * batch + k) % rotations);
    CARRY_CUDA_OR_DIE(cudaEventRecord(b));
    CARRY_CUDA_OR_DIE(cudaEventSynchronize(b));
    float ms;
    CARRY_CUDA_OR_DIE(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.0 / batch);
  }
  CARRY_CUDA_OR_DIE(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// ---- end to end: microseconds from before `call(r)` to after a stream sync, on an idle GPU. Calls go
// in batches; a figure is the lowest batch median. A burst of host-side interference lasting a few
// milliseconds (seen on the lent machine: a whole 200-call median of 20-45 us where the same code
// measured 10-12 us before and after) then spoils one batch, not the figure. Every implementation is
// timed the same way. ----

/// The median of one batch of `per_batch` end-to-end calls, in microseconds; `r` is the running call
/// number (it picks the rotating buffer).
template <class F>
double end_to_end_batch_us(const F& call, int rotations, int per_batch, int& r) {
  std::vector<double> t;
  for (int k = 0; k < per_batch; ++k, ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    call(r % rotations);
    CARRY_CUDA_OR_DIE(cudaStreamSynchronize(0));
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// End to end for implementations whose batches alternate (calls[0], calls[1], ..., calls[0], ...), so
/// host-side interference falls on all alike: `reps` calls each in `batches` batches; for each, the
/// lowest batch median.
inline std::vector<double> end_to_end_us(const std::vector<std::function<void(int)>>& calls, int rotations,
                                         int reps, int batches) {
  for (int i = 0; i < 3; ++i)
    for (const auto& call : calls) call(i % rotations);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  const int per_batch = reps / batches > 0 ? reps / batches : 1;
  std::vector<double> best(calls.size(), 0);
  std::vector<int> r(calls.size(), 0);
  for (int k = 0; k < batches; ++k)
    for (std::size_t j = 0; j < calls.size(); ++j) {
      const double m = end_to_end_batch_us(calls[j], rotations, per_batch, r[j]);
      best[j] = k == 0 || m < best[j] ? m : best[j];
    }
  return best;
}

/// One implementation alone: `reps` calls in 5 batches (the tuning sweeps).
template <class F>
double median_end_to_end_us(F&& call, int rotations, int reps) {
  return end_to_end_us({std::function<void(int)>(call)}, rotations, reps, 5)[0];
}

} // namespace carry_validate
