// CUB baselines for the 8- to 32-bit integer types.
#include <cstdio>

#include "cub_scan.cuh"

namespace carry_validate {
CARRY_VALIDATE_CUB_SUMS(std::int8_t)
CARRY_VALIDATE_CUB_SUMS(std::uint8_t)
CARRY_VALIDATE_CUB_SUMS(std::int16_t)
CARRY_VALIDATE_CUB_SUMS(std::uint16_t)
CARRY_VALIDATE_CUB_SUMS(std::int32_t)
CARRY_VALIDATE_CUB_SUMS(std::uint32_t)
} // namespace carry_validate

namespace carry_validate {
const char* cccl_version() {
  static char buf[32];
  std::snprintf(buf, sizeof buf, "%d.%d.%d", CUB_VERSION / 100000, CUB_VERSION / 100 % 1000,
                CUB_VERSION % 100);
  return buf;
}
} // namespace carry_validate
