// GPU tests of histogram_even, histogram_range and histogram_offsets: against the CPU reference and CUB,
// every sample type, bins 1 .. 2^20, skewed and one-bin data, float edges, NaN, infinities, integer
// extremes, n = 0, bad arguments (nothing written).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include <carry/apps/histogram.cuh>
#include <cub/device/device_histogram.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "bench/baselines/baselines_apps.hpp"
#include "tests/common/apps_reference.hpp"
#include "tests/common/gpu.cuh"
#include "tests/common/scan_harness.cuh"

using namespace carry_validate;

namespace {

template <class T, class C, class L>
std::vector<C> run_even(const std::vector<T>& x, int bins, L lower, L upper, std::int64_t n_override = -1) {
  const std::int64_t n = n_override >= 0 ? n_override : static_cast<std::int64_t>(x.size());
  device_buffer<T> d_x(x.size() + 1);
  d_x.upload(x);
  device_buffer<C> d_h(static_cast<std::size_t>(bins), 8);
  d_h.poison();
  std::size_t bytes = 0;
  REQUIRE(carry::histogram_even(nullptr, bytes, d_x.ptr, d_h.ptr, bins, lower, upper, n) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  temp.poison();
  REQUIRE(carry::histogram_even(temp.ptr, bytes, d_x.ptr, d_h.ptr, bins, lower, upper, n) == cudaSuccess);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  REQUIRE(d_h.guard_intact());
  return d_h.download(static_cast<std::size_t>(bins));
}

template <class C>
void require_equal(const std::vector<C>& got, const std::vector<std::uint64_t>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (static_cast<std::uint64_t>(got[i]) != want[i] && bad++ == 0) first = i;
  INFO("first differing bin " << first << ": got " << (bad ? static_cast<std::uint64_t>(got[first]) : 0)
                              << ", want " << (bad ? want[first] : 0));
  REQUIRE(bad == 0);
}

template <class T, class C, class L>
std::vector<C> cub_even(const std::vector<T>& x, int bins, L lower, L upper) {
  device_buffer<T> d_x(x.size() + 1);
  d_x.upload(x);
  device_buffer<C> d_h(static_cast<std::size_t>(bins));
  std::size_t bytes = 0;
  REQUIRE(cub_histogram_even(nullptr, bytes, d_x.ptr, d_h.ptr, bins, lower, upper,
                             static_cast<std::int64_t>(x.size()), 0) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(cub_histogram_even(temp.ptr, bytes, d_x.ptr, d_h.ptr, bins, lower, upper,
                             static_cast<std::int64_t>(x.size()), 0) == cudaSuccess);
  return d_h.download(static_cast<std::size_t>(bins));
}

/// Sample i of the iterator tests: a hash of i in [0, 2^20).
struct hashed_sample {
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const { return (i * 2654435761u) >> 12; }
};

const std::vector<std::int64_t> base_sizes = {1,    2,    15,   16,    17,      31,
                                              4095, 4096, 4097, 65537, 1000003, (1 << 20) + 7};

} // namespace

TEST_CASE("histogram_even u32: reference and CUB, bins 1 .. 2^20, sizes up to 2^22", "[histogram]") {
  for (int bins : {1, 7, 256, 4096, 1 << 20})
    for (std::int64_t n : capped_sizes({1, 17, 4097, 1000003, (1 << 22) + 3})) {
      INFO("bins " << bins << ", n " << n);
      const auto x =
          random_bits<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n + bins));
      const auto got = run_even<std::uint32_t, int, std::uint32_t>(x, bins, 0u, 0xFFFFFFFFu);
      require_equal(got, reference_histogram_even<std::uint32_t, std::uint32_t>(x, bins, 0u, 0xFFFFFFFFu));
      const auto cub = cub_even<std::uint32_t, int, std::uint32_t>(x, bins, 0u, 0xFFFFFFFFu);
      REQUIRE(std::memcmp(got.data(), cub.data(), got.size() * sizeof(int)) == 0);
      // a narrower range: samples outside are not counted
      const auto part = run_even<std::uint32_t, std::uint32_t, std::uint32_t>(x, bins, 1000u, 3000000000u);
      require_equal(part,
                    reference_histogram_even<std::uint32_t, std::uint32_t>(x, bins, 1000u, 3000000000u));
    }
}

