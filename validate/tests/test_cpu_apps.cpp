// CPU tests of the histogram and slot-allocation helpers (bin math exact for integers at the ends of every
// type's range, float edges, NaN and infinities, argument checks, the bounded allocator) and of the
// distributed layer's plan (carry-ins, shard offsets, even shards).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>

#include <carry/apps/detail/bin_math.hpp>
#include <carry/apps/detail/plan.hpp>
#include <carry/apps/detail/slot_math.hpp>

using namespace carry::apps_detail;

namespace {
/// A small deterministic generator of the plan tests' random shapes: below(n) in [0, n).
struct lcg {
  std::uint64_t seed;
  std::int64_t below(std::int64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::int64_t>((seed >> 33) % static_cast<std::uint64_t>(n));
  }
};

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
                   std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t, std::uint64_t,
                   std::int64_t) {
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

TEST_CASE("even bins: samples and bounds of different types (u8 samples over int [0, 256))", "[apps]") {
  const even_bins<std::uint8_t, int> b(0, 256, 256);
  for (int x = 0; x < 256; ++x) REQUIRE(b.bin_of(static_cast<std::uint8_t>(x)) == x);
  const even_bins<std::uint8_t, int> q(0, 256, 7);
  for (int x = 0; x < 256; ++x) REQUIRE(q.bin_of(static_cast<std::uint8_t>(x)) == x * 7 / 256);
  const even_bins<std::int16_t, long long> w(-40000, 40000, 3); // 64-bit bounds: the 128-bit path
  CHECK(w.bin_of(-32768) == (static_cast<long long>(-32768 + 40000) * 3) / 80000);
  CHECK(w.bin_of(32767) == (static_cast<long long>(32767 + 40000) * 3) / 80000);
  const even_bins<std::uint32_t, double> f(0.0, 10.0, 5); // float bounds: the double path
  CHECK(f.bin_of(9u) == 4);
  CHECK(f.bin_of(10u) == -1);
}

TEST_CASE("even bins: the reciprocal path equals plain division on every span shape", "[apps]") {
  std::mt19937_64 g(3);
  for (int k = 0; k < 200000; ++k) {
    const auto lo = static_cast<std::uint32_t>(g()), hi = static_cast<std::uint32_t>(g());
    if (lo >= hi) continue;
    const int bins = 1 + static_cast<int>(g() % (1u << 24));
    const even_bins<std::uint32_t> b(lo, hi, bins);
    const std::uint32_t x = lo + static_cast<std::uint32_t>(g() % (std::uint64_t{hi} - lo));
    const std::uint64_t want =
        (std::uint64_t{x} - lo) * static_cast<std::uint64_t>(bins) / (std::uint64_t{hi} - lo);
    REQUIRE(b.bin_of(x) == static_cast<int>(want));
  }
}

TEST_CASE("range bins: samples and levels of different types", "[apps]") {
  const int levels[] = {-5, 0, 200, 300};
  CHECK(range_bin_of(levels, 3, std::uint8_t{0}) == 1);
  CHECK(range_bin_of(levels, 3, std::uint8_t{255}) == 2);
  CHECK(range_bin_of(levels, 3, std::uint64_t{1} << 40) == -1);
  CHECK(range_bin_of(levels, 3, std::int64_t{-5}) == 0);
  const float fl[] = {0.f, 0.5f, 1.f};
  CHECK(range_bin_of(fl, 2, 0.75) == 1);
}

TEST_CASE("bin_by_key helpers: clamped bins, digit passes, plans, layouts", "[apps]") {
  CHECK(clamp_bin(-3, 5) == 0);
  CHECK(clamp_bin(2, 5) == 2);
  CHECK(clamp_bin(9, 5) == 4);
  CHECK(clamp_bin(0, 1) == 0);
  // the 32-bit form agrees with clamp_bin wherever a bin is unsigned
  CHECK(clamp_bin_unsigned(2, 5) == 2);
  CHECK(clamp_bin_unsigned(9, 5) == 4);
  CHECK(clamp_bin_unsigned(0xFFFFFFFFu, 5) == 4);
  CHECK(clamp_bin_unsigned(0, 1) == 0);
  CHECK(clamp_bin_unsigned(255, 256) == 255);
  CHECK(clamp_bin_unsigned(256, 256) == 255);
  for (unsigned b : {0u, 1u, 4u, 5u, 6u, 255u, 256u, 65535u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu})
    for (int bins : {1, 2, 5, 256, 257, 1 << 24})
      CHECK(clamp_bin_unsigned(b, bins) == clamp_bin(static_cast<long long>(b), bins));
  CHECK(digit_passes(1, 8) == 1);
  CHECK(digit_passes(256, 8) == 1);
  CHECK(digit_passes(257, 8) == 2);
  CHECK(digit_passes(65536, 8) == 2);
  CHECK(digit_passes(65537, 8) == 3);
  CHECK(digit_passes(1 << 24, 8) == 3);
  const bin_plan p = plan_bins(std::int64_t{1} << 28, 4096, 256);
  CHECK(p.tiles.num_tiles == 65536);
  CHECK(p.grid == 1024);
  CHECK(p.tiles_per_block == 64);
  CHECK(p.passes == 1);
  // every tile belongs to exactly one block, in order, no block empty
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{4095}, std::int64_t{4097}, std::int64_t{5000000},
                         (std::int64_t{1} << 31) + 5}) {
    const bin_plan q = plan_bins(n, 4096, 1000);
    INFO("n " << n);
    CHECK(q.passes == 2);
    CHECK(q.first_tile(0) == 0);
    CHECK(q.last_tile(q.grid - 1) == q.tiles.num_tiles);
    for (std::int64_t b = 0; b < q.grid; ++b) {
      REQUIRE(q.first_tile(b) < q.last_tile(b));
      if (b > 0) REQUIRE(q.first_tile(b) == q.last_tile(b - 1));
    }
    CHECK(q.grid <= carry::radix_tuning::default_policy::three_grid_max);
  }
  const bin_layout one = make_bin_layout(p, 256, 4, 4, 5000, 0);
  CHECK(one.counts.bytes == 256 * 1024 * 8);
  CHECK(one.keys.bytes == 0);
  const bin_plan two = plan_bins(1000000, 4096, 4096);
  const bin_layout l2 = make_bin_layout(two, 4096, 4, 8, 5000, 700);
  CHECK(l2.keys.bytes == 4000000);
  CHECK(l2.values.bytes == 8000000);
  CHECK(l2.bin_counts.bytes == 4097 * 8);
  CHECK(l2.allocation >= l2.bin_scan.offset + l2.bin_scan.bytes + 255);
  for (auto part : {l2.counts, l2.scan, l2.keys, l2.values, l2.bin_counts, l2.bin_scan})
    CHECK(part.offset % 256 == 0);
}

