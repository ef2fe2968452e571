// The distributed layer's small kernels and iterators: the carry-in of a rank (from the all-gathered rank
// totals), a scan output that folds the carry-in into every item it stores, a rank's shard_info.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include <cuda_runtime.h>
#include <nccl.h>

#include "../../../scan/detail/accumulator.hpp"
#include "../../../scan/lookback/layout.hpp"
#include "plan.hpp"

namespace carry {
namespace dist {
namespace detail {

/// The scan output of a rank after the first: item i is stored as carry (+) v, or v while no earlier rank
/// had items (carry->has == 0). The carry-in is read once per store from one cached word.
template <class T, class Op>
struct seeded_output : carry::detail::output_tags {
  struct slot {
    T* p;
    const maybe<T>* carry;
    Op op;
    __device__ void operator=(const T& v) const {
      const maybe<T> c = *carry;
      *p = c.has ? op(c.value, v) : v;
    }
  };
  T* out;
  const maybe<T>* carry;
  Op op;
  CARRY_HD slot operator[](std::int64_t i) const { return {out + i, carry, op}; }
  CARRY_HD seeded_output operator+(std::int64_t k) const { return {{}, out + k, carry, op}; }
};

/// One thread: the carry-in of `rank` from the gathered totals (seed first: an exclusive scan's init);
/// an exclusive scan's first output (first_out, may be null) is the carry-in itself.
template <class T, class Op>
__global__ void carry_in_kernel(const maybe<T>* totals, int rank, maybe<T> seed, Op op, maybe<T>* carry,
                                T* first_out) {
  const maybe<T> c = fold_before(totals, rank, seed, op);
  *carry = c;
  if (first_out != nullptr) *first_out = c.value;
}

/// One thread: a rank's shard_info from the gathered counts (a template: one definition in a header).
template <class = void>
__global__ void shard_info_kernel(const std::int64_t* counts, int ranks, int rank, shard_info* out) {
  *out = shard_of(counts, ranks, rank);
}

/// One thread: a rank's shard_info from values known on the host (the sort's and the rebalance's plan).
template <class = void>
__global__ void write_shard_kernel(shard_info* out, std::int64_t count, std::int64_t offset,
                                   std::int64_t total) {
  *out = shard_info{count, offset, total};
}

/// One thread: slot->has = has (the value written by the reduce before it, or nothing for an empty shard).
template <class T>
__global__ void mark_kernel(maybe<T>* slot, int has) {
  slot->has = has;
  if (!has) slot->value = T{};
}

/// An NCCL data type for a counter type (4- and 8-byte integers), for the all-reduced histograms.
template <class C>
constexpr ncclDataType_t nccl_type() {
  if constexpr (sizeof(C) == 4)
    return std::is_signed<C>::value ? ncclInt32 : ncclUint32;
  else
    return std::is_signed<C>::value ? ncclInt64 : ncclUint64;
}

} // namespace detail
} // namespace dist
} // namespace carry
