// CPU references (sequential scans and reduction) and the test value types: plain C++, used by every test.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include <carry/scan/util/config.hpp>

namespace carry_validate {

/// Sequential inclusive scan: out[i] = in[0] op ... op in[i].
template <class T, class Op>
std::vector<T> reference_inclusive(const std::vector<T>& in, Op op) {
  std::vector<T> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = i == 0 ? in[0] : op(out[i - 1], in[i]);
  return out;
}
/// Sequential exclusive scan: out[0] = init, out[i] = init op in[0] op ... op in[i-1].
template <class T, class Op>
std::vector<T> reference_exclusive(const std::vector<T>& in, T init, Op op) {
  std::vector<T> out(in.size());
  T acc = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out[i] = acc;
    acc = op(acc, in[i]);
  }
  return out;
}
template <class T, class Op>
T reference_reduce(const std::vector<T>& in, T init, Op op) {
  T acc = init;
  for (const T& x : in) acc = op(acc, x);
  return acc;
}

/// x -> a*x + b over the integers mod 2^32. compose(f, g) applies f first, then g: associative, not
/// commutative, exact. `a` is kept odd so long compositions never collapse to a constant.
struct affine {
  std::uint32_t a, b;
  friend CARRY_HD bool operator==(const affine& x, const affine& y) { return x.a == y.a && x.b == y.b; }
};
struct compose_affine {
  CARRY_HD affine operator()(const affine& f, const affine& g) const { return {f.a * g.a, g.a * f.b + g.b}; }
};

/// 2x2 matrices over the integers mod 2^32 (16 bytes: the flag + value-slot status path), product in
/// order. Odd determinants keep products from degenerating.
struct mat2 {
  std::uint32_t m[4];
  friend CARRY_HD bool operator==(const mat2& x, const mat2& y) {
    return x.m[0] == y.m[0] && x.m[1] == y.m[1] && x.m[2] == y.m[2] && x.m[3] == y.m[3];
  }
};
struct mat2_product {
  CARRY_HD mat2 operator()(const mat2& x, const mat2& y) const {
    return {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],
             x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
  }
};

/// Test inputs. Unsigned and 8/16-bit types: any bits (sums wrap). 32/64-bit signed: [-8, 8], so sums of
/// the test sizes never overflow. Floating point: whole numbers in [0, 8), so sums up to 2^21 items are
/// exact and every implementation must agree bit for bit.
template <class T>
T random_value(std::mt19937_64& g) {
  if constexpr (std::is_same<T, affine>::value) {
    return affine{static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  } else if constexpr (std::is_same<T, mat2>::value) {
    return mat2{{static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g()) & ~1u,
                 static_cast<std::uint32_t>(g()) & ~1u, static_cast<std::uint32_t>(g()) | 1u}};
  } else if constexpr (std::is_floating_point<T>::value) {
    return static_cast<T>(g() % 8);
  } else if constexpr (std::is_signed<T>::value && sizeof(T) >= 4) {
    return static_cast<T>(static_cast<std::int64_t>(g() % 17) - 8);
  } else {
    return static_cast<T>(g());
  }
}
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = random_value<T>(g);
  return v;
}

/// Real-valued floats, uniform in [-1, 1): sums round, so the grouping of a fold shows in the last bits
/// (what the determinism tests need; random_values' whole numbers sum exactly in any order).
inline std::vector<float> random_reals(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

/// Bitwise equality (NaN-safe and padding-free for the test types).
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

} // namespace carry_validate