TEST_CASE("bin_by_key's one-pass form: when, and its temp layout", "[apps]") {
  CHECK(bin_by_onesweep(1));
  CHECK(bin_by_onesweep(256));
  CHECK_FALSE(bin_by_onesweep(257));
  CHECK_FALSE(bin_by_onesweep(max_bins));
  // 2^28 pairs in tiles of 4096: one portion of 65536 tiles, one pass, no n-sized scratch
  const bin_onesweep_layout l = make_bin_onesweep_layout(std::int64_t{1} << 28, 4096, 4, 4, 3000);
  CHECK(l.sort.passes == 1);
  CHECK(l.sort.tiles.num_tiles == 65536);
  CHECK(l.sort.portions == 1);
  CHECK(l.sort.alt_keys.bytes == 0);
  CHECK(l.sort.alt_values.bytes == 0);
  CHECK(l.sort.hist.bytes == 256 * 8);      // the bin counts, scanned into
  CHECK(l.sort.bases.bytes == 2 * 256 * 8); // portion 0's digit offsets and the next portion's
  CHECK_FALSE(l.sort.clear_once);           // 64 MB of look-back words: cleared by the call's memset
  CHECK(l.sort.alternate);
  CHECK(l.sort.state_sets == 1); // one pass: one set
  CHECK(l.sort.cleared().offset + l.sort.cleared().bytes == l.sort.state.offset + l.sort.state_set_bytes);
  CHECK(l.nested.bytes == l.sort.allocation);
  CHECK(l.scan.offset >= l.nested.offset + l.nested.bytes);
  CHECK(l.scan.bytes == 3000);
  CHECK(l.allocation >= l.scan.offset + l.scan.bytes + 255);
  // more than a portion: several launches; the sort layout's parts stay inside the nested part
  const bin_onesweep_layout big = make_bin_onesweep_layout((std::int64_t{1} << 31) + 5, 4096, 1, 0, 100);
  CHECK(big.sort.portions == 5); // 2^29 keys a portion
  CHECK_FALSE(big.sort.alternate);
  CHECK(big.sort.state.offset + big.sort.state.bytes <= big.nested.bytes);
  CHECK(big.sort.bases.offset + big.sort.bases.bytes <= big.nested.bytes);
  // small: every look-back word cleared by the call's first memset
  const bin_onesweep_layout small = make_bin_onesweep_layout(5000, 4096, 4, 0, 100);
  CHECK(small.sort.tiles.num_tiles == 2);
  CHECK(small.sort.clear_once);
  // empty: no sort parts (and no division by an empty portion)
  const bin_onesweep_layout none = make_bin_onesweep_layout(0, 4096, 4, 4, 100);
  CHECK(none.sort.tiles.num_tiles == 0);
  CHECK(none.sort.state.bytes == 0);
  CHECK(none.allocation >= none.scan.offset + none.scan.bytes);
}

TEST_CASE("histogram planning: path, shared bytes, grid", "[apps]") {
  CHECK(choose_histogram_path(0, 256, 0, 227 * 1024) == histogram_path::empty);
  CHECK(choose_histogram_path(10, 256, 0, 227 * 1024) == histogram_path::shared);
  CHECK(choose_histogram_path(10, 48 * 1024, 0, 227 * 1024) == histogram_path::shared);
  CHECK(choose_histogram_path(10, 48 * 1024 + 1, 0, 227 * 1024) == histogram_path::global);
  CHECK(choose_histogram_path(10, 1 << 20, 0, 227 * 1024) == histogram_path::global);
  CHECK(choose_histogram_path(10, 40000, 8, 227 * 1024) ==
        histogram_path::global); // 160 KB + 320 KB of levels
  CHECK(choose_histogram_path(10, 4096, 8, 227 * 1024) == histogram_path::shared);
  CHECK(histogram_smem_bytes(7, 0) == 32);
  CHECK(histogram_smem_bytes(7, 4) == 32 + 32);
  CHECK(histogram_grid(std::int64_t{1} << 28, 4, 256, 1056) == 1056);
  CHECK(histogram_grid(1000, 4, 256, 1056) == 1);
  CHECK(histogram_grid(1, 1, 256, 1056) == 1);
  CHECK(histogram_grid(std::int64_t{1} << 42, 4, 256, 1056) == 2048); // no block counts past 2^31 samples
}

TEST_CASE("apps argument checks: histogram, bin_by_key, slots", "[apps]") {
  int x = 0;
  CHECK(check_histogram_args(&x, &x, 10, bin_error::none) == arg_error::none);
  CHECK(check_histogram_args(nullptr, &x, 0, bin_error::none) == arg_error::none);
  CHECK(check_histogram_args(&x, nullptr, 0, bin_error::none) == arg_error::null_output);
  CHECK(check_histogram_args(nullptr, &x, 10, bin_error::none) == arg_error::null_input);
  CHECK(check_histogram_args(&x, &x, -1, bin_error::none) == arg_error::negative_count);
  CHECK(check_histogram_args(&x, &x, 10, bin_error::bad_count) != arg_error::none);
  CHECK(check_histogram_args(&x, &x, 0, bin_error::empty_range) != arg_error::none);
  CHECK(check_bin_args(&x, &x, true, true, 256, 10, 100, 100) == arg_error::none);
  CHECK(check_bin_args(&x, &x, true, true, 0, 10, 100, 100) != arg_error::none);
  CHECK(check_bin_args(&x, &x, true, true, max_bins + 1, 10, 100, 100) != arg_error::none);
  CHECK(check_bin_args(&x, &x, false, true, 256, 10, 100, 100) != arg_error::none);
  CHECK(check_bin_args(nullptr, &x, true, true, 256, 10, 100, 100) == arg_error::null_input);
  CHECK(check_bin_args(&x, nullptr, true, true, 256, 10, 100, 100) == arg_error::null_output);
  CHECK(check_bin_args(&x, &x, true, true, 256, 10, 99, 100) == arg_error::temp_too_small);
  CHECK(check_bin_args(nullptr, nullptr, true, true, 256, 0, 0, 100) == arg_error::none);
  CHECK(check_bin_args(&x, &x, true, true, 256, -1, 100, 100) == arg_error::negative_count);
  CHECK(check_slots_args(&x, &x, &x, nullptr, false, 10, 1, 1, 1) == arg_error::none);
  CHECK(check_slots_args(&x, &x, &x, nullptr, true, 10, 1, 1, 1) == arg_error::null_output);
  CHECK(check_slots_args(nullptr, nullptr, &x, nullptr, false, 0, 0, 1, 0) == arg_error::none);
  CHECK(check_slots_args(nullptr, nullptr, nullptr, nullptr, false, 0, 0, 1, 0) == arg_error::null_output);
  CHECK(check_slots_args(nullptr, &x, &x, nullptr, false, 10, 1, 1, 1) == arg_error::null_input);
  CHECK(check_slots_args(&x, nullptr, &x, nullptr, false, 10, 1, 1, 1) == arg_error::null_output);
  CHECK(check_slots_args(&x, &x, &x, nullptr, false, 10, 1, 2, 3) == arg_error::temp_too_small);
  CHECK(check_slots_args(&x, &x, &x, nullptr, false, -1, 1, 1, 1) == arg_error::negative_count);
  CHECK(make_slots_layout(1, 16, false).allocation == 1);
  CHECK(make_slots_layout(1, 16, true).allocation > 16); // the staged pass takes a ticket on one tile too
  CHECK(make_slots_layout(100, 16, true).allocation > 100 * 16);
  const offsets_layout o = make_offsets_layout(256, 4, 1000);
  CHECK(o.counts.bytes == 257 * 4);
  CHECK(o.scan.offset == 1280);
}

