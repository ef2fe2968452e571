// Host/device planning helpers: tile counts, argument checks, vector widths, staged-tile swizzle.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../lookback/layout.hpp"
#include "config.hpp"

namespace carry {
namespace detail {

CARRY_HD constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// The mask of a thread's first `count` items of ITEMS (count <= 0: none; count >= ITEMS: all): the items
/// of a partial tile that exist (the keyed agent's, a compaction's).
template <int ITEMS>
CARRY_HD constexpr unsigned live_mask(std::int64_t count) {
  return count <= 0 ? 0u : count >= ITEMS ? (ITEMS == 32 ? ~0u : (1u << ITEMS) - 1u) : (1u << count) - 1u;
}

/// Smallest power of two >= x (x >= 1).
CARRY_HD constexpr int next_pow2(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

/// Which device pass runs for a call.
enum class pass_kind { empty, single_tile, hierarchical, single_pass };

/// Tiles for a pass over num_items items, tile_items per tile.
struct tile_plan {
  std::int64_t num_items = 0;
  std::int64_t tile_items = 0;
  std::int64_t num_tiles = 0;
  CARRY_HD std::int64_t tile_base(std::int64_t tile) const { return tile * tile_items; }
  /// Items in the given tile (tile_items except, possibly, the last one).
  CARRY_HD int valid_items(std::int64_t tile) const {
    std::int64_t left = num_items - tile * tile_items;
    return static_cast<int>(left < tile_items ? left : tile_items);
  }
};

CARRY_HD inline tile_plan plan_tiles(std::int64_t num_items, std::int64_t tile_items) {
  tile_plan p;
  p.num_items = num_items;
  p.tile_items = tile_items;
  p.num_tiles = num_items <= 0 ? 0 : ceil_div(num_items, tile_items);
  return p;
}

/// Largest tile count a pass accepts: grid.x and the 32-bit tile ticket both fit.
constexpr std::int64_t max_tiles = (std::int64_t{1} << 31) - 1;

/// Argument problems, in the order they are checked.
enum class arg_error { none, negative_count, null_input, null_output, temp_too_small, too_many_tiles };

/// Checks a call's arguments once the size query is out of the way (d_temp_storage != nullptr).
/// n == 0 is fine whatever the pointers: the call does nothing.
CARRY_HD inline arg_error check_args(const void* d_in, const void* d_out, std::int64_t num_items,
                                     std::size_t temp_bytes_given, std::size_t temp_bytes_needed,
                                     std::int64_t num_tiles) {
  if (num_items < 0) return arg_error::negative_count;
  if (num_items == 0) return arg_error::none;
  if (d_in == nullptr) return arg_error::null_input;
  if (d_out == nullptr) return arg_error::null_output;
  if (temp_bytes_given < temp_bytes_needed) return arg_error::temp_too_small;
  if (num_tiles > max_tiles) return arg_error::too_many_tiles;
  return arg_error::none;
}

// ---- vector width of tile loads and stores ----

/// Widest access (16, 8 or 4 bytes, else 0 = element-wise) that evenly covers ITEMS values of T.
template <class T, int ITEMS>
constexpr int vector_bytes() {
  constexpr int bytes = ITEMS * static_cast<int>(sizeof(T));
  return bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : bytes % 4 == 0 && sizeof(T) <= 4 ? 4 : 0;
}

/// Whether a pointer allows the vector accesses of tile_io<T, ITEMS> (checked once per launch, on the host).
template <class T, int ITEMS>
CARRY_HD inline bool vector_aligned(const void* p) {
  constexpr int v = vector_bytes<T, ITEMS>();
  return v != 0 && reinterpret_cast<std::uintptr_t>(p) % (v == 0 ? 1 : v) == 0;
}

// ---- staged tiles (staged_tile.cuh) ----

/// Shared-memory slot of chunk l (0 <= l < 32 * vcount) of a warp's run in a staged tile: l ^ k, with
/// one key k = ((l & ~7) / vcount) % 8 per aligned group of 8 chunks, so the map is a bijection on the
/// run. A warp-striped access (chunk 32 v + lane) puts each 8 lanes on 8 distinct 16-byte bank groups;
/// a blocked one (chunk lane * vcount + v) does too when vcount % 8 == 0 (then k = lane % 8).
CARRY_HD constexpr int staged_swizzle(int l, int vcount) {
  return l ^ (((l & ~7) / vcount) & 7);
}

/// The tile that tile `tile` asks the L2 for once its own loads are out: PREFETCH 4 and up, mode - 3
/// tiles an SM ahead on `sms` SMs (the tile whose block starts soon after this one's), from tile `from`
/// on (the blocks below ask for their own: prefetch_guessed_tile); -1: none (modes 0-2, or below `from`).
/// The keyed agent asks from (mode - 3) * sms, every tile; the compaction from one wave of resident blocks
/// on, so the first wave's loads go alone.
CARRY_HD constexpr std::int64_t tile_ahead(int mode, std::int64_t tile, std::int64_t sms, std::int64_t from) {
  return mode >= 4 && tile + (mode - 3) * sms >= from ? tile + (mode - 3) * sms : -1;
}

/// No tile is asked for ahead (first_tile_asked where nothing asks ahead).
constexpr std::int64_t never_asked = INT64_MAX;

/// The first tile an earlier tile asks the L2 for (tile_ahead's `from`), `ahead` SMs' worth of tiles ahead
/// on `sms` SMs, when the first `quiet` blocks an SM ask for nothing ahead (their loads go alone); with
/// `ahead` 0 or less, never_asked. The keyed agent: quiet 0 (every tile asks); the compaction: one wave
/// (compact_tuning).
///
///   first_tile_asked(1, 132, 0) -> 132;   first_tile_asked(1, 132, 5) -> 792
///   first_tile_asked(0, 132, 5) -> never_asked
CARRY_HD constexpr std::int64_t first_tile_asked(int ahead, std::int64_t sms, int quiet) {
  return ahead > 0 ? sms * (quiet + ahead) : never_asked;
}

/// Whether a staged block (launch index `block`) asks the L2 for the tile launch order would give it,
/// before it takes its ticket (staged_tile_policy's PREFETCH `mode`: 0 never, 1 always, 2 only beyond
/// one wave of `resident` blocks, 4 and up as 1), in every mode only the blocks below `from`, the first
/// tile an earlier tile asks for (first_tile_asked: no two asks for one tile). Only full tiles (every one
/// but the last) from 16-byte aligned input.
CARRY_HD constexpr bool prefetch_guessed_tile(int mode, std::int64_t block, std::int64_t num_tiles,
                                              std::int64_t resident, bool aligned,
                                              std::int64_t from = never_asked) {
  return mode != 0 && aligned && block < num_tiles - 1 && (mode != 2 || num_tiles > resident) && block < from;
}

// ---- warp-striped chunks (the small-input path) ----

/// Items of T in one chunk of a warp-striped segment: 16 bytes' worth when T packs into 16 bytes
/// exactly (1-, 2-, 4- and 8-byte types), else one item.
template <class T>
constexpr int chunk_items() {
  return sizeof(T) < 16 && 16 % sizeof(T) == 0 ? static_cast<int>(16 / sizeof(T)) : 1;
}

/// Whether a pointer allows 16-byte chunk accesses of T (checked once per launch, on the host).
template <class T>
CARRY_HD inline bool chunk_aligned(const void* p) {
  return chunk_items<T>() > 1 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

/// Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte (an in-place or aliased call).
CARRY_HD inline bool ranges_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}
/// Whether two arrays of `bytes` bytes overlap.
CARRY_HD inline bool ranges_overlap(const void* a, const void* b, std::size_t bytes) {
  return ranges_overlap(a, bytes, b, bytes);
}

} // namespace detail
} // namespace carry
