// CPU tests of the radix sort's helpers (issue 17): key images of every type (order, -0.0, NaNs, the ends
// of integer ranges), digits and bit ranges, an LSD model of the passes, path choice, temp layout,
// argument checks, and the routing of passes through the caller's buffers when passes are skipped.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include <carry/radixsort/detail/key_traits.hpp>
#include <carry/radixsort/detail/merge_plan.hpp>
#include <carry/radixsort/detail/plan.hpp>

#include "tests/common/radix_reference.hpp"

using namespace carry::radix_detail;
using carry_validate::key_dist;

namespace {
template <class K>
bool image_order_matches(const std::vector<K>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = 0; j < v.size(); ++j)
      if ((radix_key<K>::ordered(v[i]) < radix_key<K>::ordered(v[j])) != (v[i] < v[j])) return false;
  return true;
}
template <class K>
void integer_order() {
  std::vector<K> v{std::numeric_limits<K>::min(),
                   static_cast<K>(std::numeric_limits<K>::min() + 1),
                   K(0),
                   K(1),
                   static_cast<K>(std::numeric_limits<K>::max() - 1),
                   std::numeric_limits<K>::max()};
  std::mt19937_64 g(sizeof(K));
  for (int i = 0; i < 40; ++i) v.push_back(static_cast<K>(g()));
  REQUIRE(image_order_matches(v));
}
} // namespace

TEST_CASE("radix key images: integers keep their order at the ends of the range", "[radix]") {
  integer_order<std::uint8_t>();
  integer_order<std::uint16_t>();
  integer_order<std::uint32_t>();
  integer_order<std::uint64_t>();
  integer_order<std::int8_t>();
  integer_order<std::int16_t>();
  integer_order<std::int32_t>();
  integer_order<std::int64_t>();
  // the worked example of key_traits.hpp
  REQUIRE(radix_key<std::int8_t>::ordered(-128) == 0x00);
  REQUIRE(radix_key<std::int8_t>::ordered(-1) == 0x7f);
  REQUIRE(radix_key<std::int8_t>::ordered(0) == 0x80);
  REQUIRE(radix_key<std::int8_t>::ordered(127) == 0xff);
}

TEST_CASE("radix key images: floats, -0.0 = +0.0, NaNs outside the infinities", "[radix]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v{-inf, -1e30f, -1.0f, -1e-40f, 0.0f, 1e-40f, 1.0f, 3.5f, 1e30f, inf};
  REQUIRE(image_order_matches(v));
  REQUIRE(radix_key<float>::ordered(-0.0f) == radix_key<float>::ordered(0.0f));
  REQUIRE(radix_key<float>::ordered(-1.0f) == 0x407fffffu);
  REQUIRE(radix_key<float>::ordered(1.0f) == 0xbf800000u);
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  REQUIRE(radix_key<float>::ordered(qnan) > radix_key<float>::ordered(inf));
  REQUIRE(radix_key<float>::ordered(-qnan) < radix_key<float>::ordered(-inf));
  REQUIRE(radix_key<double>::ordered(-0.0) == radix_key<double>::ordered(0.0));
  std::vector<double> d{-std::numeric_limits<double>::infinity(), -2.0, -4.9e-324, 0.0, 4.9e-324, 2.0, 1e300};
  REQUIRE(image_order_matches(d));
  // every finite, non-NaN half and bfloat16 keeps its float order
  for (const bool bf : {false, true}) {
    std::vector<std::pair<float, std::uint16_t>> all;
    for (unsigned b = 0; b < 65536; ++b) {
      const std::uint16_t u = static_cast<std::uint16_t>(b);
      float f;
      std::uint16_t image;
      if (bf) {
        __nv_bfloat16 h;
        std::memcpy(&h, &u, 2);
        f = __bfloat162float(h);
        image = radix_key<__nv_bfloat16>::ordered(h);
      } else {
        __half h;
        std::memcpy(&h, &u, 2);
        f = __half2float(h);
        image = radix_key<__half>::ordered(h);
      }
      if (!std::isnan(f)) all.push_back({f, image});
    }
    for (std::size_t i = 1; i < all.size(); i += 97)
      for (std::size_t j = 0; j < all.size(); j += 89)
        REQUIRE((all[i].second < all[j].second) == (all[i].first < all[j].first));
  }
}

TEST_CASE("radix digits: passes, widths and descending flips over a bit range", "[radix]") {
  REQUIRE(radix_passes(0, 32, 8) == 4);
  REQUIRE(radix_passes(4, 20, 8) == 2);
  REQUIRE(radix_passes(31, 32, 8) == 1);
  REQUIRE(radix_passes(5, 5, 8) == 0);
  REQUIRE(radix_passes(0, 64, 8) == 8);
  const digit_spec p0 = pass_digit(4, 20, 0, 8, false), p1 = pass_digit(4, 20, 1, 8, false);
  REQUIRE(p0.shift == 4);
  REQUIRE(p0.bits == 8);
  REQUIRE(p1.shift == 12);
  REQUIRE(p1.bits == 8);
  const digit_spec q = pass_digit(0, 13, 1, 8, true);
  REQUIRE(q.bits == 5);
  REQUIRE(q.of(0x1F00) == 0); // bits 8..12 all set, flipped: 0
  REQUIRE(q.of(0x0000) == 31);
  REQUIRE(q.of(0xE000) == 31); // bits above the range do not count
  REQUIRE(digit_extract(q)(std::uint16_t{0x1F00}) == 0);
  REQUIRE(digit_extract(q)(std::uint32_t{0xE000}) == 31);
  STATIC_REQUIRE(digit_extract(pass_digit(0, 32, 3, 8, false))(0xAB000000u) == 0xABu);
  STATIC_REQUIRE(digit_extract(pass_digit(0, 32, 3, 8, true))(0xAB000000u) == 0x54u);
  REQUIRE(sort_bits<std::uint32_t>(0xABCD1234u, 4, 20, false) == 0xD123u);
  REQUIRE(sort_bits<std::uint32_t>(0xABCD1234u, 4, 20, true) == 0x2EDCu);
  REQUIRE(sort_bits<std::uint64_t>(~std::uint64_t{0}, 0, 64, false) == ~std::uint64_t{0});
  REQUIRE(sort_bits<std::uint64_t>(~std::uint64_t{0}, 0, 0, false) == 0);
}

namespace {
/// sort_bits<U> (the key's width) equals the 64-bit reference on every bit range of U, both
/// directions, for random and edge values.
template <class U>
void check_sort_bits(std::mt19937_64& rng) {
  constexpr int w = 8 * static_cast<int>(sizeof(U));
  std::vector<U> values = {U{0}, static_cast<U>(~U{0}), static_cast<U>(U{1} << (w - 1)), U{1}};
  for (int i = 0; i < 60; ++i) values.push_back(static_cast<U>(rng()));
  for (U v : values)
    for (int begin = 0; begin < w; ++begin)
      for (int end = begin; end <= w; ++end)
        for (bool desc : {false, true}) {
          const U got = carry::radix_detail::sort_bits<U>(v, begin, end, desc);
          const std::uint64_t want = carry_validate::reference_sort_bits<U>(v, begin, end, desc);
          if (static_cast<std::uint64_t>(got) != want) {
            INFO("width " << w << ", value " << static_cast<std::uint64_t>(v) << ", bits [" << begin << ", "
                          << end << ")");
            REQUIRE(static_cast<std::uint64_t>(got) == want);
          }
        }
}
} // namespace

TEST_CASE("radix sort_bits: the sort's bits in the key's own width", "[radix]") {
  using carry::radix_detail::sort_bits;
  STATIC_REQUIRE(sort_bits<std::uint32_t>(0x12345678u, 8, 24, false) == 0x3456u);
  STATIC_REQUIRE(sort_bits<std::uint32_t>(0x12345678u, 8, 24, true) == 0xCBA9u);
  std::mt19937_64 rng(5);
  check_sort_bits<std::uint8_t>(rng);
  check_sort_bits<std::uint16_t>(rng);
  check_sort_bits<std::uint32_t>(rng);
  check_sort_bits<std::uint64_t>(rng);
}

namespace {
/// Every pass digit of every bit range, in the key's own width (digit_spec::of, digit_extract), against
/// the digit taken from the 64-bit image the slow way.
template <class U>
void check_key_width_digits(std::mt19937_64& rng) {
  const int bits = 8 * static_cast<int>(sizeof(U));
  for (int t = 0; t < 200; ++t) {
    const U u = static_cast<U>(rng());
    const std::uint64_t wide = u;
    for (int b = 0; b < bits; b += 3)
      for (int e = b + 1; e <= bits; e += 5)
        for (bool desc : {false, true})
          for (int p = 0; p < radix_passes(b, e, 8); ++p) {
            const digit_spec s = pass_digit(b, e, p, 8, desc);
            const unsigned m = (1u << s.bits) - 1u, plain = static_cast<unsigned>(wide >> s.shift) & m;
            const unsigned want = desc ? (~plain & m) : plain;
            REQUIRE(s.of(u) == want);
            REQUIRE(digit_extract(s)(u) == want);
          }
  }
}
} // namespace

