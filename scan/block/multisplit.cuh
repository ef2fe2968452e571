// Block multisplit: the stable rank of each item of a tile among the items of its digit, by per-warp digit
// counts and the engine's block scan over them (the ranking step of a counting sort or a radix pass).
#pragma once

#include <cstdint>

#include "../block_scan.cuh"
#include "../util/warp.cuh"
#include "../operators.hpp"
#include "../tuning.hpp"

namespace carry {
namespace block {

/// How the lanes of a warp holding the same digit find each other in phase 1 of multisplit::rank.
enum class peer_method {
  match_any, ///< __match_any_sync on the digit
  ballot,    ///< one __ballot_sync per digit bit, the lanes agreeing on every bit
  atomic_or  ///< each lane ORs its bit into its digit's mask in shared memory, then reads the mask
};

/// How phase 1 of multisplit::rank keeps a warp's running count of each digit.
enum class count_method {
  load_store,   ///< every lane reads its digit's count, the group's lowest lane stores count + group size
                ///< (a shared load and a dependent store a round, four warp barriers around them)
  leader_atomic ///< the group's lowest lane adds the group size with one shared atomicAdd and shuffles
                ///< the old count to its group; the warp barrier that ends a round orders one round's
                ///< atomics before the next round's, so equal digits keep their order (CUB's sm_90
                ///< onesweep ranks so)
};

/// How multisplit::rank_by / rank_early_by treat the tile's items at and past `valid`:
enum class tile_fill {
  checked, ///< every item is checked against `valid`; dead items take no part
  whole,   ///< the caller knows valid == the tile's items: no item is checked, no round takes a ballot
  padded   ///< dead items rank as the last digit, so after every live item (positions >= valid), with no
           ///< check or ballot in the rounds; start(d), count(d, valid) and on_counts leave them out
};

/// Ranks a tile of BLOCK_THREADS x ITEMS items by a digit of RADIX_BITS bits, stably: item i goes to
/// position (items of smaller digits in the tile) + (items of its digit before it in the tile).
///
/// Items are warp-striped: warp w holds tile items w*32*ITEMS .. (w+1)*32*ITEMS - 1, its lane l holding
/// item w*32*ITEMS + j*32 + l as its j-th (a warp's loads of one j are one coalesced run). Phases:
///   1. each warp walks its rounds j in order; the lanes of one digit find each other (PEERS), each
///      takes the digit's running warp count plus its rank among them, and the group's lowest lane adds
///      the group's size to the count (COUNTS: a load and a store, or one atomicAdd whose old value is
///      shuffled to the group; a warp owns its counters);
///   2. the engine's block scan runs over the counts in digit-major order (digit d of warp w after every
///      smaller digit and after digit d of warps below w);
///   3. each item's position = its digit's scanned start for its warp + its rank in phase 1.
///
///   8 items, digits [1 0 1 1 0 2 0 1]  ->  positions [3 0 4 5 1 7 2 6]
/// SCAN_WARPS: the warp scan of phase 2's block scan (warp_scan_shape; a tile's ranking is one latency
/// chain, so Kogge-Stone's 5 steps by default).
template <int BLOCK_THREADS, int ITEMS, int RADIX_BITS, peer_method PEERS = peer_method::match_any,
          count_method COUNTS = count_method::load_store,
          warp_scan_shape SCAN_WARPS = warp_scan_shape::kogge_stone>
struct multisplit {
  static constexpr int radix = 1 << RADIX_BITS;
  static constexpr int warps = BLOCK_THREADS / detail::warp_threads;
  static constexpr int tile_items = BLOCK_THREADS * ITEMS;
  static constexpr int counters = radix * warps;
  static_assert(BLOCK_THREADS % detail::warp_threads == 0, "carry: multisplit blocks are whole warps");
  static_assert(counters % BLOCK_THREADS == 0, "carry: radix x warps must be a multiple of the block size");
  static constexpr int scan_items = counters / BLOCK_THREADS;
  using scan_t =
      block_scan<std::uint32_t, BLOCK_THREADS, block_scan_algorithm::coarsened, scan_items, SCAN_WARPS>;
  struct temp_storage {
    std::uint32_t count[warps][radix]; // warp-major while counting (each lane's digit: its own bank)
    std::uint32_t mask[PEERS == peer_method::atomic_or ? warps : 1][radix]; // atomic_or: lanes of a digit
    typename scan_t::temp_storage scan;
  };

