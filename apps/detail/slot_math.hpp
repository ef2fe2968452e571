// Slot-allocation arithmetic (issue 16), shared by host and device: offsets wider than requests, and
// the bounded allocator's sentinel and fit rule. Plain C++, CPU-tested.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "../../scan/util/config.hpp"

namespace carry {
namespace apps_detail {

/// The offset the bounded allocator gives an item whose slots would end past the capacity: the largest
/// value of the offset type, which no buffer of that many slots can index.
template <class OffsetT>
CARRY_HD constexpr OffsetT slot_sentinel() {
  return std::numeric_limits<OffsetT>::max();
}

/// Whether an item whose slots start at `offset` (the exclusive sum of the requests before it, in the
/// offset type) and number `request` fits below `capacity`: offset + request <= capacity, computed
/// without overflow (a request may be as large as its type allows).
///
///   capacity 10: offset 4, request 6 -> fits; offset 4, request 7 -> does not; offset 11, request 0 -> not
template <class OffsetT, class RequestT>
CARRY_HD constexpr bool slots_fit(OffsetT offset, RequestT request, OffsetT capacity) {
  static_assert(std::is_unsigned<OffsetT>::value, "carry: slot offsets are unsigned");
  return offset <= capacity && static_cast<OffsetT>(request) <= capacity - offset &&
         (sizeof(RequestT) <= sizeof(OffsetT) ||
          request <= static_cast<RequestT>(std::numeric_limits<OffsetT>::max()));
}

/// The offset the bounded allocator writes for an item: its offset when it fits, else the sentinel.
template <class OffsetT, class RequestT>
CARRY_HD constexpr OffsetT bounded_offset(OffsetT offset, RequestT request, OffsetT capacity) {
  return slots_fit(offset, request, capacity) ? offset : slot_sentinel<OffsetT>();
}

} // namespace apps_detail
} // namespace carry
