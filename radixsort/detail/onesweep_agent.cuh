// The onesweep pass's agent (Adinets & Merrill 2022) on the engine's pieces: the block multisplit ranks a
// tile, the engine's vector look-back (one chain per digit, packed 32-bit count words) gives each digit's
// global offset, and a staged scatter writes runs.
#pragma once

#include <cstdint>

#include "../../scan/util/launch.cuh"
#include "../../scan/lookback/look_back.cuh"
#include "../../scan/lookback/prepare.cuh"
#include "../../scan/lookback/status.cuh"
#include "../../scan/lookback/ticket.cuh"
#include "../../scan/operators.hpp"
#include "digit.cuh"
#include "plan.hpp"

namespace carry {
namespace radix_detail {

/// One onesweep launch: pass `pass` over one portion of the input.
struct onesweep_args {
  detail::tile_plan tiles;     // the whole input
  std::int64_t first_tile = 0; // the portion's tiles: first_tile .. first_tile + portion_tiles - 1
  std::int64_t portion_tiles = 0;
  std::int64_t portion = 0;
  int pass = 0;
  int host_passes = 0;
  void* state = nullptr; // this launch's state set: ticket counter, then tiles x 256 packed words
  std::size_t words_offset = 0;
  // alternating sets (sort_layout::alternate): `state` is the first of the sets of set_bytes; the kernel
  // takes set j % 2 for executed pass j and, when a pass j + 1 runs (so there are two sets), sets
  // next_state to the set it will take
  bool alternate = false;
  std::size_t set_bytes = 0;
  void* next_state = nullptr; // the set whose words (and ticket counter) this pass's tiles zero
  // the bucket form's MSD pass (onesweep_kernel's MSD): the call's bits, to find its digit on the device
  int begin_bit = 0, end_bit = 0;
  bool descending = false;
};

/// One onesweep tile: tile t of the portion (t from a ticket, so its predecessors run or ran).
///   load and rank the tile (multisplit); thread d publishes the tile's count of digit d in chain d
///   (early counts: before the ranking rounds, as soon as the tile's histogram is scanned), looks back
///   along chain d (lookback::look_back_chain, spinning: a back-off measured slower) and publishes its
///   inclusive count;
///   the digit's global offset = the portion's base for d (histogram offsets plus earlier portions)
///   + the look-back's count; the portion's last tile leaves the next portion's bases;
///   scatter keys, then values, through shared memory (ends with a barrier: `ts` is free again); with
///   PLACED storage (places_keys) each key went to the stage in its ranking round, and `pos` is unused.
/// FULL: the tile is whole (every tile but the input's last), so no item is checked against `valid`
/// (block::tile_fill::whole). Otherwise only the loads and the scatter check, and the ranking is
/// block::tile_fill::padded (padded_form: radix_tuning::padded_partial_tiles): every dead item ranks as the
/// last digit, after every live item, at a staged position >= valid, never written; the published count
/// leaves the dead items out. Both rank without a check or a ballot a round.
template <bool FULL, int ITEMS, bool HAS_VALUES, class K, class V, class Digit, bool PLACED, int THREADS,
          class P>
__device__ __forceinline__ void
onesweep_tile(staged_tile_storage<ITEMS, HAS_VALUES, K, V, Digit, P::counts, PLACED, THREADS, P>& ts,
              std::int64_t t, const K* ksrc, K* kdst, const V* vsrc_all, V* vdst, const onesweep_args& a,
              const Digit& digit, std::uint64_t* bases) {
  using ms = typename std::remove_reference_t<decltype(ts)>::ranker;
  constexpr int radix = radix_tuning::radix;
  const std::int64_t tile = a.first_tile + t;
  const std::int64_t base = a.tiles.tile_base(tile);
  const int valid = a.tiles.valid_items(tile);
  // ---- load ----
  K key[ITEMS];
  int pos[ITEMS];
  const auto digit_at = [&](int i) {
    return static_cast<unsigned>(digit.bin_of(key[i]));
  }; // recomputed: no registers held
  constexpr block::tile_fill fill = FULL                                      ? block::tile_fill::whole
                                    : padded_form<HAS_VALUES, K, V, Digit, P> ? block::tile_fill::padded
                                                                              : block::tile_fill::checked;
  load_keys<ITEMS, FULL>(ksrc + base, valid, key);
  const lookback::chain_view<lookback::packed_counts> view{
      lookback::packed_counts::bind(static_cast<char*>(a.state) + a.words_offset), radix};
  const int dd = threadIdx.x;
  // thread dd owns digit dd (always, with one thread a digit; the first radix threads otherwise)
  const bool owns_digit = THREADS == radix || dd < radix;
  // ---- the next executed pass's words of this tile, zeroed (alternating sets; that set's last user
  // was the pass before this one, a finished launch; its next user is a later launch) ----
  if (a.next_state != nullptr && owns_digit) {
    char* next = static_cast<char*>(a.next_state);
    reinterpret_cast<std::uint32_t*>(next + a.words_offset)[lookback::chain_index(t, dd, radix)] = 0;
    if (t == 0 && dd == 0) *reinterpret_cast<std::uint32_t*>(next) = 0; // its ticket counter
  }
  std::uint32_t count = 0; // the tile's keys of digit dd
  int start = 0;           // where digit dd starts in the ranked tile
  // ---- rank (the multisplit); thread dd publishes the tile's count of digit dd in chain dd: with early
  // counts as soon as they are known, before the ranking rounds (radix_tuning::early_counts) ----
  if constexpr (P::early_counts) {
    const auto on_counts = [&](int s, int c) {
      view.publish(t, dd, t == 0 ? lookback::state_prefix : lookback::state_aggregate,
                   static_cast<std::uint32_t>(c));
      // start and count wait in thread dd's own adjust slot across the rounds (ptxas showed the same
      // spills with them in registers; the slot costs a shared store and load a tile)
      ts.adjust[dd] = std::uint64_t{static_cast<std::uint32_t>(c)} << 32 | static_cast<std::uint32_t>(s);
    };
    if constexpr (PLACED) // each key to the stage in its round: no positions held
                          // (radix_tuning::placed_stage)
      ms::template rank_early_place_by<fill>(ts.rank, digit_at, valid, on_counts,
                                             [&](int j, int p) { ts.stage().keys[p] = key[j]; });
    else
      ms::template rank_early_by<fill>(ts.rank, digit_at, valid, pos, on_counts);
    if (owns_digit) {
      const std::uint64_t kept = ts.adjust[dd];
      start = static_cast<int>(kept & 0xffffffffu), count = static_cast<std::uint32_t>(kept >> 32);
    }
  } else {
    ms::template rank_by<fill>(ts.rank, digit_at, valid, pos);
    if (owns_digit) {
      start = ms::start(ts.rank, dd), count = static_cast<std::uint32_t>(ms::count(ts.rank, dd, valid));
      view.publish(t, dd, t == 0 ? lookback::state_prefix : lookback::state_aggregate, count);
    }
  }
  // ---- look-back, one chain per digit: fold the counts of the tiles before this one, publish the
  // inclusive count; then the tile's global digit offsets ----
  if (owns_digit) {
    std::uint32_t before = 0; // digit dd's keys in the portion's tiles before this one
    if (t != 0) {
      before = lookback::look_back_chain<0, radix_tuning::lookback_window<P, HAS_VALUES>>(
          view, t, dd, std::uint32_t{0}, sum{});
      view.publish(t, dd, lookback::state_prefix, before + count);
    }
    std::uint64_t* portion_base = bases + a.pass * 2 * radix;
    const std::uint64_t b = portion_base[(a.portion & 1) * radix + dd];
    if (t == a.portion_tiles - 1) portion_base[((a.portion + 1) & 1) * radix + dd] = b + before + count;
    ts.adjust[dd] = b + before - static_cast<std::uint64_t>(start);
  }
  // ---- scatter through shared memory (its first barrier publishes the adjustments) ----
  scatter_tile<ITEMS, HAS_VALUES, FULL>(ts, digit, key, digit_at, pos, valid, kdst,
                                        HAS_VALUES ? vsrc_all + base : nullptr, vdst);
}

/// The shared memory of a onesweep tile of THREADS x ITEMS (the large tile shape places keys: places_keys).
/// THREADS: tile_shape's, or the wide tile's (radix_tuning::wide_threads).
template <int ITEMS, bool HAS_VALUES, class K, class V, class Digit, int THREADS = tile_shape<K, V>::threads,
          class P = radix_tuning::default_policy>
using onesweep_storage =
    staged_tile_storage<ITEMS, HAS_VALUES, K, V, Digit, P::counts,
                        places_keys<HAS_VALUES, Digit, ITEMS == tile_shape<K, V, P>::items, sizeof(K), P>,
                        THREADS, P>;

/// Blocks an SM a onesweep kernel of THREADS threads must allow: tile_shape's blocks radix_tuning::
/// onesweep_min_blocks, the wide tile's radix_tuning::wide_min_blocks.
template <bool HAS_VALUES, class K, class V, int THREADS, class P = radix_tuning::default_policy>
constexpr int pass_min_blocks = THREADS == tile_shape<K, V, P>::threads
                                    ? radix_tuning::onesweep_min_blocks<P, HAS_VALUES, sizeof(K), sizeof(V)>
                                    : P::min_blocks_wide;

} // namespace radix_detail
} // namespace carry