  /// The lanes of `active` whose digit equals d (this lane's; `live`: this lane takes part).
  __device__ static unsigned peers_of(temp_storage& ts, unsigned active, bool live, unsigned d, int warp,
                                      int lane) {
    if constexpr (PEERS == peer_method::match_any) {
      return live ? __match_any_sync(active, d) : 0u;
    } else if constexpr (PEERS == peer_method::ballot) {
      unsigned peers = active;
      CARRY_UNROLL
      for (int b = 0; b < RADIX_BITS; ++b) {
        const bool bit = (d >> b) & 1u;
        const unsigned m = __ballot_sync(0xffffffffu, bit);
        peers &= bit ? m : ~m;
      }
      return live ? peers : 0u;
    } else {
      if (live) atomicOr(&ts.mask[warp][d], 1u << lane);
      __syncwarp();
      const unsigned peers = live ? ts.mask[warp][d] : 0u;
      __syncwarp();
      if (live && lane == __ffs(peers) - 1) ts.mask[warp][d] = 0; // clear for the next round
      return peers;
    }
  }

  /// The tile index of a thread's j-th item.
  __device__ static int item_index(int j) {
    const int lane = threadIdx.x % detail::warp_threads, warp = threadIdx.x / detail::warp_threads;
    return warp * detail::warp_threads * ITEMS + j * detail::warp_threads + lane;
  }

  /// Positions of the first `valid` items of the tile (`digit[j]` < radix for those); dead items get
  /// nothing. On return (after a barrier) start(d) and count(d) describe digit d in the tile.
  __device__ static void rank(temp_storage& ts, const unsigned (&digit)[ITEMS], int valid,
                              int (&position)[ITEMS]) {
    rank_by(
        ts, [&](int j) { return digit[j]; }, valid, position);
  }

  /// rank with the digits asked for, not held: digit_at(j) (< radix) is the digit of the thread's j-th
  /// item, called for live items only, once per phase. A caller whose digit is a shift and a mask of
  /// a key it holds anyway saves ITEMS registers (the radix pass: no spills at 64 registers a thread).
  /// FILL (tile_fill): how items at and past `valid` are treated; whole and padded rank every item of
  /// the tile with no per-item branch (a dead item's position is computed and must not be used).
  template <tile_fill FILL = tile_fill::checked, class DigitAt>
  __device__ static void rank_by(temp_storage& ts, DigitAt digit_at, int valid, int (&position)[ITEMS]) {
    if constexpr (FILL == tile_fill::padded)
      rank_all_by<true>(
          ts, [&](int j) { return padded_digit(digit_at, valid, j); }, tile_items, position);
    else
      rank_all_by<FILL == tile_fill::whole>(ts, digit_at, valid, position);
  }

  /// rank_by with the tile's digit counts known before the ranking rounds (CUB's onesweep "early
  /// counts"): a histogram of fire-and-forget shared atomics, the block scan, then
  /// on_counts(start, count) on every thread d < radix (one thread a digit; with more threads than
  /// digits, after one more barrier) with where digit d starts in the tile and how many items have it,
  /// then the rounds of rank_by's phase 1 counting up from each warp's scanned start, so they give
  /// final positions. A caller publishes its tile's counts in on_counts, ahead of the rounds (a radix
  /// pass's look-back successors wait less). start() and count() are NOT valid afterwards: keep what
  /// on_counts was given. FILL as in rank_by (padded: the last digit's count leaves the dead items out).
  template <tile_fill FILL = tile_fill::checked, class DigitAt, class OnCounts>
  __device__ static void rank_early_by(temp_storage& ts, DigitAt digit_at, int valid, int (&position)[ITEMS],
                                       OnCounts on_counts) {
    rank_early_place_by<FILL>(ts, digit_at, valid, on_counts, [&](int j, int p) { position[j] = p; });
  }

