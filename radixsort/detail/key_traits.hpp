// Radix-sort key bit-twiddling: each key type's order-preserving unsigned image, digits of it, the
// ascending/descending flip and the bit-range mask. Plain C++ (host and device), CPU-tested.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../../scan/util/config.hpp"

namespace carry {
namespace radix_detail {

template <int BYTES>
struct bits_of;
template <>
struct bits_of<1> {
  using type = std::uint8_t;
};
template <>
struct bits_of<2> {
  using type = std::uint16_t;
};
template <>
struct bits_of<4> {
  using type = std::uint32_t;
};
template <>
struct bits_of<8> {
  using type = std::uint64_t;
};

enum class key_kind { unsigned_int, signed_int, floating };

template <class K>
constexpr key_kind kind_of() {
  if constexpr (std::is_same_v<K, __half> || std::is_same_v<K, __nv_bfloat16> || std::is_floating_point_v<K>)
    return key_kind::floating;
  else if constexpr (std::is_signed_v<K>)
    return key_kind::signed_int;
  else
    return key_kind::unsigned_int;
}

/// Whether K is a key type the sort takes: 1-, 2-, 4- and 8-byte integers (bool excluded), float,
/// double, __half and __nv_bfloat16.
template <class K>
constexpr bool is_radix_key() {
  if constexpr (std::is_same_v<K, __half> || std::is_same_v<K, __nv_bfloat16>)
    return true;
  else if constexpr (std::is_same_v<K, bool>)
    return false;
  else if constexpr (std::is_integral_v<K>)
    return sizeof(K) == 1 || sizeof(K) == 2 || sizeof(K) == 4 || sizeof(K) == 8;
  else
    return std::is_same_v<K, float> || std::is_same_v<K, double>;
}

/// The unsigned image of a key whose unsigned order is the key's order (as CUB's twiddle):
///   unsigned: the bits;  signed: the sign bit flipped;
///   floating: -0.0 taken as +0.0, then negatives all bits flipped, non-negatives the sign bit set,
///   so  -NaN < -inf < ... < -0.0 = +0.0 < ... < +inf < +NaN  (NaNs by bit pattern).
///   i8 [-128 -1 0 127] -> [0x00 0x7f 0x80 0xff];  f32 [-1.0 -0.0 0.0 1.0] -> [0x407fffff 0x80000000 0x80000000 0xbf800000]
template <class K>
struct radix_key {
  static_assert(is_radix_key<K>(),
                "carry: radix sort keys are 1/2/4/8-byte integers, float, double, __half or __nv_bfloat16");
  using bits_type = typename bits_of<sizeof(K)>::type;
  static constexpr int bits = 8 * static_cast<int>(sizeof(K));
  static constexpr bits_type sign = static_cast<bits_type>(bits_type{1} << (bits - 1));

  CARRY_HD static bits_type ordered(const K& k) {
    bits_type u;
    memcpy(&u, &k, sizeof(K));
    return ordered_bits(u);
  }
  CARRY_HD static constexpr bits_type ordered_bits(bits_type u) {
    if constexpr (kind_of<K>() == key_kind::signed_int) {
      return static_cast<bits_type>(u ^ sign);
    } else if constexpr (kind_of<K>() == key_kind::floating) {
      if (u == sign) u = 0; // -0.0 sorts as +0.0
      return static_cast<bits_type>((u & sign) ? static_cast<bits_type>(~u)
                                               : static_cast<bits_type>(u | sign));
    } else {
      return u;
    }
  }
  /// The key whose image is `image` (the inverse of ordered except that -0.0 comes back as +0.0).
  CARRY_HD static K from_ordered(bits_type image) {
    bits_type u = image;
    if constexpr (kind_of<K>() == key_kind::signed_int)
      u = static_cast<bits_type>(image ^ sign);
    else if constexpr (kind_of<K>() == key_kind::floating)
      u = (image & sign) ? static_cast<bits_type>(image ^ sign) : static_cast<bits_type>(~image);
    K k;
    memcpy(&k, &u, sizeof(K));
    return k;
  }
};

/// The bits [begin, end) of an ordered key, shifted down: what the sort orders by (descending: flipped),
/// in the key's own width (the histogram's order check does no 64-bit work for narrower keys).
///   u32 0x12345678, bits [8, 24), ascending -> 0x3456;  descending -> 0xCBA9
template <class U>
CARRY_HD constexpr U sort_bits(U ordered, int begin, int end, bool descending) {
  constexpr int width = 8 * static_cast<int>(sizeof(U));
  const int bits = end - begin;
  const U mask = bits >= width ? static_cast<U>(~U{0}) : static_cast<U>((std::uint64_t{1} << bits) - 1);
  const U x = static_cast<U>((begin >= width ? U{0} : static_cast<U>(ordered >> begin)) & mask);
  return descending ? static_cast<U>(~x & mask) : x;
}

/// What a whole-key sort orders k by: every bit of its ordered image (descending: flipped).
///   u8 3, ascending -> 3;  descending -> 252
template <class K>
CARRY_HD constexpr auto key_image(const K& k, bool descending) {
  return sort_bits(radix_key<K>::ordered(k), 0, radix_key<K>::bits, descending);
}

/// Digit passes over bits [begin, end): 8 bits each, the last one narrower; 0 for an empty range.
CARRY_HD constexpr int radix_passes(int begin, int end, int digit_bits) {
  return end > begin ? (end - begin + digit_bits - 1) / digit_bits : 0;
}

/// Pass p's digit: `bits` bits starting at bit `shift` of the (flipped, for descending) ordered key.
/// of() shifts in the image's own width (a u32 key: one 32-bit shift, not a 64-bit one; shift < width
/// for every pass that runs) and flips with an XOR: (u >> shift & mask) ^ flip.
struct digit_spec {
  int shift = 0;
  int bits = 8;
  bool descending = false;
  CARRY_HD constexpr unsigned mask() const { return (1u << bits) - 1u; }
  CARRY_HD constexpr unsigned flip() const { return descending ? mask() : 0u; }
  template <class U>
  CARRY_HD constexpr unsigned of(U ordered) const; // digit_extract(*this)(ordered)
};

/// A digit_spec with its mask and flip worked out once (three registers, a shift and one LOP3 a digit):
/// what kernels hold, so a digit costs the same whatever the compiler hoists.
struct digit_extract {
  int shift = 0;
  unsigned mask = 0, flip = 0;
  digit_extract() = default;
  CARRY_HD constexpr digit_extract(const digit_spec& d) : shift(d.shift), mask(d.mask()), flip(d.flip()) {}
  template <class U>
  CARRY_HD constexpr unsigned operator()(U u) const {
    return (static_cast<unsigned>(u >> shift) & mask) ^ flip;
  }
};

template <class U>
CARRY_HD constexpr unsigned digit_spec::of(U ordered) const {
  return digit_extract(*this)(ordered);
}

CARRY_HD constexpr digit_spec pass_digit(int begin, int end, int pass, int digit_bits, bool descending) {
  const int shift = begin + pass * digit_bits;
  const int left = end - shift;
  return {shift, left < digit_bits ? left : digit_bits, descending};
}

} // namespace radix_detail
} // namespace carry