TEST_CASE("radix digits: taken in the key's own width, equal to the 64-bit image's", "[radix]") {
  std::mt19937_64 rng(11);
  check_key_width_digits<std::uint8_t>(rng);
  check_key_width_digits<std::uint16_t>(rng);
  check_key_width_digits<std::uint32_t>(rng);
  check_key_width_digits<std::uint64_t>(rng);
}

namespace {
/// `k` split stably into 256 buckets by pass p's digit of the bits [begin, end) (the device's digit).
template <class K>
std::vector<std::vector<K>> by_digit(const std::vector<K>& k, int begin, int end, int p, bool descending) {
  const digit_extract s(pass_digit(begin, end, p, 8, descending));
  std::vector<std::vector<K>> buckets(256);
  for (const K& x : k) buckets[s(radix_key<K>::ordered(x))].push_back(x);
  return buckets;
}

/// One stable counting pass of `k` by pass p's digit (by_digit's buckets, in digit order).
template <class K>
void digit_pass(std::vector<K>& k, int begin, int end, int p, bool descending) {
  const auto buckets = by_digit(k, begin, end, p, descending);
  k.clear();
  for (auto& b : buckets) k.insert(k.end(), b.begin(), b.end());
}

/// A CPU model's result `got` must be `keys` stably sorted by the bits [begin, end).
template <class K>
void require_stable_sort(const std::vector<K>& got, const std::vector<K>& keys, int begin, int end,
                         bool descending) {
  const auto want =
      carry_validate::permuted(keys, carry_validate::reference_sort_order(keys, begin, end, descending));
  REQUIRE(carry_validate::same_bits(got, want));
}

/// The passes as the device runs them (one stable counting pass per digit, LSD) on the CPU: must equal
/// a stable sort by the bit range.
template <class K>
std::vector<K> lsd_model(std::vector<K> k, int begin, int end, bool descending) {
  for (int p = 0; p < radix_passes(begin, end, 8); ++p) digit_pass(k, begin, end, p, descending);
  return k;
}
template <class K>
void lsd_case(key_dist dist) {
  const auto keys = carry_validate::make_keys<K>(3000, dist, 7);
  const int bits = 8 * static_cast<int>(sizeof(K));
  for (auto [b, e] : std::vector<std::pair<int, int>>{
           {0, bits}, {4, bits < 20 ? bits : 20}, {bits - 1, bits}, {3, 4}, {0, 0}})
    for (bool desc : {false, true}) {
      INFO("bits " << b << ".." << e << (desc ? " descending" : ""));
      require_stable_sort(lsd_model(keys, b, e, desc), keys, b, e, desc);
    }
}
} // namespace

TEST_CASE("radix passes: the LSD model of the device passes equals a stable sort by the bit range",
          "[radix]") {
  for (key_dist d : {key_dist::uniform, key_dist::low_entropy, key_dist::specials, key_dist::two_values}) {
    lsd_case<std::uint8_t>(d);
    lsd_case<std::int16_t>(d);
    lsd_case<std::uint32_t>(d);
    lsd_case<std::int64_t>(d);
    lsd_case<float>(d);
    lsd_case<double>(d);
    lsd_case<__half>(d);
  }
}

namespace {
/// The bucket form as the device runs it, on the CPU: the histogram's skip mask (a pass whose digit is
/// the same for every key is skipped), its MSD pass (bucket_msd_pass) and lower passes
/// (bucket_lower_passes); one stable counting pass by the MSD digit, then each bucket on its own, LSD
/// over the lower passes. Returns false (and leaves `out`) when the form does not apply (fewer than two
/// passes run); else `out` must equal a stable sort by the bit range.
template <class K>
bool bucket_model(const std::vector<K>& k, int begin, int end, bool descending, std::vector<K>& out) {
  using carry::radix_detail::bucket_lower_passes;
  using carry::radix_detail::bucket_msd_pass;
  const int passes = radix_passes(begin, end, 8);
  unsigned skip = 0;
  for (int p = 0; p < passes; ++p) {
    const digit_extract s(pass_digit(begin, end, p, 8, descending));
    std::set<unsigned> seen;
    for (const K& x : k) seen.insert(s(radix_key<K>::ordered(x)));
    if (seen.size() <= 1) skip |= 1u << p;
  }
  const int top = bucket_msd_pass(skip, passes);
  if (top < 0) return false;
  const unsigned lower = bucket_lower_passes(skip, top);
  auto buckets = by_digit(k, begin, end, top, descending);
  out.clear();
  for (auto& b : buckets) {
    for (int p = 0; p < top; ++p)
      if (lower >> p & 1u) digit_pass(b, begin, end, p, descending);
    out.insert(out.end(), b.begin(), b.end());
  }
  return true;
}
template <class K>
void bucket_case(key_dist dist) {
  auto keys = carry_validate::make_keys<K>(3000, dist, 9);
  const int bits = 8 * static_cast<int>(sizeof(K));
  for (int masked : {0, 1}) {
    if (masked) // a constant top byte: the MSD pass is the one below it
      for (K& x : keys) {
        auto u = radix_key<K>::ordered(x);
        u &= static_cast<decltype(u)>(~(decltype(u){0xFF} << (bits - 8)));
        x = radix_key<K>::from_ordered(u);
      }
    for (auto [b, e] :
         std::vector<std::pair<int, int>>{{0, bits}, {4, bits < 20 ? bits : 20}, {0, bits < 13 ? bits : 13}})
      for (bool desc : {false, true}) {
        INFO("bits " << b << ".." << e << (desc ? " descending" : "")
                     << (masked ? " top byte constant" : ""));
        std::vector<K> got;
        if (!bucket_model(keys, b, e, desc, got)) continue;
        require_stable_sort(got, keys, b, e, desc);
      }
  }
}
} // namespace

TEST_CASE("radix bucket form: an MSD pass, then each bucket by the lower passes that run, is a stable sort",
          "[radix]") {
  for (key_dist d : {key_dist::uniform, key_dist::low_entropy, key_dist::specials, key_dist::two_values}) {
    bucket_case<std::uint16_t>(d);
    bucket_case<std::uint32_t>(d);
    bucket_case<std::int64_t>(d);
    bucket_case<float>(d);
    bucket_case<double>(d);
  }
}

TEST_CASE("radix cluster local form: local_owner and local_ranges", "[radix]") {
  // the worked examples
  REQUIRE(local_owner(0, 65536, 16) == 0);
  REQUIRE(local_owner(4095, 65536, 16) == 0);
  REQUIRE(local_owner(4096, 65536, 16) == 1);
  REQUIRE(local_owner(65535, 65536, 16) == 15);
  REQUIRE(local_owner(65536, 65536, 16) == 15);
  {
    const std::uint32_t c[4] = {3, 1, 0, 4};
    std::int64_t lo[3];
    REQUIRE(local_ranges(c, 4, 8, 2, lo) == 4);
    REQUIRE((lo[0] == 0 && lo[1] == 4 && lo[2] == 8));
  }
  // every digit inside one range, the ranges in order covering [0, n), the largest as returned
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    const int blocks = 1 + static_cast<int>(rng() % 16);
    std::vector<std::uint32_t> counts(256, 0);
    const int kind = trial % 4; // uniform, skewed, one digit, sparse
    std::int64_t n = 0;
    for (int d = 0; d < 256; ++d) {
      std::uint32_t c = kind == 0   ? static_cast<std::uint32_t>(rng() % 600)
                        : kind == 1 ? static_cast<std::uint32_t>(d < 3 ? rng() % 20000 : rng() % 5)
                        : kind == 2 ? (d == 77 ? 4000u : 0u)
                                    : (rng() % 9 == 0 ? static_cast<std::uint32_t>(rng() % 3000) : 0u);
      counts[static_cast<std::size_t>(d)] = c;
      n += c;
    }
    if (n == 0) continue;
    std::vector<std::int64_t> lo(static_cast<std::size_t>(blocks) + 1);
    const std::int64_t largest = local_ranges(counts.data(), 256, n, blocks, lo.data());
    INFO("trial " << trial << " blocks " << blocks << " n " << n);
    REQUIRE(lo[0] == 0);
    REQUIRE(lo[static_cast<std::size_t>(blocks)] == n);
    std::int64_t most = 0;
    for (int r = 0; r < blocks; ++r) {
      REQUIRE(lo[static_cast<std::size_t>(r)] <= lo[static_cast<std::size_t>(r) + 1]);
      most = std::max(most, lo[static_cast<std::size_t>(r) + 1] - lo[static_cast<std::size_t>(r)]);
    }
    REQUIRE(most == largest);
    std::int64_t start = 0, biggest = 0;
    for (int d = 0; d < 256; ++d) {
      const std::int64_t c = counts[static_cast<std::size_t>(d)];
      const int o = local_owner(static_cast<std::uint64_t>(start), n, blocks);
      if (c > 0) {
        REQUIRE(lo[static_cast<std::size_t>(o)] <= start);
        REQUIRE(start + c <= lo[static_cast<std::size_t>(o) + 1]);
      }
      biggest = std::max(biggest, c);
      start += c;
    }
    // a range is its blocks-th part of n and at most one digit more
    REQUIRE(largest <= (n + blocks - 1) / blocks + biggest);
  }
}

