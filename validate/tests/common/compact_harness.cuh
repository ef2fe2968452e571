// Compaction test harness: poisoned outputs and temp storage, every output checked against the CPU
// reference, no stray writes past the count, and CUB's answer on the same input.
#pragma once

#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include <carry/compact/device_partition.cuh>
#include <carry/compact/device_select.cuh>

#include "bench/baselines/baselines_compact.hpp"
#include "compact_ops.hpp"
#include "gpu.cuh"
#include "scan_harness.cuh"

namespace carry_validate {

/// The algorithms a compaction test runs each case under.
inline const carry::compact_options compact_modes[3] = {carry::compact_options{},
                                                        {carry::compact_algorithm::three_kernel},
                                                        {carry::compact_algorithm::single_pass}};
inline const char* compact_mode_name(int m) {
  static const char* names[3] = {"automatic", "three_kernel", "single_pass"};
  return names[m];
}

/// One carry call: (temp, bytes, d_in, d_out, d_num, n) -> error; d_out == d_in in place.
template <class T>
using compact_call = std::function<cudaError_t(void*, std::size_t&, T*, T*, std::int64_t*, std::int64_t)>;

template <class T>
struct compact_result {
  std::int64_t num = -1;
  std::vector<T> out;          // all n outputs (+ guard not included)
  bool untouched_after = true; // outputs past what the call may write still hold the poison
};

/// Runs `call` on poisoned output, count and temp storage (`temp_fill`: its bytes before the call, -1 for
/// random bytes) and reads back everything. `writes`: how many outputs the call may write (count, or
/// n for a partition); the others and the guard must keep the poison (not checked in place).
template <class T>
compact_result<T> run_compact(const compact_call<T>& call, const std::vector<T>& in, bool in_place,
                              int temp_fill = poison_byte, bool partition = false) {
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  device_buffer<T> d_in(n, 16), d_out(n, 16);
  device_buffer<std::int64_t> d_num(1);
  d_in.upload(in);
  d_out.poison();
  d_num.poison();
  T* out = in_place ? d_in.ptr : d_out.ptr;
  std::size_t bytes = 0;
  REQUIRE(call(nullptr, bytes, d_in.ptr, out, d_num.ptr, n) == cudaSuccess);
  REQUIRE(bytes > 0);
  device_buffer<unsigned char> temp(bytes);
  if (temp_fill >= 0) {
    CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, temp_fill, bytes));
  } else {
    std::vector<unsigned char> noise(bytes);
    std::mt19937 g(static_cast<unsigned>(n));
    for (auto& c : noise) c = static_cast<unsigned char>(g());
    CARRY_CUDA_OR_DIE(cudaMemcpy(temp.ptr, noise.data(), bytes, cudaMemcpyHostToDevice));
  }
  REQUIRE(call(temp.ptr, bytes, d_in.ptr, out, d_num.ptr, n) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  compact_result<T> r;
  r.num = d_num.download(1)[0];
  r.out = (in_place ? d_in : d_out).download(static_cast<std::size_t>(n));
  if (!in_place) {
    const std::int64_t writes = partition ? n : (r.num >= 0 && r.num <= n ? r.num : 0);
    std::vector<unsigned char> poison(sizeof(T));
    std::memset(poison.data(), poison_byte, sizeof(T));
    for (std::int64_t i = writes; i < n && r.untouched_after; ++i)
      r.untouched_after = std::memcmp(&r.out[i], poison.data(), sizeof(T)) == 0;
    r.untouched_after = r.untouched_after && d_out.guard_intact();
  }
  return r;
}

/// Checks a result against the reference: the count, the first `compare` outputs bit for bit.
template <class T>
void check_compact(const compact_result<T>& r, const std::vector<T>& expected, std::size_t expected_num,
                   std::size_t compare) {
  REQUIRE(r.num == static_cast<std::int64_t>(expected_num));
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < compare; ++i)
    if (std::memcmp(&r.out[i], &expected[i], sizeof(T)) != 0 && wrong++ == 0) first = i;
  INFO("first wrong output " << first << " of " << compare);
  REQUIRE(wrong == 0);
  REQUIRE(r.untouched_after);
}

/// Uniform random values of T over its whole range (floats: [0, 1)).
template <class T>
std::vector<T> uniform_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  std::mt19937_64 g(seed);
  for (auto& x : v) {
    const std::uint64_t z = g();
    if constexpr (std::is_floating_point<T>::value)
      x = static_cast<T>(static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0));
    else
      std::memcpy(&x, &z, sizeof(T) < 8 ? sizeof(T) : 8);
  }
  return v;
}

/// Runs of equal values, lengths uniform in 1 .. 2 * mean_run - 1.
template <class T>
std::vector<T> runs_of(std::size_t n, int mean_run, std::uint64_t seed) {
  std::vector<T> v(n);
  std::mt19937_64 g(seed);
  T value = static_cast<T>(g());
  for (std::size_t i = 0; i < n;) {
    const std::size_t len = 1 + g() % static_cast<std::uint64_t>(2 * mean_run - 1);
    for (std::size_t k = 0; k < len && i < n; ++k) v[i++] = value;
    value = static_cast<T>(value + 1 + g() % 3);
  }
  return v;
}

/// The bound of x < bound that selects about `percent` % of uniform u32 values.
inline std::uint32_t u32_bound(int percent) {
  return percent >= 100 ? 0xffffffffu : static_cast<std::uint32_t>((std::uint64_t{1} << 32) * percent / 100);
}

} // namespace carry_validate