TEMPLATE_TEST_CASE("histogram_even: every integer type, extremes of its range, 64-bit counters",
                   "[histogram]", std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::int32_t,
                   std::uint64_t, std::int64_t) {
  using T = TestType;
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (int bins : {1, 7, 256, 4096})
    for (std::int64_t n : capped_sizes(base_sizes)) {
      INFO("bins " << bins << ", n " << n);
      auto x = random_bits<T>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n * 3 + bins));
      for (std::size_t i = 0; i < x.size(); i += 97) x[i] = (i / 97) % 2 ? lo : hi; // the ends of the range
      const auto got = run_even<T, std::uint64_t, T>(x, bins, lo, hi);
      require_equal(got, reference_histogram_even<T, T>(x, bins, lo, hi));
    }
}

TEST_CASE("histogram_even u8 samples with int levels [0, 256): every byte value has a bin, CUB agrees",
          "[histogram]") {
  for (std::int64_t n : capped_sizes(base_sizes)) {
    const auto x = random_bits<std::uint8_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n));
    for (int bins : {1, 7, 256}) {
      INFO("n " << n << ", bins " << bins);
      const auto got = run_even<std::uint8_t, int, int>(x, bins, 0, 256);
      require_equal(got, reference_histogram_even<std::uint8_t, int>(x, bins, 0, 256));
      const auto cub = cub_even<std::uint8_t, int, int>(x, bins, 0, 256);
      REQUIRE(std::memcmp(got.data(), cub.data(), got.size() * sizeof(int)) == 0);
    }
  }
}

TEMPLATE_TEST_CASE("histogram_even floats: bin edges, NaN, infinities, denormals", "[histogram]", float,
                   double) {
  using T = TestType;
  std::vector<T> edges;
  for (int k = -8; k <= 8; ++k) edges.push_back(static_cast<T>(k) / 4); // every edge of 16 bins over [-2, 2)
  edges.push_back(std::numeric_limits<T>::quiet_NaN());
  edges.push_back(-std::numeric_limits<T>::quiet_NaN());
  edges.push_back(std::numeric_limits<T>::infinity());
  edges.push_back(-std::numeric_limits<T>::infinity());
  edges.push_back(std::numeric_limits<T>::denorm_min());
  edges.push_back(-std::numeric_limits<T>::denorm_min());
  edges.push_back(std::nextafter(T(2), T(0)));
  edges.push_back(T(-0.0));
  for (std::int64_t n : capped_sizes(base_sizes)) {
    std::vector<T> x(static_cast<std::size_t>(n));
    std::mt19937 g(static_cast<unsigned>(n));
    std::uniform_real_distribution<T> u(T(-2.5), T(2.5));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = i % 3 == 0 ? edges[i / 3 % edges.size()] : u(g);
    for (int bins : {1, 16, 4096}) {
      INFO("n " << n << ", bins " << bins);
      require_equal(run_even<T, int, T>(x, bins, T(-2), T(2)),
                    reference_histogram_even<T, T>(x, bins, T(-2), T(2)));
    }
  }
}

TEST_CASE("histogram_even: every sample in one bin, and heavily skewed data", "[histogram]") {
  for (std::int64_t n : capped_sizes({1, 33, 4097, 1000003, (1 << 22) + 1})) {
    std::vector<std::uint32_t> x(static_cast<std::size_t>(n), 123456789u);
    for (int bins : {1, 256, 4096, 1 << 20}) {
      INFO("n " << n << ", bins " << bins);
      require_equal(run_even<std::uint32_t, std::uint32_t, std::uint32_t>(x, bins, 0u, 0xFFFFFFFFu),
                    reference_histogram_even<std::uint32_t, std::uint32_t>(x, bins, 0u, 0xFFFFFFFFu));
    }
    auto s = random_bits<std::uint32_t>(static_cast<std::size_t>(n), 77);
    for (std::size_t i = 0; i < s.size(); ++i)
      if (i % 10 != 0) s[i] = 5u; // 90 % in bin 0
    require_equal(run_even<std::uint32_t, int, std::uint32_t>(s, 256, 0u, 0xFFFFFFFFu),
                  reference_histogram_even<std::uint32_t, std::uint32_t>(s, 256, 0u, 0xFFFFFFFFu));
  }
}

