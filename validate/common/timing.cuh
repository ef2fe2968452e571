// Timing shared by the benchmark, the carry tool and the tuning sweep: medians of timed calls after warm-up.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "gpu.cuh"

namespace carry_validate {

/// Median microseconds of `call()` between CUDA events on the default stream, after 3 warm-up calls.
template <class F>
double median_event_us(F&& call, int reps) {
  cudaEvent_t a, b;
  CARRY_CUDA_OR_DIE(cudaEventCreate(&a));
  CARRY_CUDA_OR_DIE(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) call();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    CARRY_CUDA_OR_DIE(cudaEventRecord(a));
    call();
    CARRY_CUDA_OR_DIE(cudaEventRecord(b));
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

__global__ inline void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
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

/// Median microseconds from before `call(r)` to after a stream sync, on an idle GPU.
template <class F>
double median_end_to_end_us(F&& call, int rotations, int reps) {
  for (int i = 0; i < 3; ++i) call(i % rotations);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    call(r % rotations);
    CARRY_CUDA_OR_DIE(cudaStreamSynchronize(0));
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

} // namespace carry_validate
