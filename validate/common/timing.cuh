// Event timing shared by the carry tool and the tuning sweep: median of timed calls after warm-up.
#pragma once

#include <algorithm>
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

} // namespace carry_validate