TEST_CASE("histogram_even: unaligned samples take the element path", "[histogram]") {
  const auto x = random_bits<std::uint32_t>(100003, 9);
  device_buffer<std::uint32_t> d_x(x.size() + 1);
  std::vector<std::uint32_t> shifted(x.size() + 1);
  std::copy(x.begin(), x.end(), shifted.begin() + 1);
  d_x.upload(shifted);
  device_buffer<int> d_h(256);
  std::size_t bytes = 0;
  REQUIRE(carry::histogram_even(nullptr, bytes, d_x.ptr + 1, d_h.ptr, 256, 0u, 0xFFFFFFFFu, 100003) ==
          cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(carry::histogram_even(temp.ptr, bytes, d_x.ptr + 1, d_h.ptr, 256, 0u, 0xFFFFFFFFu, 100003) ==
          cudaSuccess);
  require_equal(d_h.download(256),
                reference_histogram_even<std::uint32_t, std::uint32_t>(x, 256, 0u, 0xFFFFFFFFu));
}

TEST_CASE("histogram_range: reference and CUB, integer and float levels", "[histogram]") {
  for (std::int64_t n : capped_sizes(base_sizes)) {
    const auto x = random_bits<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n + 1));
    for (int bins : {1, 7, 256, 4096}) {
      std::vector<std::uint32_t> levels(static_cast<std::size_t>(bins) + 1);
      std::mt19937 g(static_cast<unsigned>(bins));
      for (auto& l : levels) l = static_cast<std::uint32_t>(g() % 0xF0000000u);
      std::sort(levels.begin(), levels.end());
      levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
      const int nb = static_cast<int>(levels.size()) - 1;
      if (nb < 1) continue;
      INFO("n " << n << ", bins " << nb);
      device_buffer<std::uint32_t> d_x(x.size() + 1), d_l(levels.size());
      d_x.upload(x);
      d_l.upload(levels);
      device_buffer<int> d_h(static_cast<std::size_t>(nb), 4);
      d_h.poison();
      std::size_t bytes = 0;
      REQUIRE(carry::histogram_range(nullptr, bytes, d_x.ptr, d_h.ptr, nb, d_l.ptr, n) == cudaSuccess);
      device_buffer<unsigned char> temp(bytes);
      REQUIRE(carry::histogram_range(temp.ptr, bytes, d_x.ptr, d_h.ptr, nb, d_l.ptr, n) == cudaSuccess);
      const auto got = d_h.download(static_cast<std::size_t>(nb));
      REQUIRE(d_h.guard_intact());
      require_equal(got, reference_histogram_range<std::uint32_t, std::uint32_t>(x, levels));
      device_buffer<int> d_c(static_cast<std::size_t>(nb));
      std::size_t cb = 0;
      REQUIRE(cub_histogram_range(nullptr, cb, d_x.ptr, d_c.ptr, nb, d_l.ptr, n, 0) == cudaSuccess);
      device_buffer<unsigned char> ct(cb);
      REQUIRE(cub_histogram_range(ct.ptr, cb, d_x.ptr, d_c.ptr, nb, d_l.ptr, n, 0) == cudaSuccess);
      const auto cub = d_c.download(static_cast<std::size_t>(nb));
      REQUIRE(std::memcmp(got.data(), cub.data(), got.size() * sizeof(int)) == 0);
    }
  }
  // float levels with NaN and infinities among the samples
  std::vector<double> x = {-1.0, 0.0, 0.25, 0.5, 0.999, 1.0, std::nan(""), HUGE_VAL, -HUGE_VAL, 0.1};
  const std::vector<double> levels = {-1.0, 0.0, 0.25, 1.0};
  device_buffer<double> d_x(x.size()), d_l(levels.size());
  d_x.upload(x);
  d_l.upload(levels);
  device_buffer<std::uint64_t> d_h(3);
  std::size_t bytes = 0;
  REQUIRE(carry::histogram_range(nullptr, bytes, d_x.ptr, d_h.ptr, 3, d_l.ptr, 10) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(carry::histogram_range(temp.ptr, bytes, d_x.ptr, d_h.ptr, 3, d_l.ptr, 10) == cudaSuccess);
  const auto h = d_h.download(3);
  CHECK(h == std::vector<std::uint64_t>{1, 2, 3}); // [-1,0): -1; [0,.25): 0, 0.1; [.25,1): .25 .5 .999
}

