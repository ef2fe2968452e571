// Bin arithmetic of the histograms (issue 16), shared by host and device: which bin a sample falls in,
// exactly for integers, and the checks of a call's bin arguments. Plain C++, CPU-tested.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../../scan/util/config.hpp"

namespace carry {
namespace apps_detail {

/// The most bins a histogram takes.
constexpr std::int64_t max_bins = std::int64_t{1} << 24;

/// High 64 bits of a 64 x 64-bit product.
CARRY_HD inline std::uint64_t mul_hi64(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// High 32 bits of a 32 x 32-bit product.
CARRY_HD inline std::uint32_t mul_hi32(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
}

/// Evenly spaced bins over [lower, upper): sample x goes to bin floor((x - lower) * num_bins /
/// (upper - lower)). Samples of type T, bounds of type L (as CUB's LevelT: u8 samples take bounds
/// [0, 256) as int).
/// - Integers up to 32 bits (samples and bounds): exact in 64 bits. The product (x - lower) * num_bins is
///   below 2^57; the quotient comes from a precomputed reciprocal of the span (a multiply-high) and at
///   most two corrections, so no division runs per sample.
/// - 64-bit integers: exact with a 128-bit intermediate (no range of any 64-bit type overflows: the span
///   is below 2^64, times at most 2^24 bins).
/// - Floating point (samples or bounds): in double, clamped to the last bin where rounding would carry x
///   just below upper past it.
/// Samples outside [lower, upper), NaN and +-inf fall in no bin (-1).
///
///   lower 0, upper 10, 5 bins: 0 -> 0, 1 -> 0, 2 -> 1, 9 -> 4, 10 -> -1, -1 -> -1
template <class T, class L = T>
struct even_bins {
  static constexpr bool floating = std::is_floating_point<T>::value || std::is_floating_point<L>::value;
  static constexpr bool narrow = !floating && sizeof(T) <= 4 && sizeof(L) <= 4;
  /// Every T converts to L exactly (the same type, or a narrower one L's signedness holds).
  static constexpr bool contains =
      std::is_same<T, L>::value ||
      (sizeof(T) < sizeof(L) && (std::is_signed<L>::value || !std::is_signed<T>::value));
  L lower{}, upper{};
  int num_bins = 1;
  std::uint64_t span = 1;    ///< narrow integers: upper - lower
  std::uint64_t recip = 0;   ///< narrow integers: floor((2^64 - 1) / span)
  std::uint32_t recip32 = 0; ///< narrow integers with num_bins < span: floor(2^32 * num_bins / span) (< 2^32)

  even_bins() = default;
  CARRY_HD even_bins(L lo, L hi, int bins) : lower(lo), upper(hi), num_bins(bins) {
    if constexpr (narrow) {
      const std::int64_t s = static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo);
      span = s > 0 ? static_cast<std::uint64_t>(s) : 1;
      recip = ~std::uint64_t{0} / span;
      if (static_cast<std::uint64_t>(bins) < span)
        recip32 = static_cast<std::uint32_t>((static_cast<unsigned __int128>(bins) << 32) / span);
    }
  }

  CARRY_HD int bin_of(T x) const {
    if constexpr (floating) {
      const double xd = static_cast<double>(x), lo = static_cast<double>(lower),
                   hi = static_cast<double>(upper);
      if (!(xd >= lo) || !(xd < hi)) return -1; // NaN fails both comparisons
      const double scaled = (xd - lo) / (hi - lo) * num_bins;
      const int b = static_cast<int>(scaled); // scaled >= 0: truncation is floor
      return b < num_bins ? b : num_bins - 1;
    } else if constexpr (narrow && contains) {
      // Samples convert to L exactly: in L's 32-bit domain, x - lower (mod 2^32) is below the span
      // exactly when lower <= x < upper (a sample below lower wraps to at least 2^32 + x - lower, which is
      // at least upper - lower since upper - x < 2^32).
      const auto off = static_cast<std::uint32_t>(static_cast<std::uint32_t>(static_cast<L>(x)) -
                                                  static_cast<std::uint32_t>(lower));
      if (off >= static_cast<std::uint32_t>(span)) return -1;
      const std::uint64_t p = static_cast<std::uint64_t>(off) * static_cast<std::uint32_t>(num_bins);
      if (recip32 != 0) {
        std::uint32_t q = mul_hi32(off, recip32); // the quotient is q or q + 1 (off < 2^32)
        if (static_cast<std::uint64_t>(q + 1) * static_cast<std::uint32_t>(span) <= p) ++q;
        return static_cast<int>(q);
      }
      std::uint64_t q = mul_hi64(p, recip);
      if ((q + 1) * span <= p) ++q;
      if ((q + 1) * span <= p) ++q;
      return static_cast<int>(q);
    } else if constexpr (narrow) {
      const std::int64_t xi = static_cast<std::int64_t>(x), lo = static_cast<std::int64_t>(lower);
      if (xi < lo || xi >= static_cast<std::int64_t>(upper)) return -1;
      const std::uint64_t p = static_cast<std::uint64_t>(xi - lo) * static_cast<std::uint64_t>(num_bins);
      if (recip32 != 0) {
        // 32-bit estimate: off * recip32 / 2^32 lies within 1 below off * num_bins / span (off < 2^32),
        // so the quotient is q or q + 1
        const auto off = static_cast<std::uint32_t>(xi - lo);
        std::uint64_t q = mul_hi32(off, recip32);
        if ((q + 1) * span <= p) ++q;
        return static_cast<int>(q);
      }
      std::uint64_t q = mul_hi64(p, recip); // q <= the quotient <= q + 2 (p < 2^57)
      if ((q + 1) * span <= p) ++q;
      if ((q + 1) * span <= p) ++q;
      return static_cast<int>(q);
    } else {
      // 128-bit signed values hold every 64-bit sample and bound
      const __int128 xi = static_cast<__int128>(x), lo = static_cast<__int128>(lower),
                     hi = static_cast<__int128>(upper);
      if (xi < lo || xi >= hi) return -1;
      const auto offset = static_cast<unsigned __int128>(xi - lo);
      const auto sp = static_cast<unsigned __int128>(hi - lo);
      return static_cast<int>(offset * static_cast<unsigned __int128>(num_bins) / sp);
    }
  }
};

/// A sample and a level brought to one type for comparison: as they are when the types agree, else
/// 128-bit integers (both integral: exact) or double.
template <class T, class L>
struct level_compare {
  static constexpr bool same = std::is_same<T, L>::value;
  static constexpr bool integral = std::is_integral<T>::value && std::is_integral<L>::value;
  using type = std::conditional_t<same, T, std::conditional_t<integral, __int128, double>>;
};

/// Bins given by num_bins + 1 ascending levels: bin i holds [levels[i], levels[i + 1]). Binary search
/// (log2 of the bins); samples outside [levels[0], levels[num_bins]) and NaN fall in no bin (-1).
///
///   levels [0 2 5 9], 3 bins: 1 -> 0, 2 -> 1, 8 -> 2, 9 -> -1
template <class L, class T>
CARRY_HD int range_bin_of(const L* levels, int num_bins, T sample) {
  using C = typename level_compare<T, L>::type;
  const C x = static_cast<C>(sample);
  if (!(x >= static_cast<C>(levels[0])) || !(x < static_cast<C>(levels[num_bins]))) return -1;
  int lo = 0, hi = num_bins; // levels[lo] <= x < levels[hi]
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (x < static_cast<C>(levels[mid]))
      hi = mid;
    else
      lo = mid;
  }
  return lo;
}

/// Problems with a histogram's bin arguments, in the order they are checked.
enum class bin_error { none, bad_count, empty_range, not_finite };

/// Even bins: 1 <= num_bins <= 2^24, lower < upper, both finite (floating point).
template <class T>
CARRY_HD bin_error check_even_bins(std::int64_t num_bins, T lower, T upper) {
  if (num_bins < 1 || num_bins > max_bins) return bin_error::bad_count;
  if constexpr (std::is_floating_point<T>::value) {
    if (!(lower == lower) || !(upper == upper) || lower - lower != lower - lower ||
        upper - upper != upper - upper)
      return bin_error::not_finite; // NaN, or inf (inf - inf is NaN)
  }
  if (!(lower < upper)) return bin_error::empty_range;
  return bin_error::none;
}

/// Range bins (host-side copy of the levels): 1 <= num_bins <= 2^24, levels finite and strictly
/// ascending.
template <class T>
bin_error check_range_levels(const T* levels, std::int64_t num_bins) {
  if (num_bins < 1 || num_bins > max_bins) return bin_error::bad_count;
  for (std::int64_t i = 0; i <= num_bins; ++i) {
    if constexpr (std::is_floating_point<T>::value)
      if (!std::isfinite(static_cast<double>(levels[i]))) return bin_error::not_finite;
    if (i > 0 && !(levels[i - 1] < levels[i])) return bin_error::empty_range;
  }
  return bin_error::none;
}

/// bin_by_key: a key's bin as its functor gives it, clamped into [0, num_bins) (a functor that strays
/// never sends a key outside the output).
///
///   5 bins: -3 -> 0, 2 -> 2, 9 -> 4
CARRY_HD constexpr unsigned clamp_bin(long long bin, int num_bins) {
  return bin < 0 ? 0u : bin >= num_bins ? static_cast<unsigned>(num_bins - 1) : static_cast<unsigned>(bin);
}

/// clamp_bin for a functor whose bins are unsigned and at most 32 bits (none is negative): one 32-bit
/// minimum (num_bins >= 1), which keeps the onesweep pass's recomputed digit within its registers.
///
///   5 bins: 2 -> 2, 9 -> 4, 0xFFFFFFFF -> 4
CARRY_HD constexpr unsigned clamp_bin_unsigned(unsigned bin, int num_bins) {
  const unsigned last = static_cast<unsigned>(num_bins - 1);
  return bin < last ? bin : last;
}

} // namespace apps_detail
} // namespace carry