// ---- the distributed layer's arithmetic (apps/distributed/detail/plan.hpp) ----

#include <carry/apps/distributed/detail/plan.hpp>

namespace {
struct cat_op { // string-like concatenation of digits: associative, not commutative
  std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a * 10 + b; }
};
} // namespace

TEST_CASE("dist plan: carry-ins fold the earlier ranks left to right, absent totals skipped", "[cpu][dist]") {
  using carry::dist::detail::maybe;
  const maybe<std::uint64_t> totals[5] = {{1, 1}, {0, 0}, {2, 1}, {3, 1}, {9, 0}};
  const maybe<std::uint64_t> none{0, 0}, seed{7, 1};
  CHECK(carry::dist::detail::fold_before(totals, 0, none, cat_op{}).has == 0); // rank 0: no carry-in
  CHECK(carry::dist::detail::fold_before(totals, 1, none, cat_op{}).value == 1);
  CHECK(carry::dist::detail::fold_before(totals, 2, none, cat_op{}).value == 1); // rank 1 was empty
  CHECK(carry::dist::detail::fold_before(totals, 4, none, cat_op{}).value == 123);
  CHECK(carry::dist::detail::fold_before(totals, 4, seed, cat_op{}).value == 7123); // the init first
  CHECK(carry::dist::detail::fold_before(totals, 0, seed, cat_op{}).value == 7);
  const maybe<std::uint64_t> empties[3] = {{0, 0}, {0, 0}, {0, 0}};
  CHECK(carry::dist::detail::fold_before(empties, 3, none, cat_op{}).has == 0);
  // the lifted operator: absent is the identity on either side
  const carry::dist::detail::maybe_op<cat_op> op{cat_op{}};
  CHECK(op(maybe<std::uint64_t>{4, 1}, maybe<std::uint64_t>{5, 1}).value == 45);
  CHECK(op(maybe<std::uint64_t>{4, 0}, maybe<std::uint64_t>{5, 1}).value == 5);
  CHECK(op(maybe<std::uint64_t>{4, 1}, maybe<std::uint64_t>{5, 0}).value == 4);
  CHECK(op(maybe<std::uint64_t>{4, 0}, maybe<std::uint64_t>{5, 0}).has == 0);
}

TEST_CASE("dist plan: shard offsets from counts, even shards", "[cpu][dist]") {
  const std::int64_t counts[4] = {5, 0, 7, 1};
  const auto s2 = carry::dist::detail::shard_of(counts, 4, 2);
  CHECK(s2.count == 7);
  CHECK(s2.offset == 5);
  CHECK(s2.total == 13);
  CHECK(carry::dist::detail::shard_of(counts, 4, 0).offset == 0);
  CHECK(carry::dist::detail::shard_of(counts, 4, 3).offset == 12);
  for (std::int64_t total : {std::int64_t{0}, std::int64_t{1}, std::int64_t{10}, std::int64_t{1} << 33})
    for (int ranks : {1, 2, 3, 4, 7}) {
      std::int64_t next = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto s = carry::dist::detail::even_shard(total, ranks, r);
        CHECK(s.begin == next); // contiguous, in rank order
        CHECK(s.end - s.begin >= total / ranks);
        CHECK(s.end - s.begin <= total / ranks + 1);
        next = s.end;
      }
      CHECK(next == total);
    }
}

#include <carry/apps/distributed/detail/sort_plan.hpp>

namespace {
struct coding_rows { // a policy's coding rows, apart from the shipped ones
  static constexpr int dist_delta_keys_from_ranks = 3, dist_delta_pairs_from_ranks = 8;
  static constexpr int dist_exchange_slices_keys = 3, dist_exchange_slices_pairs = 1,
                       dist_exchange_slices_pairs_many = 1;
  static constexpr bool dist_delta_beside_slices = false;
};
struct coding_beside_rows : coding_rows { // coded in one piece on a side stream too
  static constexpr bool dist_delta_beside_slices = true;
};
struct slice_rows { // the same for the slices of an exchange
  static constexpr int dist_exchange_slices_keys = 3, dist_exchange_slices_pairs = 2,
                       dist_exchange_slices_pairs_many = 4;
};

using carry::dist::detail::sort_sample;

/// A sample in the model: the key as ordered, and the items it stands for (its shard's count over its samples).
struct weighted_sample {
  sort_sample at;
  double weight = 1;
};

/// The splitter rule's model in doubles: the ranks - 1 splitters, the samples ordered by (image, index),
/// splitter j the first at which the samples' weights (the items each stands for) reach j / ranks of
/// their sum, so shards of different sizes weigh as many items as they hold. The device's rule
/// (sample_weight_fixed, splitter_target, first_past over carry's sort of the samples) must pick the same.
std::vector<sort_sample> choose_splitters(std::vector<weighted_sample> samples, int ranks) {
  std::sort(samples.begin(), samples.end(), [](const weighted_sample& a, const weighted_sample& b) {
    return carry::dist::detail::before(a.at, b.at);
  });
  double total = 0;
  for (const auto& x : samples) total += x.weight;
  std::vector<sort_sample> out;
  double seen = 0;
  std::size_t at = 0;
  for (int j = 1; j < ranks; ++j) {
    const double target = total * j / ranks;
    while (at < samples.size() && seen + samples[at].weight <= target) seen += samples[at++].weight;
    if (at < samples.size())
      out.push_back(samples[at].at);
    else
      out.push_back(sort_sample{~std::uint64_t{0}, INT64_MAX}); // nothing left: nothing past it
  }
  return out;
}
} // namespace

