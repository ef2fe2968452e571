// Device-scan test harness: poisoned outputs and temp storage, every element checked, CUB compared.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include <carry/scan/device_scan.cuh>

#include "bench/baselines/baselines.hpp"
#include "gpu.cuh"
#include "reference.hpp"

namespace carry_validate {

/// Drops the sizes above CARRY_TEST_MAX_N (20000 in the sanitizer mode) and below CARRY_TEST_MIN_N
/// (environment), for runs under compute-sanitizer.
inline std::vector<std::int64_t> capped_sizes(std::vector<std::int64_t> s) {
  const char* cap = std::getenv("CARRY_TEST_MAX_N");
  if (cap != nullptr || sanitize_mode()) {
    const std::int64_t max_n = cap != nullptr ? std::atoll(cap) : 20000;
    s.erase(std::remove_if(s.begin(), s.end(), [&](std::int64_t n) { return n > max_n; }), s.end());
  }
  if (const char* low = std::getenv("CARRY_TEST_MIN_N")) { // a sanitizer run of the largest sizes alone
    const std::int64_t min_n = std::atoll(low);
    s.erase(std::remove_if(s.begin(), s.end(), [&](std::int64_t n) { return n < min_n; }), s.end());
  }
  constexpr std::size_t sanitized = 3; // the first, the middle and the last of the list
  if (sanitize_mode() && s.size() > sanitized) {
    std::vector<std::int64_t> few;
    for (std::size_t i = 0; i < sanitized; ++i) few.push_back(s[i * (s.size() - 1) / (sanitized - 1)]);
    s = few;
  }
  return s;
}

/// The issue's sizes around a tile, plus primes, 2^20 + 7 and a seeded random size (capped_sizes).
inline std::vector<std::int64_t> edge_sizes(std::int64_t tile) {
  std::vector<std::int64_t> s{
      0, 1, 2, 31, 32, 33, tile - 1, tile, tile + 1, 3 * tile + 17, 1009, 65537, (1 << 20) + 7};
  std::mt19937_64 g(tile);
  s.push_back(1 + static_cast<std::int64_t>(g() % (1 << 19)));
  return capped_sizes(s);
}

template <class T>
constexpr bool has_cub_sum = std::is_arithmetic<T>::value;

/// Runs one carry scan (two-phase) on poisoned buffers and checks all n outputs and the guard after them.
/// Returns the output for further comparisons.
template <class RunFn, class T>
std::vector<T> run_and_check(RunFn run, const std::vector<T>& in, const std::vector<T>& ref, bool in_place) {
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  device_buffer<T> d_in(n, 16), d_out(n, 16);
  d_in.upload(in);
  d_out.poison();
  T* out = in_place ? d_in.ptr : d_out.ptr;
  std::size_t temp_bytes = 0;
  REQUIRE(run(nullptr, temp_bytes, d_in.ptr, out, n) == cudaSuccess);
  REQUIRE(temp_bytes > 0);
  device_buffer<unsigned char> temp(temp_bytes);
  temp.poison();
  REQUIRE(run(temp.ptr, temp_bytes, d_in.ptr, out, n) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto got = (in_place ? d_in : d_out).download(n);
  std::int64_t wrong = 0, first_wrong = -1;
  for (std::int64_t i = 0; i < n; ++i)
    if (!same_bits(got[i], ref[i])) {
      if (wrong++ == 0) first_wrong = i;
    }
  INFO("n = " << n << (in_place ? ", in place" : "") << ", first wrong index " << first_wrong);
  CHECK(wrong == 0);
  CHECK((in_place ? d_in : d_out).guard_intact());
  if (n == 0 && !in_place) CHECK(d_out.guard_intact());
  return got;
}

/// One carry scan through device_scan_with<HP, SP, SmallP> against the CPU reference (and CUB for sums).
template <class HP, class SP, class SmallP = SP, class T, class Op>
void check_device_scan(Op op, T init, carry::scan_options opt, std::int64_t n, bool exclusive, bool in_place,
                       bool sum_op, std::uint64_t seed) {
  const auto in = random_values<T>(static_cast<std::size_t>(n), seed);
  const auto ref = exclusive ? reference_exclusive(in, init, op) : reference_inclusive(in, op);
  auto run = [&](void* tmp, std::size_t& bytes, const T* d_in, T* d_out, std::int64_t count) {
    return exclusive ? carry::device_scan_with<HP, SP, SmallP>::exclusive_scan(tmp, bytes, d_in, d_out, op,
                                                                               init, count, opt)
                     : carry::device_scan_with<HP, SP, SmallP>::inclusive_scan(tmp, bytes, d_in, d_out, op,
                                                                               count, opt);
  };
  INFO((exclusive ? "exclusive" : "inclusive")
       << ", algorithm " << static_cast<int>(opt.algorithm) << (opt.deterministic ? " deterministic" : ""));
  auto got = run_and_check(run, in, ref, in_place);
  if constexpr (has_cub_sum<T>) {
    if (sum_op && n > 0 && (!exclusive || init == T{})) { // CUB agrees bit for bit
      device_buffer<T> d_in(n), d_out(n);
      d_in.upload(in);
      std::size_t bytes = 0;
      auto cub = [&](void* tmp) {
        return exclusive ? cub_exclusive_sum(tmp, bytes, d_in.ptr, d_out.ptr, n, cudaStream_t{})
                         : cub_inclusive_sum(tmp, bytes, d_in.ptr, d_out.ptr, n, cudaStream_t{});
      };
      REQUIRE(cub(nullptr) == cudaSuccess);
      device_buffer<unsigned char> temp(bytes);
      REQUIRE(cub(temp.ptr) == cudaSuccess);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      auto theirs = d_out.download(n);
      std::int64_t differ = 0;
      for (std::int64_t i = 0; i < n; ++i) differ += !same_bits(theirs[i], got[i]);
      CHECK(differ == 0);
    }
  }
}

/// An inclusive u32 sum through the scan wrapper W with input and output one and three items past a
/// 16-byte boundary (the element-wise paths), against the CPU; the output's guard must stay intact.
template <class W>
void check_unaligned_sum(std::int64_t n, const carry::scan_options& opt) {
  using T = std::uint32_t;
  const auto in = random_values<T>(n + 1, n);
  const std::vector<T> shifted(in.begin() + 1, in.end());
  const auto ref = reference_inclusive(shifted, carry::sum{});
  device_buffer<T> d_in(n + 1), d_out(n + 3);
  d_in.upload(in);
  d_out.poison();
  std::size_t bytes = 0;
  REQUIRE(W::inclusive_scan(nullptr, bytes, d_in.ptr + 1, d_out.ptr + 3, carry::sum{}, n, opt) ==
          cudaSuccess);
  device_buffer<unsigned char> tmp(bytes);
  tmp.poison();
  REQUIRE(W::inclusive_scan(tmp.ptr, bytes, d_in.ptr + 1, d_out.ptr + 3, carry::sum{}, n, opt) ==
          cudaSuccess);
  auto out = d_out.download(n + 3);
  INFO("n = " << n);
  CHECK(std::vector<T>(out.begin() + 3, out.end()) == ref);
  CHECK(d_out.guard_intact());
}

/// check_device_scan for every size x inclusive/exclusive x out of place/in place, in mode `opt`; seeds
/// count up from `seed`, and the next unused one is returned.
template <class HP, class SP, class SmallP = SP, class T, class Op>
std::uint64_t check_sizes(Op op, T init, bool sum_op, const carry::scan_options& opt,
                          const std::vector<std::int64_t>& sizes, std::uint64_t seed) {
  for (std::int64_t n : sizes)
    for (int exclusive = 0; exclusive < 2; ++exclusive)
      for (int in_place = 0; in_place < 2; ++in_place)
        check_device_scan<HP, SP, SmallP>(op, init, opt, n, exclusive, in_place, sum_op, seed++);
  return seed;
}

/// Every edge size x inclusive/exclusive x out-of-place/in-place, for the three device modes.
template <class T, class Op>
void check_all_modes(Op op, T init, bool sum_op) {
  using HP = carry::tuning::hierarchical_policy<T>;
  using SP = carry::tuning::single_pass_policy<T>;
  const carry::scan_options modes[3] = {{carry::scan_algorithm::hierarchical, false},
                                        {carry::scan_algorithm::single_pass, false},
                                        {carry::scan_algorithm::single_pass, true}};
  std::uint64_t seed = 1;
  for (const auto& opt : modes) {
    const std::int64_t tile =
        opt.algorithm == carry::scan_algorithm::hierarchical ? HP::tile_items : SP::tile_items;
    seed = check_sizes<HP, SP>(op, init, sum_op, opt, edge_sizes(tile), seed);
  }
}

/// Dirties temp storage before graph replay `rep`, in turn: zeros, 0xFF, random bytes, then whatever
/// the replay before left (leftovers).
inline void dirty_temp(void* temp, std::size_t bytes, int rep) {
  if (rep % 4 == 0) CARRY_CUDA_OR_DIE(cudaMemset(temp, 0, bytes));
  if (rep % 4 == 1) CARRY_CUDA_OR_DIE(cudaMemset(temp, 0xFF, bytes));
  if (rep % 4 == 2) {
    std::vector<unsigned char> noise(bytes);
    std::mt19937 g(static_cast<unsigned>(bytes) + static_cast<unsigned>(rep));
    for (auto& c : noise) c = static_cast<unsigned char>(g());
    CARRY_CUDA_OR_DIE(cudaMemcpy(temp, noise.data(), bytes, cudaMemcpyHostToDevice));
  }
}

/// A two-phase call, call(temp, bytes): the size query, then the call on poisoned temp storage of that
/// size; waits for it.
template <class Call>
void run_two_phase(Call call) {
  std::size_t bytes = 0;
  REQUIRE(call(nullptr, bytes) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  temp.poison();
  REQUIRE(call(temp.ptr, bytes) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
}

/// Runs call(temp, bytes, stream) test_reps(4) times on two non-blocking streams in turn, the temp
/// storage refilled with other bytes each time; download() must give the same bits every time. Returns
/// the first run's output.
template <class Call, class Download>
auto same_bits_every_run(std::size_t bytes, Call call, Download download) {
  device_buffer<unsigned char> temp(bytes);
  decltype(download()) first;
  cudaStream_t streams[2];
  for (auto& s : streams) CARRY_CUDA_OR_DIE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int rep = 0; rep < test_reps(4); ++rep) {
    CARRY_CUDA_OR_DIE(cudaMemset(temp.ptr, rep * 51, bytes));
    CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
    REQUIRE(call(temp.ptr, bytes, streams[rep % 2]) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(streams[rep % 2]) == cudaSuccess);
    const auto got = download();
    if (rep == 0)
      first = got;
    else
      REQUIRE((got.size() == first.size() &&
               std::memcmp(got.data(), first.data(), got.size() * sizeof(got[0])) == 0));
  }
  for (auto& s : streams) CARRY_CUDA_OR_DIE(cudaStreamDestroy(s));
  return first;
}

} // namespace carry_validate
