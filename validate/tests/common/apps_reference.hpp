// CPU references of the apps (histograms, bucket offsets, stable binning, slot allocation) and their
// test data, shared by the GPU tests, the tool and the benchmark.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <carry/apps/detail/bin_math.hpp>
#include <carry/apps/detail/slot_math.hpp>

namespace carry_validate {

/// Histogram by the library's own bin rule (bin_math.hpp, CPU-tested against exact integer arithmetic).
template <class T, class L, class C = std::uint64_t>
std::vector<C> reference_histogram_even(const std::vector<T>& x, int bins, L lower, L upper) {
  const carry::apps_detail::even_bins<T, L> b(lower, upper, bins);
  std::vector<C> h(static_cast<std::size_t>(bins), 0);
  for (const T& v : x)
    if (const int i = b.bin_of(v); i >= 0) ++h[static_cast<std::size_t>(i)];
  return h;
}
template <class T, class L, class C = std::uint64_t>
std::vector<C> reference_histogram_range(const std::vector<T>& x, const std::vector<L>& levels) {
  const int bins = static_cast<int>(levels.size()) - 1;
  std::vector<C> h(static_cast<std::size_t>(bins), 0);
  for (const T& v : x)
    if (const int i = carry::apps_detail::range_bin_of(levels.data(), bins, v); i >= 0)
      ++h[static_cast<std::size_t>(i)];
  return h;
}
/// Exclusive scan of counts with the total appended.
template <class C>
std::vector<C> reference_offsets(const std::vector<C>& h) {
  std::vector<C> o(h.size() + 1, 0);
  for (std::size_t i = 0; i < h.size(); ++i) o[i + 1] = static_cast<C>(o[i] + h[i]);
  return o;
}
/// Stable counting sort of keys (and values) by clamped bin; the bucket offsets.
template <class K, class V, class BinOp>
void reference_bin(const std::vector<K>& keys, const std::vector<V>& values, int bins, BinOp op,
                   std::vector<K>& keys_out, std::vector<V>& values_out,
                   std::vector<std::uint64_t>& offsets) {
  std::vector<std::uint64_t> h(static_cast<std::size_t>(bins), 0);
  std::vector<unsigned> b(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    b[i] = carry::apps_detail::clamp_bin(static_cast<long long>(op(keys[i])), bins);
    ++h[b[i]];
  }
  offsets = reference_offsets(h);
  std::vector<std::uint64_t> at(offsets.begin(), offsets.end() - 1);
  keys_out.assign(keys.size(), K{});
  values_out.assign(values.size(), V{});
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint64_t to = at[b[i]]++;
    keys_out[to] = keys[i];
    if (!values.empty()) values_out[to] = values[i];
  }
}
/// Slot offsets (exclusive sum in O), the total, and (bounded) the sentinel rule and the number fitted.
template <class R, class O>
std::vector<O> reference_slots(const std::vector<R>& req, O& total, bool bounded = false, O capacity = 0,
                               std::int64_t* fitted = nullptr) {
  std::vector<O> off(req.size());
  O run = 0;
  std::int64_t fit = 0;
  for (std::size_t i = 0; i < req.size(); ++i) {
    off[i] = run;
    if (bounded) {
      if (carry::apps_detail::slots_fit<O, R>(run, req[i], capacity))
        ++fit;
      else
        off[i] = carry::apps_detail::slot_sentinel<O>();
    }
    run = static_cast<O>(run + static_cast<O>(req[i]));
  }
  total = run;
  if (fitted) *fitted = fit;
  return off;
}

template <class T>
std::vector<T> random_bits(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(g());
  return v;
}

} // namespace carry_validate