TEST_CASE("dist sort: which exchanges code their keys (the policy's rank counts, or the caller's choice)",
          "[cpu][dist]") {
  using carry::dist::detail::codes_keys;
  using carry::dist::detail::key_coding;
  for (bool pairs : {false, true}) {
    const int from = pairs ? 8 : 3;
    for (int ranks = 1; ranks <= 16; ++ranks) {
      INFO("ranks " << ranks << (pairs ? ", pairs" : ", keys"));
      REQUIRE(codes_keys<coding_rows>(key_coding::by_policy, ranks, pairs) == (ranks >= from && ranks >= 2));
      REQUIRE(codes_keys<coding_rows>(key_coding::delta, ranks, pairs) ==
              (ranks >= 2)); // one rank exchanges nothing
      REQUIRE_FALSE(codes_keys<coding_rows>(key_coding::raw, ranks, pairs));
      // lent a side stream: raw where the raw exchange would go in slices (keys: 3 up to four ranks)
      const bool sliced = !pairs && ranks >= 2 && ranks <= 4;
      REQUIRE(codes_keys<coding_rows>(key_coding::by_policy, ranks, pairs, true) ==
              (ranks >= from && ranks >= 2 && !sliced));
      REQUIRE(codes_keys<coding_rows>(key_coding::by_policy, ranks, pairs, true, 1) ==
              (ranks >= from && ranks >= 2)); // asked for one slice: coded as without a side stream
      REQUIRE(codes_keys<coding_rows>(key_coding::by_policy, ranks, pairs, true, 2) ==
              (ranks >= from && ranks >= 2 && !(ranks <= 4)));
      REQUIRE(codes_keys<coding_beside_rows>(key_coding::by_policy, ranks, pairs, true) ==
              (ranks >= from && ranks >= 2));
      REQUIRE(codes_keys<coding_rows>(key_coding::delta, ranks, pairs, true) == (ranks >= 2));
      REQUIRE_FALSE(codes_keys<coding_rows>(key_coding::raw, ranks, pairs, true));
    }
  }
  using shipped = carry::apps_tuning::default_policy;
  REQUIRE(carry::dist::detail::codes_keys(key_coding::by_policy, 4, false)); // keys from 4 ranks coded
  REQUIRE(
      carry::dist::detail::codes_keys(key_coding::by_policy, 4, false, true) ==
      (shipped::dist_exchange_slices_keys == 1 || shipped::dist_delta_beside_slices)); // beside a side stream
  REQUIRE(carry::dist::detail::codes_keys(key_coding::by_policy, 4, true, true) ==
          (shipped::dist_exchange_slices_pairs_many == 1 || shipped::dist_delta_beside_slices)); // pairs
}

TEST_CASE("dist sort: the slices of a raw exchange (the policy's counts, or the caller's)", "[cpu][dist]") {
  using carry::dist::detail::exchange_slices;
  for (bool pairs : {false, true})
    for (int ranks = 1; ranks <= 9; ++ranks) {
      INFO("ranks " << ranks << (pairs ? ", pairs" : ", keys"));
      const bool sliced = ranks >= 2 && ranks <= 4; // one rank sends nothing; past four: no tree buffers
      REQUIRE(exchange_slices<slice_rows>(ranks, false, pairs, 0) ==
              (sliced ? (pairs ? (ranks > 2 ? 4 : 2) : 3) : 1)); // pairs: two ranks, or three or four
      REQUIRE(exchange_slices<slice_rows>(ranks, false, pairs, 7) == (sliced ? 7 : 1));
      REQUIRE(exchange_slices<slice_rows>(ranks, false, pairs, 1000) == (sliced ? 64 : 1));
      REQUIRE(exchange_slices<slice_rows>(ranks, true, pairs, 7) == 1); // coded keys travel in one piece
    }
  using shipped = carry::apps_tuning::default_policy;
  REQUIRE(exchange_slices(2, false, false, 0) == shipped::dist_exchange_slices_keys);
  REQUIRE(exchange_slices(2, false, true, 0) == shipped::dist_exchange_slices_pairs);
  REQUIRE(exchange_slices(4, false, true, 0) == shipped::dist_exchange_slices_pairs_many);
}

TEST_CASE(
    "dist sort plan: the device's splitter rule (fixed-point weights) picks what choose_splitters picks",
    "[cpu][dist]") {
  using carry::dist::detail::sort_sample;
  namespace dd = carry::dist::detail;
  // targets: exact floors, no overflow near 2^63
  for (std::uint64_t total :
       {std::uint64_t{0}, std::uint64_t{7}, std::uint64_t{1} << 40, ~std::uint64_t{0} >> 1})
    for (int ranks : {2, 3, 7, 64, 65536})
      for (int j : {1, ranks / 2, ranks - 1}) {
        const auto want = static_cast<std::uint64_t>(static_cast<unsigned __int128>(total) *
                                                     static_cast<unsigned>(j) / static_cast<unsigned>(ranks));
        REQUIRE(dd::splitter_target(total, j, ranks) == want);
      }
  CHECK(dd::sample_weight_fixed(300, 4) == (std::uint64_t{75} << dd::sample_weight_bits));
  CHECK(dd::sample_weight_fixed(0, 0) == 0);
  // shards of count = taken x m (integral weights, exact in doubles): the host rule in doubles and the
  // device's (stable order of the gathered samples by image, fixed-point prefix, first past the target)
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    const int ranks = 2 + static_cast<int>(rng() % 9);
    std::vector<weighted_sample> host;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> gathered; // (image, fixed weight), in rank order
    std::vector<std::int64_t> index_of;                            // each gathered sample's global index
    std::int64_t first = 0;
    for (int q = 0; q < ranks; ++q) {
      const std::int64_t taken = static_cast<std::int64_t>(rng() % 6),
                         m = 1 + static_cast<std::int64_t>(rng() % 50);
      std::vector<std::uint64_t> im(static_cast<std::size_t>(taken));
      for (auto& x : im) x = rng() % (round % 2 ? 4 : 1000); // few images: ties across ranks
      std::sort(im.begin(), im.end());
      for (std::int64_t k = 0; k < taken; ++k) {
        const std::int64_t idx = first + k * m;
        host.push_back({{im[static_cast<std::size_t>(k)], idx}, static_cast<double>(m)});
        gathered.push_back({im[static_cast<std::size_t>(k)], dd::sample_weight_fixed(taken * m, taken)});
        index_of.push_back(idx);
      }
      first += taken * m;
    }
    std::vector<std::size_t> order(gathered.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return gathered[a].first < gathered[b].first; });
    std::vector<std::uint64_t> prefix;
    std::uint64_t run = 0;
    for (std::size_t i : order) prefix.push_back(run += gathered[i].second);
    const auto want = choose_splitters(host, ranks);
    for (int j = 1; j < ranks; ++j) {
      INFO("round " << round << ", ranks " << ranks << ", splitter " << j);
      const std::int64_t at = dd::first_past(prefix.data(), static_cast<std::int64_t>(prefix.size()),
                                             dd::splitter_target(run, j, ranks));
      if (at == static_cast<std::int64_t>(prefix.size())) {
        REQUIRE(want[static_cast<std::size_t>(j - 1)].index == INT64_MAX);
      } else {
        const std::size_t g = order[static_cast<std::size_t>(at)];
        REQUIRE(want[static_cast<std::size_t>(j - 1)].image == gathered[g].first);
        REQUIRE(want[static_cast<std::size_t>(j - 1)].index == index_of[g]);
      }
    }
  }
}

