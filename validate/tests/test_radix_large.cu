// GPU tests of the radix sort past 2^31 keys (u8 keys only, one pass, five onesweep portions) and past
// 2^29 u32 keys (four passes over two portions each), against a linear CPU sort and CUB's 64-bit path;
// and bin_by_key's onesweep pass over two portions, against a CPU counting sort.
#include <catch2/catch.hpp>

#include <carry/apps/histogram.cuh>

#include "tests/common/radix_harness.cuh"
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

namespace {
template <class K>
void large_case(std::int64_t n, bool desc) {
  INFO("n " << n << (desc ? " descending" : ""));
  if (capped_sizes({n}).empty()) return;
  std::size_t free_b = 0, total_b = 0;
  CARRY_CUDA_OR_DIE(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t need = static_cast<std::size_t>(n) * sizeof(K) * 4 + (std::size_t{1} << 30);
  if (free_b < need) {
    WARN("skipped: " << need << " bytes of device memory needed");
    return;
  }
  const std::size_t un = static_cast<std::size_t>(n);
  std::vector<K> keys = random_bits<K>(un, 77);
  for (std::size_t i = 0; i < un; i += 5) keys[i] = static_cast<K>(keys[i] & 0x0F0F0F0F); // not uniform
  device_buffer<K> in(un), out(un, 16);
  in.upload(keys);
  out.poison();
  std::size_t bytes = 0;
  auto call = [&](void* t, std::size_t& b) {
    return desc ? carry::sort_keys_descending(t, b, in.ptr, out.ptr, n)
                : carry::sort_keys(t, b, in.ptr, out.ptr, n);
  };
  REQUIRE(call(nullptr, bytes) == cudaSuccess);
  {
    device_buffer<unsigned char> temp(bytes);
    CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, 0xFF, bytes));
    REQUIRE(call(temp.ptr, bytes) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  }
  // ---- the CPU reference: keys-only, so any correct sort gives the same bits ----
  const std::vector<K> want = reference_sorted_keys(keys, desc);
  const auto got = out.download(un);
  REQUIRE(same_bits(got, want));
  REQUIRE(out.guard_intact());
  // ---- CUB's 64-bit path ----
  device_buffer<K> cub_out(un);
  std::size_t cb = 0;
  REQUIRE(cub_radix_keys(nullptr, cb, in.ptr, cub_out.ptr, n, 0, 8 * static_cast<int>(sizeof(K)), desc, true,
                         0) == cudaSuccess);
  device_buffer<unsigned char> ct(cb);
  REQUIRE(cub_radix_keys(ct.ptr, cb, in.ptr, cub_out.ptr, n, 0, 8 * static_cast<int>(sizeof(K)), desc, true,
                         0) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(same_bits(cub_out.download(un), got));
}
} // namespace

TEST_CASE("sort_keys u8 over more than 2^31 keys", "[radix][large]") {
  if (sanitize_mode()) return; // sizes past 2^31 (or 2^29): not for a sanitizer
  large_case<std::uint8_t>((std::int64_t{1} << 31) + (std::int64_t{1} << 25) + 4099, false);
}

TEST_CASE("sort_keys u32 over more than 2^29 keys (two portions a pass)", "[radix][large]") {
  if (sanitize_mode()) return; // sizes past 2^31 (or 2^29): not for a sanitizer
  large_case<std::uint32_t>((std::int64_t{1} << 29) + 4099, true);
}

namespace {
struct mod7 { // bin = key mod 7
  __host__ __device__ unsigned operator()(std::uint8_t k) const { return k % 7u; }
};
} // namespace

TEST_CASE("bin_by_key u8 keys over more than 2^29 keys (two onesweep portions)", "[apps][large]") {
  if (sanitize_mode()) return; // sizes past 2^31 (or 2^29): not for a sanitizer
  const std::int64_t n = (std::int64_t{1} << 29) + 4099;
  if (capped_sizes({n}).empty()) return;
  const std::size_t un = static_cast<std::size_t>(n);
  const std::vector<std::uint8_t> keys = random_bits<std::uint8_t>(un, 78);
  device_buffer<std::uint8_t> in(un), out(un, 16);
  device_buffer<std::uint64_t> off(8, 4);
  in.upload(keys);
  out.poison();
  off.poison();
  std::size_t bytes = 0;
  REQUIRE(carry::bin_by_key(nullptr, bytes, in.ptr, out.ptr, off.ptr, 7, mod7{}, n) == cudaSuccess);
  {
    device_buffer<unsigned char> temp(bytes);
    CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, 0xFF, bytes));
    REQUIRE(carry::bin_by_key(temp.ptr, bytes, in.ptr, out.ptr, off.ptr, 7, mod7{}, n) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  }
  // ---- CPU counting sort: bins in order, each in input order ----
  std::vector<std::uint64_t> want_off(8, 0);
  for (std::uint8_t k : keys) ++want_off[k % 7u + 1];
  for (int b = 1; b < 8; ++b) want_off[b] += want_off[b - 1];
  std::vector<std::uint8_t> want(un);
  std::vector<std::uint64_t> at(want_off.begin(), want_off.end() - 1);
  for (std::uint8_t k : keys) want[at[k % 7u]++] = k;
  REQUIRE(off.download(8) == want_off);
  REQUIRE(off.guard_intact());
  REQUIRE(out.download(un) == want);
  REQUIRE(out.guard_intact());
}