namespace {
/// The cluster path's local form on the CPU: tiles of `tile` keys; the top digit's counts over them give
/// the blocks' ranges (local_ranges); when every range fits `cap`, a stable pass by the top digit, then
/// each range on its own LSD over every pass; returns false when a range is too large (the device runs
/// the LSD passes then). `out` must equal a stable sort by the bit range.
template <class K>
bool local_model(const std::vector<K>& k, int begin, int end, bool descending, std::int64_t tile,
                 std::int64_t cap, std::vector<K>& out) {
  const int passes = radix_passes(begin, end, 8);
  if (passes < 2) return false;
  const std::int64_t n = static_cast<std::int64_t>(k.size());
  const int blocks = static_cast<int>((n + tile - 1) / tile);
  const digit_extract msd(pass_digit(begin, end, passes - 1, 8, descending));
  std::vector<std::uint32_t> counts(256, 0);
  for (const K& x : k) ++counts[msd(radix_key<K>::ordered(x))];
  std::vector<std::int64_t> lo(static_cast<std::size_t>(blocks) + 1);
  if (local_ranges(counts.data(), 256, n, blocks, lo.data()) > cap) return false;
  std::vector<K> mid = k;
  digit_pass(mid, begin, end, passes - 1, descending);
  out.clear();
  for (int r = 0; r < blocks; ++r) {
    std::vector<K> range(mid.begin() + lo[static_cast<std::size_t>(r)],
                         mid.begin() + lo[static_cast<std::size_t>(r) + 1]);
    for (int p = 0; p < passes; ++p) digit_pass(range, begin, end, p, descending);
    out.insert(out.end(), range.begin(), range.end());
  }
  return true;
}
template <class K>
void local_case(key_dist dist, std::size_t n, std::int64_t tile, std::int64_t cap, bool expect_local) {
  const auto keys = carry_validate::make_keys<K>(n, dist, 13);
  const int bits = 8 * static_cast<int>(sizeof(K));
  for (bool desc : {false, true}) {
    INFO(carry_validate::dist_name(dist) << " n " << n << (desc ? " descending" : ""));
    std::vector<K> got;
    const bool local = local_model(keys, 0, bits, desc, tile, cap, got);
    REQUIRE(local == expect_local);
    if (!local) continue;
    require_stable_sort(got, keys, 0, bits, desc);
  }
}
} // namespace

TEST_CASE("radix cluster local form: the top digit's pass, then each range by every pass, is a stable sort",
          "[radix]") {
  // u32 keys at 2^16 in 16 tiles of 4096, ranges of at most 256 x cluster_local_items(16) keys (the wide
  // blocks' 512 x cluster_local_items(8), the same): uniform
  // keys take the form; low-entropy ones (a third in one digit) do not
  const std::int64_t cap = 256 * carry::radix_tuning::cluster_local_items(16);
  local_case<std::uint32_t>(key_dist::uniform, 65536, 4096, cap, true);
  local_case<std::uint32_t>(key_dist::uniform, 60001, 4096, cap, true);
  local_case<std::uint32_t>(key_dist::low_entropy, 65536, 4096, cap, false);
  local_case<float>(key_dist::uniform, 16384, 1024, 256 * carry::radix_tuning::cluster_local_items(4), true);
  local_case<std::int64_t>(key_dist::uniform, 20000, 2048, 256 * carry::radix_tuning::cluster_local_items(8),
                           true);
  local_case<std::uint16_t>(key_dist::uniform, 5000, 1024, 256 * carry::radix_tuning::cluster_local_items(4),
                            true);
  STATIC_REQUIRE(carry::radix_tuning::cluster_local_items(16) == 18);
  STATIC_REQUIRE(carry::radix_tuning::cluster_local_items(4) == 5);
}

namespace {
template <class K>
void sorted_keys_case() {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{100003}})
    for (key_dist d : {key_dist::uniform, key_dist::low_entropy, key_dist::two_values})
      for (bool desc : {false, true}) {
        INFO("bytes " << sizeof(K) << " n " << n << " " << carry_validate::dist_name(d)
                      << (desc ? " desc" : ""));
        const auto keys = carry_validate::make_keys<K>(n, d, 5);
        std::vector<K> want = keys;
        if (desc)
          std::sort(want.begin(), want.end(), [](K a, K b) { return a > b; });
        else
          std::sort(want.begin(), want.end());
        REQUIRE(carry_validate::reference_sorted_keys(keys, desc) == want);
      }
}
} // namespace

TEST_CASE("radix large-test reference: the linear sort of whole unsigned keys equals std::sort", "[radix]") {
  sorted_keys_case<std::uint8_t>();
  sorted_keys_case<std::uint16_t>();
  sorted_keys_case<std::uint32_t>();
  sorted_keys_case<std::uint64_t>();
}

TEST_CASE("radix test data: sorted, reversed, equal and two-valued inputs are what they say", "[radix]") {
  const auto s = carry_validate::make_keys<std::uint32_t>(1000, key_dist::sorted, 1);
  REQUIRE(std::is_sorted(s.begin(), s.end()));
  const auto r = carry_validate::make_keys<std::int32_t>(1000, key_dist::reversed, 1);
  REQUIRE(std::is_sorted(r.rbegin(), r.rend()));
  const auto e = carry_validate::make_keys<std::uint64_t>(100, key_dist::all_equal, 1);
  REQUIRE(std::set<std::uint64_t>(e.begin(), e.end()).size() == 1);
  const auto t = carry_validate::make_keys<std::uint32_t>(1000, key_dist::two_values, 1);
  REQUIRE(std::set<std::uint32_t>(t.begin(), t.end()).size() == 2);
}

TEST_CASE("radix path choice", "[radix]") {
  using A = carry::radix_sort_algorithm;
  REQUIRE(choose_sort_path(0, 4, A::automatic, 4096, 16) == sort_path::empty);
  REQUIRE(choose_sort_path(100, 0, A::automatic, 4096, 16) == sort_path::copy);
  REQUIRE(choose_sort_path(1 << 14, 4, A::automatic, 4096, 16) == sort_path::cluster);
  REQUIRE(choose_sort_path(1 << 16, 4, A::automatic, 4096, 16) == sort_path::cluster);
  REQUIRE(choose_sort_path((1 << 16) + 1, 4, A::automatic, 4096, 16) == sort_path::onesweep);
  REQUIRE(choose_sort_path(1 << 14, 4, A::automatic, 4096, 0) == sort_path::onesweep); // no clusters
  REQUIRE(choose_sort_path(1 << 14, 4, A::onesweep, 4096, 16) == sort_path::onesweep);
  REQUIRE(choose_sort_path(1 << 14, 4, A::three_kernel, 4096, 16) == sort_path::three_kernel);
}