TEST_CASE("dist sort plan: the gathered sample blocks (counts, samples, weights, first global indices)",
          "[cpu][dist]") {
  namespace dd = carry::dist::detail;
  // shards of 5000, 10, 0 and 1024 items, laid out as sample_kernel writes them: a block a rank
  const std::vector<std::int64_t> counts{5000, 10, 0, 1024};
  const int ranks = static_cast<int>(counts.size());
  std::vector<dd::sample_slot> all(static_cast<std::size_t>(ranks) * (1 + dd::sort_samples));
  for (int q = 0; q < ranks; ++q) {
    dd::sample_slot* b = all.data() + static_cast<std::size_t>(q) * (1 + dd::sort_samples);
    b[0] = {0, counts[static_cast<std::size_t>(q)]};
    const std::int64_t taken = std::min<std::int64_t>(counts[static_cast<std::size_t>(q)], dd::sort_samples);
    for (int k = 0; k < dd::sort_samples; ++k)
      b[1 + k] =
          k < taken ? dd::sample_slot{static_cast<std::uint64_t>(q * 100000 + k), k} : dd::sample_slot{0, -1};
  }
  // every rank's first global index as the device computes it: the inclusive sum of block_count over the
  // blocks read as whole elements (into first[1..ranks]; first[0] = 0)
  const auto* blocks = reinterpret_cast<const dd::sample_block*>(all.data());
  std::vector<std::int64_t> first(static_cast<std::size_t>(ranks));
  std::transform_inclusive_scan(blocks, blocks + ranks, first.begin(), std::plus<>{}, dd::block_count{});
  CHECK(first == std::vector<std::int64_t>{5000, 5010, 5010, 6034});
  for (int q = 0; q < ranks; ++q) {
    INFO("rank " << q);
    const std::int64_t count = counts[static_cast<std::size_t>(q)];
    REQUIRE(dd::gathered_count(all.data(), q) == count);
    REQUIRE(dd::block_count{}(blocks[q]) == count); // a block read as one element: its count
    std::uint64_t weights = 0;
    for (int k = 0; k < dd::sort_samples; ++k) {
      const std::uint32_t slot = static_cast<std::uint32_t>(q * dd::sort_samples + k);
      const dd::sample_slot& s = dd::gathered_sample(all.data(), slot);
      const bool taken = k < std::min<std::int64_t>(count, dd::sort_samples);
      REQUIRE(s.index == (taken ? k : -1));
      if (taken) REQUIRE(s.image == static_cast<std::uint64_t>(q * 100000 + k));
      const std::uint64_t w = dd::slot_weight{all.data()}(slot);
      REQUIRE((w == 0) == !taken);
      weights += w;
    }
    // a rank's weights stand for its count (exact where the samples divide it; 5000 / 1024 rounds down)
    CHECK(weights <= static_cast<std::uint64_t>(count) << dd::sample_weight_bits);
    CHECK(weights + dd::sort_samples >= static_cast<std::uint64_t>(count) << dd::sample_weight_bits);
  }
  CHECK(dd::slot_weight{all.data()}(static_cast<std::uint32_t>(3 * dd::sort_samples)) ==
        std::uint64_t{1} << dd::sample_weight_bits); // 1024 of 1024 items: weight 1
}

TEST_CASE("dist sort plan: splitters, destinations, the exchange", "[cpu][dist]") {
  using carry::dist::detail::sort_sample;
  // samples of 3 ranks, equal images told apart by their global index
  std::vector<weighted_sample> s;
  for (int i = 0; i < 12; ++i) s.push_back({{static_cast<std::uint64_t>(i % 4), 11 - i}});
  const auto sp = choose_splitters(s, 3);
  REQUIRE(sp.size() == 2);
  CHECK(sp[0].image == 1); // sorted: (0,3) (0,7) (0,11) (1,2) (1,6) (1,10) (2,1) (2,5) (2,9) ...: 4 and 8
  CHECK(sp[0].index == 6);
  CHECK(sp[1].image == 2);
  CHECK(sp[1].index == 9);
  CHECK(carry::dist::detail::destination(sp.data(), 3, {0, 100}) == 0);
  CHECK(carry::dist::detail::destination(sp.data(), 3, {1, 5}) == 0); // before (1, 6)
  CHECK(carry::dist::detail::destination(sp.data(), 3, {1, 6}) == 1); // the splitter itself goes up
  CHECK(carry::dist::detail::destination(sp.data(), 3, {2, 4}) == 1);
  CHECK(carry::dist::detail::destination(sp.data(), 3, {9, 0}) == 2);
  CHECK(carry::dist::detail::destination(sp.data(), 1, {9, 0}) == 0); // one rank: no splitter
  CHECK(choose_splitters({}, 2).size() == 1);
  // weights: 4 samples of a shard of 100 and 4 of a shard of 300, all keys equal: the split falls at
  // half the 400 items (global index 200), not half the samples
  std::vector<weighted_sample> w;
  for (int k = 0; k < 4; ++k) w.push_back({{5, 12 + 25 * k}, 25});
  for (int k = 0; k < 4; ++k) w.push_back({{5, 137 + 75 * k}, 75});
  const auto half = choose_splitters(w, 2);
  CHECK(half[0].index == 212); // weights 25 x 4 + 75 = 175 before it, 250 with it: the first past 200
  // regular sample positions stay inside the shard and ascend
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{7}, std::int64_t{1024}, std::int64_t{1} << 33}) {
    const int k = n < 1024 ? static_cast<int>(n) : 1024;
    std::int64_t last = -1;
    for (int i = 0; i < k; ++i) {
      const std::int64_t p = carry::dist::detail::sample_position(n, k, i);
      CHECK(p > last);
      CHECK(p < n);
      last = p;
    }
  }
  // the exchange of 2 ranks: rank 0 sends 3 to itself and 2 to rank 1; rank 1 sends 4 and 1
  const std::vector<std::vector<std::int64_t>> offsets{{0, 3, 5}, {0, 4, 5}};
  const auto x0 = carry::dist::detail::plan_exchange(offsets, 0),
             x1 = carry::dist::detail::plan_exchange(offsets, 1);
  CHECK(x0.received == 7);
  CHECK(x0.recv_count == std::vector<std::int64_t>{3, 4});
  CHECK(x0.recv_at == std::vector<std::int64_t>{0, 3});
  CHECK(x0.send_count == std::vector<std::int64_t>{3, 2});
  CHECK(x0.out_offset == 0);
  CHECK(x1.received == 3);
  CHECK(x1.recv_at == std::vector<std::int64_t>{0, 2});
  CHECK(x1.send_at == std::vector<std::int64_t>{0, 4});
  CHECK(x1.out_offset == 7);
  CHECK(x0.most_received == 7);
}

