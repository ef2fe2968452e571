// Temp-storage layouts with named parts that nest: a module sizes its scratch and the engine's in one query.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../util/config.hpp"

namespace carry {
namespace lookback {

constexpr std::size_t temp_alignment = 256; // every part starts on a 256-byte boundary

CARRY_HD constexpr std::size_t align_up(std::size_t x, std::size_t a) {
  return (x + a - 1) / a * a;
}

/// One part of a temp allocation: `bytes` bytes at `offset` from the aligned base. Parts are values, so
/// a module keeps them in a struct with named fields, and a part of a nested layout is placed with
/// `within`.
struct temp_part {
  std::size_t offset = 0;
  std::size_t bytes = 0;
  /// This part (of a layout nested in `outer`) as a part of the outer layout.
  CARRY_HD constexpr temp_part within(const temp_part& outer) const { return {outer.offset + offset, bytes}; }
  /// The part's address in an allocation starting at `base` (any alignment).
  CARRY_HD void* in(void* base) const {
    const auto aligned = align_up(reinterpret_cast<std::uintptr_t>(base), temp_alignment);
    return reinterpret_cast<void*>(aligned + offset);
  }
  template <class T>
  CARRY_HD T* as(void* base) const {
    return static_cast<T*>(in(base));
  }
};

/// Appends parts, each aligned; `size()` is what the parts span, `allocation()` what a caller must
/// allocate (slack for an unaligned base; never 0 bytes). A nested layout is added whole with
/// add(inner.size()) and its parts placed with inner_part.within(outer_part). The size query and the
/// real call run the same code, so they always agree.
class temp_builder {
public:
  CARRY_HD temp_part add(std::size_t bytes) {
    const temp_part p{at_, bytes};
    at_ += align_up(bytes, temp_alignment);
    return p;
  }
  CARRY_HD std::size_t size() const { return at_; }
  CARRY_HD std::size_t allocation() const { return at_ == 0 ? 1 : at_ + temp_alignment - 1; }

private:
  std::size_t at_ = 0;
};

} // namespace lookback
} // namespace carry
