// Bin arithmetic of the histograms (issue 16), shared by host and device: which bin a sample falls in,
// exactly for integers, and the checks of a call's bin arguments. Plain C++, CPU-tested.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../../scan/detail/config.hpp"

namespace carry {
namespace apps_detail {

/// The most bins a histogram takes.
constexpr std::int64_t max_bins = std::int64_t{1} << 24;

/// Evenly spaced bins over [lower, upper): sample x goes to bin floor((x - lower) * num_bins /
/// (upper - lower)). Integers: computed exactly, with a 128-bit intermediate, so no range of any 8- to
/// 64-bit type overflows (u64: the span is below 2^64, times at most 2^24 bins). Floating point: in
/// double, clamped to the last bin where rounding would carry x just below upper past it. Samples
/// outside [lower, upper), NaN and +-inf fall in no bin (-1).
///
///   lower 0, upper 10, 5 bins: 0 -> 0, 1 -> 0, 2 -> 1, 9 -> 4, 10 -> -1, -1 -> -1
template <class T>
struct even_bins {
  T lower, upper;
  int num_bins;

  CARRY_HD int bin_of(T x) const {
    if constexpr (std::is_integral<T>::value) {
      if (x < lower || !(x < upper)) return -1;
      using U = std::make_unsigned_t<T>;
      // spans as unsigned: exact for signed types too (two's complement differences)
      const auto offset = static_cast<unsigned __int128>(static_cast<U>(static_cast<U>(x) - static_cast<U>(lower)));
      const auto span = static_cast<unsigned __int128>(static_cast<U>(static_cast<U>(upper) - static_cast<U>(lower)));
      return static_cast<int>(offset * static_cast<unsigned __int128>(num_bins) / span);
    } else {
      if (!(x >= lower) || !(x < upper)) return -1; // NaN fails both comparisons
      const double scaled = (static_cast<double>(x) - static_cast<double>(lower)) /
                            (static_cast<double>(upper) - static_cast<double>(lower)) * num_bins;
      const int b = static_cast<int>(scaled); // scaled >= 0: truncation is floor
      return b < num_bins ? b : num_bins - 1;
    }
  }
};

/// Bins given by num_bins + 1 ascending levels: bin i holds [levels[i], levels[i + 1]). Binary search
/// (log2 of the bins); samples outside [levels[0], levels[num_bins]) and NaN fall in no bin (-1).
///
///   levels [0 2 5 9], 3 bins: 1 -> 0, 2 -> 1, 8 -> 2, 9 -> -1
template <class T>
CARRY_HD int range_bin_of(const T* levels, int num_bins, T x) {
  if (!(x >= levels[0]) || !(x < levels[num_bins])) return -1;
  int lo = 0, hi = num_bins; // levels[lo] <= x < levels[hi]
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (x < levels[mid])
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
    if (!(lower == lower) || !(upper == upper) || lower - lower != lower - lower || upper - upper != upper - upper)
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

} // namespace apps_detail
} // namespace carry