TEST_CASE("dist exchange plan: parts widened to aligned granules, the exact runs kept", "[cpu][dist]") {
  // the example of the plan's comment: granule 4, rank 1
  const std::vector<std::vector<std::int64_t>> example{{0, 3, 5}, {0, 6, 9}};
  const auto e1 = carry::dist::detail::plan_exchange(example, 1, 4);
  CHECK(e1.send_at == std::vector<std::int64_t>{0, 6});
  CHECK(e1.send_count == std::vector<std::int64_t>{8, 3});
  CHECK(e1.recv_at == std::vector<std::int64_t>{0, 8});
  CHECK(e1.recv_count == std::vector<std::int64_t>{8, 3});
  CHECK(e1.run_at == std::vector<std::int64_t>{3, 8});
  CHECK(e1.run_count == std::vector<std::int64_t>{2, 3});
  CHECK(e1.received == 5);
  CHECK(e1.landed == 11);
  lcg rng{12345};
  auto next = [&rng](std::int64_t below) { return rng.below(below); };
  for (int ranks : {1, 2, 3, 4, 7})
    for (std::int64_t g : {1, 2, 4, 16})
      for (int trial = 0; trial < 50; ++trial) {
        std::vector<std::vector<std::int64_t>> off(static_cast<std::size_t>(ranks));
        for (auto& o : off) { // ascending bucket bounds of a shard of 0..99 items, empty buckets included
          o.push_back(0);
          for (int j = 0; j < ranks; ++j) o.push_back(o.back() + (next(3) == 0 ? 0 : next(30)));
        }
        std::vector<carry::dist::detail::exchange_plan> x;
        for (int r = 0; r < ranks; ++r) x.push_back(carry::dist::detail::plan_exchange(off, r, g));
        for (int j = 0; j < ranks; ++j) {
          std::int64_t end = 0;
          for (int q = 0; q < ranks; ++q) {
            const auto& s = x[static_cast<std::size_t>(q)];
            const auto& d = x[static_cast<std::size_t>(j)];
            const std::int64_t b = off[q][j], e = off[q][j + 1], shard = off[q].back();
            // what q sends j is what j receives from q, and covers q's bucket j
            CHECK(s.send_count[j] == d.recv_count[q]);
            CHECK(d.run_count[q] == e - b);
            CHECK(s.send_at[j] <= b);
            CHECK(s.send_at[j] + s.send_count[j] >= e);
            CHECK(d.run_at[q] - d.recv_at[q] == b - s.send_at[j]);
            CHECK(s.send_at[j] + s.send_count[j] <= shard + g - 1); // a granule past the shard at most
            // parts that travel are aligned at both ends; every receive starts aligned, after the last
            if (q != j && e > b) {
              CHECK(s.send_at[j] % g == 0);
              CHECK(s.send_count[j] % g == 0);
            }
            if (q == j || e == b) CHECK(s.send_count[j] == e - b);
            CHECK(d.recv_at[q] % g == 0);
            CHECK(d.recv_at[q] >= end);
            end = d.recv_at[q] + d.recv_count[q];
          }
          CHECK(x[static_cast<std::size_t>(j)].landed == end);
          CHECK(end <=
                x[static_cast<std::size_t>(j)].received + carry::dist::detail::exchange_slack(ranks, g));
        }
      }
}

