// Look-back arithmetic shared by host and device: tile states, packed count words, (tile, chain) indices,
// and where a single pass keeps its state in temp storage. Plain C++, CPU-tested.
#pragma once

#include <cstddef>
#include <cstdint>

#include "layout.hpp"

namespace carry {
namespace lookback {

/// A tile's state in one chain. Status words are cleared (all bits 0 = invalid) before every call by
/// the prepare step (prepare.cuh), so a word this call has not written always reads invalid, whatever
/// the temp storage held before: no epoch, no tag that foreign bytes could match.
enum tile_state : unsigned { state_invalid = 0, state_aggregate = 1, state_prefix = 2 };

/// The state a stored state field stands for (anything but 1 or 2 reads as invalid).
CARRY_HD constexpr unsigned state_of_field(std::uint64_t field) {
  return field == state_aggregate || field == state_prefix ? static_cast<unsigned>(field)
                                                           : unsigned{state_invalid};
}

// ---- packed 32-bit count words (Onesweep): state in the top 2 bits, a count below 2^30 ----
constexpr std::uint32_t packed_count_max = (1u << 30) - 1;
CARRY_HD constexpr std::uint32_t packed_word(unsigned state, std::uint32_t count) {
  return (std::uint32_t{state} << 30) | (count & packed_count_max);
}
CARRY_HD constexpr unsigned packed_state(std::uint32_t w) {
  return state_of_field(w >> 30);
}
CARRY_HD constexpr std::uint32_t packed_count(std::uint32_t w) {
  return w & packed_count_max;
}

/// Status words seen as (tile, chain): `chains` independent look-back chains per tile (radix sort: one
/// per digit), word index tile * chains + chain, so the chains of one tile are adjacent (a warp's 32
/// lanes read 32 adjacent words of a tile).
CARRY_HD constexpr std::int64_t chain_index(std::int64_t tile, int chain, int chains) {
  return tile * chains + chain;
}

/// Groups of the canonical look-back: one word per 32 tiles.
CARRY_HD constexpr std::int64_t canonical_groups(std::int64_t tiles) {
  return (tiles + 31) / 32;
}

/// Where a single pass keeps its state in temp storage. `cleared` spans all of it: the prepare step
/// zeroes exactly that before every call.
struct state_parts {
  temp_part counter; // the ticket counter (32-bit)
  temp_part status;  // tiles x chains status words
  temp_part groups;  // canonical look-back: a word per group of 32 tiles (chain 0 only)
  temp_part cleared;
};

/// Adds a single pass's state to `b`: tickets for `tiles` tiles, tiles x chains status words of
/// `word_bytes` bytes each and, when `canonical`, the group words of the deterministic look-back.
CARRY_HD inline state_parts add_state(temp_builder& b, std::int64_t tiles, int chains, bool canonical,
                                      std::size_t word_bytes) {
  state_parts p;
  p.counter = b.add(sizeof(std::uint32_t));
  p.status = b.add(static_cast<std::size_t>(tiles) * static_cast<std::size_t>(chains) * word_bytes);
  p.groups = b.add(canonical ? static_cast<std::size_t>(canonical_groups(tiles)) * word_bytes : 0);
  p.cleared = {p.counter.offset, p.groups.offset + p.groups.bytes - p.counter.offset};
  return p;
}

/// Blocks of the prepare kernel for `bytes` bytes: a 16-byte word per thread of 256, at most 512 blocks.
CARRY_HD constexpr unsigned prepare_blocks(std::size_t bytes) {
  const std::size_t words = (bytes + 15) / 16, blocks = (words + 255) / 256;
  return blocks == 0 ? 1u : blocks > 512 ? 512u : static_cast<unsigned>(blocks);
}

} // namespace lookback
} // namespace carry
