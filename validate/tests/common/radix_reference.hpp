// CPU references of the radix sort (std::stable_sort by the library's key image, CPU-tested) and its
// test data (uniform, sorted, reversed, all-equal, two values, low entropy, float specials), shared by
// the GPU tests, the tool and the benchmark.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <carry/radixsort/detail/key_traits.hpp>

namespace carry_validate {

/// Bits [begin, end) of an ordered key image, flipped for descending, in 64-bit arithmetic: the
/// reference for the library's sort_bits (which works in the key's own width).
template <class U>
std::uint64_t reference_sort_bits(U ordered, int begin, int end, bool descending) {
  const int bits = end - begin;
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  const std::uint64_t x = (begin >= 64 ? 0 : static_cast<std::uint64_t>(ordered) >> begin) & mask;
  return descending ? (~x & mask) : x;
}

/// What a key sorts by: bits [begin, end) of its order-preserving image, flipped for descending.
template <class K>
std::uint64_t radix_sort_bits(const K& k, int begin, int end, bool descending) {
  using rk = carry::radix_detail::radix_key<K>;
  return reference_sort_bits(rk::ordered(k), begin, end, descending);
}

/// The stable order of keys by their sort bits: a permutation of 0 .. n-1.
template <class K>
std::vector<std::size_t> reference_sort_order(const std::vector<K>& keys, int begin, int end,
                                              bool descending) {
  std::vector<std::uint64_t> b(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) b[i] = radix_sort_bits(keys[i], begin, end, descending);
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return b[x] < b[y]; });
  return order;
}
template <class T>
std::vector<T> permuted(const std::vector<T>& v, const std::vector<std::size_t>& order) {
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) out[i] = v[order[i]];
  return out;
}

/// Unsigned keys in order, for keys-only checks of very large inputs (whole unsigned keys: equal keys are
/// equal bits, so any correct sort gives the same array). 1- and 2-byte keys by counting, wider ones by
/// an LSD pass per byte: linear, where std::sort of 2^31 u8 keys took minutes of the large test.
template <class K>
std::vector<K> reference_sorted_keys(const std::vector<K>& keys, bool descending) {
  static_assert(std::is_unsigned<K>::value, "carry: whole unsigned keys only");
  std::vector<K> out;
  if constexpr (sizeof(K) <= 2) {
    std::vector<std::size_t> count(std::size_t{1} << (8 * sizeof(K)), 0);
    for (const K k : keys) ++count[k];
    out.reserve(keys.size());
    for (std::size_t i = 0; i < count.size(); ++i) {
      const std::size_t v = descending ? count.size() - 1 - i : i;
      out.insert(out.end(), count[v], static_cast<K>(v));
    }
  } else {
    out = keys;
    std::vector<K> tmp(keys.size());
    for (unsigned shift = 0; shift < 8 * sizeof(K); shift += 8) {
      std::size_t start[257] = {};
      for (const K k : out) ++start[((k >> shift) & 0xFF) + 1];
      for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
      for (const K k : out) tmp[start[(k >> shift) & 0xFF]++] = k;
      out.swap(tmp);
    }
    if (descending) std::reverse(out.begin(), out.end());
  }
  return out;
}

/// Bitwise equality of two arrays (floats: NaN payloads and -0.0 compared as bits).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Test and benchmark key distributions.
enum class key_dist { uniform, sorted, reversed, all_equal, two_values, low_entropy, specials };
inline const char* dist_name(key_dist d) {
  switch (d) {
  case key_dist::uniform:
    return "uniform";
  case key_dist::sorted:
    return "sorted";
  case key_dist::reversed:
    return "reversed";
  case key_dist::all_equal:
    return "equal";
  case key_dist::two_values:
    return "two";
  case key_dist::low_entropy:
    return "lowent";
  default:
    return "specials";
  }
}
inline bool parse_dist(const std::string& s, key_dist& d) {
  for (key_dist x : {key_dist::uniform, key_dist::sorted, key_dist::reversed, key_dist::all_equal,
                     key_dist::two_values, key_dist::low_entropy, key_dist::specials})
    if (s == dist_name(x)) {
      d = x;
      return true;
    }
  return false;
}