TEST_CASE("radix temp layout: parts apart, aligned, the memset covers counts and control", "[radix]") {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{4096}, std::int64_t{1} << 20, std::int64_t{1} << 28,
                         (std::int64_t{1} << 31) + 5})
    for (bool db : {false, true})
      for (int passes : {1, 4, 8}) {
        INFO("n " << n << " db " << db << " passes " << passes);
        const sort_layout l = make_sort_layout(sort_path::onesweep, n, passes, 4096, 4, 4, db, 0, 0);
        REQUIRE(l.portions * l.portion_tiles >= l.tiles.num_tiles);
        REQUIRE(l.portion_tiles * 4096 <= carry::radix_tuning::portion_items_max);
        REQUIRE(l.portion_tiles * 4096 < (std::int64_t{1} << 30)); // packed counts cannot overflow
        REQUIRE((l.alt_keys.bytes > 0) == (!db && passes >= 2));
        REQUIRE(l.hist.bytes == static_cast<std::size_t>(passes) * 256 * 8);
        const auto c = l.cleared();
        REQUIRE(c.offset == l.hist.offset);
        REQUIRE(c.offset + c.bytes >= l.control.offset + l.control.bytes);
        REQUIRE(!(l.clear_once && l.alternate));
        if (l.clear_once) {
          REQUIRE(l.state_sets == passes);
          REQUIRE(c.offset + c.bytes == l.state.offset + l.state.bytes);
        } else if (l.alternate) { // one portion: two sets (one for one pass), the memset clears the first
          REQUIRE(l.portions == 1);
          REQUIRE(l.state_sets == (passes < 2 ? passes : 2));
          REQUIRE(c.offset + c.bytes == l.state.offset + l.state_set_bytes);
        } else { // several portions: one set, prepared before each launch
          REQUIRE(l.portions > 1);
          REQUIRE(l.state_sets == 1);
          REQUIRE(c.offset + c.bytes == l.control.offset + l.control.bytes);
        }
        REQUIRE(l.state.bytes == static_cast<std::size_t>(l.state_sets) * l.state_set_bytes);
        REQUIRE(l.state_set_bytes >=
                l.state_words_offset + static_cast<std::size_t>(l.portion_tiles) * 256 * 4);
        std::vector<carry::lookback::temp_part> parts{l.alt_keys, l.alt_values, l.hist,
                                                      l.control,  l.state,      l.bases};
        for (auto& p : parts) REQUIRE(p.offset % carry::lookback::temp_alignment == 0);
        for (std::size_t i = 0; i < parts.size(); ++i)
          for (std::size_t j = i + 1; j < parts.size(); ++j)
            if (parts[i].bytes && parts[j].bytes)
              REQUIRE((parts[i].offset + parts[i].bytes <= parts[j].offset ||
                       parts[j].offset + parts[j].bytes <= parts[i].offset));
        REQUIRE(l.allocation >= l.bases.offset + l.bases.bytes + carry::lookback::temp_alignment - 1);
      }
  // 2^28 u32 keys in tiles of 5120 (not a whole number of tiles): one portion, one launch a pass
  const sort_layout l28 =
      make_sort_layout(sort_path::onesweep, std::int64_t{1} << 28, 4, 5120, 4, 0, false, 0, 0);
  REQUIRE(l28.portions == 1);
  REQUIRE(l28.alternate);
  REQUIRE(l28.state_sets == 2);
  // past a portion (2^29 keys at most): several launches a pass, each prepared
  const sort_layout l31 =
      make_sort_layout(sort_path::onesweep, (std::int64_t{1} << 31) + 5, 4, 5120, 1, 0, false, 0, 0);
  REQUIRE(l31.portions == 5);
  REQUIRE_FALSE(l31.alternate);
  REQUIRE_FALSE(l31.clear_once);
  // the cluster path needs only the third buffer, and only with two passes or more
  REQUIRE(make_sort_layout(sort_path::cluster, 5000, 1, 4096, 4, 0, false, 0, 0).alt_keys.bytes == 0);
  REQUIRE(make_sort_layout(sort_path::cluster, 5000, 4, 4096, 4, 0, false, 0, 0).alt_keys.bytes == 5000 * 4);
  REQUIRE(make_sort_layout(sort_path::cluster, 5000, 4, 4096, 4, 0, true, 0, 0).allocation == 1);
  const sort_layout three =
      make_sort_layout(sort_path::three_kernel, 1 << 20, 4, 2048, 4, 0, false, 512, 9999);
  REQUIRE(three.counts.bytes == 512u * 256 * 8);
  REQUIRE(three.scan.bytes == 9999);
}

TEST_CASE("radix cluster wide blocks: the largest tiles' threads", "[radix]") {
  REQUIRE(cluster_full_threads(4096, 16, true, 512, 256) == 512);  // 2^16 u32 keys: 512 x 8
  REQUIRE(cluster_full_threads(4096, 16, false, 512, 256) == 256); // wide blocks off: 256 x 16
  REQUIRE(cluster_full_threads(2048, 8, true, 512, 256) == 512);   // 8-byte keys: 512 x 4
  REQUIRE(cluster_full_threads(768, 3, true, 512, 256) == 256);    // items that do not split evenly
  REQUIRE(cluster_full_threads(256, 2, true, 512, 256) == 256);    // a tile smaller than a wide block
  // the wide block's local capacity is the 256-thread one's (the CPU model above): 512 x 9 = 256 x 18
  STATIC_REQUIRE(512 * carry::radix_tuning::cluster_local_items(8) ==
                 256 * carry::radix_tuning::cluster_local_items(16));
}

TEST_CASE("radix cluster items: the fewest items a thread that still fit the cluster", "[radix]") {
  using carry::radix_detail::cluster_items;
  REQUIRE(cluster_items(1 << 14, 256, 16, 16) == 4);       // 16 tiles of 1024
  REQUIRE(cluster_items((1 << 14) + 1, 256, 16, 16) == 8); // 17 tiles of 1024 would not fit
  REQUIRE(cluster_items(1 << 15, 256, 16, 16) == 8);
  REQUIRE(cluster_items(1 << 16, 256, 16, 16) == 16);
  REQUIRE(cluster_items(1, 256, 16, 16) == 4);
  REQUIRE(cluster_items(1 << 14, 256, 16, 8) == 8); // a device that co-schedules 8 blocks
  REQUIRE(cluster_items(1 << 13, 256, 8, 16) == 2); // 8-byte keys: 2, 4 or 8
  REQUIRE(cluster_items(100, 256, 2, 16) == 1);     // never below one
  // the cluster path's largest tiles: 16 items for 4-byte types and 8 for 8-byte types whatever the
  // onesweep tile (the cluster's inbox beside them must fit 48 KB), else the onesweep tile's; their 16
  // tiles hold 2^16 u32 keys
  namespace rt = carry::radix_tuning;
  STATIC_REQUIRE(rt::cluster_items_max<carry::radix_tuning::default_policy, 1>() == 16);
  STATIC_REQUIRE(rt::cluster_items_max<carry::radix_tuning::default_policy, 4>() == 16);
  STATIC_REQUIRE(rt::cluster_items_max<carry::radix_tuning::default_policy, 8>() == 8);
  STATIC_REQUIRE(rt::cluster_items_max<carry::radix_tuning::default_policy, 8>() <=
                 rt::items<carry::radix_tuning::default_policy, 8>());
  STATIC_REQUIRE(rt::cluster_items_max<carry::radix_tuning::default_policy, 16>() ==
                 rt::items<carry::radix_tuning::default_policy, 16>());
  REQUIRE(std::int64_t{rt::cluster_tiles} * rt::threads *
              rt::cluster_items_max<carry::radix_tuning::default_policy, 4>() ==
          (1 << 16));
  REQUIRE(cluster_items(1 << 16, rt::threads, rt::cluster_items_max<carry::radix_tuning::default_policy, 4>(),
                        rt::cluster_tiles) == 16);
  STATIC_REQUIRE(cluster_items(1 << 16, 256, 16, 16) == 16);
}