TEST_CASE("dist exchange plan in slices: each slice's parts, received after the last, output in order",
          "[cpu][dist]") {
  using carry::dist::detail::exchange_plan;
  using carry::dist::detail::plan_slice;
  // 2 ranks, 2 slices: rank 0's buckets {[0, 2), [2, 3) | [3, 5), [5, 6)}, rank 1's {[0, 1), [1, 4) | [4, 4),
  // [4, 7)}: rank 0 gets 3 + 4 items, rank 1 gets rank 0's [3, 5) and its own [4, 4) in slice 0, rank 0's
  // [5, 6) and its own [4, 7) in slice 1
  const std::vector<std::vector<std::int64_t>> off{{0, 2, 3, 5, 6}, {0, 1, 4, 4, 7}};
  const exchange_plan a = plan_slice(off, 1, 1, 2, 0, 0), b = plan_slice(off, 1, 1, 2, 1, a.landed);
  CHECK(a.run_count == std::vector<std::int64_t>{2, 0}); // rank 0's [3, 5), rank 1's own [4, 4)
  CHECK(b.run_count == std::vector<std::int64_t>{1, 3}); // rank 0's [5, 6), rank 1's own [4, 7)
  CHECK(a.send_at == std::vector<std::int64_t>{0, 4});
  CHECK(a.send_count == std::vector<std::int64_t>{1, 0});
  CHECK(b.send_count == std::vector<std::int64_t>{3, 3});
  CHECK(a.slice_offset == 0);
  CHECK(b.slice_offset == 2);
  CHECK(b.recv_at[0] >= a.landed);
  CHECK(a.out_offset == 7);
  CHECK(b.out_offset == 7);
  CHECK(a.most_received == 7);
  lcg rng{99};
  auto next = [&rng](std::int64_t below) { return rng.below(below); };
  for (int ranks : {1, 2, 3, 4})
    for (int slices : {1, 2, 3, 8})
      for (std::int64_t g : {1, 4, 16})
        for (int trial = 0; trial < 30; ++trial) {
          const int buckets = ranks * slices;
          std::vector<std::vector<std::int64_t>> sliced(static_cast<std::size_t>(ranks)),
              whole(sliced.size());
          for (int q = 0; q < ranks; ++q) {
            auto& o = sliced[static_cast<std::size_t>(q)];
            o.push_back(0);
            for (int j = 0; j < buckets; ++j) o.push_back(o.back() + (next(3) == 0 ? 0 : next(40)));
            for (int j = 0; j <= ranks; ++j) whole[static_cast<std::size_t>(q)].push_back(o[j * slices]);
          }
          std::vector<std::vector<exchange_plan>> x(static_cast<std::size_t>(ranks));
          for (int r = 0; r < ranks; ++r) {
            auto& xr = x[static_cast<std::size_t>(r)];
            for (int i = 0; i < slices; ++i)
              xr.push_back(plan_slice(sliced, r, g, slices, i, i > 0 ? xr.back().landed : 0));
            // the slices together: the unsliced plan's output, each slice after the last
            const exchange_plan w = carry::dist::detail::plan_exchange(whole, r, g);
            std::int64_t received = 0, landed = 0;
            for (int i = 0; i < slices; ++i) {
              const exchange_plan& p = xr[static_cast<std::size_t>(i)];
              CHECK(p.slice_offset == received);
              CHECK(p.out_offset == w.out_offset);
              CHECK(p.most_received == w.most_received);
              for (int q = 0; q < ranks; ++q) {
                CHECK(p.recv_at[q] >= landed);
                CHECK(p.recv_at[q] % g == 0);
                landed = p.recv_at[q] + p.recv_count[q];
              }
              CHECK(p.landed == landed);
              received += p.received;
            }
            CHECK(received == w.received);
            CHECK(landed <= received + carry::dist::detail::exchange_slack(ranks, g, slices));
            if (slices == 1) {
              CHECK(xr[0].send_at == w.send_at);
              CHECK(xr[0].recv_at == w.recv_at);
              CHECK(xr[0].run_at == w.run_at);
              CHECK(xr[0].landed == w.landed);
            }
          }
          // what q sends j in slice i is what j receives from q there, and covers q's bucket (j, i)
          for (int i = 0; i < slices; ++i)
            for (int q = 0; q < ranks; ++q)
              for (int j = 0; j < ranks; ++j) {
                const exchange_plan& s = x[static_cast<std::size_t>(q)][static_cast<std::size_t>(i)];
                const exchange_plan& d = x[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)];
                const std::int64_t b = sliced[q][j * slices + i], e = sliced[q][j * slices + i + 1];
                CHECK(s.send_count[j] == d.recv_count[q]);
                CHECK(d.run_count[q] == e - b);
                CHECK(s.send_at[j] <= b);
                CHECK(s.send_at[j] + s.send_count[j] >= e);
                CHECK(d.run_at[q] - d.recv_at[q] == b - s.send_at[j]);
              }
        }
}

TEST_CASE("dist rebalance plan: uneven shards to even ones, in global order", "[cpu][dist]") {
  // counts 6, 0, 2 over 3 ranks: 8 items, even shards 3, 3, 2 at 0, 3, 6
  const std::vector<std::int64_t> counts{6, 0, 2};
  const auto x0 = carry::dist::detail::plan_rebalance(counts, 0);
  const auto x1 = carry::dist::detail::plan_rebalance(counts, 1);
  const auto x2 = carry::dist::detail::plan_rebalance(counts, 2);
  CHECK(x0.send_count == std::vector<std::int64_t>{3, 3, 0});
  CHECK(x0.send_at == std::vector<std::int64_t>{0, 3, 6});
  CHECK(x0.received == 3);
  CHECK(x1.recv_count == std::vector<std::int64_t>{3, 0, 0});
  CHECK(x1.out_offset == 3);
  CHECK(x2.send_count == std::vector<std::int64_t>{0, 0, 2});
  CHECK(x2.recv_count == std::vector<std::int64_t>{0, 0, 2});
  CHECK(x2.received == 2);
  CHECK(x0.most_received == 3);
  for (std::int64_t total : {std::int64_t{0}, std::int64_t{5}, std::int64_t{1000}})
    for (int ranks : {1, 2, 4}) {
      std::vector<std::int64_t> c(static_cast<std::size_t>(ranks), 0);
      c.back() = total; // everything on the last rank
      std::int64_t sum = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto x = carry::dist::detail::plan_rebalance(c, r);
        const auto even = carry::dist::detail::even_shard(total, ranks, r);
        CHECK(x.received == even.end - even.begin);
        CHECK(x.out_offset == even.begin);
        sum += x.received;
      }
      CHECK(sum == total);
    }
}

#include <carry/apps/distributed/detail/delta_code.hpp>

namespace {
/// Codes `images` block by block, decodes every block, and checks the round trip, the widths (the largest
/// step's bits, no more) and that nothing is written past a block's words.
template <class U>
void delta_round_trip(const std::vector<U>& images) {
  using namespace carry::dist::detail;
  const auto n = static_cast<int>(images.size());
  for (int b = 0; b * delta_block < n; ++b) {
    const int first = b * delta_block, count = std::min(delta_block, n - first);
    std::vector<std::uint32_t> words(delta_words(64) + 1, 0xDEADBEEFu);
    const delta_header<U> h = delta_encode(images.data() + first, count, words.data());
    U largest = 0;
    for (int i = 1; i < count; ++i)
      largest = std::max<U>(largest, static_cast<U>(images[first + i] - images[first + i - 1]));
    CHECK(h.base == images[first]);
    CHECK(static_cast<int>(h.width) == delta_bit_width(largest));
    CHECK(words[delta_words(static_cast<int>(h.width))] == 0xDEADBEEFu);
    std::vector<U> got(delta_block);
    delta_decode(h, words.data(), got.data());
    for (int i = 0; i < delta_block; ++i) {
      INFO("block " << b << " item " << i << " width " << h.width);
      REQUIRE(got[i] == images[first + std::min(i, count - 1)]);
    }
  }
}
} // namespace

TEST_CASE("delta coding of sorted images: the worked example", "[cpu][dist]") {
  using namespace carry::dist::detail;
  const std::uint32_t images[4] = {10, 12, 12, 19};
  std::uint32_t words[delta_words(3)] = {};
  const delta_header<std::uint32_t> h = delta_encode(images, 4, words);
  CHECK(h.base == 10u);
  CHECK(h.width == 3u);
  CHECK(words[0] == 0xE10u);
  CHECK(delta_step<std::uint32_t>(words, 3, 3) == 7u);
  CHECK(delta_words(3) == 12); // 128 steps of 3 bits: 12 words, 48 bytes (three 16-byte granules)
  CHECK(delta_bit_width(std::uint64_t{0}) == 0);
  CHECK(delta_bit_width(~std::uint64_t{0}) == 64);
}

