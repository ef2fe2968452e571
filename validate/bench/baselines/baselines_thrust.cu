// Thrust baselines (inclusive sums for the benchmark's types).
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include "baselines.hpp"

namespace carry_validate {

template <class T>
void thrust_inclusive_sum(const T* d_in, T* d_out, std::int64_t num_items, cudaStream_t stream) {
  thrust::inclusive_scan(thrust::cuda::par_nosync.on(stream), d_in, d_in + num_items, d_out);
}

template void thrust_inclusive_sum<std::uint8_t>(const std::uint8_t*, std::uint8_t*, std::int64_t,
                                                 cudaStream_t);
template void thrust_inclusive_sum<std::uint32_t>(const std::uint32_t*, std::uint32_t*, std::int64_t,
                                                  cudaStream_t);
template void thrust_inclusive_sum<std::uint64_t>(const std::uint64_t*, std::uint64_t*, std::int64_t,
                                                  cudaStream_t);
template void thrust_inclusive_sum<float>(const float*, float*, std::int64_t, cudaStream_t);

} // namespace carry_validate
