// CUB baselines for the 64-bit integer and floating-point types, and max-scans.
#include "cub_scan.cuh"

namespace carry_validate {
CARRY_VALIDATE_CUB_SUMS(std::int64_t)
CARRY_VALIDATE_CUB_SUMS(std::uint64_t)
CARRY_VALIDATE_CUB_SUMS(float)
CARRY_VALIDATE_CUB_SUMS(double)
template cudaError_t cub_inclusive_max<float>(void*, std::size_t&, const float*, float*, std::int64_t,
                                              cudaStream_t);
template cudaError_t cub_inclusive_max<std::uint32_t>(void*, std::size_t&, const std::uint32_t*,
                                                      std::uint32_t*, std::int64_t, cudaStream_t);
} // namespace carry_validate