/// n keys of the distribution. two_values: keys 0x..00 and 0x..01 of one random word (they differ in the
/// lowest byte only); low_entropy: the AND of three random words; specials (floats): +-0, +-inf, NaNs of
/// both signs, denormals, mixed with random values (integers: the ends of the range).
template <class K>
std::vector<K> make_keys(std::size_t n, key_dist dist, std::uint64_t seed) {
  using U = typename carry::radix_detail::radix_key<K>::bits_type;
  std::mt19937_64 g(seed);
  std::vector<U> u(n);
  for (auto& x : u) x = static_cast<U>(g());
  switch (dist) {
  case key_dist::uniform:
    break;
  case key_dist::low_entropy:
    for (auto& x : u) x = static_cast<U>(x & static_cast<U>(g()) & static_cast<U>(g()));
    break;
  case key_dist::all_equal:
    for (auto& x : u) x = static_cast<U>(0x5A5A5A5A5A5A5A5Aull);
    break;
  case key_dist::two_values: {
    const U base = static_cast<U>(static_cast<U>(g()) & static_cast<U>(~U{0xFF}));
    for (auto& x : u) x = static_cast<U>(base | (x & 1u));
    break;
  }
  case key_dist::specials: {
    const int bits = 8 * static_cast<int>(sizeof(K));
    const U sign = static_cast<U>(U{1} << (bits - 1));
    std::vector<U> special{
        0, sign, static_cast<U>(~U{0}), static_cast<U>(sign - 1), 1, static_cast<U>(sign | 1)};
    if constexpr (carry::radix_detail::kind_of<K>() == carry::radix_detail::key_kind::floating) {
      const int mant = sizeof(K) == 8 ? 52 : sizeof(K) == 4 ? 23 : std::is_same_v<K, __half> ? 10 : 7;
      const U exp_all = static_cast<U>((sign - 1) & ~((U{1} << mant) - 1)); // all exponent bits
      const U inf = exp_all, qnan = static_cast<U>(exp_all | (U{1} << (mant - 1)));
      special.insert(special.end(), {inf, static_cast<U>(inf | sign), qnan, static_cast<U>(qnan | sign),
                                     static_cast<U>(inf | 1), static_cast<U>(inf | sign | 5), 1, 3,
                                     static_cast<U>(sign | 2), static_cast<U>((U{1} << mant) - 1)});
    }
    for (std::size_t i = 0; i < n; i += 1 + static_cast<std::size_t>(g() % 3))
      u[i] = special[g() % special.size()];
    break;
  }
  case key_dist::sorted:
  case key_dist::reversed:
    break;
  }
  if (dist == key_dist::sorted || dist == key_dist::reversed) {
    // images i * 2^bits / n plus a little noise below the step: non-decreasing, no sort needed
    const int bits = 8 * static_cast<int>(sizeof(K));
    const long double step = std::ldexp(1.0L, bits) / static_cast<long double>(n ? n : 1);
    for (std::size_t i = 0; i < n; ++i) {
      const long double base = static_cast<long double>(i) * step;
      const std::uint64_t noise = step >= 2 ? g() % static_cast<std::uint64_t>(step / 2) : 0;
      const U image = static_cast<U>(static_cast<std::uint64_t>(base) + noise);
      u[dist == key_dist::sorted ? i : n - 1 - i] = image;
    }
    std::vector<K> k(n);
    for (std::size_t i = 0; i < n; ++i) k[i] = carry::radix_detail::radix_key<K>::from_ordered(u[i]);
    return k;
  }
  std::vector<K> k(n);
  if (n) std::memcpy(k.data(), u.data(), n * sizeof(K));
  return k;
}

/// The keys stably grouped by their lowest byte (of the ordered bits), as bin_by_key by the low byte
/// leaves them: a sort's first pass then meets tiles, and warps, of one digit (the multisplit's uniform
/// warps, multisplit_tuning::uniform_warps).
template <class K>
std::vector<K> grouped_by_low_byte(const std::vector<K>& keys) {
  std::vector<std::size_t> start(257, 0);
  const auto low = [](const K& k) {
    return static_cast<std::size_t>(carry::radix_detail::radix_key<K>::ordered(k) & 0xFFu);
  };
  for (const K& k : keys) ++start[low(k) + 1];
  for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
  std::vector<K> out(keys.size());
  for (const K& k : keys) out[start[low(k)]++] = k;
  return out;
}
} // namespace carry_validate