TEST_CASE("radix tiles: items a thread by the wider of key and value, keys and pairs apart", "[radix]") {
  namespace rt = carry::radix_tuning;
  STATIC_REQUIRE(rt::items<carry::radix_tuning::default_policy, 1>() ==
                 rt::items<carry::radix_tuning::default_policy, 4>());
  STATIC_REQUIRE(rt::items<carry::radix_tuning::default_policy, 4>() ==
                 carry::radix_tuning::default_policy::items4); // u32 keys (24)
  STATIC_REQUIRE(rt::items<carry::radix_tuning::default_policy, 4, true>() ==
                 carry::radix_tuning::default_policy::items4_pairs); // 4-byte pairs (20)
  STATIC_REQUIRE(rt::items<carry::radix_tuning::default_policy, 8>() ==
                 carry::radix_tuning::default_policy::items8); // u64 / i64 / f64 keys (12)
  STATIC_REQUIRE(rt::items<carry::radix_tuning::default_policy, 8, true>() ==
                 carry::radix_tuning::default_policy::items8_pairs);
  STATIC_REQUIRE(rt::items<carry::radix_tuning::default_policy, 16, true>() == 4);
  // the block's threads: 4-byte keys (and narrower) 256, 8-byte keys and pairs up to 8 bytes 384,
  // 16-byte values 256; every one a whole number of warps with a thread for every digit
  STATIC_REQUIRE(rt::onesweep_threads<carry::radix_tuning::default_policy, false, 1> ==
                 carry::radix_tuning::default_policy::threads_keys4);
  STATIC_REQUIRE(rt::onesweep_threads<carry::radix_tuning::default_policy, false, 4> ==
                 carry::radix_tuning::default_policy::threads_keys4);
  STATIC_REQUIRE(rt::onesweep_threads<carry::radix_tuning::default_policy, false, 8> ==
                 carry::radix_tuning::default_policy::threads_onesweep);
  STATIC_REQUIRE(rt::onesweep_threads<carry::radix_tuning::default_policy, true, 1> ==
                 carry::radix_tuning::default_policy::threads_onesweep);
  STATIC_REQUIRE(rt::onesweep_threads<carry::radix_tuning::default_policy, true, 4> ==
                 carry::radix_tuning::default_policy::threads_onesweep);
  STATIC_REQUIRE(rt::onesweep_threads<carry::radix_tuning::default_policy, true, 8> ==
                 carry::radix_tuning::default_policy::threads_onesweep);
  STATIC_REQUIRE(rt::onesweep_threads<carry::radix_tuning::default_policy, true, 16> == rt::threads);
  // the shared memory of every onesweep tile (threads x items): the stage (keys, or values in the same
  // bytes) shares its bytes with the multisplit's counters and masks (a warp x 256 each, and the
  // scan's), or sits beside them when keys are placed in the ranking rounds (radix_tuning::placed_stage:
  // keys-only large tiles), then one staged digit an item (pairs; bin_by_key's digits in every form)
  // and the 256 adjustments. Up to 48 KB it is static; past it dynamic (radix_detail::
  // dynamic_tile_storage), at most 227 KB a block on sm_90.
  constexpr auto shared_bytes = [](int threads, int items, int bytes, bool digits, bool placed) {
    const int warps = threads / 32;
    const int stage = threads * items * bytes, ranker = 2 * warps * rt::radix * 4 + 64;
    const int shared = placed ? stage + ranker : (stage > ranker ? stage : ranker);
    return shared + (digits ? threads * items : 0) + rt::radix * 8;
  };
  constexpr auto fits = [=](int threads, int items, int bytes, bool digits, bool placed) {
    return shared_bytes(threads, items, bytes, digits, placed) <= 48 * 1024;
  };
  constexpr auto fits_dynamic = [=](int threads, int items, int bytes, bool digits, bool placed) {
    return shared_bytes(threads, items, bytes, digits, placed) <= 227 * 1024;
  };
  STATIC_REQUIRE(fits(rt::onesweep_threads<carry::radix_tuning::default_policy, false, 4>,
                      rt::items<carry::radix_tuning::default_policy, 4>(), 4, false,
                      rt::placed_stage<carry::radix_tuning::default_policy, false, true, 4>));
  STATIC_REQUIRE(fits(rt::onesweep_threads<carry::radix_tuning::default_policy, false, 4>,
                      rt::items<carry::radix_tuning::default_policy, 4>(), 4, true,
                      false)); // bin_by_key, keys only
  STATIC_REQUIRE(fits(rt::onesweep_threads<carry::radix_tuning::default_policy, true, 4>,
                      rt::items<carry::radix_tuning::default_policy, 4, true>(), 4, true,
                      rt::placed_stage<carry::radix_tuning::default_policy, true, true, 4>));
  STATIC_REQUIRE(fits_dynamic(rt::onesweep_threads<carry::radix_tuning::default_policy, false, 8>,
                              rt::items<carry::radix_tuning::default_policy, 8>(), 8, false,
                              rt::placed_stage<carry::radix_tuning::default_policy, false, true, 8>));
  STATIC_REQUIRE(fits_dynamic(rt::onesweep_threads<carry::radix_tuning::default_policy, false, 8>,
                              rt::items<carry::radix_tuning::default_policy, 8>(), 8, true,
                              false)); // bin_by_key, u64 keys
  STATIC_REQUIRE(fits(rt::onesweep_threads<carry::radix_tuning::default_policy, true, 8>,
                      rt::items<carry::radix_tuning::default_policy, 8, true>(), 8, true,
                      rt::placed_stage<carry::radix_tuning::default_policy, true, true, 8>));
  STATIC_REQUIRE(fits(rt::onesweep_threads<carry::radix_tuning::default_policy, true, 16>,
                      rt::items<carry::radix_tuning::default_policy, 16, true>(), 16, true,
                      rt::placed_stage<carry::radix_tuning::default_policy, true, true, 16>));
  STATIC_REQUIRE(!fits(256, 40, 4, true, false)); // what the rule refuses
  STATIC_REQUIRE(!fits(256, 32, 4, false, true)); // 32 KB of placed stage beside the ranker
  STATIC_REQUIRE(!fits(384, 12, 8, false, true)); // 8-byte keys placed at 384 threads: dynamic (63.5 KB)
  STATIC_REQUIRE(shared_bytes(384, 12, 8, false, true) == 63552);
  STATIC_REQUIRE(!fits(384, 26, 4, true, false)); // nor 4-byte pairs at 26 items
  // placed: keys-only large tiles of keys up to 4 bytes only (pairs need the positions after the keys;
  // mid tiles are latency; 8-byte keys: above)
  STATIC_REQUIRE(!rt::placed_stage<carry::radix_tuning::default_policy, true, true>);
  STATIC_REQUIRE(!rt::placed_stage<carry::radix_tuning::default_policy, true, true, 8>);
  STATIC_REQUIRE(!rt::placed_stage<carry::radix_tuning::default_policy, false, false>);
  STATIC_REQUIRE(rt::placed_stage<carry::radix_tuning::default_policy, false, true> ==
                 (carry::radix_tuning::default_policy::placed != 0 &&
                  carry::radix_tuning::default_policy::early_counts));
  STATIC_REQUIRE(rt::placed_stage<carry::radix_tuning::default_policy, false, true, 2> ==
                 rt::placed_stage<carry::radix_tuning::default_policy, false, true, 4>);
  STATIC_REQUIRE(rt::placed_stage<carry::radix_tuning::default_policy, false, true, 8> ==
                 (8 <= carry::radix_tuning::default_policy::placed_key_bytes &&
                  rt::placed_stage<carry::radix_tuning::default_policy, false, true>));
  // blocks an SM: 4-byte keys, 8-byte keys, pairs up to 8-byte types, pairs with 16-byte values
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, false, 4, 1> ==
                 carry::radix_tuning::default_policy::min_blocks);
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, false, 1, 1> ==
                 carry::radix_tuning::default_policy::min_blocks);
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, false, 8, 1> ==
                 carry::radix_tuning::default_policy::min_blocks_keys8);
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 4, 4> ==
                 carry::radix_tuning::default_policy::min_blocks_pairs);
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 4, 8> ==
                 carry::radix_tuning::default_policy::min_blocks_pairs);
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 8, 4> ==
                 carry::radix_tuning::default_policy::min_blocks_pairs);
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 8, 8> ==
                 carry::radix_tuning::default_policy::min_blocks_pairs);
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 8, 16> ==
                 carry::radix_tuning::default_policy::min_blocks_pairs16);
  STATIC_REQUIRE(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 1, 16> ==
                 carry::radix_tuning::default_policy::min_blocks_pairs16);
  // and those blocks' static shared memory and threads fit an SM (228 KB, 1 KB of it reserved a block;
  // 2048 threads)
  constexpr auto sm_fits = [=](int blocks, int threads, int items, int bytes, bool digits, bool placed) {
    return blocks * (shared_bytes(threads, items, bytes, digits, placed) + 1024) <= 228 * 1024 &&
           blocks * threads <= 2048;
  };
  STATIC_REQUIRE(sm_fits(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, false, 4, 1>,
                         rt::onesweep_threads<carry::radix_tuning::default_policy, false, 4>,
                         rt::items<carry::radix_tuning::default_policy, 4>(), 4, false,
                         rt::placed_stage<carry::radix_tuning::default_policy, false, true, 4>));
  STATIC_REQUIRE(sm_fits(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, false, 8, 1>,
                         rt::onesweep_threads<carry::radix_tuning::default_policy, false, 8>,
                         rt::items<carry::radix_tuning::default_policy, 8>(), 8, false,
                         rt::placed_stage<carry::radix_tuning::default_policy, false, true, 8>));
  STATIC_REQUIRE(sm_fits(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 4, 4>,
                         rt::onesweep_threads<carry::radix_tuning::default_policy, true, 4>,
                         rt::items<carry::radix_tuning::default_policy, 4, true>(), 4, true, false));
  STATIC_REQUIRE(sm_fits(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 8, 8>,
                         rt::onesweep_threads<carry::radix_tuning::default_policy, true, 8>,
                         rt::items<carry::radix_tuning::default_policy, 8, true>(), 8, true, false));
  STATIC_REQUIRE(sm_fits(rt::onesweep_min_blocks<carry::radix_tuning::default_policy, true, 4, 16>,
                         rt::onesweep_threads<carry::radix_tuning::default_policy, true, 16>,
                         rt::items<carry::radix_tuning::default_policy, 16, true>(), 16, true, false));
  // the wide tile of large 4-byte keys-only inputs: 384 x 24 placed, past 48 KB (dynamic), 2 an SM
  STATIC_REQUIRE(fits_dynamic(rt::wide_threads<carry::radix_tuning::default_policy, false, 4>,
                              rt::items<carry::radix_tuning::default_policy, 4>(), 4, false,
                              rt::placed_stage<carry::radix_tuning::default_policy, false, true, 4>));
  STATIC_REQUIRE(sm_fits(carry::radix_tuning::default_policy::min_blocks_wide,
                         rt::wide_threads<carry::radix_tuning::default_policy, false, 4>,
                         rt::items<carry::radix_tuning::default_policy, 4>(), 4, false,
                         rt::placed_stage<carry::radix_tuning::default_policy, false, true, 4>));
  STATIC_REQUIRE(rt::wide_threads<carry::radix_tuning::default_policy, false, 4> % 32 == 0 &&
                 rt::wide_threads<carry::radix_tuning::default_policy, false, 4> >= rt::radix);
  STATIC_REQUIRE(rt::wide_threads<carry::radix_tuning::default_policy, true, 4> ==
                 0); // pairs, other key widths: no wide tile
  STATIC_REQUIRE(rt::wide_threads<carry::radix_tuning::default_policy, false, 2> == 0);
  STATIC_REQUIRE(rt::wide_threads<carry::radix_tuning::default_policy, false, 8> == 0);
}

