// GPU test: select_flagged over more than 2^31 u8 items, against CUB's 64-bit path on the device.
#include <catch2/catch.hpp>

#include <carry/compact/device_select.cuh>

#include "bench/baselines/baselines_compact.hpp"
#include "bench/compact_bench.cuh"
#include "tests/common/gpu.cuh"

using namespace carry_validate;

namespace {
__global__ void fill_items_flags(std::uint8_t* items, std::uint8_t* flags, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
    z ^= z >> 29;
    items[i] = static_cast<std::uint8_t>(z >> 8);
    flags[i] = (z >> 20) % 256 == 0 ? 0 : static_cast<std::uint8_t>(((z >> 40) & 0xfe) | 1); // 255/256 set
  }
}
} // namespace

TEST_CASE(
    "select_flagged u8 over 2^31 + 2^25 + 4099 items (more than 2^31 selected) matches CUB's 64-bit path",
    "[large]") {
  if (sanitize_mode()) return; // sizes past 2^31 (or 2^29): not for a sanitizer
  const std::int64_t n = (std::int64_t{1} << 31) + (std::int64_t{1} << 25) + 4099;
  std::size_t free_bytes = 0, total = 0;
  REQUIRE(cudaMemGetInfo(&free_bytes, &total) == cudaSuccess);
  if (free_bytes < static_cast<std::size_t>(5 * n)) {
    WARN("not enough device memory for the > 2^31 run: skipped");
    return;
  }
  device_buffer<std::uint8_t> items(static_cast<std::size_t>(n)), flags(static_cast<std::size_t>(n)),
      out(static_cast<std::size_t>(n)), cub_out(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> num(1), cub_num(1);
  device_buffer<unsigned long long> wrong(1);
  fill_items_flags<<<1024, 256>>>(items.ptr, flags.ptr, n);
  out.poison();
  num.poison();
  std::size_t bytes = 0, cub_bytes = 0;
  const std::uint8_t* in = items.ptr;
  REQUIRE(carry::select_flagged(nullptr, bytes, in, flags.ptr, out.ptr, num.ptr, n) == cudaSuccess);
  REQUIRE(cub_flagged(nullptr, cub_bytes, in, flags.ptr, cub_out.ptr, cub_num.ptr, n, false, true,
                      cudaStream_t{}) == cudaSuccess);
  device_buffer<unsigned char> temp(std::max(bytes, cub_bytes));
  temp.poison();
  REQUIRE(carry::select_flagged(temp.ptr, bytes, in, flags.ptr, out.ptr, num.ptr, n) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::int64_t got = num.download(1)[0];
  REQUIRE(cub_flagged(temp.ptr, cub_bytes, in, flags.ptr, cub_out.ptr, cub_num.ptr, n, false, true,
                      cudaStream_t{}) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::int64_t expected = cub_num.download(1)[0];
  REQUIRE(got == expected);
  REQUIRE(expected > (std::int64_t{1} << 31)); // offsets and the count pass 2^31
  CARRY_CUDA_OR_DIE(cudaMemset(wrong.ptr, 0, sizeof(unsigned long long)));
  count_mismatches<<<1024, 256>>>(out.ptr, cub_out.ptr, expected, wrong.ptr);
  REQUIRE(wrong.download(1)[0] == 0);
}
