// Single-pass look-back state in temp storage (ticket counter, status words, group prefixes): sized and
// carved by itself, for any status format and any number of chains per tile.
#pragma once

#include <cstdint>

#include "layout.hpp"
#include "status.cuh"

namespace carry {
namespace lookback {

/// Adds a single pass's state with status words of Format (add_state in words.hpp).
template <class Format>
CARRY_HD state_parts add_state(temp_builder& b, std::int64_t tiles, int chains = 1, bool canonical = true) {
  return add_state(b, tiles, chains, canonical, Format::word_bytes);
}

/// The single-pass state as the kernels see it.
template <class Format>
struct single_pass_state {
  std::uint32_t* counter = nullptr;
  Format status;
  Format groups;
  int chains = 1;
  CARRY_HD chain_view<Format> chain() const { return {status, chains}; }
};

template <class Format>
CARRY_HD single_pass_state<Format> carve_state(void* base, const state_parts& p, int chains = 1) {
  return {p.counter.as<std::uint32_t>(base), Format::bind(p.status.in(base)), Format::bind(p.groups.in(base)),
          chains};
}

} // namespace lookback
} // namespace carry