TEST_CASE("histogram_offsets: the scan of the histogram, the total last", "[histogram]") {
  for (int bins : {1, 7, 256, 4096, 1 << 20})
    for (std::int64_t n : capped_sizes({1, 4097, 1000003})) {
      INFO("bins " << bins << ", n " << n);
      const auto x =
          random_bits<std::uint32_t>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n ^ bins));
      device_buffer<std::uint32_t> d_x(x.size());
      d_x.upload(x);
      device_buffer<std::uint64_t> d_o(static_cast<std::size_t>(bins) + 1, 4);
      d_o.poison();
      std::size_t bytes = 0;
      REQUIRE(carry::histogram_offsets(nullptr, bytes, d_x.ptr, d_o.ptr, bins, 0u, 0xFFFFFFFFu, n) ==
              cudaSuccess);
      device_buffer<unsigned char> temp(bytes);
      temp.poison();
      REQUIRE(carry::histogram_offsets(temp.ptr, bytes, d_x.ptr, d_o.ptr, bins, 0u, 0xFFFFFFFFu, n) ==
              cudaSuccess);
      const auto got = d_o.download(static_cast<std::size_t>(bins) + 1);
      REQUIRE(d_o.guard_intact());
      require_equal(got, reference_offsets(reference_histogram_even<std::uint32_t, std::uint32_t>(
                             x, bins, 0u, 0xFFFFFFFFu)));
    }
  // the worked example
  const std::vector<std::uint32_t> x = {3, 1, 7, 0, 4, 1, 6, 3};
  device_buffer<std::uint32_t> d_x(8);
  d_x.upload(x);
  device_buffer<std::uint32_t> d_o(5);
  std::size_t bytes = 0;
  REQUIRE(carry::histogram_offsets(nullptr, bytes, d_x.ptr, d_o.ptr, 4, 0u, 8u, 8) == cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  REQUIRE(carry::histogram_offsets(temp.ptr, bytes, d_x.ptr, d_o.ptr, 4, 0u, 8u, 8) == cudaSuccess);
  CHECK(d_o.download(5) == std::vector<std::uint32_t>{0, 3, 5, 6, 8});
  device_buffer<std::uint32_t> d_h(4);
  REQUIRE(carry::histogram_even(temp.ptr, bytes, d_x.ptr, d_h.ptr, 4, 0u, 8u, 8) == cudaSuccess);
  CHECK(d_h.download(4) == std::vector<std::uint32_t>{3, 2, 1, 2});
}

TEST_CASE("histograms: n = 0 writes zeros; bad arguments write nothing", "[histogram][empty]") {
  device_buffer<std::uint32_t> d_x(16), d_h(8), d_o(9);
  d_h.poison();
  std::size_t bytes = 0;
  REQUIRE(carry::histogram_even(nullptr, bytes, d_x.ptr, d_h.ptr, 8, 0u, 100u, 0) == cudaSuccess);
  device_buffer<unsigned char> temp(1 << 16);
  bytes = 1 << 16;
  REQUIRE(carry::histogram_even(temp.ptr, bytes, static_cast<const std::uint32_t*>(nullptr), d_h.ptr, 8, 0u,
                                100u, 0) == cudaSuccess);
  CHECK(d_h.download(8) == std::vector<std::uint32_t>(8, 0));
  d_o.poison();
  REQUIRE(carry::histogram_offsets(temp.ptr, bytes, d_x.ptr, d_o.ptr, 8, 0u, 100u, 0) == cudaSuccess);
  CHECK(d_o.download(9) == std::vector<std::uint32_t>(9, 0));
  // bad arguments: refused, the histogram untouched
  d_h.poison();
  const auto poisoned = d_h.download(8);
  CHECK(carry::histogram_even(temp.ptr, bytes, d_x.ptr, d_h.ptr, 0, 0u, 100u, 16) == cudaErrorInvalidValue);
  CHECK(carry::histogram_even(temp.ptr, bytes, d_x.ptr, d_h.ptr, (1 << 24) + 1, 0u, 100u, 16) ==
        cudaErrorInvalidValue);
  CHECK(carry::histogram_even(temp.ptr, bytes, d_x.ptr, d_h.ptr, 8, 100u, 100u, 16) == cudaErrorInvalidValue);
  CHECK(carry::histogram_even(temp.ptr, bytes, d_x.ptr, d_h.ptr, 8, 0u, 100u, -1) == cudaErrorInvalidValue);
  CHECK(carry::histogram_even(temp.ptr, bytes, static_cast<const std::uint32_t*>(nullptr), d_h.ptr, 8, 0u,
                              100u, 16) == cudaErrorInvalidValue);
  CHECK(carry::histogram_even(temp.ptr, bytes, d_x.ptr, static_cast<std::uint32_t*>(nullptr), 8, 0u, 100u,
                              16) == cudaErrorInvalidValue);
  CHECK(carry::histogram_even(temp.ptr, bytes, reinterpret_cast<const float*>(d_x.ptr), d_h.ptr, 8, 0.f,
                              INFINITY, 16) == cudaErrorInvalidValue);
  CHECK(carry::histogram_range(temp.ptr, bytes, d_x.ptr, d_h.ptr, 8,
                               static_cast<const std::uint32_t*>(nullptr), 16) == cudaErrorInvalidValue);
  std::size_t small = 0;
  REQUIRE(carry::histogram_offsets(nullptr, small, d_x.ptr, d_o.ptr, 8, 0u, 100u, 16) == cudaSuccess);
  small -= 1;
  d_o.poison();
  CHECK(carry::histogram_offsets(temp.ptr, small, d_x.ptr, d_o.ptr, 8, 0u, 100u, 16) ==
        cudaErrorInvalidValue);
  CARRY_CUDA_OR_DIE(cudaDeviceSynchronize());
  CHECK(d_h.download(8) == poisoned);
  CHECK(d_o.download(9) == std::vector<std::uint32_t>(9, 0xA5A5A5A5u));
}

