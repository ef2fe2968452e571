// Inputs of the keyed tests (by-key scans, runs, unique by key): keys in runs, a non-commutative value
// type, a 16-byte key with a custom equality.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <carry/scan/detail/by_key.hpp>

namespace carry_validate {

/// The by-key scans' segmented operator without `absorbs`: the canonical look-back then folds every
/// predecessor (what it did before it stopped at a run start), for the same-bits test and the probe.
template <class Op>
struct segmented_uncut {
  Op op;
  template <class V>
  __host__ __device__ carry::detail::keyed<V> operator()(const carry::detail::keyed<V>& a,
                                                         const carry::detail::keyed<V>& b) const {
    return carry::detail::segmented<Op>{op}(a, b);
  }
};
/// A by-key scan's behaviour B with that operator.
template <class B>
struct uncut : B {
  using op_type = segmented_uncut<decltype(B::op)>;
  __host__ __device__ op_type scan_op() const { return {this->op}; }
};

/// Keys in runs: mean 0 = every key its own run, -1 = one run of all n, else lengths 1 .. 2 mean - 1.
inline std::vector<std::uint32_t> run_keys(std::int64_t n, int mean, std::uint64_t seed) {
  std::vector<std::uint32_t> k(static_cast<std::size_t>(n));
  std::mt19937_64 g(seed);
  std::uint32_t v = 7;
  for (std::size_t i = 0; i < k.size();) {
    const std::size_t len = mean < 0    ? k.size()
                            : mean == 0 ? 1
                                        : 1 + g() % static_cast<std::uint64_t>(2 * mean - 1);
    for (std::size_t j = 0; j < len && i < k.size(); ++j) k[i++] = v;
    v += 1 + static_cast<std::uint32_t>(g() % 3);
  }
  return k;
}

/// A 2x2 matrix of bytes (products mod 256): associative, not commutative, 4 bytes.
struct byte_matrix {
  std::uint8_t a, b, c, d;
  __host__ __device__ bool operator==(const byte_matrix& o) const {
    return a == o.a && b == o.b && c == o.c && d == o.d;
  }
};
struct byte_product {
  __host__ __device__ byte_matrix operator()(const byte_matrix& x, const byte_matrix& y) const {
    return {
        static_cast<std::uint8_t>(x.a * y.a + x.b * y.c), static_cast<std::uint8_t>(x.a * y.b + x.b * y.d),
        static_cast<std::uint8_t>(x.c * y.a + x.d * y.c), static_cast<std::uint8_t>(x.c * y.b + x.d * y.d)};
  }
};
/// A 16-byte key whose runs go by its first word only (a custom equality).
struct wide_key {
  std::uint32_t id, noise[3];
};
struct same_id {
  __host__ __device__ bool operator()(const wide_key& x, const wide_key& y) const { return x.id == y.id; }
};

/// n 16-byte keys in runs of mean length 5 (their ids; the noise words random) and byte-matrix values.
inline void wide_keyed_input(std::int64_t n, std::uint64_t seed, std::vector<wide_key>& keys,
                             std::vector<byte_matrix>& values) {
  const auto ids = run_keys(n, 5, seed);
  keys.resize(ids.size());
  values.resize(ids.size());
  std::mt19937 g(static_cast<unsigned>(seed) + 8);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = {ids[i], {static_cast<std::uint32_t>(g()), static_cast<std::uint32_t>(g()), 0}};
    values[i] = {static_cast<std::uint8_t>(g()), static_cast<std::uint8_t>(g()),
                 static_cast<std::uint8_t>(g()), static_cast<std::uint8_t>(g())};
  }
}

} // namespace carry_validate