TEST_CASE("radix tile forms: whole and padded tiles by one rule", "[radix]") {
  namespace rt = carry::radix_tuning;
  STATIC_REQUIRE(rt::tile_form_on<carry::radix_tuning::default_policy>(true, 4, 1, 0) ==
                 false); // pairs follow their own switch
  STATIC_REQUIRE(rt::tile_form_on<carry::radix_tuning::default_policy>(true, 4, 0, 1, 4) ==
                 (4 <= carry::radix_tuning::default_policy::whole_pair_bytes)); // u32/u32 pairs
  STATIC_REQUIRE(rt::tile_form_on<carry::radix_tuning::default_policy>(true, 4, 0, 1, 8) ==
                 (8 <= carry::radix_tuning::default_policy::whole_pair_bytes)); // an 8-byte value
  STATIC_REQUIRE(rt::tile_form_on<carry::radix_tuning::default_policy>(true, 8, 0, 1, 4) ==
                 (8 <= carry::radix_tuning::default_policy::whole_pair_bytes)); // an 8-byte key
  STATIC_REQUIRE(!rt::tile_form_on<carry::radix_tuning::default_policy>(true, 1, 0, 0, 1));
  STATIC_REQUIRE(rt::tile_form_on<carry::radix_tuning::default_policy>(
      false, 4, 1, 0)); // keys theirs, up to WHOLE_KEY_BYTES
  STATIC_REQUIRE(rt::tile_form_on<carry::radix_tuning::default_policy>(false, 8, 1, 0) ==
                 (8 <= carry::radix_tuning::default_policy::whole_key_bytes));
  STATIC_REQUIRE(!rt::tile_form_on<carry::radix_tuning::default_policy>(false, 1, 0, 1));
  STATIC_REQUIRE(rt::whole_tiles<carry::radix_tuning::default_policy, false, 4> ==
                 (carry::radix_tuning::default_policy::whole_keys != 0));
  STATIC_REQUIRE(rt::whole_tiles<carry::radix_tuning::default_policy, true, 4> ==
                 (carry::radix_tuning::default_policy::whole_pairs != 0));
  STATIC_REQUIRE(rt::padded_partial_tiles<carry::radix_tuning::default_policy, false, 4> ==
                 (carry::radix_tuning::default_policy::padded_keys != 0));
  STATIC_REQUIRE(rt::padded_partial_tiles<carry::radix_tuning::default_policy, true, 8> ==
                 (carry::radix_tuning::default_policy::padded_pairs != 0 &&
                  8 <= carry::radix_tuning::default_policy::whole_pair_bytes));
  STATIC_REQUIRE(rt::padded_partial_tiles<carry::radix_tuning::default_policy, true, 4, 4> ==
                 (carry::radix_tuning::default_policy::padded_pairs != 0));
  STATIC_REQUIRE(rt::whole_tiles<carry::radix_tuning::default_policy, true, 4, 16> ==
                 (16 <= carry::radix_tuning::default_policy::whole_pair_bytes &&
                  carry::radix_tuning::default_policy::whole_pairs != 0));
}

TEST_CASE("radix onesweep tiles: wide blocks for large inputs of 4-byte keys", "[radix]") {
  using carry::radix_detail::onesweep_threads_for;
  constexpr std::int64_t m = std::int64_t{1} << 25;
  REQUIRE(onesweep_threads_for(m, 24, 24, 256, 384, m) == 384);     // at the threshold
  REQUIRE(onesweep_threads_for(m - 1, 24, 24, 256, 384, m) == 256); // below it
  REQUIRE(onesweep_threads_for(std::int64_t{1} << 40, 8, 24, 256, 384, m) ==
          256); // the mid tile keeps its blocks
  REQUIRE(onesweep_threads_for(std::int64_t{1} << 40, 24, 24, 256, 0, m) == 256);   // no wide tile
  REQUIRE(onesweep_threads_for(std::int64_t{1} << 40, 24, 24, 384, 384, m) == 384); // wide == the tile's own
  STATIC_REQUIRE(onesweep_threads_for(std::int64_t{1} << 30, 24, 24, 256, 384, std::int64_t{1} << 30) == 384);
  // the threshold lies above the mid-size tiles, so a wide tile is always a large one
  STATIC_REQUIRE(carry::radix_tuning::wide_min_n<carry::radix_tuning::default_policy> >
                 carry::radix_tuning::mid_items_max_n<carry::radix_tuning::default_policy>);
}

TEST_CASE("radix bucket form: when the call launches it, and what the histogram chooses", "[radix]") {
  using carry::radix_detail::bucket_applies;
  using carry::radix_detail::bucket_lower_passes;
  using carry::radix_detail::bucket_msd_pass;
  using A = carry::radix_sort_algorithm;
  constexpr std::int64_t m = std::int64_t{1} << 18;
  REQUIRE(bucket_applies(m, 4, A::automatic, 4, true, 1, m, 12));
  REQUIRE(bucket_applies(70000, 2, A::automatic, 12, true, 1, m, 12));      // u32/u64 pairs, two passes
  REQUIRE_FALSE(bucket_applies(m + 1, 4, A::automatic, 4, true, 1, m, 12)); // above the limit
  REQUIRE_FALSE(bucket_applies(m, 1, A::automatic, 4, true, 1, m, 12));     // one pass: nothing below it
  REQUIRE_FALSE(bucket_applies(m, 4, A::onesweep, 4, true, 1, m, 12));      // an algorithm asked for
  REQUIRE_FALSE(bucket_applies(m, 4, A::automatic, 16, true, 1, m, 12));    // u64/u64 pairs
  REQUIRE_FALSE(bucket_applies(m, 4, A::automatic, 4, false, 1, m, 12));    // words not cleared once
  REQUIRE_FALSE(bucket_applies(m, 4, A::automatic, 4, true, 2, m, 12));     // two portions
  REQUIRE_FALSE(bucket_applies(0, 4, A::automatic, 4, true, 1, m, 12));     // empty
  REQUIRE_FALSE(bucket_applies(m, 4, A::automatic, 4, true, 1, 0, 12));     // turned off
  REQUIRE(bucket_msd_pass(0b0000u, 4) == 3);
  REQUIRE(bucket_msd_pass(0b1000u, 4) == 2); // a constant top digit: the next one splits
  REQUIRE(bucket_msd_pass(0b0101u, 4) == 3);
  REQUIRE(bucket_msd_pass(0b1110u, 4) == -1); // one pass runs
  REQUIRE(bucket_msd_pass(0b1111u, 4) == -1); // none (sorted, or all equal)
  REQUIRE(bucket_msd_pass(0u, 1) == -1);
  REQUIRE(bucket_msd_pass(0u, 8) == 7);
  REQUIRE(bucket_lower_passes(0b0100u, 3) == 0b0011u);
  REQUIRE(bucket_lower_passes(0u, 1) == 0b0001u);
  REQUIRE(bucket_lower_passes(0b1000u, 2) == 0b0011u);
  // every mask of 4 passes: the MSD pass runs, the lower mask is exactly the other passes that run
  for (unsigned skip = 0; skip < 16; ++skip) {
    const int top = bucket_msd_pass(skip, 4);
    int runs = 0;
    for (int p = 0; p < 4; ++p) runs += (skip >> p & 1u) ? 0 : 1;
    if (runs < 2) {
      REQUIRE(top == -1);
      continue;
    }
    REQUIRE((skip >> top & 1u) == 0u);
    const unsigned lower = bucket_lower_passes(skip, top);
    REQUIRE(lower == ((~skip & 0xfu) & ~(1u << top)));
  }
  // the bucket form lies within the mid tiles (its MSD pass runs them)
  STATIC_REQUIRE(carry::radix_tuning::bucket_max_n<carry::radix_tuning::default_policy> <=
                 carry::radix_tuning::mid_items_max_n<carry::radix_tuning::default_policy>);
}

TEST_CASE("radix onesweep tiles: shorter tiles up to the mid-size limit", "[radix]") {
  using carry::radix_detail::onesweep_items;
  namespace rt = carry::radix_tuning;
  REQUIRE(onesweep_items(1 << 18, 20, 8, 1 << 18) == 8);
  REQUIRE(onesweep_items((1 << 18) + 1, 20, 8, 1 << 18) == 20);
  REQUIRE(onesweep_items(1, 20, 8, 1 << 18) == 8);
  REQUIRE(onesweep_items(1 << 10, 20, 0, 1 << 18) == 20); // no mid tile: the large one at every size
  STATIC_REQUIRE(onesweep_items(std::int64_t{1} << 40, 12, 6, 1 << 18) == 12);
  // the mid tiles are shorter than the large ones (or off), and 16-byte values keep theirs
  STATIC_REQUIRE(rt::mid_items<carry::radix_tuning::default_policy, 4>() <
                 rt::items<carry::radix_tuning::default_policy, 4>());
  STATIC_REQUIRE(rt::mid_items<carry::radix_tuning::default_policy, 8>() <
                 rt::items<carry::radix_tuning::default_policy, 8>());
  STATIC_REQUIRE(rt::mid_items<carry::radix_tuning::default_policy, 8>() <
                 rt::items<carry::radix_tuning::default_policy, 8, true>());
  STATIC_REQUIRE(rt::mid_items<carry::radix_tuning::default_policy, 16>() == 0);
  STATIC_REQUIRE(
      rt::mid_items_max_n<carry::radix_tuning::default_policy> >=
      rt::onesweep_threads<carry::radix_tuning::default_policy, true, 4> *
          rt::items<carry::radix_tuning::default_policy, 4, true>()); // a mid-size input is several tiles
}

