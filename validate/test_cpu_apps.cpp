// CPU tests of the histogram and slot-allocation helpers (issue 16): bin math exact for integers at the
// ends of every type's range, float edges, NaN and infinities, argument checks, the bounded allocator.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <carry/apps/detail/bin_math.hpp>
#include <carry/apps/detail/slot_math.hpp>

using namespace carry::apps_detail;

namespace {
/// floor((x - lower) * bins / (upper - lower)) in exact integer arithmetic, the slow way (long double
/// is not exact for 64-bit spans; this splits the product).
template <class T>
int reference_bin(T x, T lower, T upper, int bins) {
  if (x < lower || x >= upper) return -1;
  using U = std::make_unsigned_t<T>;
  const U off = static_cast<U>(static_cast<U>(x) - static_cast<U>(lower));
  const U span = static_cast<U>(static_cast<U>(upper) - static_cast<U>(lower));
  // the largest b with b * span <= off * bins, by binary search on b (each product checked in 128 bits)
  int lo = 0, hi = bins; // invariant: lo*span <= off*bins < hi*span
  const unsigned __int128 target = static_cast<unsigned __int128>(off) * static_cast<unsigned>(bins);
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (static_cast<unsigned __int128>(mid) * span <= target)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}
} // namespace

TEST_CASE("even bins: the worked example", "[apps]") {
  const even_bins<int> b{0, 10, 5};
  CHECK(b.bin_of(0) == 0);
  CHECK(b.bin_of(1) == 0);
  CHECK(b.bin_of(2) == 1);
  CHECK(b.bin_of(9) == 4);
  CHECK(b.bin_of(10) == -1);
  CHECK(b.bin_of(-1) == -1);
}

TEMPLATE_TEST_CASE("even bins: exact for integers over the whole range of the type", "[apps]", std::uint8_t,
                   std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, std::uint64_t, std::int64_t) {
  using T = TestType;
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  std::mt19937_64 g(sizeof(T) * 7 + std::is_signed<T>::value);
  for (int bins : {1, 7, 256, 4096, 1 << 20, 1 << 24}) {
    const even_bins<T> whole{lo, hi, bins};
    for (T x : {lo, static_cast<T>(lo + 1), static_cast<T>(hi - 1), hi, T(0), T(1)}) {
      INFO("bins " << bins << ", x " << static_cast<long long>(x));
      CHECK(whole.bin_of(x) == reference_bin<T>(x, lo, hi, bins));
    }
    for (int k = 0; k < 2000; ++k) {
      const T x = static_cast<T>(g());
      REQUIRE(whole.bin_of(x) == reference_bin<T>(x, lo, hi, bins));
    }
    // a random sub-range
    T a = static_cast<T>(g()), b = static_cast<T>(g());
    if (a > b) std::swap(a, b);
    if (a == b) continue;
    const even_bins<T> part{a, b, bins};
    for (int k = 0; k < 2000; ++k) {
      const T x = static_cast<T>(g());
      REQUIRE(part.bin_of(x) == reference_bin<T>(x, a, b, bins));
    }
    CHECK(part.bin_of(a) == 0);
    CHECK(part.bin_of(b) == -1);
    CHECK(part.bin_of(static_cast<T>(b - 1)) == reference_bin<T>(static_cast<T>(b - 1), a, b, bins));
  }
  // the last value below upper lands in the last bin when the span divides evenly
  CHECK(even_bins<T>{T(0), T(100), 10}.bin_of(T(99)) == 9);
}

TEMPLATE_TEST_CASE("even bins: floating point edges, NaN, infinities", "[apps]", float, double) {
  using T = TestType;
  const even_bins<T> b{T(-1), T(1), 4}; // edges at -1, -0.5, 0, 0.5, 1
  CHECK(b.bin_of(T(-1)) == 0);
  CHECK(b.bin_of(T(-0.5)) == 1);
  CHECK(b.bin_of(T(0)) == 2);
  CHECK(b.bin_of(T(-0.0)) == 2);
  CHECK(b.bin_of(T(0.5)) == 3);
  CHECK(b.bin_of(std::nextafter(T(1), T(0))) == 3); // just below upper: the last bin, never past it
  CHECK(b.bin_of(T(1)) == -1);
  CHECK(b.bin_of(std::nextafter(T(-1), T(-2))) == -1);
  CHECK(b.bin_of(std::numeric_limits<T>::quiet_NaN()) == -1);
  CHECK(b.bin_of(std::numeric_limits<T>::infinity()) == -1);
  CHECK(b.bin_of(-std::numeric_limits<T>::infinity()) == -1);
  // many bins: every sample in [lower, upper) gets a bin in range
  const even_bins<T> many{T(0), T(1), 1 << 24};
  std::mt19937 g(5);
  for (int k = 0; k < 10000; ++k) {
    const T x = std::uniform_real_distribution<T>(T(0), T(1))(g);
    const int bin = many.bin_of(x);
    REQUIRE(bin >= 0);
    REQUIRE(bin < (1 << 24));
  }
}