  /// rank_early_by that hands each item's final position to place(j, p) in the item's ranking round
  /// instead of keeping ITEMS positions: a caller can stage item j at p at once (its tile stage must not
  /// share bytes with `ts`) and hold no positions. place is called for the live items, and with
  /// FILL == padded or whole for every item (a dead item's p is >= valid).
  template <tile_fill FILL = tile_fill::checked, class DigitAt, class OnCounts, class Place>
  __device__ static void rank_early_place_by(temp_storage& ts, DigitAt digit_at, int valid,
                                             OnCounts on_counts, Place place) {
    if constexpr (FILL == tile_fill::padded) {
      const int dead = tile_items - valid;
      rank_early_all_by<true>(
          ts, [&](int j) { return padded_digit(digit_at, valid, j); }, tile_items, place,
          [&](int s, int c) {
            if (threadIdx.x == radix - 1) c -= dead;
            on_counts(s, c);
          });
    } else {
      rank_early_all_by<FILL == tile_fill::whole>(ts, digit_at, valid, place, on_counts);
    }
  }

private:
  /// A padded tile's digit of item j: a dead item's is the last digit.
  template <class DigitAt>
  __device__ static unsigned padded_digit(const DigitAt& digit_at, int valid, int j) {
    return item_index(j) < valid ? static_cast<unsigned>(digit_at(j)) : unsigned{radix - 1};
  }

  /// rank_by's work; FULL: every item is live.
  template <bool FULL, class DigitAt>
  __device__ static void rank_all_by(temp_storage& ts, DigitAt digit_at, int valid, int (&position)[ITEMS]) {
    clear(ts);
    // ---- phase 1: ranks within the warp, running counts per digit from zero ----
    rounds<FULL>(ts, digit_at, valid, [&](int j, int p) { position[j] = p; });
    __syncthreads();
    // ---- phase 2: the engine's block scan over the counts, digit-major ----
    std::uint32_t c[scan_items];
    scan_counts(ts, c);
    __syncthreads();
    // ---- phase 3: positions ----
    const int warp = threadIdx.x / detail::warp_threads;
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j)
      if (FULL || item_index(j) < valid)
        position[j] += static_cast<int>(ts.count[warp][static_cast<unsigned>(digit_at(j))]);
  }

  /// rank_early_place_by's work; FULL: every item is live.
  template <bool FULL, class DigitAt, class Place, class OnCounts>
  __device__ static void rank_early_all_by(temp_storage& ts, DigitAt digit_at, int valid, Place place,
                                           OnCounts on_counts) {
    static_assert(radix <= BLOCK_THREADS,
                  "carry: rank_early_by gives one digit to each of the first radix threads");
    const int warp = threadIdx.x / detail::warp_threads;
    // a warp whose items all hold one digit (uniform_warp: inputs grouped by the digit) counts and ranks
    // them without shared atomics, whose lanes would all meet on one counter
    const bool uniform = FULL && tuning::multisplit_uniform_warps && uniform_warp(digit_at);
    clear(ts);
    // ---- phase 1: the warps' digit counts (shared atomics without return) ----
    if (uniform) {
      if (threadIdx.x % detail::warp_threads == 0)
        ts.count[warp][static_cast<unsigned>(digit_at(0))] =
            static_cast<std::uint32_t>(detail::warp_threads * ITEMS);
    } else {
      CARRY_UNROLL
      for (int j = 0; j < ITEMS; ++j)
        if (FULL || item_index(j) < valid) atomicAdd(&ts.count[warp][static_cast<unsigned>(digit_at(j))], 1u);
    }
    __syncthreads();
    std::uint32_t c[scan_items];
    if constexpr (radix == BLOCK_THREADS) {
      // ---- phase 2: the block scan; thread d's scan items are digit d of warps 0 .. warps - 1 ----
      const std::uint32_t total = scan_counts(ts, c);
      on_counts(static_cast<int>(c[0]), static_cast<int>(total));
    } else {
      // ---- phase 2: the block scan (a thread's scan items span digits); after its write-back, thread
      // d < radix reads digit d's start and count as rank_by's callers do (`valid`: every counted item) ----
      scan_counts(ts, c);
      __syncthreads();
      const int d = static_cast<int>(threadIdx.x);
      if (d < radix) on_counts(start(ts, d), count(ts, d, valid));
    }
    __syncthreads();
    // ---- phase 3: ranks within the warp from the warp's start of each digit: the positions (a uniform
    // warp's item j of lane l: the warp's start + 32 j + l, as its rounds would give) ----
    if (uniform) {
      const std::uint32_t first = ts.count[warp][static_cast<unsigned>(digit_at(0))];
      const int lane = threadIdx.x % detail::warp_threads;
      CARRY_UNROLL
      for (int j = 0; j < ITEMS; ++j) place(j, static_cast<int>(first) + j * detail::warp_threads + lane);
    } else {
      rounds<FULL>(ts, digit_at, valid, place);
    }
  }