TEST_CASE("radix onesweep grid: a block a tile, or one wave of persistent blocks", "[radix]") {
  using carry::radix_detail::onesweep_grid;
  REQUIRE(onesweep_grid(16384, false, 132, 4) == 16384);
  REQUIRE(onesweep_grid(16384, true, 132, 4) == 528);
  REQUIRE(onesweep_grid(100, true, 132, 4) == 100); // fewer tiles than a wave: a block each
  REQUIRE(onesweep_grid(528, true, 132, 4) == 528);
  REQUIRE(onesweep_grid(1, true, 132, 4) == 1);
  REQUIRE(onesweep_grid(16384, true, 0, 4) == 16384); // no device figures: a block a tile
  STATIC_REQUIRE(onesweep_grid(65536, true, 132, 3) == 396);
}

TEST_CASE("radix argument checks, in order", "[radix]") {
  int a, b, c, d;
  REQUIRE(check_sort_args(&a, &b, &c, &d, true, -1, 0, 32, 32, 10, 10, false, 1) ==
          sort_error::negative_count);
  REQUIRE(check_sort_args(&a, &b, &c, &d, true, 0, 0, 33, 32, 10, 10, false, 1) == sort_error::bad_bits);
  REQUIRE(check_sort_args(&a, &b, &c, &d, true, 0, -1, 8, 32, 10, 10, false, 1) == sort_error::bad_bits);
  REQUIRE(check_sort_args(&a, &b, &c, &d, true, 0, 9, 8, 32, 10, 10, false, 1) == sort_error::bad_bits);
  REQUIRE(check_sort_args(nullptr, nullptr, nullptr, nullptr, true, 0, 0, 32, 32, 0, 10, false, 0) ==
          sort_error::none);
  REQUIRE(check_sort_args(nullptr, &b, &c, &d, true, 5, 0, 32, 32, 10, 10, false, 1) ==
          sort_error::null_keys);
  REQUIRE(check_sort_args(&a, nullptr, &c, &d, true, 5, 0, 32, 32, 10, 10, false, 1) ==
          sort_error::null_keys);
  REQUIRE(check_sort_args(&a, &b, nullptr, &d, true, 5, 0, 32, 32, 10, 10, false, 1) ==
          sort_error::null_values);
  REQUIRE(check_sort_args(&a, &b, nullptr, nullptr, false, 5, 0, 32, 32, 10, 10, false, 1) ==
          sort_error::none);
  REQUIRE(check_sort_args(&a, &b, &c, &d, true, 5, 0, 32, 32, 9, 10, false, 1) == sort_error::temp_too_small);
  REQUIRE(check_sort_args(&a, &b, &c, &d, true, 5, 0, 32, 32, 10, 10, true, 1) == sort_error::overlap);
  REQUIRE(check_sort_args(&a, &b, &c, &d, true, 5, 7, 7, 32, 10, 10, false, 1) ==
          sort_error::none); // empty range
}

namespace {
/// Runs the executed passes of `skip` through pass_buffers as the device does, and checks that each
/// pass reads where the data is, never writes the buffer it reads or the pointer form's input, and that
/// the result (after the finishing copy, if any) is where the caller expects it.
void route_case(bool db, int passes, unsigned skip) {
  int in_, out_, alt_;
  pass_buffers<int> b{&in_, &out_, db ? nullptr : &alt_, db};
  const int k = executed_passes(skip, passes);
  const int* at = b.in;
  for (int p = 0; p < passes; ++p) {
    if (skip >> p & 1u) continue;
    const int j = executed_before(skip, p);
    REQUIRE(b.src(j, k) == at);
    REQUIRE(b.dst(j, k) != b.src(j, k));
    REQUIRE(b.dst(j, k) != nullptr);
    if (!db) REQUIRE(b.dst(j, k) != b.in);
    at = b.dst(j, k);
  }
  REQUIRE(b.result(k) == at);
  const int* final_at = b.needs_copy(k, passes) ? b.target(passes) : at;
  REQUIRE(final_at == b.target(passes));
  REQUIRE(b.target(passes) == (db ? (passes % 2 ? b.out : b.in) : b.out)); // CUB's selector rule
  if (!db) REQUIRE(b.needs_copy(k, passes) == (k == 0));
  if (db) REQUIRE(b.needs_copy(k, passes) == (k % 2 != passes % 2));
}
} // namespace

TEST_CASE("radix routing: every skip mask, both forms, lands where the caller expects", "[radix]") {
  for (bool db : {false, true})
    for (int passes = 1; passes <= 8; ++passes)
      for (unsigned skip = 0; skip < (1u << passes); ++skip) {
        INFO("db " << db << " passes " << passes << " skip " << skip);
        route_case(db, passes, skip);
      }
  // the worked example: pointer form, 4 passes, pass 1 skipped: in -> out -> alt -> out
  int in_, out_, alt_;
  pass_buffers<int> b{&in_, &out_, &alt_, false};
  REQUIRE(b.dst(0, 3) == &out_);
  REQUIRE(b.dst(1, 3) == &alt_);
  REQUIRE(b.dst(2, 3) == &out_);
  REQUIRE(executed_passes(0b0010u, 4) == 3);
  REQUIRE(executed_before(0b0010u, 3) == 2);
}

TEST_CASE("radix key images: from_ordered inverts ordered (-0.0 comes back as +0.0)", "[radix]") {
  std::mt19937_64 g(5);
  for (int i = 0; i < 2000; ++i) {
    const std::uint32_t u = static_cast<std::uint32_t>(g());
    REQUIRE(radix_key<std::uint32_t>::ordered(radix_key<std::uint32_t>::from_ordered(u)) == u);
    REQUIRE(radix_key<std::int32_t>::ordered(radix_key<std::int32_t>::from_ordered(u)) == u);
    REQUIRE(radix_key<float>::ordered(radix_key<float>::from_ordered(u)) ==
            (u == 0x7fffffffu ? 0x80000000u : u));
    const std::uint64_t w = g();
    REQUIRE(radix_key<double>::ordered(radix_key<double>::from_ordered(w)) ==
            (w == 0x7fffffffffffffffull ? 0x8000000000000000ull : w));
    REQUIRE(radix_key<std::int64_t>::ordered(radix_key<std::int64_t>::from_ordered(w)) == w);
  }
  REQUIRE(radix_key<float>::from_ordered(0x80000000u) == 0.0f);
  REQUIRE(radix_key<float>::from_ordered(0xbf800000u) == 1.0f);
}

TEST_CASE("merge_path: a's share of every prefix of the stable merge (ties: a first), both directions",
          "[cpu][radix][merge]") {
  std::mt19937 rng(11);
  for (bool desc : {false, true})
    for (int trial = 0; trial < 200; ++trial) {
      const auto less = carry::radix_detail::merge_order<std::uint32_t>{desc};
      std::vector<std::uint32_t> a(rng() % 40), b(rng() % 40);
      const std::uint32_t range = 1 + rng() % 8; // few values: ties across the runs
      for (auto& x : a) x = rng() % range;
      for (auto& x : b) x = rng() % range;
      std::stable_sort(a.begin(), a.end(), less);
      std::stable_sort(b.begin(), b.end(), less);
      // the stable merge, a's item taken while not after b's
      std::vector<int> from_a;
      std::size_t i = 0, j = 0;
      while (i < a.size() || j < b.size()) {
        const bool take_a = j == b.size() || (i < a.size() && !less(b[j], a[i]));
        from_a.push_back(take_a ? 1 : 0);
        take_a ? ++i : ++j;
      }
      const auto na = static_cast<std::int64_t>(a.size()), nb = static_cast<std::int64_t>(b.size());
      std::int64_t want = 0;
      for (std::int64_t d = 0; d <= na + nb; ++d) {
        CHECK(carry::radix_detail::merge_path(a.data(), na, b.data(), nb, d, less) == want);
        if (d < na + nb) want += from_a[static_cast<std::size_t>(d)];
      }
    }
}

