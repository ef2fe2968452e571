// Predicates and CPU references of the compaction tests, shared by carry's calls and CUB's: plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include <carry/scan/util/config.hpp>

namespace carry_validate {

/// x < bound: on uniform data, selects a fraction bound / range of the items.
template <class T>
struct less_than {
  T bound;
  CARRY_HD bool operator()(const T& x) const { return x < bound; }
};

/// hash(i) < bound for an index i (a counting iterator's items): selects a fraction bound / 2^32 of
/// them, scattered.
struct hashed_less {
  std::uint32_t bound;
  CARRY_HD bool operator()(std::uint32_t i) const { return i * 0x2545F491u < bound; }
};

/// The selected items in order, then (partition) the rejected ones in order.
template <class T, class Sel>
std::vector<T> reference_partition(const std::vector<T>& in, Sel selected, std::size_t& num_selected,
                                   bool with_rejected) {
  std::vector<T> out, rejected;
  for (std::size_t i = 0; i < in.size(); ++i) (selected(i) ? out : rejected).push_back(in[i]);
  num_selected = out.size();
  if (with_rejected) out.insert(out.end(), rejected.begin(), rejected.end());
  return out;
}

} // namespace carry_validate
