// The carry-in of a tile: a value, or none (the first tile of an inclusive scan).
#pragma once

namespace carry {

/// A carry-in for a tile: a value, or none (the first tile of an inclusive scan).
template <class T>
struct tile_prefix {
  T value;
  bool valid;
};

} // namespace carry