TEST_CASE(
    "plan_merge4, bound_at: four-run tiles cut at merged samples hold fewer than (per_tile + 4) x every "
    "items, each boundary its place on every run",
    "[cpu][radix][merge]") {
  std::mt19937 rng(12);
  for (bool desc : {false, true})
    for (int trial = 0; trial < 400; ++trial) {
      const auto less = carry::radix_detail::merge_order<std::uint32_t>{desc};
      std::vector<std::uint32_t> run[4];
      const std::uint32_t range = 1 + rng() % (trial % 2 ? 6 : 1000); // few values: ties across runs
      for (auto& r : run) {
        r.resize(rng() % 4 == 0 ? 0 : rng() % 60); // empty runs too
        for (auto& x : r) x = rng() % range;
        std::stable_sort(r.begin(), r.end(), less);
      }
      // the stable merge of all four: by key, then run, then position
      std::vector<std::pair<int, std::int64_t>> all;
      for (int q = 0; q < 4; ++q)
        for (std::size_t i = 0; i < run[q].size(); ++i) all.push_back({q, static_cast<std::int64_t>(i)});
      std::stable_sort(all.begin(), all.end(), [&](auto x, auto y) {
        return less(run[x.first][static_cast<std::size_t>(x.second)],
                    run[y.first][static_cast<std::size_t>(y.second)]);
      });
      const std::uint32_t* rp[4] = {run[0].data(), run[1].data(), run[2].data(), run[3].data()};
      const std::int64_t len[4] = {
          static_cast<std::int64_t>(run[0].size()), static_cast<std::int64_t>(run[1].size()),
          static_cast<std::int64_t>(run[2].size()), static_cast<std::int64_t>(run[3].size())};
      const std::int64_t every = 1 + trial % 4, tile = every * (5 + trial % 7);
      const auto p = carry::radix_detail::plan_merge4(len, 4, tile, every, 3);
      CHECK(p.per_tile == tile / every - 4);
      // the samples in merge order (the GPU merges them stably, run pair by run pair: the same order)
      std::vector<std::pair<int, std::int64_t>> samples;
      for (const auto& x : all)
        if (x.second % every == 0) samples.push_back(x);
      REQUIRE(static_cast<std::int64_t>(samples.size()) == p.samples);
      for (int q = 0; q < 4; ++q) CHECK(p.first[q + 1] - p.first[q] == (len[q] + every - 1) / every);
      // the scratch any merge of this many items may take covers this plan's, in every four-run tile
      const std::int64_t items = len[0] + len[1] + len[2] + len[3];
      for (std::int64_t t4 : {carry::radix_detail::merge4_shape<std::uint32_t, 0>::tile,
                              carry::radix_detail::merge4_shape<std::uint32_t, 4>::tile,
                              carry::radix_detail::merge4_shape<std::uint32_t, 8>::tile})
        CHECK(carry::radix_detail::merge_splits<std::uint32_t>(items) >=
              carry::radix_detail::plan_merge4_for<std::uint32_t>(len, t4).words);
      CHECK(p.tiles == (all.empty() ? 0 : (p.samples + p.per_tile - 1) / p.per_tile));
      // every item of every run as a boundary: its place and its run counts
      for (std::size_t at = 0; at < all.size(); ++at) {
        const auto v = carry::radix_detail::bound_at(rp, len, all[at].first, all[at].second, less);
        REQUIRE(v.place() == static_cast<std::int64_t>(at));
        for (int q = 0; q < 4; ++q) {
          std::int64_t c = 0;
          for (std::size_t k = 0; k < at; ++k) c += all[k].first == q ? 1 : 0;
          CHECK(v.at[q] == c);
        }
      }
      // the tiles: boundaries at every per_tile-th merged sample, each tile under (per_tile + 4) x every
      std::int64_t prev = 0;
      for (std::int64_t t = 1; t <= p.tiles; ++t) {
        const std::int64_t place = t == p.tiles
                                       ? static_cast<std::int64_t>(all.size())
                                       : carry::radix_detail::bound_at(
                                             rp, len, samples[static_cast<std::size_t>(t * p.per_tile)].first,
                                             samples[static_cast<std::size_t>(t * p.per_tile)].second, less)
                                             .place();
        CHECK(place > prev);
        CHECK(place - prev < (p.per_tile + 4) * every);
        CHECK(place - prev <= tile);
        prev = place;
      }
      // the scratch: boundaries, three sample buffers of keys and tags, then the two-run splits
      CHECK(p.bounds == 0);
      CHECK(p.keys[0] == 4 * (p.tiles + 1));
      CHECK(p.tags[0] == p.keys[0] + (p.samples * 4 + 7) / 8);
      CHECK(p.keys[1] == p.tags[0] + p.samples);
      CHECK(p.splits == p.tags[2] + p.samples);
      CHECK(p.words == p.splits + 3);
    }
}

TEST_CASE("merge_order: the radix sort's key order (floats by image, -0.0 with +0.0), descending flipped",
          "[cpu][radix][merge]") {
  const carry::radix_detail::merge_order<float> up{false}, down{true};
  CHECK(up(-1.0f, 0.0f));
  CHECK(up(-0.0f, 1.0f));
  CHECK(!up(-0.0f, 0.0f));
  CHECK(!up(0.0f, -0.0f));
  CHECK(down(2.0f, -3.0f));
  CHECK(!down(-3.0f, 2.0f));
  const carry::radix_detail::merge_order<std::int8_t> i8{false};
  CHECK(i8(-128, 127));
  CHECK(!i8(5, 5));
  // split scratch: one entry a tile boundary, the end included, for the tile of keys alone and with values
  using carry::radix_detail::merge_shape;
  using carry::radix_detail::merge_splits;
  for (std::int64_t tile : {merge_shape<std::uint32_t, 0>::tile, merge_shape<std::uint32_t, 4>::tile,
                            merge_shape<std::uint32_t, 8>::tile, merge_shape<std::uint32_t, 16>::tile})
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, tile - 1, tile, tile + 1, std::int64_t{1} << 33})
      CHECK(merge_splits<std::uint32_t>(n) >= (n + tile - 1) / tile + 1);
  for (std::int64_t tile : {merge_shape<std::uint64_t, 0>::tile, merge_shape<std::uint64_t, 4>::tile})
    for (std::int64_t n : {std::int64_t{1}, tile + 1, std::int64_t{1} << 33})
      CHECK(merge_splits<std::uint64_t>(n) >= (n + tile - 1) / tile + 1);
  // four runs: the sampled plan's words for any four runs of n items, the most samples included (every run
  // one item past a multiple of the spacing)
  {
    std::mt19937_64 rng(5);
    const std::int64_t every = carry::radix_tuning::default_policy::merge4_sample_every;
    using carry::radix_detail::merge4_shape;
    for (int trial = 0; trial < 20000; ++trial) {
      std::int64_t len[4];
      for (auto& l : len)
        l = trial % 3 == 0 ? static_cast<std::int64_t>(rng() % 5) * every + 1
                           : static_cast<std::int64_t>(rng() % (trial % 2 ? 100 : 5000000));
      const std::int64_t n = len[0] + len[1] + len[2] + len[3];
      for (std::int64_t t4 : {merge4_shape<std::uint32_t, 0>::tile, merge4_shape<std::uint32_t, 4>::tile,
                              merge4_shape<std::uint32_t, 8>::tile})
        REQUIRE(merge_splits<std::uint32_t>(n) >=
                carry::radix_detail::plan_merge4_for<std::uint32_t>(len, t4).words);
      REQUIRE(merge_splits<std::uint64_t>(n) >=
              carry::radix_detail::plan_merge4_for<std::uint64_t>(len, merge4_shape<std::uint64_t, 8>::tile)
                  .words);
    }
  }
  // four runs: the sampled plan's words, for even and lopsided runs
  using carry::radix_detail::merge4_shape;
  for (std::int64_t tile : {merge4_shape<std::uint32_t, 0>::tile, merge4_shape<std::uint32_t, 4>::tile,
                            merge4_shape<std::uint32_t, 8>::tile})
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, tile - 1, tile, tile + 1, std::int64_t{1} << 33})
      if (n > 0) {
        const std::int64_t len[4] = {n / 4, n / 4, n / 4, n - 3 * (n / 4)}, one[4] = {n, 0, 0, 0};
        CHECK(merge_splits<std::uint32_t>(n) >=
              carry::radix_detail::plan_merge4_for<std::uint32_t>(len, tile).words);
        CHECK(merge_splits<std::uint32_t>(n) >=
              carry::radix_detail::plan_merge4_for<std::uint32_t>(one, tile).words);
      }
  for (std::int64_t tile : {merge4_shape<std::uint64_t, 0>::tile, merge4_shape<std::uint64_t, 8>::tile})
    for (std::int64_t n : {std::int64_t{4}, tile + 1, std::int64_t{1} << 33}) {
      const std::int64_t len[4] = {1, n / 2, 0, n - 1 - n / 2};
      CHECK(merge_splits<std::uint64_t>(n) >=
            carry::radix_detail::plan_merge4_for<std::uint64_t>(len, tile).words);
    }
}

TEST_CASE("key_image: every bit of the ordered image, flipped for descending", "[cpu][radix]") {
  using carry::radix_detail::key_image;
  CHECK(key_image(std::uint8_t{3}, false) == 3);
  CHECK(key_image(std::uint8_t{3}, true) == 252);
  CHECK(key_image(std::int8_t{-128}, false) < key_image(std::int8_t{127}, false));
  CHECK(key_image(std::int8_t{-128}, true) > key_image(std::int8_t{127}, true));
  CHECK(key_image(-1.0f, false) < key_image(0.0f, false));
  CHECK(key_image(-0.0f, false) == key_image(0.0f, false));
  CHECK(key_image(~std::uint64_t{0}, true) == 0);
}