  /// Whether every item of this warp holds lane 0's first digit (every item live): one vote an item, the
  /// walk ending at the first item where a lane differs (after one vote on most inputs).
  template <class DigitAt>
  __device__ static bool uniform_warp(const DigitAt& digit_at) {
    const unsigned first = __shfl_sync(0xffffffffu, static_cast<unsigned>(digit_at(0)), 0);
    bool same = true;
    for (int j = 0; j < ITEMS && same; ++j)
      same = __all_sync(0xffffffffu, static_cast<unsigned>(digit_at(j)) == first);
    return same;
  }

  /// Zeroes the counters (and the peer masks); ends with a barrier.
  __device__ static void clear(temp_storage& ts) {
    std::uint32_t* flat = &ts.count[0][0];
    for (int i = threadIdx.x; i < counters; i += BLOCK_THREADS) flat[i] = 0;
    if constexpr (PEERS == peer_method::atomic_or)
      for (int i = threadIdx.x; i < counters; i += BLOCK_THREADS) (&ts.mask[0][0])[i] = 0;
    __syncthreads();
  }

  /// Each warp walks its rounds j in order; the lanes of one digit find each other (PEERS), each takes
  /// the digit's running warp count plus its rank among them, and the group's lowest lane adds the
  /// group's size to the count (COUNTS); item j's rank goes to place(j, rank) in its round. FULL: every
  /// item is live.
  template <bool FULL, class DigitAt, class Place>
  __device__ static void rounds(temp_storage& ts, DigitAt digit_at, int valid, Place place) {
    const int lane = threadIdx.x % detail::warp_threads, warp = threadIdx.x / detail::warp_threads;
    const unsigned below = (1u << lane) - 1u;
    CARRY_UNROLL
    for (int j = 0; j < ITEMS; ++j) {
      const bool live = FULL || item_index(j) < valid;
      const unsigned active = FULL ? 0xffffffffu : __ballot_sync(0xffffffffu, live);
      const unsigned dj = live ? static_cast<unsigned>(digit_at(j)) : 0u;
      const unsigned peers = peers_of(ts, active, live, dj, warp, lane);
      if constexpr (COUNTS == count_method::load_store) {
        if (live) {
          const std::uint32_t before = ts.count[warp][dj];
          place(j, static_cast<int>(before) + __popc(peers & below));
          __syncwarp(active);
          if (lane == __ffs(peers) - 1)
            ts.count[warp][dj] = before + static_cast<std::uint32_t>(__popc(peers));
        }
      } else {
        const int leader = live ? __ffs(peers) - 1 : lane; // a dead lane shuffles from itself
        std::uint32_t before = 0;
        if (live && lane == leader)
          before = atomicAdd(&ts.count[warp][dj], static_cast<std::uint32_t>(__popc(peers)));
        before = __shfl_sync(0xffffffffu, before, leader);
        if (live) place(j, static_cast<int>(before) + __popc(peers & below));
      }
      __syncwarp(); // this round's count updates happen before the next round's (stability)
    }
  }

  /// The engine's block scan over the counts in digit-major order (digit d of warp w after every smaller
  /// digit and after digit d of warps below w), written back in place; c: this thread's scanned items.
  /// Returns the sum of this thread's counts before the scan. Ends after the write-back (no barrier).
  __device__ static std::uint32_t scan_counts(temp_storage& ts, std::uint32_t (&c)[scan_items]) {
    std::uint32_t own = 0;
    CARRY_UNROLL
    for (int k = 0; k < scan_items; ++k) {
      const int f = threadIdx.x * scan_items + k; // digit-major index: digit f / warps, warp f % warps
      c[k] = ts.count[f % warps][f / warps];
      own += c[k];
    }
    std::uint32_t total;
    scan_t(ts.scan).exclusive_scan(c, 0u, sum{}, total);
    __syncthreads(); // every count read before any is overwritten
    CARRY_UNROLL
    for (int k = 0; k < scan_items; ++k) {
      const int f = threadIdx.x * scan_items + k;
      ts.count[f % warps][f / warps] = c[k];
    }
    return own;
  }

public:
  /// Where digit d starts in the ranked tile (valid after rank).
  __device__ static int start(const temp_storage& ts, int d) { return static_cast<int>(ts.count[0][d]); }
  /// How many of the tile's items have digit d (valid after rank; `valid` as given to rank).
  __device__ static int count(const temp_storage& ts, int d, int valid) {
    return (d + 1 < radix ? static_cast<int>(ts.count[0][d + 1]) : valid) - static_cast<int>(ts.count[0][d]);
  }
};

} // namespace block
} // namespace carry