TEST_CASE("range bins: binary search over the levels", "[apps]") {
  const int levels[] = {0, 2, 5, 9};
  CHECK(range_bin_of(levels, 3, 1) == 0);
  CHECK(range_bin_of(levels, 3, 2) == 1);
  CHECK(range_bin_of(levels, 3, 8) == 2);
  CHECK(range_bin_of(levels, 3, 9) == -1);
  CHECK(range_bin_of(levels, 3, -1) == -1);
  const double lv[] = {-1.0, 0.0, 0.25, 1.0};
  CHECK(range_bin_of(lv, 3, 0.25) == 2);
  CHECK(range_bin_of(lv, 3, std::nan("")) == -1);
  // one bin
  CHECK(range_bin_of(levels, 1, 1) == 0);
  CHECK(range_bin_of(levels, 1, 2) == -1);
}

TEST_CASE("histogram argument checks", "[apps]") {
  CHECK(check_even_bins<int>(0, 0, 10) == bin_error::bad_count);
  CHECK(check_even_bins<int>(max_bins + 1, 0, 10) == bin_error::bad_count);
  CHECK(check_even_bins<int>(max_bins, 0, 10) == bin_error::none);
  CHECK(check_even_bins<int>(5, 10, 10) == bin_error::empty_range);
  CHECK(check_even_bins<int>(5, 11, 10) == bin_error::empty_range);
  CHECK(check_even_bins<float>(5, 0.f, std::numeric_limits<float>::infinity()) == bin_error::not_finite);
  CHECK(check_even_bins<double>(5, std::nan(""), 1.0) == bin_error::not_finite);
  CHECK(check_even_bins<double>(1, -1.0, 1.0) == bin_error::none);
  const int ok[] = {0, 1, 5}, flat[] = {0, 5, 5};
  const float inf[] = {0.f, std::numeric_limits<float>::infinity()};
  CHECK(check_range_levels(ok, 2) == bin_error::none);
  CHECK(check_range_levels(flat, 2) == bin_error::empty_range);
  CHECK(check_range_levels(inf, 1) == bin_error::not_finite);
  CHECK(check_range_levels(ok, 0) == bin_error::bad_count);
}

TEST_CASE("bounded slots: the fit rule, the sentinel, no overflow", "[apps]") {
  using O = std::uint64_t;
  CHECK(slots_fit<O, std::uint32_t>(4, 6, 10));
  CHECK_FALSE(slots_fit<O, std::uint32_t>(4, 7, 10));
  CHECK_FALSE(slots_fit<O, std::uint32_t>(11, 0, 10));
  CHECK(slots_fit<O, std::uint32_t>(10, 0, 10));
  CHECK(bounded_offset<O, std::uint32_t>(4, 7, 10) == slot_sentinel<O>());
  CHECK(bounded_offset<O, std::uint32_t>(4, 6, 10) == 4);
  // a request near the type's limit never wraps into fitting
  CHECK_FALSE(slots_fit<O, std::uint64_t>(5, std::numeric_limits<std::uint64_t>::max() - 2, 10));
  CHECK_FALSE(slots_fit<std::uint32_t, std::uint64_t>(0, std::uint64_t{1} << 40, 0xffffffffu));
  // u32 requests, u64 offsets: totals past 2^32 stay exact
  CHECK(slots_fit<O, std::uint32_t>(std::uint64_t{5} << 32, 0xffffffffu, (std::uint64_t{6} << 32)));
  // the items that fit are a prefix: ends of non-negative requests do not decrease
  const std::uint32_t req[] = {3, 5, 2, 7, 28, 4, 3, 0, 8, 1}; // the seed's sandwich: 61 inches asked
  O offset = 0;
  int fitted = 0;
  bool seen_miss = false;
  for (std::uint32_t r : req) {
    const bool fit = slots_fit<O, std::uint32_t>(offset, r, 100);
    CHECK(!(fit && seen_miss));
    seen_miss |= !fit;
    fitted += fit;
    offset += r;
  }
  CHECK(fitted == 10);
  CHECK(100 - offset == 39); // 39 inches of the 100-inch loaf left
}