TEMPLATE_TEST_CASE("delta coding of sorted images: every width, partial blocks, the type's extremes",
                   "[cpu][dist]", std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t) {
  using U = TestType;
  std::mt19937_64 rng(11);
  for (int bits = 0; bits <= 8 * static_cast<int>(sizeof(U)); ++bits)
    for (int n : {1, 2, 127, 128, 129, 300}) {
      // ascending images with steps below 2^bits (and one step of exactly 2^bits - 1 where it fits)
      std::vector<U> v(static_cast<std::size_t>(n));
      const std::uint64_t top = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
      std::uint64_t at = 0;
      for (int i = 0; i < n; ++i) {
        const std::uint64_t step = i == n / 2 ? top : (top == 0 ? 0 : rng() % (top / 4 + 1));
        const std::uint64_t room = static_cast<std::uint64_t>(static_cast<U>(~U{0})) - at;
        at += step < room ? step : room;
        v[static_cast<std::size_t>(i)] = static_cast<U>(at);
      }
      delta_round_trip(v);
    }
  delta_round_trip(std::vector<U>{0, static_cast<U>(~U{0})});   // the largest step the type holds
  delta_round_trip(std::vector<U>(200, static_cast<U>(~U{0}))); // all equal: width 0, no words
}

TEST_CASE(
    "coded exchange plans: headers and payload words agree between ranks and land where the scan puts them",
    "[cpu][dist]") {
  using namespace carry::dist::detail;
  const std::int64_t g = delta_block;
  std::mt19937_64 rng(5);
  for (int ranks : {1, 2, 3, 4, 7})
    for (int rep = 0; rep < 40; ++rep) {
      // every rank's shard size, bucket bounds, and each block's payload words (4 x a width in [0, 32])
      std::vector<std::vector<std::int64_t>> offsets(ranks), words(ranks), block_words(ranks), pofs(ranks);
      for (int q = 0; q < ranks; ++q) {
        const std::int64_t n =
            rep % 5 == 0 ? static_cast<std::int64_t>(rng() % 3) : static_cast<std::int64_t>(rng() % 5000);
        std::vector<std::int64_t> cut(ranks - 1);
        for (auto& c : cut)
          c = n > 0 ? static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n + 1)) : 0;
        std::sort(cut.begin(), cut.end());
        offsets[q].push_back(0);
        for (auto c : cut) offsets[q].push_back(c);
        offsets[q].push_back(n);
        const std::int64_t blocks = (n + g - 1) / g;
        pofs[q].assign(static_cast<std::size_t>(blocks) + 1, 0);
        for (std::int64_t b = 0; b < blocks; ++b) {
          block_words[q].push_back(4 * static_cast<std::int64_t>(rng() % 33));
          pofs[q][b + 1] = pofs[q][b] + block_words[q][b];
        }
        for (int j = 0; j <= ranks; ++j) words[q].push_back(pofs[q][offsets[q][j] / g]);
        for (int j = 0; j <= ranks; ++j) words[q].push_back(pofs[q][(offsets[q][j] + g - 1) / g]);
      }
      std::vector<exchange_plan> x;
      std::vector<coded_plans> c;
      for (int r = 0; r < ranks; ++r) {
        x.push_back(plan_exchange(offsets, r, g));
        c.push_back(plan_coded(x[r], offsets, words, r, g));
      }
      for (int r = 0; r < ranks; ++r) {
        // the receiver's header slots as the exchange leaves them (zero where nothing lands), scanned
        std::vector<std::int64_t> slot_words(static_cast<std::size_t>((x[r].landed + g - 1) / g + 1), 0);
        for (int q = 0; q < ranks; ++q) {
          INFO("ranks " << ranks << " rep " << rep << " receiver " << r << " sender " << q);
          // sender and receiver agree on every count
          CHECK(c[q].headers.send_count[r] ==
                (q == r ? c[q].headers.send_count[r] : c[r].headers.recv_count[q]));
          if (q != r) CHECK(c[q].payload.send_count[r] == c[r].payload.recv_count[q]);
          if (q == r || c[r].payload.recv_count[q] == 0) continue;
          // the sender's part is whole blocks, and its words are those blocks' words
          const std::int64_t b0 = c[q].headers.send_at[r], nb = c[q].headers.send_count[r];
          CHECK(b0 * g == x[q].send_at[r]);
          CHECK(nb * g == x[q].send_count[r]);
          CHECK(c[q].payload.send_at[r] == pofs[q][b0]);
          CHECK(c[q].payload.send_count[r] == pofs[q][b0 + nb] - pofs[q][b0]);
          for (std::int64_t t = 0; t < nb; ++t) slot_words[x[r].recv_at[q] / g + t] = block_words[q][b0 + t];
          CHECK(x[r].recv_at[q] % g == 0);
          CHECK(c[r].headers.recv_at[q] * g == x[r].recv_at[q]);
        }
        std::vector<std::int64_t> scanned(slot_words.size() + 1, 0);
        for (std::size_t i = 0; i < slot_words.size(); ++i) scanned[i + 1] = scanned[i] + slot_words[i];
        for (int q = 0; q < ranks; ++q)
          if (q != r && c[r].payload.recv_count[q] > 0) {
            INFO("ranks " << ranks << " rep " << rep << " receiver " << r << " sender " << q);
            CHECK(scanned[x[r].recv_at[q] / g] == c[r].payload.recv_at[q]);
          }
        CHECK(scanned.back() == c[r].payload.landed);
      }
    }
}

TEMPLATE_TEST_CASE("delta images: one to one, ascending with the sort's order, -0.0 kept", "[cpu][dist]",
                   std::uint8_t, std::int16_t, std::int32_t, std::uint64_t, float, double) {
  using namespace carry::dist::detail;
  using K = TestType;
  std::mt19937_64 rng(3);
  for (bool desc : {false, true})
    for (int i = 0; i < 2000; ++i) {
      K a, b;
      std::uint64_t ra = rng(), rb = rng();
      std::memcpy(&a, &ra, sizeof(K));
      std::memcpy(&b, &rb, sizeof(K));
      const K back = delta_key<K>(delta_image(a, desc), desc);
      REQUIRE(std::memcmp(&back, &a, sizeof(K)) == 0);
      if constexpr (std::is_floating_point<K>::value) {
        if (std::isnan(a) || std::isnan(b)) continue;
        if (a == b) continue; // -0.0 and +0.0 order apart here, equal in the sort
      }
      if (a < b) CHECK((delta_image(a, desc) < delta_image(b, desc)) == !desc);
    }
  if constexpr (std::is_floating_point<K>::value) {
    const K neg = -K{0}, pos = K{0};
    const K back = delta_key<K>(delta_image(neg, false), false);
    CHECK(std::signbit(back));
    CHECK(delta_image(neg, false) != delta_image(pos, false));
  }
}