TEST_CASE(
    "histograms over iterators: a transform of a counting iterator, a counting iterator of floats, against the CPU "
    "and CUB",
    "[histogram][iterators]") {
  const auto samples =
      thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0), hashed_sample{});
  for (int bins : {1, 7, 256, 4096, 1 << 16})
    for (std::int64_t n : capped_sizes({1, 17, 4097, 1000003, (1 << 22) + 5})) {
      INFO("bins " << bins << ", n " << n);
      std::vector<std::uint32_t> x(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = hashed_sample{}(static_cast<std::uint32_t>(i));
      const auto want = reference_histogram_even<std::uint32_t, std::uint32_t>(x, bins, 0u, 1u << 20);
      device_buffer<std::uint32_t> d_h(static_cast<std::size_t>(bins), 8),
          d_cub(static_cast<std::size_t>(bins));
      device_buffer<std::uint64_t> d_o(static_cast<std::size_t>(bins) + 1, 4);
      d_h.poison();
      d_o.poison();
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::histogram_even(t, b, samples, d_h.ptr, bins, 0u, 1u << 20, n);
      });
      require_equal(d_h.download(static_cast<std::size_t>(bins)), want);
      REQUIRE(d_h.guard_intact());
      run_two_phase([&](void* t, std::size_t& b) {
        return carry::histogram_offsets(t, b, samples, d_o.ptr, bins, 0u, 1u << 20, n);
      });
      require_equal(d_o.download(static_cast<std::size_t>(bins) + 1), reference_offsets(want));
      // CUB's HistogramEven over the same iterator (levels: bins + 1)
      std::size_t bytes = 0;
      auto cub = [&](void* t, std::size_t& b) {
        return cub::DeviceHistogram::HistogramEven(t, b, samples, d_cub.ptr, bins + 1, 0u, 1u << 20,
                                                   static_cast<int>(n));
      };
      REQUIRE(cub(nullptr, bytes) == cudaSuccess);
      device_buffer<unsigned char> temp(bytes);
      REQUIRE(cub(temp.ptr, bytes) == cudaSuccess);
      require_equal(d_cub.download(static_cast<std::size_t>(bins)), want);
    }
  // histogram_range over a counting iterator of floats: levels [0 2.5 5 100) over 0, 1, .., 9
  const std::vector<float> levels = {0.f, 2.5f, 5.f, 100.f};
  device_buffer<float> d_levels(4);
  d_levels.upload(levels);
  device_buffer<std::uint32_t> d_h(3);
  run_two_phase([&](void* t, std::size_t& b) {
    return carry::histogram_range(t, b, thrust::counting_iterator<float>(0.f), d_h.ptr, 3, d_levels.ptr, 10);
  });
  CHECK(d_h.download(3) == std::vector<std::uint32_t>{3, 2, 5});
}
