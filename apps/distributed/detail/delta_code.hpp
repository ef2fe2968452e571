// Delta coding of sorted key images in blocks (for the distributed sort's exchange): plain C++ (host and
// device), CPU-tested.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../../radixsort/detail/key_traits.hpp"
#include "../../../scan/util/config.hpp"

namespace carry {
namespace dist {
namespace detail {

/// Images (unsigned, ascending) coded in blocks of delta_block: a header (the block's first image and the
/// bit width of its largest step) and every item's step from the one before (the first item's: 0) packed
/// in `width` bits each, low bits first, into 32-bit words: delta_block * width bits = 4 * width words, so
/// every block's payload is a whole number of 16-byte granules (NCCL's copies run at full speed on them).
///
///   images {10, 12, 12, 19} (a block of 4 for the example): steps {0, 2, 0, 7}, width 3,
///   bits 000 010 000 111 -> word 0b111'000'010'000 = 0xE10
constexpr int delta_block = 128;

/// A block's header: 16 bytes for 4- and 8-byte images.
template <class U>
struct alignas(16) delta_header {
  U base;                  // the block's first image
  std::uint32_t width = 0; // bits a step (0: every item equals base)
};
static_assert(sizeof(delta_header<std::uint32_t>) == 16 && sizeof(delta_header<std::uint64_t>) == 16,
              "carry: a delta block's header is one 16-byte granule");

/// The bits u needs (0 for 0).
template <class U>
CARRY_HD constexpr int delta_bit_width(U u) {
  int w = 0;
  while (u != 0) {
    ++w;
    u >>= 1;
  }
  return w;
}

/// 32-bit payload words of a block of `width` bits a step.
CARRY_HD constexpr int delta_words(int width) {
  return delta_block * width / 32;
}

/// Step i of a block (width bits at bit i * width of words).
template <class U>
CARRY_HD U delta_step(const std::uint32_t* words, int width, int i) {
  if (width == 0) return U{0};
  const std::int64_t bit = static_cast<std::int64_t>(i) * width;
  const int first = static_cast<int>(bit / 32), shift = static_cast<int>(bit % 32);
  // the step lies in at most three words (width <= 64)
  std::uint64_t lo = words[first] >> shift;
  int have = 32 - shift;
  if (have < width) lo |= static_cast<std::uint64_t>(words[first + 1]) << have, have += 32;
  std::uint64_t v = lo;
  if (have < width) v |= static_cast<std::uint64_t>(words[first + 2]) << have;
  return static_cast<U>(width >= 64 ? v : v & ((std::uint64_t{1} << width) - 1));
}

/// Places step i of a block (`width` bits at bit i * width, low bits first) into its words: or_into(k,
/// bits) ors bits into word k (a plain |= on the host, a shared-memory atomicOr when a warp packs).
template <class Or>
CARRY_HD void delta_put(std::uint64_t step, int i, int width, Or&& or_into) {
  const int bit = i * width, first = bit / 32, shift = bit % 32;
  or_into(first, static_cast<std::uint32_t>(step << shift));
  for (int k = first + 1, done = 32 - shift; done < width; ++k, done += 32)
    or_into(k, static_cast<std::uint32_t>(step >> done));
}

/// Codes images[0, count) (count in [1, delta_block]; past count the block repeats the last image: steps
/// of 0) into its header and words (delta_words(width) of them, written whole).
template <class U>
CARRY_HD delta_header<U> delta_encode(const U* images, int count, std::uint32_t* words) {
  static_assert(std::is_unsigned<U>::value && sizeof(U) <= 8, "carry: delta coding of unsigned images");
  delta_header<U> h;
  h.base = images[0];
  U largest = 0;
  for (int i = 1; i < count; ++i) {
    const U step = static_cast<U>(images[i] - images[i - 1]);
    largest = step > largest ? step : largest;
  }
  h.width = static_cast<std::uint32_t>(delta_bit_width(largest));
  const int w = static_cast<int>(h.width);
  for (int k = 0; k < delta_words(w); ++k) words[k] = 0;
  for (int i = 1; i < count; ++i)
    delta_put(static_cast<U>(images[i] - images[i - 1]), i, w,
              [&](int k, std::uint32_t bits) { words[k] |= bits; });
  return h;
}

/// Every image of a block (delta_block of them) from its header and words: base plus the steps so far.
template <class U>
CARRY_HD void delta_decode(const delta_header<U>& h, const std::uint32_t* words, U* images) {
  U at = h.base;
  for (int i = 0; i < delta_block; ++i) {
    at = static_cast<U>(at + delta_step<U>(words, static_cast<int>(h.width), i));
    images[i] = at;
  }
}

/// The image a sorted key is coded as: its ordered bits (as the radix sort's, but -0.0 kept apart from
/// +0.0, so the map is one to one), flipped for descending, so a sorted run's images ascend (but where
/// -0.0 and +0.0 interleave: steps that wrap, still exact). delta_key inverts it.
///   i8 -1 -> 0x7f;  f32 -0.0 -> 0x7fffffff, +0.0 -> 0x80000000;  u32 5 descending -> 0xfffffffa
template <class K>
CARRY_HD typename radix_detail::radix_key<K>::bits_type delta_image(const K& k, bool descending) {
  using R = radix_detail::radix_key<K>;
  using U = typename R::bits_type;
  U u;
  memcpy(&u, &k, sizeof(K));
  if constexpr (radix_detail::kind_of<K>() == radix_detail::key_kind::floating)
    u = (u & R::sign) ? static_cast<U>(~u) : static_cast<U>(u | R::sign);
  else
    u = R::ordered_bits(u);
  return descending ? static_cast<U>(~u) : u;
}
template <class K>
CARRY_HD K delta_key(typename radix_detail::radix_key<K>::bits_type image, bool descending) {
  using R = radix_detail::radix_key<K>;
  using U = typename R::bits_type;
  const U u = descending ? static_cast<U>(~image) : image;
  return R::from_ordered(u); // floating: from_ordered is the exact inverse of the twiddle above
}

} // namespace detail
} // namespace dist
} // namespace carry
